"""Plan a replay end to end: fact index → compact logs → summary → :func:`app.budget.plan.plan_run`.

The level-1 compact log (no automatic commands, no camera moves) is the base the slices start from and the
naive baseline. Levels 2 and 3 are rendered only when the cut needs more compaction. The match summary lists the
segments' time ranges, so it is rendered once with the planned segments and the plan is redone when that changed
its size. Below 200K the summary is held to the tier's cap (:func:`fit_summary`). :func:`plan_for_index` is the
one implementation; the ``plan`` CLI and the analysis pipeline both use it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from app.budget.calibration import Calibration, CalibrationStore
from app.budget.plan import RunPlan, plan_run
from app.budget.profile import ModelProfile
from app.budget.segment import LogBlock
from app.i18n import Lang, tr
from app.tokens import TokenEstimator

if TYPE_CHECKING:
    from app.facts import CompactLog, ReplayFactIndex


@dataclass(slots=True)
class IndexPlan:
    """A plan together with the log and summary it was made from.

    Attributes:
        log: The level-1 compact log (the slices' base; lookbacks are cut from it).
        summary: The match summary rendered with the planned segments.
        plan: Slices, windows and planned requests.
    """

    log: CompactLog
    summary: str
    plan: RunPlan


def fit_summary(summary: str, cap: int, estimator: TokenEstimator, lang: Lang) -> str:
    """The match summary held to ``cap`` budget tokens (0 = no cap): whole ``## `` sections, in document order.

    The first section (title and players) always stays; each later section is kept when it still fits, so the
    earlier, more general sections (build order, first productions) win over the later, more detailed ones. A
    closing line names what was left out, so the model knows the summary is shortened, not that those facts are
    missing from the match.
    """
    if cap <= 0 or estimator.estimate_tokens(summary) <= cap:
        return summary
    sections = re.split(r"\n(?=## )", summary.rstrip("\n"))
    note_room = estimator.estimate_tokens(tr(lang, "(summary shortened: left out ") + "x" * 80)
    kept = [sections[0]]
    left_out: list[str] = []
    used = estimator.estimate_tokens(sections[0]) + note_room
    for section in sections[1:]:
        cost = estimator.estimate_tokens(section)
        if used + cost <= cap:
            kept.append(section)
            used += cost
        else:
            left_out.append(section.split("\n", 1)[0].lstrip("# ").split("（")[0].split(" (")[0].strip())
    names = ("、" if lang is Lang.ZH else ", ").join(left_out)
    note = tr(lang, "(summary shortened for the model's context: left out {names})", names=names)
    return "\n".join(kept) + "\n\n" + note + "\n"


def plan_for_index(
    index: ReplayFactIndex,
    profile: ModelProfile,
    *,
    lang: Lang,
    system_text: str | None = None,
    calibration: Calibration | None = None,
) -> IndexPlan:
    """Plan the analysis run of an indexed replay (see the module docstring).

    Raises:
        ReplayTooLongError: The replay does not fit the model.
        BudgetConfigError: The profile leaves no room for a slice.
    """
    from app.facts.eventlog import CompactLevel, build_compact_log
    from app.facts.summary import build_summary

    base = build_compact_log(index, CompactLevel.NO_AUTOMATIC, lang)

    def level(lv: CompactLevel) -> tuple[LogBlock, ...]:
        return build_compact_log(index, lv, lang).blocks

    more = [lambda: level(CompactLevel.COLLAPSE_SELECTION), lambda: level(CompactLevel.MERGE_BURSTS)]

    cap = profile.spec.summary_cap
    estimator = (calibration or Calibration()).estimator()

    def fitted(text: str) -> str:
        return fit_summary(text, cap, estimator, lang)

    def run(summary: str) -> RunPlan:
        return plan_run(
            base.blocks,
            profile,
            more_compact=more,
            summary_text=summary,
            system_text=system_text,
            calibration=calibration,
            lang=lang,
        )

    def ranges_of(p: RunPlan) -> list[tuple[float, float]]:
        return [(s.own_start_seconds, s.end_seconds) for s in p.segments]

    summary = fitted(build_summary(index, lang))
    plan = run(summary)
    # the summary lists the segments with their event counts, so it must be rendered with the final plan's own
    # ranges (a replan may move a boundary: then a header would count other events than the segment metadata)
    for _ in range(3):
        final_summary = fitted(build_summary(index, lang, ranges_of(plan)))
        if final_summary == summary:
            break
        replanned = run(final_summary)
        if len(replanned.segments) != len(plan.segments):
            break
        summary, plan = final_summary, replanned
    summary = fitted(build_summary(index, lang, ranges_of(plan)))
    return IndexPlan(base, summary, plan)


def plan_replay_file(
    path: str | Path,
    profile: ModelProfile,
    *,
    lang: Lang,
    system_text: str | None = None,
    calibration: Calibration | None = None,
) -> RunPlan:
    """Plan the analysis run of one replay file.

    Args:
        path: The replay.
        profile: The model.
        lang: Language of the log, summary and messages.
        system_text: The system prompt (None = the plan's 20K reference size).
        calibration: The model's calibration (None = read it from the user's calibration file).

    Raises:
        KnownError: Unreadable replay (from the reader) or a replay that does not fit the model.
    """
    from app.facts.index import build_fact_index
    from app.replay.reader import read_replay

    calib = calibration if calibration is not None else CalibrationStore().get(profile.key)
    index = build_fact_index(read_replay(path))
    return plan_for_index(index, profile, lang=lang, system_text=system_text, calibration=calib).plan
