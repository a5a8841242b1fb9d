"""Read-only views of memory rows, handed to the CLI, the GUI and the analysis (no ORM objects leak out)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from app.memory.tables import MemFact, MemQueueItem, MemSource


@dataclass(frozen=True, slots=True)
class SourceView:
    """One piece of evidence: the episode, when, the quote, polarity (+1 / -1) and kind."""

    id: int
    episode_id: int | None
    ts: float
    quote: str
    polarity: int
    kind: str
    context: dict[str, str]


@dataclass(frozen=True, slots=True)
class FactView:
    """A fact with its ledger and provenance (sources only when asked for)."""

    id: int
    type: str
    status: str
    subject: str
    attribute: str
    value: str
    content_zh: str
    content_en: str
    scope: dict[str, str]
    fields: dict[str, Any]
    mechanism: str
    confidence: float
    evidence_count: int
    contradiction_count: int
    reuse_count: int
    method: str
    produced_by: str
    approved_by: str
    supersedes_id: int | None
    superseded_by_id: int | None
    chain_depth: int
    created_at: float
    updated_at: float
    activated_at: float | None
    last_evidence_at: float
    dormant: bool
    sources: tuple[SourceView, ...] = field(default_factory=tuple)

    def content(self, lang: str = "zh") -> str:
        """The fact's sentence in ``lang``."""
        return self.content_zh if str(lang).startswith("zh") else self.content_en

    @property
    def chain_length(self) -> int:
        """How many facts the supersede chain up to this one holds (depth + 1)."""
        return self.chain_depth + 1

    def to_json(self) -> dict[str, Any]:
        """JSON-compatible dict (stable keys)."""
        d = asdict(self)
        d["sources"] = [asdict(s) for s in self.sources]
        return d


@dataclass(frozen=True, slots=True)
class QueueView:
    """A review-queue item with both facts for side-by-side display."""

    id: int
    kind: str
    fact: FactView
    other: FactView | None
    episode_id: int | None
    reason: str
    created_at: float
    resolved_at: float | None
    resolution: str
    reviewer: str

    def to_json(self) -> dict[str, Any]:
        """JSON-compatible dict (stable keys)."""
        return {
            "id": self.id,
            "kind": self.kind,
            "fact": self.fact.to_json(),
            "other": self.other.to_json() if self.other else None,
            "episode_id": self.episode_id,
            "reason": self.reason,
            "created_at": self.created_at,
            "resolved_at": self.resolved_at,
            "resolution": self.resolution,
            "reviewer": self.reviewer,
        }


@dataclass(frozen=True, slots=True)
class RulingView:
    """One verdict in a review item's history: a ruling (approve, reject, split) or the undo of one."""

    id: int
    verdict: str
    reviewer: str
    ts: float
    note: str

    def to_json(self) -> dict[str, Any]:
        """JSON-compatible dict (stable keys)."""
        return {"id": self.id, "verdict": self.verdict, "reviewer": self.reviewer, "ts": self.ts, "note": self.note}


def source_view(s: MemSource) -> SourceView:
    """View of a source row."""
    return SourceView(s.id, s.episode_id, s.ts, s.quote, s.polarity, s.kind, json.loads(s.context or "{}"))


def fact_view(f: MemFact, sources: list[MemSource] | None = None) -> FactView:
    """View of a fact row (with its sources sorted by time when given)."""
    srcs = tuple(source_view(s) for s in sorted(sources or [], key=lambda s: (s.ts, s.id)))
    return FactView(
        id=f.id,
        type=f.type,
        status=f.status,
        subject=f.subject,
        attribute=f.attribute,
        value=f.value,
        content_zh=f.content_zh,
        content_en=f.content_en,
        scope=json.loads(f.scope or "{}"),
        fields=json.loads(f.fields or "{}"),
        mechanism=f.mechanism,
        confidence=f.confidence,
        evidence_count=f.evidence_count,
        contradiction_count=f.contradiction_count,
        reuse_count=f.reuse_count,
        method=f.method,
        produced_by=f.produced_by,
        approved_by=f.approved_by,
        supersedes_id=f.supersedes_id,
        superseded_by_id=f.superseded_by_id,
        chain_depth=f.chain_depth,
        created_at=f.created_at,
        updated_at=f.updated_at,
        activated_at=f.activated_at,
        last_evidence_at=f.last_evidence_at,
        dormant=f.dormant,
        sources=srcs,
    )


def queue_view(q: MemQueueItem, fact: FactView, other: FactView | None) -> QueueView:
    """View of a queue row."""
    return QueueView(
        q.id, q.kind, fact, other, q.episode_id, q.reason, q.created_at, q.resolved_at, q.resolution, q.reviewer
    )


@dataclass(frozen=True, slots=True)
class EpisodeView:
    """Where evidence came from, in the terms a reviewer knows: the replay, when it was played, map and players.

    Attributes:
        id: Episode id.
        kind: ``run`` (an analysis) or ``feedback``.
        ts: When the episode was recorded.
        replay_path: The replay file ("" for feedback).
        map_name: The map.
        players: ``(name, faction)`` pairs.
        played_at: When the game was played, if known.
        model: The model that analysed it.
        analyst: Who gave the feedback or ran the analysis.
        produced_by: The memory pipeline version that recorded it.
    """

    id: int
    kind: str
    ts: float
    replay_path: str
    map_name: str
    players: tuple[tuple[str, str], ...]
    played_at: float | None
    model: str
    analyst: str
    produced_by: str
