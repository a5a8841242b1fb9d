"""SQLAlchemy tables of the semantic memory (Alembic branch ``memory``, revision ``memory_0001``).

Times are Unix seconds (REAL) so the scorecard's month windows are plain range scans. JSON columns are
TEXT: the store never queries inside them; what is queried (subject, attribute, status, times) has columns.
"""

from __future__ import annotations

from sqlalchemy import JSON, Boolean, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.store.base import Base


class MemEpisode(Base):
    """An analysis run or a piece of feedback: what facts trace back to."""

    __tablename__ = "memory_episodes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))  # run | feedback
    ts: Mapped[float] = mapped_column(Float, index=True)
    analysis_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    replay_hash: Mapped[str] = mapped_column(String(128), default="")
    model: Mapped[str] = mapped_column(String(200), default="")
    analyst: Mapped[str] = mapped_column(String(200), default="")
    payload: Mapped[str] = mapped_column(Text, default="{}")
    produced_by: Mapped[str] = mapped_column(String(64), default="")


class MemObservation(Base):
    """A candidate as observed in one episode; the searchable episodic history for counterexamples."""

    __tablename__ = "memory_observations"
    __table_args__ = (Index("ix_memory_observations_key", "subject", "attribute"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    episode_id: Mapped[int] = mapped_column(ForeignKey("memory_episodes.id"), index=True)
    subject: Mapped[str] = mapped_column(String(300))
    attribute: Mapped[str] = mapped_column(String(200))
    value: Mapped[str] = mapped_column(String(500))
    context: Mapped[str] = mapped_column(Text, default="{}")
    candidate: Mapped[str] = mapped_column(Text, default="{}")
    """The candidate's JSON, or "" when it lives in the shared text blocks (``candidate_blocks``)."""
    committed: Mapped[bool] = mapped_column(Boolean, default=False, index=True)
    candidate_blocks: Mapped[list[str]] = mapped_column(JSON, default=list)
    """Block hashes of the candidate's JSON (:mod:`app.store.blocks`): a replay analysed again repeats it."""


class MemFact(Base):
    """A semantic fact with its ledger, status and supersede pointers."""

    __tablename__ = "memory_facts"
    __table_args__ = (
        Index("ix_memory_facts_key", "subject", "attribute"),
        Index("ix_memory_facts_confidence_id", "confidence", "id"),  # the facts list sorted by confidence
        Index("ix_memory_facts_created_evidence", "created_at", "evidence_count"),  # scorecard: evidence density
        Index("ix_memory_facts_type_activated_lead", "type", "activated_at", "lead_days"),  # scorecard: lead time
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    type: Mapped[str] = mapped_column(String(16), index=True)
    status: Mapped[str] = mapped_column(String(16), index=True)
    subject: Mapped[str] = mapped_column(String(300))
    attribute: Mapped[str] = mapped_column(String(200))
    value: Mapped[str] = mapped_column(String(500))
    content_zh: Mapped[str] = mapped_column(Text)
    content_en: Mapped[str] = mapped_column(Text)
    scope: Mapped[str] = mapped_column(Text, default="{}")
    fields: Mapped[str] = mapped_column(Text, default="{}")
    mechanism: Mapped[str] = mapped_column(Text, default="")
    generalizes: Mapped[bool] = mapped_column(Boolean, default=False)
    confidence: Mapped[float] = mapped_column(Float, default=0.0)
    evidence_count: Mapped[int] = mapped_column(Integer, default=0)
    contradiction_count: Mapped[int] = mapped_column(Integer, default=0)
    reuse_count: Mapped[int] = mapped_column(Integer, default=0)
    method: Mapped[str] = mapped_column(String(32), default="")
    produced_by: Mapped[str] = mapped_column(String(64), default="", index=True)
    approved_by: Mapped[str] = mapped_column(String(200), default="")
    supersedes_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    superseded_by_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    chain_depth: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[float] = mapped_column(Float, index=True)
    updated_at: Mapped[float] = mapped_column(Float)
    activated_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    lead_days: Mapped[float | None] = mapped_column(Float, nullable=True)
    last_evidence_at: Mapped[float] = mapped_column(Float, default=0.0)
    last_used_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    confirmed_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    dormant: Mapped[bool] = mapped_column(Boolean, default=False)


class MemSource(Base):
    """One piece of evidence of a fact: episode, time, quote, polarity (+1 / -1) and kind (spec §5.2)."""

    __tablename__ = "memory_sources"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    fact_id: Mapped[int] = mapped_column(ForeignKey("memory_facts.id"), index=True)
    episode_id: Mapped[int | None] = mapped_column(ForeignKey("memory_episodes.id"), nullable=True, index=True)
    ts: Mapped[float] = mapped_column(Float)
    quote: Mapped[str] = mapped_column(Text, default="")
    polarity: Mapped[int] = mapped_column(Integer, default=1)
    kind: Mapped[str] = mapped_column(String(32))
    dedupe: Mapped[str] = mapped_column(String(200), default="")
    context: Mapped[str] = mapped_column(Text, default="{}")


class MemSupersede(Base):
    """One supersede decision; ``flipped_back_at`` is set when it was undone (the flip-back rate)."""

    __tablename__ = "memory_supersedes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    old_fact_id: Mapped[int] = mapped_column(ForeignKey("memory_facts.id"), index=True)
    new_fact_id: Mapped[int] = mapped_column(ForeignKey("memory_facts.id"), index=True)
    created_at: Mapped[float] = mapped_column(Float, index=True)
    flipped_back_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    reason: Mapped[str] = mapped_column(String(200), default="")


class MemQueueItem(Base):
    """An item of the human review queue: a conflict, a review request, a counterexample, a proposal."""

    __tablename__ = "memory_queue"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(32), index=True)
    fact_id: Mapped[int] = mapped_column(ForeignKey("memory_facts.id"), index=True)
    other_fact_id: Mapped[int | None] = mapped_column(ForeignKey("memory_facts.id"), nullable=True)
    episode_id: Mapped[int | None] = mapped_column(ForeignKey("memory_episodes.id"), nullable=True)
    reason: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[float] = mapped_column(Float, index=True)
    resolved_at: Mapped[float | None] = mapped_column(Float, nullable=True, index=True)
    resolution: Mapped[str] = mapped_column(String(32), default="")
    reviewer: Mapped[str] = mapped_column(String(200), default="")


class MemVerdict(Base):
    """A reviewer's verdict: on a queue item, or on an audit sample (``audit``) for the intake-quality metric."""

    __tablename__ = "memory_verdicts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    fact_id: Mapped[int | None] = mapped_column(ForeignKey("memory_facts.id"), nullable=True, index=True)
    queue_item_id: Mapped[int | None] = mapped_column(ForeignKey("memory_queue.id"), nullable=True)
    reviewer: Mapped[str] = mapped_column(String(200))
    verdict: Mapped[str] = mapped_column(String(32))
    audit: Mapped[bool] = mapped_column(Boolean, default=False)
    ts: Mapped[float] = mapped_column(Float, index=True)
    note: Mapped[str] = mapped_column(Text, default="")
    undo_state: Mapped[str] = mapped_column(Text, default="")
    """A ruling's JSON record of what it changed (``memory_0005``): what an undo puts back; "" for other verdicts."""


class MemBatch(Base):
    """One distillation pass (immediate or batch track), with the pipeline version that ran it."""

    __tablename__ = "memory_batches"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    track: Mapped[str] = mapped_column(String(16))
    started_at: Mapped[float] = mapped_column(Float, index=True)
    finished_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    produced_by: Mapped[str] = mapped_column(String(64), default="")
    episodes: Mapped[int] = mapped_column(Integer, default=0)
    candidates: Mapped[int] = mapped_column(Integer, default=0)
    committed: Mapped[int] = mapped_column(Integer, default=0)
    blocked: Mapped[int] = mapped_column(Integer, default=0)


class MemInjection(Base):
    """Which fact was injected into which analysis (so reuse can be validated and stale facts found)."""

    __tablename__ = "memory_injections"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    analysis_id: Mapped[int] = mapped_column(Integer, index=True)
    fact_id: Mapped[int] = mapped_column(ForeignKey("memory_facts.id"), index=True)
    ts: Mapped[float] = mapped_column(Float)


class MemPromotion(Base):
    """A promotion out of the memory: a lesson to the error-wisdom library, a preference to the team library."""

    __tablename__ = "memory_promotions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    fact_id: Mapped[int] = mapped_column(ForeignKey("memory_facts.id"), index=True)
    target: Mapped[str] = mapped_column(String(16))  # wisdom | team
    status: Mapped[str] = mapped_column(String(16))  # proposed | promoted | rejected
    payload: Mapped[str] = mapped_column(Text, default="{}")
    external_id: Mapped[str] = mapped_column(String(100), default="")
    created_at: Mapped[float] = mapped_column(Float)


__all__ = [
    "MemBatch",
    "MemEpisode",
    "MemFact",
    "MemInjection",
    "MemObservation",
    "MemPromotion",
    "MemQueueItem",
    "MemSource",
    "MemSupersede",
    "MemVerdict",
]
