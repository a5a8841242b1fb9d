"""Semantic memory: episodes, observations, facts, sources, supersede links, review queue, verdicts, batches.

Revision ID: memory_0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "memory_0001"
down_revision = "base_0001"
branch_labels = ("memory",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "memory_episodes",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("ts", sa.Float(), nullable=False),
        sa.Column("analysis_id", sa.Integer(), nullable=True),
        sa.Column("replay_hash", sa.String(128), nullable=False),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("analyst", sa.String(200), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("produced_by", sa.String(64), nullable=False),
    )
    op.create_index("ix_memory_episodes_ts", "memory_episodes", ["ts"])
    op.create_table(
        "memory_observations",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("episode_id", sa.Integer(), sa.ForeignKey("memory_episodes.id"), nullable=False),
        sa.Column("subject", sa.String(300), nullable=False),
        sa.Column("attribute", sa.String(200), nullable=False),
        sa.Column("value", sa.String(500), nullable=False),
        sa.Column("context", sa.Text(), nullable=False),
        sa.Column("candidate", sa.Text(), nullable=False),
        sa.Column("committed", sa.Boolean(), nullable=False),
    )
    op.create_index("ix_memory_observations_key", "memory_observations", ["subject", "attribute"])
    op.create_index("ix_memory_observations_episode_id", "memory_observations", ["episode_id"])
    op.create_index("ix_memory_observations_committed", "memory_observations", ["committed"])
    op.create_table(
        "memory_facts",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("type", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("subject", sa.String(300), nullable=False),
        sa.Column("attribute", sa.String(200), nullable=False),
        sa.Column("value", sa.String(500), nullable=False),
        sa.Column("content_zh", sa.Text(), nullable=False),
        sa.Column("content_en", sa.Text(), nullable=False),
        sa.Column("scope", sa.Text(), nullable=False),
        sa.Column("fields", sa.Text(), nullable=False),
        sa.Column("mechanism", sa.Text(), nullable=False),
        sa.Column("generalizes", sa.Boolean(), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("evidence_count", sa.Integer(), nullable=False),
        sa.Column("contradiction_count", sa.Integer(), nullable=False),
        sa.Column("reuse_count", sa.Integer(), nullable=False),
        sa.Column("method", sa.String(32), nullable=False),
        sa.Column("produced_by", sa.String(64), nullable=False),
        sa.Column("approved_by", sa.String(200), nullable=False),
        sa.Column("supersedes_id", sa.Integer(), nullable=True),
        sa.Column("superseded_by_id", sa.Integer(), nullable=True),
        sa.Column("chain_depth", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=False),
        sa.Column("activated_at", sa.Float(), nullable=True),
        sa.Column("lead_days", sa.Float(), nullable=True),
        sa.Column("last_evidence_at", sa.Float(), nullable=False),
        sa.Column("last_used_at", sa.Float(), nullable=True),
        sa.Column("confirmed_at", sa.Float(), nullable=True),
        sa.Column("dormant", sa.Boolean(), nullable=False),
    )
    op.create_index("ix_memory_facts_key", "memory_facts", ["subject", "attribute"])
    op.create_index("ix_memory_facts_type", "memory_facts", ["type"])
    op.create_index("ix_memory_facts_status", "memory_facts", ["status"])
    op.create_index("ix_memory_facts_produced_by", "memory_facts", ["produced_by"])
    op.create_index("ix_memory_facts_created_at", "memory_facts", ["created_at"])
    op.create_table(
        "memory_sources",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("fact_id", sa.Integer(), sa.ForeignKey("memory_facts.id"), nullable=False),
        sa.Column("episode_id", sa.Integer(), sa.ForeignKey("memory_episodes.id"), nullable=True),
        sa.Column("ts", sa.Float(), nullable=False),
        sa.Column("quote", sa.Text(), nullable=False),
        sa.Column("polarity", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("dedupe", sa.String(200), nullable=False),
        sa.Column("context", sa.Text(), nullable=False),
    )
    op.create_index("ix_memory_sources_fact_id", "memory_sources", ["fact_id"])
    op.create_index("ix_memory_sources_episode_id", "memory_sources", ["episode_id"])
    op.create_table(
        "memory_supersedes",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("old_fact_id", sa.Integer(), sa.ForeignKey("memory_facts.id"), nullable=False),
        sa.Column("new_fact_id", sa.Integer(), sa.ForeignKey("memory_facts.id"), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("flipped_back_at", sa.Float(), nullable=True),
        sa.Column("reason", sa.String(200), nullable=False),
    )
    op.create_index("ix_memory_supersedes_old_fact_id", "memory_supersedes", ["old_fact_id"])
    op.create_index("ix_memory_supersedes_new_fact_id", "memory_supersedes", ["new_fact_id"])
    op.create_index("ix_memory_supersedes_created_at", "memory_supersedes", ["created_at"])
    op.create_table(
        "memory_queue",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("fact_id", sa.Integer(), sa.ForeignKey("memory_facts.id"), nullable=False),
        sa.Column("other_fact_id", sa.Integer(), sa.ForeignKey("memory_facts.id"), nullable=True),
        sa.Column("episode_id", sa.Integer(), sa.ForeignKey("memory_episodes.id"), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("resolved_at", sa.Float(), nullable=True),
        sa.Column("resolution", sa.String(32), nullable=False),
        sa.Column("reviewer", sa.String(200), nullable=False),
    )
    op.create_index("ix_memory_queue_kind", "memory_queue", ["kind"])
    op.create_index("ix_memory_queue_fact_id", "memory_queue", ["fact_id"])
    op.create_index("ix_memory_queue_created_at", "memory_queue", ["created_at"])
    op.create_index("ix_memory_queue_resolved_at", "memory_queue", ["resolved_at"])
    op.create_table(
        "memory_verdicts",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("fact_id", sa.Integer(), sa.ForeignKey("memory_facts.id"), nullable=True),
        sa.Column("queue_item_id", sa.Integer(), sa.ForeignKey("memory_queue.id"), nullable=True),
        sa.Column("reviewer", sa.String(200), nullable=False),
        sa.Column("verdict", sa.String(32), nullable=False),
        sa.Column("audit", sa.Boolean(), nullable=False),
        sa.Column("ts", sa.Float(), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
    )
    op.create_index("ix_memory_verdicts_fact_id", "memory_verdicts", ["fact_id"])
    op.create_index("ix_memory_verdicts_ts", "memory_verdicts", ["ts"])
    op.create_table(
        "memory_batches",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("track", sa.String(16), nullable=False),
        sa.Column("started_at", sa.Float(), nullable=False),
        sa.Column("finished_at", sa.Float(), nullable=True),
        sa.Column("produced_by", sa.String(64), nullable=False),
        sa.Column("episodes", sa.Integer(), nullable=False),
        sa.Column("candidates", sa.Integer(), nullable=False),
        sa.Column("committed", sa.Integer(), nullable=False),
        sa.Column("blocked", sa.Integer(), nullable=False),
    )
    op.create_index("ix_memory_batches_started_at", "memory_batches", ["started_at"])
    op.create_table(
        "memory_injections",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("analysis_id", sa.Integer(), nullable=False),
        sa.Column("fact_id", sa.Integer(), sa.ForeignKey("memory_facts.id"), nullable=False),
        sa.Column("ts", sa.Float(), nullable=False),
    )
    op.create_index("ix_memory_injections_analysis_id", "memory_injections", ["analysis_id"])
    op.create_index("ix_memory_injections_fact_id", "memory_injections", ["fact_id"])
    op.create_table(
        "memory_promotions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("fact_id", sa.Integer(), sa.ForeignKey("memory_facts.id"), nullable=False),
        sa.Column("target", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("external_id", sa.String(100), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
    )
    op.create_index("ix_memory_promotions_fact_id", "memory_promotions", ["fact_id"])


def downgrade() -> None:
    for table in (
        "memory_promotions",
        "memory_injections",
        "memory_batches",
        "memory_verdicts",
        "memory_queue",
        "memory_supersedes",
        "memory_sources",
        "memory_facts",
        "memory_observations",
        "memory_episodes",
    ):
        op.drop_table(table)
