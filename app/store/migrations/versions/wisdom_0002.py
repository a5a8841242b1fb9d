"""Indexes for the entry list's sort orders (the side tab pages through 100,000 entries in SQL).

Revision ID: wisdom_0002
Revises: wisdom_0001
"""

from __future__ import annotations

from alembic import op

revision = "wisdom_0002"
down_revision = "wisdom_0001"
branch_labels = None
depends_on = None

INDEXES = {
    "ix_wisdom_entries_created_id": ["created_at", "id"],
    "ix_wisdom_entries_confidence_id": ["confidence", "id"],
    "ix_wisdom_entries_subtype_id": ["subtype_code", "id"],
    "ix_wisdom_entries_error_code_id": ["error_code", "id"],
}


def upgrade() -> None:
    for name, columns in INDEXES.items():
        op.create_index(name, "wisdom_entries", columns)


def downgrade() -> None:
    for name in INDEXES:
        op.drop_index(name, table_name="wisdom_entries")
