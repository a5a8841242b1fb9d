"""The offline analyst's fixed sentences in 中文 and English, kept apart from the rules that choose them."""

from __future__ import annotations

from app.i18n import Lang, pick

INTRO = (
    "（离线规则分析，非大模型）我按固定规则从录像的事实索引生成分析，不需要网络。请在分析录像时使用我。",
    "(Offline rule-based analyst, not a language model.) I write analyses from a replay's fact index by fixed "
    "rules and need no network. Use me while analysing a replay.",
)


def intro(lang: Lang) -> str:
    """What the unbound analyst answers (a connection test)."""
    return pick(lang, *INTRO)
