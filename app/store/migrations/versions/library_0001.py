"""Replay library header cache: a replay's listed summary by path, valid while size and mtime are unchanged.

Revision ID: library_0001
Revises: base_0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "library_0001"
down_revision = "base_0001"
branch_labels = ("library",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "library_files",
        sa.Column("path", sa.Text(), primary_key=True),
        sa.Column("folder", sa.Text(), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("mtime_ns", sa.BigInteger(), nullable=False),
        sa.Column("summary", sa.JSON(), nullable=False),
    )
    op.create_index("ix_library_files_folder", "library_files", ["folder"])


def downgrade() -> None:
    op.drop_index("ix_library_files_folder", table_name="library_files")
    op.drop_table("library_files")
