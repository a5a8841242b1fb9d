"""Covering indexes for the monthly scorecard (its six months read 100,000 facts twice each without them).

Evidence density reads (created_at, evidence_count) and preference lead time (type, activated_at, lead_days):
with both in an index SQLite answers from the index alone, 460 ms of a scorecard refresh before.

Revision ID: memory_0004
Revises: memory_0003
"""

from __future__ import annotations

from alembic import op

revision = "memory_0004"
down_revision = "memory_0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_memory_facts_created_evidence", "memory_facts", ["created_at", "evidence_count"])
    op.create_index("ix_memory_facts_type_activated_lead", "memory_facts", ["type", "activated_at", "lead_days"])


def downgrade() -> None:
    op.drop_index("ix_memory_facts_type_activated_lead", table_name="memory_facts")
    op.drop_index("ix_memory_facts_created_evidence", table_name="memory_facts")
