"""Provider rate ledger: when each provider's next request may start, its token horizon, and a server's pause.

Revision ID: rates_0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "rates_0001"
down_revision = "base_0001"
branch_labels = ("rates",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rate_slots",
        sa.Column("key", sa.String(200), primary_key=True),
        sa.Column("next_request_at", sa.Float(), nullable=False),
        sa.Column("next_token_at", sa.Float(), nullable=False),
        sa.Column("blocked_until", sa.Float(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("rate_slots")
