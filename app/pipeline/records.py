"""Tables of stored analyses: one row per analysis, stage, request, output, claim, issue and lookback.

A stage is written when it completes, so a crash or a network failure keeps every finished stage and a resumed
run starts at the next unfinished one.

The large texts of a row (its ``block_fields``) live in the shared block store (:mod:`app.store.blocks`): the
row's ``blocks`` column maps each such field to its block hashes and the column itself stays empty. The
repository reads them back (:meth:`app.pipeline.repository.AnalysisRepository.load`); a field missing from
``blocks`` is held by its column as is.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import JSON, Boolean, DateTime, Float, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.store.base import Base


def utcnow() -> datetime:
    """Timezone-aware now, for timestamps."""
    return datetime.now(UTC)


class AnalysisRecord(Base):
    """One analysis run of one replay with one model."""

    __tablename__ = "analyses"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    replay_path: Mapped[str] = mapped_column(Text)
    replay_sha256: Mapped[str] = mapped_column(String(64), index=True)
    replay_name: Mapped[str] = mapped_column(Text, default="")
    model_label: Mapped[str] = mapped_column(Text, default="")
    provider: Mapped[str] = mapped_column(String(200), default="")
    model_id: Mapped[str] = mapped_column(String(200), default="")
    lang: Mapped[str] = mapped_column(String(8), default="zh")
    status: Mapped[str] = mapped_column(String(20), default="running")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    plan: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    summary_text: Mapped[str] = mapped_column(Text, default="")
    overview_text: Mapped[str] = mapped_column(Text, default="")
    totals: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    message: Mapped[str] = mapped_column(Text, default="")
    owner: Mapped[str] = mapped_column(String(200), default="")  # the run lease: host:pid:token of the runner
    heartbeat_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    blocks: Mapped[dict[str, list[str]]] = mapped_column(JSON, default=dict)
    block_fields: ClassVar[tuple[str, ...]] = ("plan", "summary_text", "overview_text")

    stages: Mapped[list[StageRecord]] = relationship(
        back_populates="analysis", order_by="StageRecord.ordinal", cascade="all, delete-orphan"
    )


class StageRecord(Base):
    """One round of an analysis (overview, a focus window, the summary round)."""

    __tablename__ = "analysis_stages"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    analysis_id: Mapped[int] = mapped_column(ForeignKey("analyses.id", ondelete="CASCADE"), index=True)
    ordinal: Mapped[int] = mapped_column(Integer)
    key: Mapped[str] = mapped_column(String(40))
    kind: Mapped[str] = mapped_column(String(20))
    segment: Mapped[int] = mapped_column(Integer, default=-1)
    window: Mapped[int] = mapped_column(Integer, default=-1)
    start_seconds: Mapped[float] = mapped_column(Float, default=0.0)
    end_seconds: Mapped[float] = mapped_column(Float, default=0.0)
    status: Mapped[str] = mapped_column(String(20), default="pending")
    text: Mapped[str] = mapped_column(Text, default="")
    reasoning: Mapped[str] = mapped_column(Text, default="")
    found_fact: Mapped[str] = mapped_column(Text, default="")
    claims: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    revised: Mapped[bool] = mapped_column(Boolean, default=False)
    truncated: Mapped[bool] = mapped_column(Boolean, default=False)
    message: Mapped[str] = mapped_column(Text, default="")
    outcome: Mapped[str] = mapped_column(String(20), default="")  # how the reply ended (app.llm.events.Outcome)
    blocks: Mapped[dict[str, list[str]]] = mapped_column(JSON, default=dict)
    block_fields: ClassVar[tuple[str, ...]] = ("text", "reasoning", "found_fact", "claims")
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)

    analysis: Mapped[AnalysisRecord] = relationship(back_populates="stages")
    requests: Mapped[list[RequestRecord]] = relationship(
        back_populates="stage", order_by="RequestRecord.id", cascade="all, delete-orphan"
    )
    outputs: Mapped[list[OutputRecord]] = relationship(
        back_populates="stage", order_by="OutputRecord.id", cascade="all, delete-orphan"
    )
    issues: Mapped[list[IssueRecord]] = relationship(
        back_populates="stage", order_by="IssueRecord.id", cascade="all, delete-orphan"
    )
    lookbacks: Mapped[list[LookbackRecord]] = relationship(
        back_populates="stage", order_by="LookbackRecord.id", cascade="all, delete-orphan"
    )


class RequestRecord(Base):
    """One model request of a stage: what was sent, the budget, usage and timing."""

    __tablename__ = "analysis_requests"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    stage_id: Mapped[int] = mapped_column(ForeignKey("analysis_stages.id", ondelete="CASCADE"), index=True)
    purpose: Mapped[str] = mapped_column(String(20))  # initial / retry / lookback / revision
    messages: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    """Per message its role and block hashes (:mod:`app.store.blocks`); ``load`` rebuilds the text. Empty once the
    prompt retention dropped the prompt (``prompt_sha256`` still says what was sent)."""
    prompt_sha256: Mapped[str] = mapped_column(String(64), default="")
    breakdown: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    usage: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    ttft_seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    tokens_per_second: Mapped[float | None] = mapped_column(Float, nullable=True)
    duration_seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    resolved_model: Mapped[str] = mapped_column(String(200), default="")
    finish_reason: Mapped[str] = mapped_column(String(40), default="")
    error: Mapped[str] = mapped_column(Text, default="")

    stage: Mapped[StageRecord] = relationship(back_populates="requests")


class OutputRecord(Base):
    """A text a stage produced: a draft, a revision or the final text, with its reasoning kept apart."""

    __tablename__ = "analysis_outputs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    stage_id: Mapped[int] = mapped_column(ForeignKey("analysis_stages.id", ondelete="CASCADE"), index=True)
    role: Mapped[str] = mapped_column(String(20))  # draft / revision / final / partial
    text: Mapped[str] = mapped_column(Text, default="")
    reasoning: Mapped[str] = mapped_column(Text, default="")
    blocks: Mapped[dict[str, list[str]]] = mapped_column(JSON, default=dict)
    block_fields: ClassVar[tuple[str, ...]] = ("text", "reasoning")

    stage: Mapped[StageRecord] = relationship(back_populates="outputs")


class ClaimRecord(Base):
    """One claim of a stage's final claims, for querying across analyses (which unit, which player).

    The claim itself is the stage's: ``stage.claims[<kind>Claims][position]`` (kept once, in the stage's blocks).
    """

    __tablename__ = "analysis_claims"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    stage_id: Mapped[int] = mapped_column(ForeignKey("analysis_stages.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(20))  # unit / event / timeline
    unit_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    player: Mapped[str] = mapped_column(String(200), default="")
    position: Mapped[int] = mapped_column(Integer, default=0)


class IssueRecord(Base):
    """One validation issue of a stage."""

    __tablename__ = "analysis_issues"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    stage_id: Mapped[int] = mapped_column(ForeignKey("analysis_stages.id", ondelete="CASCADE"), index=True)
    severity: Mapped[int] = mapped_column(Integer)
    code: Mapped[str] = mapped_column(String(60))
    message: Mapped[str] = mapped_column(Text)
    time_seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    unit_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    after_revision: Mapped[bool] = mapped_column(Boolean, default=False)
    disputed: Mapped[str] = mapped_column(Text, default="")  # the model's reason; such an issue teaches nothing
    # the claim it is about (app.claims.issues.ClaimRef): list and 0-based index; the object id is unit_id and the
    # stage this row's stage, so a reopened analysis links issue to claim without reading the message
    claim_kind: Mapped[str | None] = mapped_column(String(20), nullable=True)
    claim_index: Mapped[int | None] = mapped_column(Integer, nullable=True)

    stage: Mapped[StageRecord] = relationship(back_populates="issues")

    @property
    def claim_key(self) -> str | None:
        """``unit:0`` (:attr:`app.claims.issues.ValidationIssue.claim`), or None for a reply-level issue."""
        return None if self.claim_kind is None or self.claim_index is None else f"{self.claim_kind}:{self.claim_index}"


class LookbackRecord(Base):
    """A lookback a stage asked for: served, or refused with the reason."""

    __tablename__ = "analysis_lookbacks"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    stage_id: Mapped[int] = mapped_column(ForeignKey("analysis_stages.id", ondelete="CASCADE"), index=True)
    start_seconds: Mapped[float] = mapped_column(Float)
    end_seconds: Mapped[float] = mapped_column(Float)
    tokens: Mapped[int] = mapped_column(Integer, default=0)
    served: Mapped[bool] = mapped_column(Boolean, default=True)
    reason: Mapped[str] = mapped_column(Text, default="")

    stage: Mapped[StageRecord] = relationship(back_populates="lookbacks")
