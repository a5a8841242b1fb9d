"""A scripted analysis (the events a real run emits) for driving the analysis view without a model."""

from __future__ import annotations

from app.claims.issues import Severity, ValidationIssue
from app.pipeline import events as ev
from tests.support.scripted_runner import Pause, Step

SEGMENTS = ((0.0, 300.0), (300.0, 600.0))
STAGES = (
    ev.StageRef(ev.StageKind.SUMMARY, end_seconds=600.0),
    ev.StageRef(ev.StageKind.OVERVIEW, end_seconds=600.0),
    ev.StageRef(ev.StageKind.WINDOW, 0, 0, 60.0, 180.0),
    ev.StageRef(ev.StageKind.WINDOW, 0, 1, 180.0, 300.0),
    ev.StageRef(ev.StageKind.WINDOW, 1, 0, 300.0, 480.0),
    ev.StageRef(ev.StageKind.SUMMARY_ROUND, end_seconds=600.0),
)


def breakdown(i: int) -> dict[str, int]:
    """A distinct budget breakdown per stage (values the test compares against)."""
    parts = {
        "system": 1000 + i,
        "summary": 2000 + i,
        "overview": 300 * i,
        "slice": 10_000 + 7 * i,
        "found_facts": 50 * i,
        "instruction": 400 + i,
        "reserve": 32_768,
    }
    return {**parts, "total": sum(parts.values()), "budget": 100_000, "context_length": 200_000}


ISSUES = (
    ValidationIssue(Severity.CONTRADICTION, "OwnershipContradiction", "单位 1234 属于另一方", 150.0, 1234),
    ValidationIssue(Severity.WARNING, "TimeOutOfRange", "时间 5:10 不在窗口内", 310.0),
    ValidationIssue(Severity.INFO, "Style", "提示：可以更具体"),
)


def script(
    chunks: int = 8, pause: float = 0.0, stall_at: tuple[str, int] | None = None, stall: float = 0.0
) -> list[Step]:
    """Every stage streams ``chunks`` deltas ``"<key> part n. "``; window 0:1 gets issues, one revision and a lookback.

    ``stall_at=(key, n)`` inserts a ``stall``-second pause after delta ``n`` of stage ``key``.
    """
    out: list[Step] = [ev.RunStarted(7, "replay", "scripted", STAGES, segments=SEGMENTS)]
    for i, st in enumerate(STAGES):
        out.append(
            ev.StageStarted(st, breakdown(i) if st.kind is not ev.StageKind.SUMMARY else {}, f"PROMPT for {st.key}")
        )
        if st.kind is not ev.StageKind.SUMMARY:
            out.append(ev.ReasoningDelta(st, f"thinking about {st.key}. "))
        for n in range(chunks):
            out.append(ev.TextDelta(st, f"{st.key} part {n}. "))
            if pause:
                out.append(Pause(pause))
            if stall_at == (st.key, n):
                out.append(Pause(stall))
        if st.key == "window:0:1":
            out.append(ev.LookbackServed(st, 200.0, 230.0, 812))
            out.append(ev.ClaimsParsed(st, {"units": [{"id": 1234, "player": "A"}]}))
            out.append(ev.IssuesFound(st, ISSUES[:2]))
            out.append(ev.RevisionStarted(st, 2))
            out.append(ev.TextDelta(st, "## 修订 Revised\n\n- fixed unit 1234\n", revision=True))
            out.append(ev.RevisionFinished(st, kept_original=False))
            out.append(ev.IssuesFound(st, ISSUES, after_revision=True))
        out.append(ev.UsageUpdated(st, 5000 + i, 300, 40, 1000, 0.5, 42.0, 0.001, "scripted-model"))
        final = "## 修订 Revised\n\n- fixed unit 1234\n" if st.key == "window:0:1" else f"# {st.key}\n\nfinal **text**"
        out.append(ev.StageFinished(st, final, revised=st.key == "window:0:1"))
    out.append(ev.RunFinished(7, "completed", 30_000, 1_800, 0.006))
    return out
