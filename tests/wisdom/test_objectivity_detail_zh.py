"""The 中文 error-wisdom detail of an objectivity review that was prevented and then retracted (issue 30, item 4).

No walk reaches this state (the example memory has no objectivity entry), so it is checked here with the walk's
rule. It used to fail on 17 Latin words: the pre-check rule's keys (action, check, condition), the evaluator's
dimension keys, raw stage keys (window:1:0), claim references (unit:9999) and the retraction reason the feedback
path stored in English ("analyst: false alarm: …"). The keys are catalogue words now, stage keys read as the
analysis view's outline names the stage, and a ruling is stored as structure (who, verdict, their words).
"""

from __future__ import annotations

import pytest

from app.claims.issues import Severity, ValidationIssue
from app.i18n import Lang
from app.store import Database
from app.wisdom.entry import Verification
from app.wisdom.gate import WisdomGate
from app.wisdom.objectivity import EvidenceContext
from tests.wisdom.test_detail_language import _found, _shown
from ui.tabs.wisdom_tab import query_entry

ANALYSIS = {
    Lang.ZH: "显然 #9999 一共摧毁了 27 辆坦克。玩家乙肯定想偷袭，他必然因为糟糕的选择而输掉。",
    Lang.EN: "Obviously #9999 destroyed 27 tanks in total. Clearly player B wanted to sneak attack and certainly he "
    "lost because of his bad choices.",
}
MESSAGE = {Lang.ZH: "单位 9999 不存在", Lang.EN: "unit 9999 does not exist"}
NOTE = {Lang.ZH: "单位确实存在", Lang.EN: "the unit does exist"}
"""The analyst's own words, in the language they wrote them (here the interface language)."""


def _reviewed_and_retracted(db: Database, lang: Lang) -> tuple[WisdomGate, list[str | None]]:
    """An objectivity review (validator + evaluator), prevented in the next window, then ruled a false alarm."""
    gate = WisdomGate(db, lang, auto_generate=False)
    facts = EvidenceContext.from_facts("3:20 unit 1001 builds barracks", unit_ids=[1001])
    issue = ValidationIssue(Severity.CONTRADICTION, "NonexistentUnit", MESSAGE[lang], 200.0, 9999)
    _metric, reviewed = gate.review_stage_text(
        ANALYSIS[lang], evidence=facts, issues=[issue], model="m1", mod="RA3", stage="window:0:0", trace_id="a1"
    )
    ids: list[str | None] = list(reviewed)
    assert len(ids) == 2
    assert gate.pitfalls_for("m1", "RA3", "window:1:0", lang, trace_id="a1")
    gate.review_stage_text("3:20 玩家 A 建造兵营。", model="m1", mod="RA3", stage="window:1:0", trace_id="a1")
    for eid in ids:
        assert eid is not None
        # as app.pipeline.feedback rules on a claim
        gate.manager.timeliness.register_retraction(
            eid, trace_id="a1", stage="window:0:0", reviewer="ana", note=NOTE[lang]
        )
    return gate, ids


@pytest.mark.parametrize("lang", [Lang.ZH, Lang.EN])
def test_objectivity_entries_prevented_and_retracted_read_in_the_interface_language(db: Database, lang: Lang) -> None:
    gate, ids = _reviewed_and_retracted(db, lang)
    found = _found(_shown(gate, ids, lang), lang, ("ana",))  # the reviewer is a name
    assert not found, f"{len(found)} words of the other language:\n" + "\n".join(found)


def test_the_detail_names_stages_claims_and_the_ruling_in_words(db: Database) -> None:
    """What the 17 words became, read against the outline's names (第 1 段, 窗口 1) and the catalogue."""
    gate, ids = _reviewed_and_retracted(db, Lang.ZH)
    store = gate.manager.store
    validator, objectivity = (query_entry(store, str(eid), Lang.ZH) for eid in ids)
    english = query_entry(store, str(ids[1]), Lang.EN)
    for line in (
        "触发场景: 第 1 段 · 窗口 1 验证",
        "论断: 关于对象 #9999 的声明",
        "游戏时间: 3:20",
        "场景: 第 2 段 · 窗口 1",  # prevented in the next segment's first window
        "场景: 第 1 段 · 窗口 1 分析员复核",
        "预防触发: 分析员裁定误报",
        "复核人: ana",
        "复核说明: 单位确实存在",
    ):
        assert line in validator, line
    for line in (
        "触发场景: 窗口 文本（第 1 段 · 窗口 1）",
        "时机: 生成窗口分析前",
        "修正方法: 在窗口指令中加入陷阱提示",
        "- 维度：无证据的确定性表述",
        "- 阶段：窗口",
        "- 窗口 分析",
    ):
        assert line in objectivity, line
    assert "无证据的确定性表述 1.00" in objectivity
    for line in (
        "Trigger scene: window text (Segment 1 · Window 1)",
        "When: before a window's analysis is generated",
        "Fix method: add the pitfall to the window instruction",
        "- dimension: certainty without evidence",
        "Scene: analyst review of Segment 1 · Window 1",
        "Prevention triggered: the analyst ruled it a false alarm",
        "Reviewer: ana",
        "Reviewer's note: 单位确实存在",  # the analyst's words, as written
    ):
        assert line in english, line


def test_the_ruling_is_stored_as_structure_not_as_a_sentence(db: Database) -> None:
    gate, ids = _reviewed_and_retracted(db, Lang.ZH)
    last = gate.manager.store.get_entry(str(ids[0])).verifications[-1]
    assert (last.scene, last.effect, last.trigger, last.feedback) == (
        "window:0:0 分析员复核",
        "反例",
        "分析员裁定误报",
        "negative",
    )
    assert last.extra == {"复核人": "ana", "复核说明": "单位确实存在"}
    assert last.counterexample


@pytest.mark.parametrize(
    ("lang", "expected"),
    [(Lang.ZH, "分析员裁定为误报：单位确实存在"), (Lang.EN, "the analyst ruled it a false alarm: 单位确实存在")],
)
def test_a_ruling_an_older_version_stored_in_english_reads_in_either_language(
    db: Database, lang: Lang, expected: str
) -> None:
    """Older versions stored "analyst: false alarm: NOTE" as scene and trigger: the fixed prefix is recognised."""
    gate, ids = _reviewed_and_retracted(db, Lang.ZH)
    old = "analyst: false alarm: 单位确实存在"
    v = Verification("2026-01-01T00:00:00Z", "a1", old, "反例", old, "negative", counterexample=True)
    gate.manager.store.add_verification(str(ids[0]), v, success=False)
    detail = query_entry(gate.manager.store, str(ids[0]), lang)
    assert f": {expected}" in detail
    assert "analyst:" not in detail
    if lang is Lang.ZH:
        found = _found(_shown(gate, ids, lang), lang, ("ana",))  # the reviewer is a name
        assert not found, "\n".join(found)


@pytest.mark.parametrize(
    ("lang", "lines"),
    [
        (Lang.ZH, ("场景: 第 1 段 · 窗口 1 分析员复核", "效果: 问题属实", "预防触发: 分析员确认问题", "复核人: ana")),
        (
            Lang.EN,
            (
                "Scene: analyst review of Segment 1 · Window 1",
                "Effect: issue confirmed",
                "Prevention triggered: the analyst confirmed the issue",
                "Reviewer: ana",
            ),
        ),
    ],
)
def test_a_confirmation_reads_in_either_language_and_older_english_ones_too(
    db: Database, lang: Lang, lines: tuple[str, ...]
) -> None:
    """Agreeing with an issue (a successful verification), as stored now and as older versions stored it."""
    gate = WisdomGate(db, lang, auto_generate=False)
    eid = gate.record_validation_issue("NonexistentUnit", "contradiction", "m1", "RA3", "window:0:0", MESSAGE[lang])
    assert eid is not None
    gate.manager.timeliness.register_confirmation(eid, trace_id="a1", stage="window:0:0", reviewer="ana")
    old = Verification("2026-01-01T00:00:00Z", "a1", "window:0:0 analyst review", "issue confirmed", "", "positive")
    gate.manager.store.add_verification(eid, old, success=True)
    detail = query_entry(gate.manager.store, eid, lang)
    for line in lines:
        assert line in detail, line
    # the old line reads like the new one
    assert detail.count(lines[0]) == 2
    assert detail.count(lines[1]) == 2
    found = _found(_shown(gate, [eid], lang), lang, ("ana",))
    assert not found, "\n".join(found)
