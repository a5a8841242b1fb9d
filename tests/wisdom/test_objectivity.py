"""Objectivity evaluator scores and the cognitive-error analyser (spec Phase 2)."""

from __future__ import annotations

import pytest

from app.wisdom import CognitiveErrorAnalyzer, ErrorWisdomManager, EvidenceContext, ObjectivityEvaluator

FACTS = EvidenceContext.from_facts("3:20 玩家A 单位 1001 建造 兵营；5:10 玩家A 生产 12 辆 坦克", unit_ids=[1001])

TEXT = (
    "3:20 玩家A 用单位 #1001 建造了兵营。"
    "显然玩家B 想要偷袭基地。"
    "玩家B 的 #9999 一共击毁了 27 辆坦克。"
    "失败完全是因为玩家A 的经济落后。"
)


def test_evidence_context_reads_numbers_and_ids_from_the_facts() -> None:
    assert FACTS.unit_ids == frozenset({1001})
    assert {"1001", "12"} <= FACTS.numbers
    assert "3" not in FACTS.numbers


def test_scores_follow_the_dimension_weights() -> None:
    m = ObjectivityEvaluator().score(TEXT, "window", FACTS)
    # each of the four dimensions flags exactly one of the four sentences
    assert m.sentences == 4
    assert m.subjectivity_dimensions == {
        "certainty_without_evidence": 0.25,
        "unsupported_specifics": 0.25,
        "speculative_as_fact": 0.25,
        "one_sided_attribution": 0.25,
    }
    assert m.subjectivity_score == pytest.approx(0.25 * (0.30 + 0.35 + 0.20 + 0.15))
    assert m.objectivity_score == pytest.approx(0.25)  # only the first sentence cites evidence
    assert m.gap == pytest.approx(0.0)
    assert m.severity == "moderate"  # 0.20 ≤ 0.25 < 0.35, evidence share not below 0.2
    bad = next(f for f in m.findings if f.dimension == "unsupported_specifics")
    assert bad.unit_ids == (9999,)
    assert bad.numbers == ("27",)
    assert bad.claim_key() == "unit:9999"


def test_clean_text_is_none_and_hedged_intent_is_not_flagged() -> None:
    m = ObjectivityEvaluator().score("3:20 玩家A 用 #1001 建造了兵营。玩家B 可能想要偷袭。", "window", FACTS)
    assert m.subjectivity_score == 0.0
    assert m.severity == "none"


def test_analyser_classifies_and_builds_a_spec_entry(manager: ErrorWisdomManager) -> None:
    text = "显然 #9999 一共击毁了 27 辆坦克。"
    m = ObjectivityEvaluator().score(text, "window", FACTS)
    assert m.severity == "severe"  # 0.35 + 0.30 = 0.65
    an = CognitiveErrorAnalyzer().analyze(m, text, {"prior_entries": 0})
    assert an.primary == "hallucination"
    assert "knowledge_defect/incomplete" in an.root_cause_categories
    assert an.situational["任务复杂性"] == "低"
    assert an.system["学习阶段"] == "早期"
    e = CognitiveErrorAnalyzer().to_error_wisdom_entry(an, {"trace_id": "t1", "model": "m1", "stage": "window:0:0"})
    eid = manager.record_entry(e)
    doc = manager.get_entry(eid).to_spec()
    assert doc["错误发现"]["错误类型"] == "认知性错误"
    assert doc["错误发现"]["子类型"] == "幻觉倾向"
    assert set(doc["原因分析"]) >= {"认知维度分析", "情境维度分析", "系统维度分析", "可预防性"}
    assert doc["元数据"]["认知性错误标记"] is True


def test_evaluator_records_only_moderate_or_worse(manager: ErrorWisdomManager) -> None:
    ev = ObjectivityEvaluator(manager)
    ev.evaluate("3:20 玩家A 用 #1001 建造了兵营。", "window", FACTS, {"trace_id": "t"})
    assert manager.store.count_entries() == 0
    ev.evaluate("显然 #9999 一共击毁了 27 辆坦克。", "window", FACTS, {"trace_id": "t", "stage": "window:0:0"})
    assert manager.store.count_entries() == 1


def test_without_facts_numbers_are_not_called_invented() -> None:
    m = ObjectivityEvaluator().score("玩家B 的 #9999 一共击毁了 27 辆坦克。", "window", EvidenceContext())
    assert m.subjectivity_dimensions["unsupported_specifics"] == 0.0
    assert m.severity == "none"
