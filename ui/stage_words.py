"""What a stage panel's lines say: its budget, usage, lookbacks and validation tally, in the interface language.

Plain functions of the stage's numbers, so :class:`ui.stage_panel.StagePanel` only decides when a line changes
and the wording lives in one place (the issue tally is in the panel's title and its issues section both).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from app.claims.issues import ValidationIssue
from app.i18n import NC_, Msg
from ui.lang import UiLanguage

BUDGET_PARTS: tuple[tuple[str, Msg, str], ...] = (
    ("system", NC_("budget part", "system"), "#5b8def"),
    ("summary", NC_("budget part", "summary"), "#49b6a6"),
    ("overview", NC_("budget part", "overview"), "#9b6fd8"),
    ("slice", NC_("budget part", "slice"), "#f0a030"),
    ("found_facts", NC_("budget part", "found facts"), "#d9644a"),
    ("instruction", NC_("budget part", "instruction"), "#7f8c8d"),
    ("reserve", NC_("budget part", "reserve"), "#c8c8c8"),
)
"""Budget bar parts in drawing order: key, name, colour."""


def clock(seconds: float) -> str:
    """``m:ss`` (or ``h:mm:ss``) of a game time."""
    s = max(0, round(seconds))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def revision_tally(
    draft_issues: Sequence[ValidationIssue] | None, issues: Sequence[ValidationIssue]
) -> tuple[int, int, int]:
    """(found, fixed, left) issues that need a revision: before it, repaired by it, still there after it."""
    found = sum(i.needs_revision for i in draft_issues or [])
    left = sum(i.needs_revision for i in issues)
    return found, max(0, found - left), left


def issue_count_text(
    ui: UiLanguage, issues: Sequence[ValidationIssue], draft_issues: Sequence[ValidationIssue] | None
) -> str:
    """`` · found 3 · fixed 2 · 1 left`` (after a revision) or `` · 2 issues``; "" without issues."""
    if draft_issues is not None:
        found, fixed, left = revision_tally(draft_issues, issues)
        return ui.tx(" · found {found} · fixed {fixed} · {left} left", found=found, fixed=fixed, left=left)
    if issues:
        n = len(issues)
        return ui.tx(" · {n} issue", n=n) if n == 1 else ui.tx(" · {n} issues", n=n)
    return ""


def issues_title(
    ui: UiLanguage, issues: Sequence[ValidationIssue], draft_issues: Sequence[ValidationIssue] | None
) -> str:
    """The issues section's title: the revision's tally (issue 14), or the count and the worst severity."""
    if draft_issues is not None:  # after a revision: "found N · fixed M · K left"
        found, fixed, left = revision_tally(draft_issues, issues)
        return ui.tx("Validation: found {found} · fixed {fixed} · {left} left", found=found, fixed=fixed, left=left)
    if not issues:
        return ui.tx("Validation issues (0)")
    worst = max(i.severity for i in issues).display(ui.lang)
    return ui.tx("Validation issues ({count}, worst {worst})", count=len(issues), worst=worst)


def budget_text(ui: UiLanguage, values: Mapping[str, int]) -> str:
    """The budget bar's legend: each part with its colour and tokens, then total, budget and context (rich text)."""
    if not values:
        return ui.tx("Budget: no request sent yet")
    parts = " · ".join(
        f"<span style='color:{c}'>■</span> {name(ui.lang)} {values.get(k, 0):,}" for k, name, c in BUDGET_PARTS
    )
    return ui.tx(
        "{parts}  | total {get:,} / budget {get_2:,} / context {get_3:,}",
        parts=parts,
        get=values.get("total", 0),
        get_2=values.get("budget", 0),
        get_3=values.get("context_length", 0),
    )


def usage_text(ui: UiLanguage, usage: Mapping[str, float]) -> str:
    """A stage's summed usage ("" before its first request); the offline analyst shows no speed and no cost."""
    u = usage
    if not u:
        return ""
    offline = bool(u.get("offline"))  # the rule-based analyst: no model, so no speed and no cost to show
    ttft = f"{u['ttft']:.2f} s" if u.get("ttft") is not None and not offline else "–"
    tps = f"{u['tps']:.1f}" if u.get("tps") is not None and not offline else "–"
    cost = f"{u['cost']:.4f}" if u.get("cost") is not None and not offline else "–"
    return ui.tx(
        "Usage: prompt {prompt:,} (cached {cached:,}) · completion {completion:,} · reasoning "
        "{reasoning:,} · TTFT {ttft} · {tps} tok/s · cost {cost}",
        prompt=int(u["prompt"]),
        cached=int(u["cached"]),
        completion=int(u["completion"]),
        reasoning=int(u["reasoning"]),
        ttft=ttft,
        tps=tps,
        cost=cost,
    )


def lookbacks_text(ui: UiLanguage, lookbacks: Sequence[tuple[float, float, int]]) -> str:
    """The lookback ranges served to a stage, with their tokens."""
    items = ", ".join(f"{clock(a)}–{clock(b)} ({n:,})" for a, b, n in lookbacks)
    return ui.tx("Lookbacks: {items}", items=items)
