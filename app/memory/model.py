"""Value types of the semantic memory: fact types and statuses, evidence kinds, inputs and candidates.

The inputs (:class:`RunEpisodeInput`, :class:`FeedbackInput`) are plain data on purpose: the analysis
pipeline builds them from its fact index, the replay adapter builds them from raw commands, and tests build
them by hand, so distillation never depends on how an analysis was produced.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.errors import KnownError


class FactType(enum.StrEnum):
    """The four kinds of semantic knowledge (spec §3.1); each has its own required fields."""

    PREFERENCE = "preference"
    PROJECT_FACT = "project_fact"
    DOMAIN = "domain"
    LESSON = "lesson"


class FactStatus(enum.StrEnum):
    """Where a fact stands. Only ``active`` facts are injected; the others stay searchable."""

    ACTIVE = "active"
    HYPOTHESIS = "hypothesis"
    SUPERSEDED = "superseded"
    CONFLICT = "conflict"
    OBSERVATION = "observation"


class EvidenceKind(enum.StrEnum):
    """How a piece of evidence was obtained; it decides the ledger weight (spec §4.1)."""

    EXPLICIT = "explicit_statement"
    BEHAVIOUR = "behavior_inference"
    DOCUMENT = "doc_extraction"
    REUSE = "reuse_validated"

    @property
    def is_extraction(self) -> bool:
        """True for deterministic evidence read from a file: one source is enough (spec §1.2)."""
        return self is EvidenceKind.DOCUMENT


# Required fields per type: a candidate missing one is not written (spec §3.1 ``gate_fact``).
REQUIRED_FIELDS: Mapping[FactType, tuple[str, ...]] = {
    FactType.PREFERENCE: ("scope",),
    FactType.PROJECT_FACT: ("source_file", "observed_at"),
    FactType.DOMAIN: ("version_anchor",),
    FactType.LESSON: ("applicability", "learned_from"),
}


class MemoryStoreError(KnownError):
    """Base of the memory package's user-facing errors."""


class EpisodeInputError(MemoryStoreError):
    """A run or feedback episode that cannot be recorded as given (the message names the field)."""


class MissingFieldError(MemoryStoreError):
    """A fact lacks a field its type requires, so it is not written (the §3.1 write gate)."""


class UnknownFactError(MemoryStoreError):
    """A fact or queue item id that does not exist."""


class MemoryStateError(MemoryStoreError):
    """An operation that does not apply to the fact's current state (e.g. flipping back a chain head)."""


@dataclass(frozen=True, slots=True)
class TimedItem:
    """A named thing at a game time: a structure placed, a protocol chosen, a unit queued."""

    name: str
    seconds: float


@dataclass(frozen=True, slots=True)
class PlayerInput:
    """A player of the replay (humans only are distilled; AIs have no habits worth remembering)."""

    name: str
    faction: str
    team: int = -1
    human: bool = True


@dataclass(frozen=True, slots=True)
class ClaimInput:
    """A claim of the analysis that the validator confirmed against the replay's facts.

    Attributes:
        text: the claim as written.
        topic: ``rule`` for a statement about the game itself (becomes domain knowledge anchored to the mod
            version); anything else (``strategy``, ``tech``…) is a behavioural observation about ``player``.
        player: the player the claim is about ("" for rules).
        key: a stable key of what is claimed (e.g. ``cost:AlliedPowerPlant``, ``protocol:Name``); the topic when
            empty.
        value: the claimed value (e.g. ``800`` for a rule). For a player claim a number (a time, a count) is
            circumstance, not the habit, and counts as ``yes``.
    """

    text: str
    topic: str
    player: str = ""
    key: str = ""
    value: str = ""


@dataclass(frozen=True, slots=True)
class IssueInput:
    """A validation issue of the run (code, severity label as in ``app.claims.issues``, message)."""

    code: str
    severity: str
    message: str


@dataclass(frozen=True, slots=True)
class RunEpisodeInput:
    """One analysis run, reduced to what distillation needs.

    Attributes:
        replay_hash: a stable id of the replay (content hash).
        replay_path: where the replay was read from (the ``source_file`` of extracted facts).
        map_name: the map, as shown to users.
        mod: ``RA3``, ``corona``…
        mod_version: the mod's version ("" for vanilla), the ``version_anchor`` of domain facts.
        players: who played.
        openings: per player name, the first structures in order with their times.
        protocols: per player name, the protocols chosen in order.
        first_productions: per player name, the first units queued.
        claims: validated claims.
        issues: validation issues.
        model: the model id that wrote the analysis ("" for the offline analyst).
        usage: token usage (prompt_tokens, completion_tokens…).
        played_at: when the match was played (Unix seconds), the ``observed_at`` of extracted facts.
        analysed_at: when the analysis ran (Unix seconds; None means now).
        analysis_id: the analysis row, to tie back injections.
        analyst: who ran it.
    """

    replay_hash: str
    replay_path: str
    map_name: str
    mod: str
    players: tuple[PlayerInput, ...]
    openings: Mapping[str, tuple[TimedItem, ...]] = field(default_factory=dict)
    protocols: Mapping[str, tuple[TimedItem, ...]] = field(default_factory=dict)
    first_productions: Mapping[str, tuple[TimedItem, ...]] = field(default_factory=dict)
    claims: tuple[ClaimInput, ...] = ()
    issues: tuple[IssueInput, ...] = ()
    model: str = ""
    usage: Mapping[str, int] = field(default_factory=dict)
    mod_version: str = ""
    played_at: float = 0.0
    analysed_at: float | None = None
    analysis_id: int | None = None
    analyst: str = ""


@dataclass(frozen=True, slots=True)
class FeedbackInput:
    """An analyst's feedback on an analysis.

    Attributes:
        analyst: who gave it.
        rating: 1..5, or None.
        correction: free text correcting the report ("太简略了", "too long"…); scanned for reversal phrases.
        preference: an explicit preference statement ("以后请用中文简洁回复").
        scope: what part of the work the preference is about (``report`` by default).
        analysis_id: the analysis the feedback is about, if any.
        model: the model of that analysis, if known.
        ts: when it was given (Unix seconds; None means now).
    """

    analyst: str
    rating: int | None = None
    correction: str = ""
    preference: str = ""
    scope: str = "report"
    analysis_id: int | None = None
    model: str = ""
    ts: float | None = None


def check_run(ep: RunEpisodeInput) -> None:
    """Refuse a run episode whose evidence could not be told apart from another replay's.

    Raises:
        EpisodeInputError: naming the missing or invalid field.
    """
    if not ep.replay_hash.strip():
        raise EpisodeInputError("run episode: replay_hash is empty (evidence of different replays would merge)")
    if not ep.mod.strip():
        raise EpisodeInputError(f"run episode {ep.replay_hash}: mod is empty")


def check_feedback(fb: FeedbackInput) -> None:
    """Refuse feedback nobody can be credited with, or with a rating outside 1..5.

    Raises:
        EpisodeInputError: naming the invalid field.
    """
    if not fb.analyst.strip():
        raise EpisodeInputError("feedback: analyst is empty (a preference needs someone it belongs to)")
    if fb.rating is not None and not 1 <= fb.rating <= 5:
        raise EpisodeInputError(f"feedback: rating {fb.rating} is not between 1 and 5")


@dataclass(slots=True)
class Candidate:
    """A fact candidate produced from one episode, before verification.

    ``subject`` + ``attribute`` (+ a compatible ``scope``) identify what the fact is about; two candidates
    with the same identity and the same ``value`` support each other, a different ``value`` contradicts.
    ``context`` holds the circumstances of the observation (map, opponent…): it is where a scope split looks
    for the dimension two contradicting facts differ in (spec §6.1).
    """

    type: FactType
    subject: str
    attribute: str
    value: str
    content_zh: str
    content_en: str
    kind: EvidenceKind
    quote: str
    scope: dict[str, str] = field(default_factory=dict)
    fields: dict[str, Any] = field(default_factory=dict)
    context: dict[str, str] = field(default_factory=dict)
    mechanism: str = ""
    generalizes: bool = False
    dedupe: str = ""
    produced_by: str = ""
    ts: float = 0.0

    def missing_fields(self) -> list[str]:
        """Required fields of this type that are absent or empty (the §3.1 gate)."""
        merged: dict[str, Any] = {**self.fields}
        if self.scope and "scope" not in merged:
            merged["scope"] = self.scope
        return [f for f in REQUIRED_FIELDS[self.type] if not merged.get(f)]

    def to_json(self) -> dict[str, Any]:
        """A JSON-compatible dict (stored with the episode so batches can replay it)."""
        return {
            "type": self.type.value,
            "subject": self.subject,
            "attribute": self.attribute,
            "value": self.value,
            "content_zh": self.content_zh,
            "content_en": self.content_en,
            "kind": self.kind.value,
            "quote": self.quote,
            "scope": self.scope,
            "fields": self.fields,
            "context": self.context,
            "mechanism": self.mechanism,
            "generalizes": self.generalizes,
            "dedupe": self.dedupe,
            "produced_by": self.produced_by,
            "ts": self.ts,
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Candidate:
        """Inverse of :meth:`to_json`."""
        return cls(
            type=FactType(d["type"]),
            subject=str(d["subject"]),
            attribute=str(d["attribute"]),
            value=str(d["value"]),
            content_zh=str(d["content_zh"]),
            content_en=str(d["content_en"]),
            kind=EvidenceKind(d["kind"]),
            quote=str(d.get("quote", "")),
            scope=dict(d.get("scope") or {}),
            fields=dict(d.get("fields") or {}),
            context=dict(d.get("context") or {}),
            mechanism=str(d.get("mechanism", "")),
            generalizes=bool(d.get("generalizes", False)),
            dedupe=str(d.get("dedupe", "")),
            produced_by=str(d.get("produced_by", "")),
            ts=float(d.get("ts", 0.0)),
        )
