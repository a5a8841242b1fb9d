"""Replay leases: which process analyses a replay with a model and language (a batch takes one per replay).

Revision ID: leases_0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "leases_0001"
down_revision = "base_0001"
branch_labels = ("leases",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "replay_leases",
        sa.Column("replay_sha256", sa.String(64), primary_key=True),
        sa.Column("model_label", sa.Text(), primary_key=True),
        sa.Column("lang", sa.String(8), primary_key=True),
        sa.Column("owner", sa.String(200), nullable=False),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("replay_leases")
