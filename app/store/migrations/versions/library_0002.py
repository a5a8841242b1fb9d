"""Replays opened in the window, remembered so the library lists them at the next start (issue 30, item 9).

Revision ID: library_0002
Revises: library_0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "library_0002"
down_revision = "library_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "library_opened",
        sa.Column("path", sa.Text(), primary_key=True),
        sa.Column("opened_at", sa.Float(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("library_opened")
