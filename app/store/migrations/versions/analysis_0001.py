"""Analysis records: analyses, stages, requests, outputs, claims, issues, lookbacks.

Revision ID: analysis_0001
Revises: base_0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "analysis_0001"
down_revision = "base_0001"
branch_labels = ("analysis",)
depends_on = None


def _stage_fk() -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(
        "stage_id", sa.Integer(), sa.ForeignKey("analysis_stages.id", ondelete="CASCADE"), nullable=False, index=True
    )


def upgrade() -> None:
    op.create_table(
        "analyses",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("replay_path", sa.Text(), nullable=False),
        sa.Column("replay_sha256", sa.String(64), nullable=False, index=True),
        sa.Column("replay_name", sa.Text(), nullable=False),
        sa.Column("model_label", sa.Text(), nullable=False),
        sa.Column("provider", sa.String(200), nullable=False),
        sa.Column("model_id", sa.String(200), nullable=False),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("plan", sa.JSON(), nullable=False),
        sa.Column("summary_text", sa.Text(), nullable=False),
        sa.Column("overview_text", sa.Text(), nullable=False),
        sa.Column("totals", sa.JSON(), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
    )
    op.create_table(
        "analysis_stages",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "analysis_id", sa.Integer(), sa.ForeignKey("analyses.id", ondelete="CASCADE"), nullable=False, index=True
        ),
        sa.Column("ordinal", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(40), nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("segment", sa.Integer(), nullable=False),
        sa.Column("window", sa.Integer(), nullable=False),
        sa.Column("start_seconds", sa.Float(), nullable=False),
        sa.Column("end_seconds", sa.Float(), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("reasoning", sa.Text(), nullable=False),
        sa.Column("found_fact", sa.Text(), nullable=False),
        sa.Column("claims", sa.JSON(), nullable=False),
        sa.Column("revised", sa.Boolean(), nullable=False),
        sa.Column("truncated", sa.Boolean(), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "analysis_requests",
        sa.Column("id", sa.Integer(), primary_key=True),
        _stage_fk(),
        sa.Column("purpose", sa.String(20), nullable=False),
        sa.Column("messages", sa.JSON(), nullable=False),
        sa.Column("breakdown", sa.JSON(), nullable=False),
        sa.Column("usage", sa.JSON(), nullable=False),
        sa.Column("ttft_seconds", sa.Float(), nullable=True),
        sa.Column("tokens_per_second", sa.Float(), nullable=True),
        sa.Column("duration_seconds", sa.Float(), nullable=True),
        sa.Column("resolved_model", sa.String(200), nullable=False),
        sa.Column("finish_reason", sa.String(40), nullable=False),
        sa.Column("error", sa.Text(), nullable=False),
    )
    op.create_table(
        "analysis_outputs",
        sa.Column("id", sa.Integer(), primary_key=True),
        _stage_fk(),
        sa.Column("role", sa.String(20), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("reasoning", sa.Text(), nullable=False),
    )
    op.create_table(
        "analysis_claims",
        sa.Column("id", sa.Integer(), primary_key=True),
        _stage_fk(),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("unit_id", sa.Integer(), nullable=True),
        sa.Column("player", sa.String(200), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
    )
    op.create_table(
        "analysis_issues",
        sa.Column("id", sa.Integer(), primary_key=True),
        _stage_fk(),
        sa.Column("severity", sa.Integer(), nullable=False),
        sa.Column("code", sa.String(60), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("time_seconds", sa.Float(), nullable=True),
        sa.Column("unit_id", sa.Integer(), nullable=True),
        sa.Column("after_revision", sa.Boolean(), nullable=False),
    )
    op.create_table(
        "analysis_lookbacks",
        sa.Column("id", sa.Integer(), primary_key=True),
        _stage_fk(),
        sa.Column("start_seconds", sa.Float(), nullable=False),
        sa.Column("end_seconds", sa.Float(), nullable=False),
        sa.Column("tokens", sa.Integer(), nullable=False),
        sa.Column("served", sa.Boolean(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
    )


def downgrade() -> None:
    for table in (
        "analysis_lookbacks",
        "analysis_issues",
        "analysis_claims",
        "analysis_outputs",
        "analysis_requests",
        "analysis_stages",
        "analyses",
    ):
        op.drop_table(table)
