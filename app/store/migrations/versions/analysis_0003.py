"""Stage outcomes and the run lease: how each stage's reply ended; which process owns a running analysis.

Revision ID: analysis_0003
Revises: analysis_0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "analysis_0003"
down_revision = "analysis_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("analysis_stages") as batch:
        batch.add_column(sa.Column("outcome", sa.String(20), nullable=False, server_default=""))
    # stages stored before outcomes existed: a done stage ended normally (as far as anyone knew)
    op.execute("UPDATE analysis_stages SET outcome = 'stop' WHERE status = 'done'")
    with op.batch_alter_table("analyses") as batch:
        batch.add_column(sa.Column("owner", sa.String(200), nullable=False, server_default=""))
        batch.add_column(sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("analyses") as batch:
        batch.drop_column("heartbeat_at")
        batch.drop_column("owner")
    with op.batch_alter_table("analysis_stages") as batch:
        batch.drop_column("outcome")
