"""Typed events the pipeline emits while an analysis runs.

The CLI, the GUI and the store consume these; none of them parses JSON or model text. Every event names the
stage it belongs to through a :class:`StageRef`, whose ``key`` is stable across a resumed run.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

from app.claims.issues import ValidationIssue
from app.i18n import Lang, tr


class StageKind(enum.StrEnum):
    """The rounds of an analysis (plan §5)."""

    SUMMARY = "summary"  # the deterministic match summary (no model)
    OVERVIEW = "overview"
    WINDOW = "window"  # one focus window of one segment
    SUMMARY_ROUND = "summary_round"


@dataclass(frozen=True, slots=True)
class StageRef:
    """Which stage an event belongs to.

    Attributes:
        kind: the round.
        segment: 0-based segment index for windows, else -1.
        window: 0-based window index inside the segment, else -1.
        start_seconds: start of the stage's focus time range (0 for whole-match stages).
        end_seconds: end of that range.
    """

    kind: StageKind
    segment: int = -1
    window: int = -1
    start_seconds: float = 0.0
    end_seconds: float = 0.0

    @property
    def key(self) -> str:
        """Stable identifier, e.g. ``window:2:1``."""
        if self.kind is StageKind.WINDOW:
            return f"window:{self.segment}:{self.window}"
        return self.kind.value


@dataclass(frozen=True, slots=True)
class RunStarted:
    """An analysis began (or resumed): its id and every stage it plans, in order."""

    analysis_id: int
    replay_path: str
    model_label: str
    stages: tuple[StageRef, ...]
    resumed: bool = False
    segments: tuple[tuple[float, float], ...] = ()


@dataclass(frozen=True, slots=True)
class StageStarted:
    """A stage's request is about to be sent.

    ``breakdown`` holds the budget numbers: system, summary, overview, slice, found_facts, instruction,
    reserve, total, budget, context_length (estimated tokens). ``prompt`` is the user-visible prompt text
    actually sent (all messages joined), for the collapsed "prompt" block.
    """

    stage: StageRef
    breakdown: Mapping[str, int] = field(default_factory=dict)
    prompt: str = ""


@dataclass(frozen=True, slots=True)
class TextDelta:
    """Streamed answer text. ``revision`` is True while a revision draft streams."""

    stage: StageRef
    text: str
    revision: bool = False


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """Streamed reasoning ("thinking") text; shown, counted, never sent back."""

    stage: StageRef
    text: str


@dataclass(frozen=True, slots=True)
class UsageUpdated:
    """Token usage and timing of a finished request of the stage."""

    stage: StageRef
    prompt_tokens: int
    completion_tokens: int
    reasoning_tokens: int = 0
    cached_prompt_tokens: int = 0
    ttft_seconds: float | None = None
    tokens_per_second: float | None = None
    cost: float | None = None
    resolved_model: str = ""


@dataclass(frozen=True, slots=True)
class LookbackServed:
    """A ``[回查]`` request was answered with the raw log of a time range (or refused, see issues)."""

    stage: StageRef
    start_seconds: float
    end_seconds: float
    tokens: int


@dataclass(frozen=True, slots=True)
class ClaimsParsed:
    """The machine-readable claims of the stage's reply (JSON-compatible dicts)."""

    stage: StageRef
    claims: Mapping[str, object]


@dataclass(frozen=True, slots=True)
class IssuesFound:
    """Validation issues of the stage's reply (after revision when ``after_revision``)."""

    stage: StageRef
    issues: tuple[ValidationIssue, ...]
    after_revision: bool = False


@dataclass(frozen=True, slots=True)
class RevisionStarted:
    """The validator asked for the one revision of this stage."""

    stage: StageRef
    issue_count: int


@dataclass(frozen=True, slots=True)
class RevisionFinished:
    """The revision ended; ``kept_original`` when it came back empty."""

    stage: StageRef
    kept_original: bool


@dataclass(frozen=True, slots=True)
class RetryScheduled:
    """A request of the stage failed before any content and is retried after ``delay_s`` (a progress line)."""

    stage: StageRef
    attempt: int
    max_attempts: int
    delay_s: float
    reason: str

    def describe(self, lang: Lang) -> str:
        """``retry 2/5 in 8 s: HTTP 503`` — the attempt about to be made, of how many, after what wait, why."""
        n = f"{self.attempt + 1}/{self.max_attempts}" if self.max_attempts else str(self.attempt + 1)
        wait = f"{self.delay_s:.0f}" if self.delay_s >= 1 else f"{self.delay_s:.1f}"
        return tr(lang, "retry {n} in {wait} s: {reason}", n=n, wait=wait, reason=self.reason)


@dataclass(frozen=True, slots=True)
class StageFinished:
    """A stage completed and was stored. ``text`` is the final text (claims block removed).

    Only a reply that ended by itself finishes a stage, so its outcome is always ``stop``.
    """

    stage: StageRef
    text: str
    revised: bool = False
    truncated: bool = False
    outcome: str = "stop"


@dataclass(frozen=True, slots=True)
class StageFailed:
    """A stage did not finish; ``partial_text`` keeps what arrived, ``outcome`` says how the reply ended.

    ``outcome`` is an :class:`app.llm.events.Outcome` value: ``length``, ``cut``, ``stalled``, ``error`` or
    ``cancelled``. Such a stage stays resumable (except a skipped overview, which the run continues without).
    """

    stage: StageRef
    message: str
    partial_text: str = ""
    outcome: str = "error"


@dataclass(frozen=True, slots=True)
class RunFinished:
    """The analysis ended. ``status`` is ``completed``, ``cancelled`` or ``failed``."""

    analysis_id: int
    status: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    message: str = ""


PipelineEvent = (
    RunStarted
    | StageStarted
    | TextDelta
    | ReasoningDelta
    | UsageUpdated
    | LookbackServed
    | ClaimsParsed
    | IssuesFound
    | RevisionStarted
    | RevisionFinished
    | RetryScheduled
    | StageFinished
    | StageFailed
    | RunFinished
)
