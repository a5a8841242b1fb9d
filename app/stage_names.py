"""A stage of an analysis as people read it, from its key (``overview``, ``summary_round``, ``window:0:1``).

Why here: the analysis view's outline names the stages (总览, 总结, 第 1 段 / 窗口 2), and every other place that
shows a stage key (the error-wisdom views, whose entries store the key) must say the same words; a second table
drifted (the wisdom tab said "段 1 · 窗口 1", issue 30). The messages are the outline's own msgids, so one 中文
serves both. The module sits at the bottom of ``app`` (it imports only :mod:`app.i18n`): the wisdom library, the
pipeline and the views may all use it.
"""

from __future__ import annotations

import re
from typing import Final

from app.i18n import N_, NC_, Lang, Msg, tr

OVERVIEW: Final = N_("Overview")
SUMMARY_ROUND: Final = N_("Summary")
MATCH_SUMMARY: Final = N_("Match summary (no model)")
SEGMENT: Final = N_("Segment {seg}{span}")
"""A segment's heading in the outline (``span`` is its ``  a–b`` time range, or empty)."""
WINDOW: Final = N_("Window {n}")
"""A window's title in the outline (``n`` is its 1-based number within its segment)."""

KIND_WORDS: Final[dict[str, Msg]] = {
    "summary": MATCH_SUMMARY,
    "overview": OVERVIEW,
    "summary_round": SUMMARY_ROUND,
    "window": NC_("stage kind", "window"),
}
"""A stage kind (the part of a key before the first ``:``) as a word: ``window 分析`` reads 窗口分析."""

_WINDOW_KEY = re.compile(r"^window:(\d+):(\d+)$")


def stage_name(key: str, lang: Lang) -> str:
    """The stage ``key`` names, in the outline's words; a key of no known shape is shown as it is."""
    if m := _WINDOW_KEY.match(key):
        segment = SEGMENT(lang, seg=int(m.group(1)) + 1, span="")
        window = WINDOW(lang, n=int(m.group(2)) + 1)
        return tr(lang, "{segment} · {window}", segment=segment, window=window)
    return kind_name(key, lang)  # a stage kind alone ("window" where no window was named) is its kind's word


def is_stage_key(key: str) -> bool:
    """Whether ``key`` is a stage key (or a stage kind) :func:`stage_name` words."""
    return bool(_WINDOW_KEY.match(key)) or key in KIND_WORDS


def kind_name(kind: str, lang: Lang) -> str:
    """A stage kind (``window``, ``overview``) as a word; an unknown kind is shown as it is."""
    word = KIND_WORDS.get(kind)
    return word(lang) if word is not None else kind


__all__ = ["KIND_WORDS", "is_stage_key", "kind_name", "stage_name"]
