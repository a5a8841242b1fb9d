"""Base of the store: a key/value table for app-wide metadata.

Each domain (analysis, wisdom, memory) grows its own Alembic branch from this revision, so domains migrate
independently; ``upgrade heads`` applies them all.

Revision ID: base_0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "base_0001"
down_revision = None
branch_labels = ("base",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "app_meta",
        sa.Column("key", sa.String(100), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("app_meta")
