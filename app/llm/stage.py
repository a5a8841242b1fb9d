"""What the pipeline asks for in a request, as data: the round, its segment and window, and their time ranges.

Why: a provider that analyses by rules (the offline analyst) must know which stage a request belongs to. Reading
that from the prompt's wording would break whenever a prompt is reworded, so the pipeline states it here and
attaches it to :class:`~app.llm.base.ChatRequest`. It is never sent on the wire: model endpoints see only the
messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from app.i18n import Lang

StageKindName = Literal["overview", "window", "summary_round"]
"""The rounds a provider is asked for (the deterministic summary stage sends no request)."""

Phase = Literal["initial", "retry", "lookback", "revision"]
"""Which request of a stage: the first one, a retry, the follow-up serving lookbacks, or the one revision."""

PHASES: tuple[Phase, ...] = ("initial", "retry", "lookback", "revision")


def phase_named(name: str) -> Phase:
    """The phase a request purpose names (the pipeline's purposes are these names); ``initial`` otherwise."""
    for phase in PHASES:
        if phase == name:
            return phase
    return "initial"


TimeRange = tuple[float, float]


@dataclass(frozen=True, slots=True)
class StageInfo:
    """The stage a request belongs to.

    Attributes:
        kind: the round.
        phase: which request of the stage this is.
        segment: 0-based segment of a window (-1 otherwise).
        window: 0-based window inside the segment (-1 otherwise).
        focus: the focus range of a window (seconds).
        slice_range: the data range of the window's segment slice (seconds).
        served: the lookback ranges the last user message serves (a ``lookback`` follow-up only).
        lang: the language of the analysis.
    """

    kind: StageKindName
    phase: Phase = "initial"
    segment: int = -1
    window: int = -1
    focus: TimeRange | None = None
    slice_range: TimeRange | None = None
    served: tuple[TimeRange, ...] = ()
    lang: Lang | None = None
