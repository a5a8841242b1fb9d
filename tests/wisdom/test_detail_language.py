"""The error-wisdom views speak the interface language (issue 30, item 4): the entries table's rows and the detail
text of entries recorded as the pipeline records them, checked with the language walk's rule
(:func:`tests.support.ui_words.foreign_words`: no stray Latin word in 中文, no Chinese in English).

The entry's own texts that came from the analysis (the validator's message, a model's broken reply) are content in
the analysis language: the seeded ones are written in the interface language, so only interface words can fail.
"""

from __future__ import annotations

import pytest

from app.claims.issues import Severity, ValidationIssue
from app.i18n import Lang
from app.store import Database, open_database
from app.wisdom.gate import WisdomGate
from app.wisdom.objectivity import EvidenceContext
from app.wisdom.wording import PATTERNS, entry_text, rule_message
from tests.support.ui_words import foreign_words
from ui.tabs.wisdom_tab import entry_row, query_entry

MESSAGES = {Lang.ZH: "单位 1234 不在这局录像中", Lang.EN: "unit 1234 is not in the replay"}
"""The validator's message, in the analysis language (here the interface language)."""


def _texts(db: Database, lang: Lang) -> list[tuple[str, str]]:
    gate = WisdomGate(db, lang, auto_generate=False)
    ids = [
        gate.record_validation_issue("UnknownUnit", "error", "m1", "RA3", "overview", MESSAGES[lang], trace_id="t1"),
        gate.record_unparsable_claims(MESSAGES[lang], model="m1", mod="RA3", stage="overview", trace_id="t1"),
    ]
    return _shown(gate, ids, lang)


def _shown(gate: WisdomGate, ids: list[str | None], lang: Lang) -> list[tuple[str, str]]:
    """The detail text and the table row of each entry, as the tab shows them in ``lang``."""
    store = gate.manager.store
    texts: list[tuple[str, str]] = []
    for entry_id in ids:
        assert entry_id is not None
        texts.append(("detail", query_entry(store, entry_id, lang)))
        _, cells = entry_row(store.get_entry(entry_id), lang)
        texts += [("row", str(c)) for c in cells]
    return texts


def _found(texts: list[tuple[str, str]], lang: Lang, names: tuple[str, ...] = ()) -> list[str]:
    """The other language's words in ``texts``; the model, the mod and ``names`` (people's names) are names."""
    lines = [(where, line.strip()) for where, text in texts for line in text.splitlines()]
    return sorted(
        {
            f"{where}: {word!r} in {line!r}"
            for where, line in lines
            for _, word in foreign_words([(where, line)], lang.value, ["m1", "RA3", *names])
        }
    )


@pytest.mark.parametrize("lang", [Lang.ZH, Lang.EN])
def test_error_wisdom_entries_speak_the_interface_language(db: Database, lang: Lang) -> None:
    found = _found(_texts(db, lang), lang)
    assert not found, f"{len(found)} words of the other language:\n" + "\n".join(found)


ANALYSIS = (
    "Obviously #9999 destroyed 27 tanks in total. Clearly player B wanted to sneak attack and certainly he lost "
    "because of his bad choices."
)
"""An English analysis with an invented unit and unsupported certainty (the objectivity check flags it)."""


def test_every_text_the_pipeline_records_reads_in_english(store_url: str) -> None:
    """Call failures, a review (validator + objectivity, merged), a prevented window: nothing of it in 中文.

    The analysis itself is English here, so any Han character in the detail is a text the library wrote. The
    entries keep the 中文 the spec asks for (what older versions stored too): the view renders it, on SQLite and on
    PostgreSQL alike.
    """
    db = open_database(store_url)
    try:
        _check_every_text_reads_in_english(db)
        stored = [e.root_cause for e in WisdomGate(db, Lang.EN).manager.store.list_entries(None)]
        assert "网络中断或超时" in stored  # the store keeps the spec's 中文
    finally:
        db.close()


def _check_every_text_reads_in_english(db: Database) -> None:
    gate = WisdomGate(db, Lang.EN, auto_generate=False)
    ids: list[str | None] = [
        gate.record_call_failure(
            "context_overflow",
            "maximum context length is 65536 tokens",
            model="m1",
            provider="p",
            status=400,
            stage="window:0:1",
            trace_id="t",
        ),
        gate.record_call_failure("network", "", model="m1", provider="p", trace_id="t"),
        gate.record_validation_issue("Ownership", "contradiction", "m1", "RA3", "summary", "unit 5 is not yours"),
        gate.record_validation_issue("SomethingNew", "warning", "m1", "RA3", "overview", "a new kind of issue"),
    ]
    facts = EvidenceContext.from_facts("3:20 unit 1001 builds barracks", unit_ids=[1001])
    issue = ValidationIssue(Severity.CONTRADICTION, "NonexistentUnit", "unit 9999 does not exist", 200.0, 9999)
    metric, reviewed = gate.review_stage_text(
        ANALYSIS, evidence=facts, issues=[issue], model="m1", mod="RA3", stage="window:0:0", trace_id="a1"
    )
    assert metric.needs_analysis
    assert len(reviewed) == 2  # the validator's entry (merged) and the objectivity one
    ids += reviewed
    # the next window gets the pitfalls and makes no such error: the entries' histories say it was prevented
    assert gate.pitfalls_for("m1", "RA3", "window:1:0", Lang.EN, trace_id="a1")
    gate.review_stage_text("3:20 player A builds barracks.", model="m1", mod="RA3", stage="window:1:0", trace_id="a1")
    texts = _shown(gate, ids, Lang.EN)
    detail = "\n".join(t for _, t in texts)
    # what the stored 中文 means, in the words a reader of the English interface expects
    for expected in (
        "Root cause: prompt plus output exceeded the model's real context length",
        "Immediate fix: retry with a smaller request",
        "Detected by: HTTP or stream error",
        "Root cause: the network dropped or timed out",
        "Root cause: unit ownership contradicts the ownership evidence",
        "Root cause: the conclusion disagrees with the facts",  # no row of the table matched
        "Strategy: check the facts before concluding",
        "Detected by: validator NonexistentUnit; objectivity evaluator",
        "Description: objectivity check: subjectivity",
        "Effect: prevented",
        "Prevention triggered: injected into the window instruction",
    ):
        assert expected in detail
    found = _found(texts, Lang.EN)
    assert not found, f"{len(found)} words of the other language:\n" + "\n".join(found)


def test_texts_the_library_did_not_write_are_shown_as_stored(db: Database) -> None:
    """An imported (or hand-written) entry's 中文 is user data: the English view shows it as it is."""
    gate = WisdomGate(db, Lang.EN, auto_generate=False)
    eid = gate.manager.record_error(
        "工具性错误", "调用失败类", "X1", "用户自己写的描述", "某个原因", "某个纠错", "某个策略", "t", {}
    )
    detail = query_entry(gate.manager.store, eid, Lang.EN)
    for line in (
        "Description: 用户自己写的描述",
        "Root cause: 某个原因",
        "Immediate fix: 某个纠错",
        "Strategy: 某个策略",
    ):
        assert line in detail


@pytest.mark.parametrize(
    "stored",
    [
        "验证器 UnknownUnit",
        "机器可读声明无法解析：unexpected end of JSON",
        "注入后仍出现 NonexistentUnit",
        "规则 r_001 自动修正",
        "规则 r_001 修正后仍失败 CONTEXT_OVERFLOW",
        "window:1:0 窗口",
        "overview 请求",
        "p / m1: server (HTTP 502)：bad gateway",
        "客观性评估：主观性 0.57，客观性 0.00（certainty_without_evidence=1.00）；例：a；b",
        "window 文本（window:0:0）",
        "window 文本",
        "window 分析",
        "window:0:0 分析员复核",
        "分析员否定了声明 unit:5：归属判断错了",
        "分析员否定了声明 #762",
    ],
)
def test_stored_texts_with_parameters_are_the_catalogues_chinese(stored: str) -> None:
    """Each pattern's 中文 in the catalogue, filled with what was matched, is the stored text again: the catalogue
    and the texts the library stores agree, so English is the same message with the same parameters (in words:
    a stage key is named as the outline names it, a dimension key by its catalogue word)."""
    rendered = [p.render(Lang.ZH, m.groupdict("")) for p in PATTERNS if (m := p.rx.match(stored))]
    assert rendered == [stored]
    english = entry_text(stored, Lang.EN)
    assert english != stored
    assert not foreign_words([("text", english.replace("a；b", "").replace("归属判断错了", ""))], "en", [])


def test_english_prompts_get_english_strategies_and_chinese_prompts_the_stored_text(db: Database) -> None:
    """Pitfalls injected into the window instruction follow the run's language, not the interface's."""
    gate = WisdomGate(db, Lang.ZH, auto_generate=False)
    for k in range(2):
        gate.record_validation_issue("NonexistentUnit", "contradiction", "m1", "RA3", "window:0:0", f"unit {k}")
        gate.record_validation_issue("SomethingNew", "contradiction", "m1", "RA3", "window:0:0", f"claim {k}")
    zh = gate.pitfalls_for("m1", "RA3", "window:1:0", Lang.ZH)
    en = gate.pitfalls_for("m1", "RA3", "window:1:0", Lang.EN)
    assert set(zh) == {"只引用事实中出现过的 UnitId", "下结论前核对事实"}
    assert set(en) == {"cite only unit ids that occur in the facts", "check the facts before concluding"}


def test_generated_rules_carry_english_and_old_rules_read_in_english(db: Database) -> None:
    """A pitfall rule learned from 中文 entries has an English message (the rules table and English prompts show
    it); a rule an older version stored with the 中文 strategy inside its English message is rendered in English."""
    gate = WisdomGate(db, Lang.ZH)
    for k in range(3):
        gate.record_validation_issue("NonexistentUnit", "contradiction", "m1", "RA3", "window:0:0", f"unit {k}")
    rules = [r for r in gate.manager.store.list_rules() if r.template == "pitfall"]
    assert [r.message_en for r in rules] == ["Hallucination: cite only unit ids that occur in the facts"]
    assert rules[0].message_zh == "幻觉倾向类：只引用事实中出现过的 UnitId"
    old = "Hallucination: 只引用事实中出现过的 UnitId"
    assert rule_message("幻觉倾向类：只引用事实中出现过的 UnitId", old, Lang.EN) == rules[0].message_en
    assert rule_message(rules[0].message_zh, old, Lang.ZH) == rules[0].message_zh
    assert rule_message("", "Hallucination: 用户写的策略", Lang.EN) == "Hallucination: 用户写的策略"  # user data


def test_every_text_of_the_objectivity_profiles_has_english() -> None:
    """The objectivity entry's fixed texts (each class's root cause, strategy, label and dimension analysis)."""
    from app.wisdom.objectivity import _CLASS_LABEL, _CLASS_PROFILE

    texts = {
        t for cog, _codes, root, strategy in _CLASS_PROFILE.values() for t in (root, strategy, *cog, *cog.values())
    }
    texts |= set(_CLASS_LABEL.values())
    assert sorted(t for t in texts if entry_text(t, Lang.EN) == t) == []
