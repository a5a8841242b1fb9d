"""The texts the pipeline writes into error-wisdom entries, shown in the interface language.

Entries keep the spec's Chinese field contents (/work/shared/seeds/error-wisdom-spec.zh.md): that is what is stored
and exported, in old databases and new ones alike. The texts this library writes are fixed (the tables of
:mod:`app.wisdom.error_kinds` and :mod:`app.wisdom.objectivity`, the gate's fixes and detectors), so the stored
中文 text is itself the stable code of its English version: :func:`entry_text` renders it in the interface
language at view time (issue 30). Texts with parameters (the validator's code, the parse error's detail) are
recognised by their pattern and rendered through the message catalogue with the same parameters. A text this
library did not write (an imported entry, a user's note) is user data and is shown as it is stored.

Why not a stored code: every old database already holds exactly these texts, so one lookup renders old and new
entries alike without a migration; a stored code would need the same lookup for old entries anyway.

The same lookup gives the English variant of a strategy injected into an English prompt
(:meth:`app.wisdom.pitfalls.PitfallTracker.lines`); Chinese prompts get the stored text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from app.i18n import Lang, tr
from app.wisdom.error_kinds import DEFAULT_ISSUE, EN_STRATEGY, FAILURES, ISSUES, OBJECTIVITY_EN, ROOT_CAUSE_EN

FIXED_EN: Final[dict[str, str]] = {
    **EN_STRATEGY,
    **ROOT_CAUSE_EN,
    **OBJECTIVITY_EN,
    # the gate's fixes, impacts, detectors and responsibilities
    "缩小请求后重试": "retry with a smaller request",
    "按错误类型重试或提示用户": "retry as the error kind allows, or tell the user",
    "单次调用": "one call",
    "请求构造阶段": "building the request",
    "网络": "network",
    "HTTP/流式错误": "HTTP or stream error",
    "声明解析器": "claims parser",
    "模型输出的 JSON 块不完整或格式错误": "the model's JSON block is incomplete or malformed",
    "请求一次修订": "ask for one revision",
    "修订该窗口": "revise this window",
    "分析结论可信度": "credibility of the analysis's conclusions",
    "客观性评估器": "objectivity evaluator",
    # verification history
    "成功预防": "prevented",
    "反例": "counterexample",
    "预防失败": "prevention failed",
    "已注入窗口指令": "injected into the window instruction",
}
"""English versions of the fixed 中文 texts the library stores (stored text → English)."""


def _check_tables() -> None:
    """Every text of the failure and issue tables has its English version (import-time: a new row cannot miss)."""
    missing = [t for f in FAILURES.values() for t in (f[3], f[4]) if t not in FIXED_EN]
    missing += [t for i in ISSUES for t in (i[3], i[4]) if t not in FIXED_EN]
    missing += [t for t in DEFAULT_ISSUE if t not in FIXED_EN]
    if missing:
        raise RuntimeError(f"error-wisdom texts without English: {missing}")


_check_tables()

_Render = Callable[[Lang, re.Match[str]], str]
PATTERNS: Final[list[tuple[re.Pattern[str], _Render]]] = [
    (
        re.compile(r"^验证器 (?P<code>\S+)$"),
        lambda lang, m: tr(lang, "validator {code}", code=m["code"]),
    ),
    (
        re.compile(r"^机器可读声明无法解析：(?P<detail>.*)$", re.S),
        lambda lang, m: tr(lang, "machine-readable claims could not be parsed: {detail}", detail=m["detail"]),
    ),
    (
        re.compile(r"^注入后仍出现 (?P<code>.*)$", re.S),
        lambda lang, m: tr(lang, "{code} still occurred after the pitfall was injected", code=m["code"]),
    ),
    (
        re.compile(r"^规则 (?P<rule>\S+) 自动修正$"),
        lambda lang, m: tr(lang, "rule {rule} fixed the request", rule=m["rule"]),
    ),
    (
        re.compile(r"^规则 (?P<rule>\S+) 修正后仍失败 (?P<code>.*)$", re.S),
        lambda lang, m: tr(lang, "failed after rule {rule} fixed the request {code}", rule=m["rule"], code=m["code"]),
    ),
    (
        re.compile(r"^(?P<stage>\S*) 窗口$"),
        lambda lang, m: tr(lang, "window {stage}", stage=m["stage"]),
    ),
    (
        re.compile(r"^(?P<stage>\S*) 请求$"),
        lambda lang, m: tr(lang, "request {stage}", stage=m["stage"]),
    ),
    (
        # the gate's call failure: "provider / model: kind (HTTP 500)：detail"
        re.compile(r"^(?P<what>[^\n：]*: [a-z_]+(?: \(HTTP \d+\))?)：(?P<detail>.*)$", re.S),
        lambda lang, m: tr(lang, "{what}: {detail}", what=m["what"], detail=m["detail"]),
    ),
    (
        re.compile(
            r"^客观性评估：主观性 (?P<subj>[\d.]+)，客观性 (?P<obj>[\d.]+)（(?P<dims>[^（）]*)）；例：(?P<sample>.*)$",
            re.S,
        ),
        lambda lang, m: tr(
            lang,
            "objectivity check: subjectivity {subj}, objectivity {obj} ({dims}); for example: {sample}",
            subj=m["subj"],
            obj=m["obj"],
            dims=m["dims"],
            sample=m["sample"] if lang is Lang.ZH else m["sample"].replace("；", "; "),
        ),
    ),
    (
        re.compile(r"^(?P<context>\w+) 文本(?:（(?P<stage>[^（）]*)）)?$"),
        lambda lang, m: (
            tr(lang, "{context} text ({stage})", context=m["context"], stage=m["stage"])
            if m["stage"]
            else tr(lang, "{context} text", context=m["context"])
        ),
    ),
    (
        re.compile(r"^(?P<context>\w+) 分析$"),
        lambda lang, m: tr(lang, "{context} analysis", context=m["context"]),
    ),
]
"""Stored texts with parameters: their pattern, and their rendering through the catalogue in a language."""


def _known(text: str) -> bool:
    return text in FIXED_EN or any(rx.match(text) for rx, _ in PATTERNS)


def entry_text(text: str, lang: Lang) -> str:
    """A text stored in an entry, in ``lang``: the library's own texts translated, anything else as stored.

    Detectors merged into one entry are stored joined by "；" and are rendered one by one.
    """
    if lang is Lang.ZH or not text:
        return text
    if "；" in text:
        parts = text.split("；")
        if all(_known(p) for p in parts):
            return "; ".join(entry_text(p, lang) for p in parts)
    fixed = FIXED_EN.get(text)
    if fixed is not None:
        return fixed
    for rx, render in PATTERNS:
        if m := rx.match(text):
            return render(lang, m)
    return text


_HAN = re.compile(r"[\u3400-\u9fff]")


def rule_message(zh: str, en: str, lang: Lang) -> str:
    """A rule's message (for the rules table and for prompts) in ``lang``.

    Rules generated before their English used :func:`entry_text` stored the 中文 strategy in ``en`` too
    ("Hallucination: 只引用…"): that strategy is rendered in English here, so old databases read the same.
    """
    if lang is Lang.ZH:
        return zh
    text = en or zh
    if not _HAN.search(text):
        return text
    whole = entry_text(text, lang)
    if whole != text:
        return whole
    head, sep, rest = text.partition(": ")
    if sep and rest in FIXED_EN:
        return f"{head}: {FIXED_EN[rest]}"
    return text


__all__ = ["FIXED_EN", "PATTERNS", "entry_text", "rule_message"]
