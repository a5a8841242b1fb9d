"""Error-wisdom library: entries, verification history, prevention rules, patterns, scene changes.

Revision ID: wisdom_0001
Revises: base_0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "wisdom_0001"
down_revision = "base_0001"
branch_labels = ("wisdom",)
depends_on = None


def _s(name: str, n: int, nullable: bool = False) -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(name, sa.String(n), nullable=nullable)


def _t(name: str, nullable: bool = False) -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(name, sa.Text(), nullable=nullable)


def _j(name: str, nullable: bool = False) -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(name, sa.JSON(), nullable=nullable)


def _i(name: str) -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(name, sa.Integer(), nullable=False)


def upgrade() -> None:
    op.create_table(
        "wisdom_entries",
        sa.Column("id", sa.String(32), primary_key=True),
        _s("timestamp", 40),
        _s("trace_id", 200),
        _s("version", 20),
        _s("error_type", 40),
        _s("type_code", 20),
        _s("error_subtype", 60),
        _s("subtype_code", 40),
        _s("error_code", 100, True),
        _t("description"),
        _s("severity", 20),
        _t("trigger_scene", True),
        _t("impact_scope", True),
        _t("detection_method", True),
        _t("root_cause"),
        _s("preventability", 20),
        _t("cognitive_bias", True),
        _t("environment_factor", True),
        _t("responsibility", True),
        _j("dimensions", True),
        _j("root_cause_categories"),
        _t("immediate_fix", True),
        _s("fix_cost", 40, True),
        _t("effectiveness", True),
        _t("ux_compensation", True),
        _t("prevention_strategy"),
        _j("precheck_rule", True),
        _j("applicable_scenes"),
        _j("non_applicable_scenes"),
        _s("prevention_priority", 20, True),
        _t("prevention_cost", True),
        _j("similar_ids"),
        _t("common_pattern", True),
        _s("abstract_rule_id", 120, True),
        _s("created_at", 40),
        _s("updated_at", 40),
        _i("verification_count"),
        _i("success_count"),
        sa.Column("confidence", sa.Float(), nullable=False),
        _s("status", 20),
        sa.Column("cognitive_flag", sa.Boolean(), nullable=True),
        _s("tool_name", 120, True),
        _s("model", 200, True),
        _s("mod", 120, True),
        _s("stage", 60, True),
        _j("trigger_patterns"),
        _j("params"),
        _s("dedupe_key", 300, True),
        _i("occurrences"),
        sa.Column("base_confidence", sa.Float(), nullable=True),
        _i("counterexamples"),
        _i("scene_changes"),
        sa.Column("recognized", sa.Boolean(), nullable=True),
        _s("audited_at", 40, True),
        _j("extras"),
    )
    op.create_index("ix_wisdom_entries_type_subtype", "wisdom_entries", ["type_code", "subtype_code"])
    op.create_index("ix_wisdom_entries_status", "wisdom_entries", ["status"])
    op.create_index("ix_wisdom_entries_dedupe_key", "wisdom_entries", ["dedupe_key"])
    op.create_index("ix_wisdom_entries_model", "wisdom_entries", ["model"])
    op.create_index("ix_wisdom_entries_tool_name", "wisdom_entries", ["tool_name"])
    op.create_index("ix_wisdom_entries_severity", "wisdom_entries", ["severity"])

    op.create_table(
        "wisdom_verifications",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "entry_id",
            sa.String(32),
            sa.ForeignKey("wisdom_entries.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
        _i("seq"),
        _s("timestamp", 40),
        _s("trace_id", 200),
        _t("scene"),
        _s("effect", 60),
        _t("trigger"),
        _s("feedback", 60),
        sa.Column("counterexample", sa.Boolean(), nullable=False),
        _j("extra"),
    )
    op.create_table(
        "wisdom_rules",
        sa.Column("rule_id", sa.String(120), primary_key=True),
        _t("rule_name"),
        _s("created_at", 40),
        _j("source_ids"),
        _j("trigger"),
        _j("check"),
        _j("action"),
        _j("scope"),
        _i("applied"),
        _i("successes"),
        _i("failures"),
        sa.Column("status", sa.String(20), nullable=False, index=True),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("base_confidence", sa.Float(), nullable=True),
        _s("last_validated", 40, True),
        sa.Column("decay_factor", sa.Float(), nullable=False),
        _s("origin", 20),
        _s("template", 40),
        _s("tool_name", 120),
        _s("param_name", 120),
        _s("model", 200, True),
        _s("mod", 120, True),
        _s("stage", 60, True),
        sa.Column("signature", sa.String(400), nullable=False, unique=True),
        _j("params"),
        _i("counterexamples"),
        _s("priority", 20),
        _t("message_zh"),
        _t("message_en"),
    )
    op.create_table(
        "wisdom_patterns",
        sa.Column("pattern_id", sa.String(120), primary_key=True),
        _t("name"),
        _s("created_at", 40),
        _j("member_ids"),
        _j("shared_features"),
        sa.Column("mean_similarity", sa.Float(), nullable=False),
        _s("rule_id", 120, True),
    )
    op.create_table(
        "wisdom_scene_changes",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        _s("timestamp", 40),
        _s("change_type", 60),
        _t("description"),
        _j("affected"),
        sa.Column("factor", sa.Float(), nullable=False),
    )
    op.create_table(
        "wisdom_scene_state",
        sa.Column("key", sa.String(300), primary_key=True),
        _t("value"),
    )


def downgrade() -> None:
    for name in (
        "wisdom_scene_state",
        "wisdom_scene_changes",
        "wisdom_patterns",
        "wisdom_rules",
        "wisdom_verifications",
        "wisdom_entries",
    ):
        op.drop_table(name)
