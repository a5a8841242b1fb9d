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
from collections.abc import Callable, Mapping
from typing import Final, NamedTuple

from app.i18n import NC_, Lang, Msg, tr
from app.stage_names import is_stage_key, kind_name, stage_name
from app.wisdom.error_kinds import DEFAULT_ISSUE, EN_STRATEGY, FAILURES, ISSUES, OBJECTIVITY_EN, ROOT_CAUSE_EN
from app.wisdom.taxonomy import DIMENSION_WORDS

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
    # an analyst's ruling (app.pipeline.feedback)
    "分析员复核": "analyst review",
    "分析员裁定误报": "the analyst ruled it a false alarm",
    "分析员确认问题": "the analyst confirmed the issue",
    "问题属实": "issue confirmed",
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

TRIGGER_WORDS: Final[dict[str, Msg]] = {
    "tool": NC_("trigger pattern", "tool: {value}"),
    "code": NC_("trigger pattern", "code: {value}"),
    "param": NC_("trigger pattern", "parameter: {value}"),
    "model": NC_("trigger pattern", "model: {value}"),
    "issue": NC_("trigger pattern", "issue: {value}"),
    "stage": NC_("trigger pattern", "stage: {value}"),
    "dimension": NC_("trigger pattern", "dimension: {value}"),
}
"""The kinds of an entry's trigger patterns (``issue:NonexistentUnit``, ``stage:window``), as people read them."""


def trigger_words(pattern: str, lang: Lang) -> str:
    """A trigger pattern in words: ``dimension:certainty_without_evidence`` → 维度：无证据的确定性.

    Stage kinds and the evaluator's dimensions are named; tools, codes, parameters and models are names and stay
    as they are. A pattern of an unknown kind (an imported entry's) is shown as stored.
    """
    kind, sep, value = pattern.partition(":")
    message = TRIGGER_WORDS.get(kind)
    if not sep or message is None:
        return pattern
    if kind == "stage":
        value = kind_name(value, lang)
    elif kind == "dimension" and (word := DIMENSION_WORDS.get(value)) is not None:
        value = word(lang)
    return message(lang, value=value)


_UNIT_CLAIM = re.compile(r"^unit:(?P<object_id>\d+)$")
_SENTENCE_CLAIM = re.compile(r"^claim:(?P<hash>[0-9a-f]+)$")


def claim_words(key: str, lang: Lang) -> str:
    """The claim an entry is about (:func:`app.wisdom.error_kinds.claim_key`) in words.

    ``unit:9999`` names the object the claim is about (an object id of the replay, not a position in the claims
    list: it is shown as ``#9999``, as the claims table and the validator's messages show objects); ``claim:…`` is
    the hash of a sentence without an object id. Anything else is shown as stored.
    """
    if m := _UNIT_CLAIM.match(key):
        return tr(lang, "the claim about object #{object_id}", object_id=m["object_id"])
    if m := _SENTENCE_CLAIM.match(key):
        return tr(lang, "the sentence {hash}", hash=m["hash"])
    return key


FIX_METHODS: Final[dict[str, Msg]] = {
    "inject_pitfall_hint": NC_("fix method", "add the pitfall to the window instruction"),
    "shrink_max_tokens": NC_("fix method", "lower max_tokens"),
    "replace_known_bad_value": NC_("fix method", "replace the known bad value"),
    "convert_to_nearest_valid_value": NC_("fix method", "use the nearest valid value"),
    "clamp_to_bounds": NC_("fix method", "clamp to the allowed range"),
    "reject_with_suggestion": NC_("fix method", "refuse with a suggestion"),
}
"""The fix methods of pre-check rules (objectivity entries, learned and built-in rules), as people read them."""


_Params = Mapping[str, str]
_Render = Callable[[Lang, _Params], str]


class Pattern(NamedTuple):
    """A stored text with parameters: how to recognise it, its catalogue message, and how the view shows it.

    ``render`` is the catalogue message filled with the parameters as stored (its 中文 is the stored text again:
    the catalogue and the store agree). ``shown`` overrides how a view shows it when the message alone would repeat
    itself once its parameters are words ("window:1:0 窗口" is the window 第 2 段 · 窗口 1, not
    "第 2 段 · 窗口 1 窗口").
    """

    rx: re.Pattern[str]
    render: _Render
    shown: Callable[[Lang, _Params], str | None] | None = None


def _dims_words(dims: str, lang: Lang) -> str:
    """``certainty_without_evidence=1.00, unsupported_specifics=0.50`` with each dimension named in ``lang``."""
    items = []
    for part in dims.split(", "):
        key, sep, score = part.partition("=")
        word = DIMENSION_WORDS.get(key)
        if not sep or word is None:
            return dims  # not the evaluator's own text: shown as stored
        items.append(tr(lang, "{dimension} {score}", dimension=word(lang), score=score))
    return ("，" if lang is Lang.ZH else ", ").join(items)


def _stage_words(stage: str, lang: Lang) -> str:
    return stage_name(stage, lang) if stage else stage


_PARAM_WORDS: Final[dict[str, Callable[[str, Lang], str]]] = {
    "claim": claim_words,
    "stage": _stage_words,
    "context": kind_name,
    "dims": _dims_words,
}
"""Parameters that are program keys (a stage key, a stage kind, the evaluator's dimensions), in words."""


def _window_scene(lang: Lang, p: _Params) -> str | None:
    return stage_name(p["stage"], lang) if is_stage_key(p["stage"]) else None


PATTERNS: Final[list[Pattern]] = [
    Pattern(
        re.compile(r"^验证器 (?P<code>\S+)$"),
        lambda lang, p: tr(lang, "validator {code}", code=p["code"]),
    ),
    Pattern(
        re.compile(r"^机器可读声明无法解析：(?P<detail>.*)$", re.S),
        lambda lang, p: tr(lang, "machine-readable claims could not be parsed: {detail}", detail=p["detail"]),
    ),
    Pattern(
        re.compile(r"^注入后仍出现 (?P<code>.*)$", re.S),
        lambda lang, p: tr(lang, "{code} still occurred after the pitfall was injected", code=p["code"]),
    ),
    Pattern(
        re.compile(r"^规则 (?P<rule>\S+) 自动修正$"),
        lambda lang, p: tr(lang, "rule {rule} fixed the request", rule=p["rule"]),
    ),
    Pattern(
        re.compile(r"^规则 (?P<rule>\S+) 修正后仍失败 (?P<code>.*)$", re.S),
        lambda lang, p: tr(lang, "failed after rule {rule} fixed the request {code}", rule=p["rule"], code=p["code"]),
    ),
    Pattern(
        re.compile(r"^(?P<stage>\S*) 窗口$"),
        lambda lang, p: tr(lang, "window {stage}", stage=p["stage"]),
        _window_scene,
    ),
    Pattern(
        re.compile(r"^(?P<stage>\S*) 请求$"),
        lambda lang, p: tr(lang, "request {stage}", stage=p["stage"]),
    ),
    Pattern(
        # the gate's call failure: "provider / model: kind (HTTP 500)：detail"
        re.compile(r"^(?P<what>[^\n：]*: [a-z_]+(?: \(HTTP \d+\))?)：(?P<detail>.*)$", re.S),
        lambda lang, p: tr(lang, "{what}: {detail}", what=p["what"], detail=p["detail"]),
    ),
    Pattern(
        re.compile(
            r"^客观性评估：主观性 (?P<subj>[\d.]+)，客观性 (?P<obj>[\d.]+)（(?P<dims>[^（）]*)）；例：(?P<sample>.*)$",
            re.S,
        ),
        lambda lang, p: tr(
            lang,
            "objectivity check: subjectivity {subj}, objectivity {obj} ({dims}); for example: {sample}",
            subj=p["subj"],
            obj=p["obj"],
            dims=p["dims"],
            sample=p["sample"] if lang is Lang.ZH else p["sample"].replace("；", "; "),
        ),
    ),
    Pattern(
        re.compile(r"^(?P<context>\w+) 文本(?:（(?P<stage>[^（）]*)）)?$"),
        lambda lang, p: (
            tr(lang, "{context} text ({stage})", context=p["context"], stage=p["stage"])
            if p["stage"]
            else tr(lang, "{context} text", context=p["context"])
        ),
    ),
    Pattern(
        re.compile(r"^(?P<context>\w+) 分析$"),
        lambda lang, p: tr(lang, "{context} analysis", context=p["context"]),
    ),
    Pattern(
        # an analyst's ruling on an entry's issue (app.pipeline.feedback), in the stage it was given for
        re.compile(r"^(?P<stage>\S+) 分析员复核$"),
        lambda lang, p: tr(lang, "analyst review of {stage}", stage=p["stage"]),
    ),
    Pattern(
        # an analyst disputed a claim the validator passed (app.pipeline.feedback)
        re.compile(r"^分析员否定了声明 (?P<claim>[^\s：]+)$"),
        lambda lang, p: tr(lang, "the analyst disputes {claim}", claim=p["claim"]),
    ),
    Pattern(
        re.compile(r"^分析员否定了声明 (?P<claim>[^\s：]+)：(?P<note>.*)$", re.S),
        lambda lang, p: tr(lang, "the analyst disputes {claim}: {note}", claim=p["claim"], note=p["note"]),
    ),
]
"""Stored texts with parameters: their pattern, and their rendering through the catalogue in a language."""

OLD_ENGLISH: Final[list[Pattern]] = [
    Pattern(
        re.compile(r"^analyst: false alarm: (?P<note>.*)$", re.S),
        lambda lang, p: tr(lang, "the analyst ruled it a false alarm: {note}", note=p["note"]),
    ),
    Pattern(
        re.compile(r"^(?P<stage>\S+) analyst review$"),
        lambda lang, p: tr(lang, "analyst review of {stage}", stage=p["stage"]),
    ),
    Pattern(re.compile(r"^issue confirmed$"), lambda lang, p: entry_text("问题属实", lang)),
    Pattern(
        re.compile(r"^analyst disputes claim (?P<claim>\S+): (?P<note>.*)$", re.S),
        lambda lang, p: tr(lang, "the analyst disputes {claim}: {note}", claim=p["claim"], note=p["note"]),
    ),
]
"""The fixed English sentences older versions of the feedback path stored in a ruling's 验证历史 line ("analyst:
false alarm: NOTE" as its scene and trigger, "STAGE analyst review", "issue confirmed"): recognised by their fixed
parts and shown through the catalogue in either language, so old rows read like new ones without a migration."""


def _known(text: str) -> bool:
    return text in FIXED_EN or any(p.rx.match(text) for p in PATTERNS)


def _show(pattern: Pattern, m: re.Match[str], lang: Lang) -> str:
    params = {k: v or "" for k, v in m.groupdict().items()}
    if pattern.shown is not None and (shown := pattern.shown(lang, params)) is not None:
        return shown
    return pattern.render(lang, {k: _PARAM_WORDS.get(k, _as_is)(v, lang) for k, v in params.items()})


def _as_is(value: str, _lang: Lang) -> str:
    return value


def entry_text(text: str, lang: Lang) -> str:
    """A text stored in an entry, in ``lang``: the library's own texts in words, anything else as stored.

    The library's fixed 中文 texts are the 中文 interface's words as they are and the key of their English; its texts
    with parameters are catalogue messages whose parameters are program keys (stage keys, stage kinds, the
    evaluator's dimensions) shown in words in either language. Detectors merged into one entry are stored joined by
    "；" and are rendered one by one.
    """
    if not text:
        return text
    if "；" in text:
        parts = text.split("；")
        if all(_known(p) for p in parts):
            return ("；" if lang is Lang.ZH else "; ").join(entry_text(p, lang) for p in parts)
    if text in FIXED_EN:
        return text if lang is Lang.ZH else FIXED_EN[text]
    for pattern in (*PATTERNS, *OLD_ENGLISH):
        if m := pattern.rx.match(text):
            return _show(pattern, m, lang)
    return text


def scene_words(scene: str, lang: Lang) -> str:
    """The trigger scene the gate records ("overview 验证", "请求 模型请求") with its stage named in ``lang``."""
    m = _SCENE.match(scene)
    if m is None:
        return entry_text(scene, lang)
    stage = _stage_words(m.group("stage"), lang) if m.group("stage") not in ("", "请求") else ""
    if m.group("what") == "验证":
        return tr(lang, "validating {stage}", stage=stage).strip()
    return tr(lang, "model request {stage}", stage=stage).strip()


_SCENE = re.compile(r"^(?P<stage>\S*) (?P<what>验证|模型请求)$")


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


__all__ = [
    "FIXED_EN",
    "FIX_METHODS",
    "OLD_ENGLISH",
    "PATTERNS",
    "TRIGGER_WORDS",
    "Pattern",
    "claim_words",
    "entry_text",
    "rule_message",
    "scene_words",
    "trigger_words",
]
