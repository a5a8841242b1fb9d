"""An index for the facts list sorted by confidence (the side tab pages through 100,000 facts in SQL).

Revision ID: memory_0003
Revises: memory_0002
"""

from __future__ import annotations

from alembic import op

revision = "memory_0003"
down_revision = "memory_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_memory_facts_confidence_id", "memory_facts", ["confidence", "id"])


def downgrade() -> None:
    op.drop_index("ix_memory_facts_confidence_id", table_name="memory_facts")
