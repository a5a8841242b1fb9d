"""SQLAlchemy tables of the error-wisdom library (Alembic branch ``wisdom``).

The spec's scalar fields are columns (type, subtype, severity, status, confidence, model… are filtered and indexed);
nested parts (dimension analyses, pre-check rule objects, scene lists) are JSON. Verification history is its own
table because outcomes are appended one at a time and counted for the metrics.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, Boolean, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.store.base import Base


class WisdomEntryRow(Base):
    """One error-wisdom entry (错误智慧条目)."""

    __tablename__ = "wisdom_entries"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    timestamp: Mapped[str] = mapped_column(String(40))
    trace_id: Mapped[str] = mapped_column(String(200))
    version: Mapped[str] = mapped_column(String(20))
    # 错误发现
    error_type: Mapped[str] = mapped_column(String(40))
    type_code: Mapped[str] = mapped_column(String(20))
    error_subtype: Mapped[str] = mapped_column(String(60))
    subtype_code: Mapped[str] = mapped_column(String(40))
    error_code: Mapped[str | None] = mapped_column(String(100), nullable=True)
    description: Mapped[str] = mapped_column(Text)
    severity: Mapped[str] = mapped_column(String(20))
    trigger_scene: Mapped[str | None] = mapped_column(Text, nullable=True)
    impact_scope: Mapped[str | None] = mapped_column(Text, nullable=True)
    detection_method: Mapped[str | None] = mapped_column(Text, nullable=True)
    # 原因分析
    root_cause: Mapped[str] = mapped_column(Text)
    preventability: Mapped[str] = mapped_column(String(20))
    cognitive_bias: Mapped[str | None] = mapped_column(Text, nullable=True)
    environment_factor: Mapped[str | None] = mapped_column(Text, nullable=True)
    responsibility: Mapped[str | None] = mapped_column(Text, nullable=True)
    dimensions: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    root_cause_categories: Mapped[list[str]] = mapped_column(JSON)
    # 解决方案
    immediate_fix: Mapped[str | None] = mapped_column(Text, nullable=True)
    fix_cost: Mapped[str | None] = mapped_column(String(40), nullable=True)
    effectiveness: Mapped[str | None] = mapped_column(Text, nullable=True)
    ux_compensation: Mapped[str | None] = mapped_column(Text, nullable=True)
    # 预防知识
    prevention_strategy: Mapped[str] = mapped_column(Text)
    precheck_rule: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    applicable_scenes: Mapped[list[str]] = mapped_column(JSON)
    non_applicable_scenes: Mapped[list[str]] = mapped_column(JSON)
    prevention_priority: Mapped[str | None] = mapped_column(String(20), nullable=True)
    prevention_cost: Mapped[str | None] = mapped_column(Text, nullable=True)
    # 关联错误
    similar_ids: Mapped[list[str]] = mapped_column(JSON)
    common_pattern: Mapped[str | None] = mapped_column(Text, nullable=True)
    abstract_rule_id: Mapped[str | None] = mapped_column(String(120), nullable=True)
    # 元数据
    created_at: Mapped[str] = mapped_column(String(40))
    updated_at: Mapped[str] = mapped_column(String(40))
    verification_count: Mapped[int] = mapped_column(Integer)
    success_count: Mapped[int] = mapped_column(Integer)
    confidence: Mapped[float] = mapped_column(Float)
    status: Mapped[str] = mapped_column(String(20))
    cognitive_flag: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    # scope and timeliness (ours)
    tool_name: Mapped[str | None] = mapped_column(String(120), nullable=True)
    model: Mapped[str | None] = mapped_column(String(200), nullable=True)
    mod: Mapped[str | None] = mapped_column(String(120), nullable=True)
    stage: Mapped[str | None] = mapped_column(String(60), nullable=True)
    trigger_patterns: Mapped[list[str]] = mapped_column(JSON)
    params: Mapped[dict[str, Any]] = mapped_column(JSON)
    dedupe_key: Mapped[str | None] = mapped_column(String(300), nullable=True)
    occurrences: Mapped[int] = mapped_column(Integer)
    base_confidence: Mapped[float | None] = mapped_column(Float, nullable=True)
    counterexamples: Mapped[int] = mapped_column(Integer)
    scene_changes: Mapped[int] = mapped_column(Integer)
    recognized: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    audited_at: Mapped[str | None] = mapped_column(String(40), nullable=True)
    extras: Mapped[dict[str, Any]] = mapped_column(JSON)

    __table_args__ = (
        Index("ix_wisdom_entries_type_subtype", "type_code", "subtype_code"),
        Index("ix_wisdom_entries_status", "status"),
        Index("ix_wisdom_entries_dedupe_key", "dedupe_key"),
        Index("ix_wisdom_entries_model", "model"),
        Index("ix_wisdom_entries_tool_name", "tool_name"),
        Index("ix_wisdom_entries_severity", "severity"),
        # the entry list's sort orders (see WisdomStore.list_entries): a page is an index walk
        Index("ix_wisdom_entries_created_id", "created_at", "id"),
        Index("ix_wisdom_entries_confidence_id", "confidence", "id"),
        Index("ix_wisdom_entries_subtype_id", "subtype_code", "id"),
        Index("ix_wisdom_entries_error_code_id", "error_code", "id"),
    )


class WisdomVerificationRow(Base):
    """One line of an entry's 验证历史."""

    __tablename__ = "wisdom_verifications"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    entry_id: Mapped[str] = mapped_column(String(32), ForeignKey("wisdom_entries.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    timestamp: Mapped[str] = mapped_column(String(40))
    trace_id: Mapped[str] = mapped_column(String(200))
    scene: Mapped[str] = mapped_column(Text)
    effect: Mapped[str] = mapped_column(String(60))
    trigger: Mapped[str] = mapped_column(Text)
    feedback: Mapped[str] = mapped_column(String(60))
    counterexample: Mapped[bool] = mapped_column(Boolean)
    extra: Mapped[dict[str, Any]] = mapped_column(JSON)


class WisdomRuleRow(Base):
    """One prevention rule (预防规则) with 效果统计 and 时效性."""

    __tablename__ = "wisdom_rules"

    rule_id: Mapped[str] = mapped_column(String(120), primary_key=True)
    rule_name: Mapped[str] = mapped_column(Text)
    created_at: Mapped[str] = mapped_column(String(40))
    source_ids: Mapped[list[str]] = mapped_column(JSON)
    trigger: Mapped[dict[str, Any]] = mapped_column(JSON)
    check: Mapped[dict[str, Any]] = mapped_column(JSON)
    action: Mapped[dict[str, Any]] = mapped_column(JSON)
    scope: Mapped[dict[str, Any]] = mapped_column(JSON)
    applied: Mapped[int] = mapped_column(Integer)
    successes: Mapped[int] = mapped_column(Integer)
    failures: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(20), index=True)
    confidence: Mapped[float] = mapped_column(Float)
    base_confidence: Mapped[float | None] = mapped_column(Float, nullable=True)
    last_validated: Mapped[str | None] = mapped_column(String(40), nullable=True)
    decay_factor: Mapped[float] = mapped_column(Float)
    origin: Mapped[str] = mapped_column(String(20))
    template: Mapped[str] = mapped_column(String(40))
    tool_name: Mapped[str] = mapped_column(String(120))
    param_name: Mapped[str] = mapped_column(String(120))
    model: Mapped[str | None] = mapped_column(String(200), nullable=True)
    mod: Mapped[str | None] = mapped_column(String(120), nullable=True)
    stage: Mapped[str | None] = mapped_column(String(60), nullable=True)
    signature: Mapped[str] = mapped_column(String(400), unique=True)
    params: Mapped[dict[str, Any]] = mapped_column(JSON)
    counterexamples: Mapped[int] = mapped_column(Integer)
    priority: Mapped[str] = mapped_column(String(20))
    message_zh: Mapped[str] = mapped_column(Text)
    message_en: Mapped[str] = mapped_column(Text)


class WisdomPatternRow(Base):
    """An error pattern (error_patterns): a cluster of similar entries and the rule made from it."""

    __tablename__ = "wisdom_patterns"

    pattern_id: Mapped[str] = mapped_column(String(120), primary_key=True)
    name: Mapped[str] = mapped_column(Text)
    created_at: Mapped[str] = mapped_column(String(40))
    member_ids: Mapped[list[str]] = mapped_column(JSON)
    shared_features: Mapped[dict[str, Any]] = mapped_column(JSON)
    mean_similarity: Mapped[float] = mapped_column(Float)
    rule_id: Mapped[str | None] = mapped_column(String(120), nullable=True)


class WisdomSceneChangeRow(Base):
    """A registered scene change (model/provider/knowledge/mod change) and whom it affected."""

    __tablename__ = "wisdom_scene_changes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    timestamp: Mapped[str] = mapped_column(String(40))
    change_type: Mapped[str] = mapped_column(String(60))
    description: Mapped[str] = mapped_column(Text)
    affected: Mapped[list[str]] = mapped_column(JSON)
    factor: Mapped[float] = mapped_column(Float)


class WisdomSceneStateRow(Base):
    """The last seen value of one scene dimension (e.g. ``model_version:deepseek-chat``)."""

    __tablename__ = "wisdom_scene_state"

    key: Mapped[str] = mapped_column(String(300), primary_key=True)
    value: Mapped[str] = mapped_column(Text)
