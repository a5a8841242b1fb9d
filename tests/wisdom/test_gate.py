"""The pipeline facade: overflow → rule → prevention, dedupe of validator and evaluator, pitfalls, scenes."""

from __future__ import annotations

import pytest

from app.claims.issues import Severity, ValidationIssue
from app.i18n import Lang
from app.store import Database
from app.wisdom import EvidenceContext, WisdomGate

MODEL = "deepseek-chat"
PARAMS = {
    "model": MODEL,
    "max_tokens": 4000,
    "temperature": 0.7,
    "estimated_prompt_tokens": 60000,
    "context_length": 128000,
    "known_models": [MODEL, "deepseek-reasoner"],
}
OVERFLOW = "This model's maximum context length is 65536 tokens. However, you requested 71234 tokens."


@pytest.fixture
def gate(db: Database) -> WisdomGate:
    return WisdomGate(db, Lang.EN)


def _overflow_run(gate: WisdomGate, n: int, start: int = 0) -> list[str]:
    ids = []
    for i in range(start, start + n):
        res = gate.pre_request("chat_completion", PARAMS, trace_id=f"run_{i}", stage="window:0:0")
        assert res.passed  # 60000 < 0.9 · 128000: the built-in guard cannot see this model's real limit
        ids.append(
            gate.record_call_failure(
                "context_overflow",
                OVERFLOW,
                model=MODEL,
                provider="DeepSeek",
                status=400,
                params=res.params,
                trace_id=f"run_{i}",
                stage="window:0:0",
            )
        )
    return ids


def test_three_overflows_make_a_rule_that_prevents_the_fourth(gate: WisdomGate) -> None:
    assert gate.rules_for(MODEL) == []
    _overflow_run(gate, 2)
    assert gate.rules_for(MODEL) == []  # two similar errors are not a pattern yet
    ids = _overflow_run(gate, 1, start=2)
    rules = gate.rules_for(MODEL)
    assert len(rules) == 1
    rule = rules[0]
    assert rule.status == "observation"
    assert rule.template == "token_limit"
    assert len(rule.source_ids) == 3
    assert ids[0] in rule.source_ids
    pattern = gate.manager.store.list_patterns()[0]
    assert len(pattern["成员"]) == 3
    assert pattern["平均相似度"] >= 0.60
    # provider said 65536, but we overflowed at 60000 + 4000 estimated: 90% of that is the safe bound
    assert rule.params["limit"] == int(0.9 * 64000)

    # in observation the rule only advises (shadow): the fourth request would still go out
    res = gate.pre_request("chat_completion", PARAMS, trace_id="run_3", stage="window:0:0")
    assert res.passed
    assert res.shadow == [rule.rule_id]
    assert rule.rule_id in res.suggestions[0]

    gate.validate_rule(rule.rule_id)
    res = gate.pre_request("chat_completion", PARAMS, trace_id="run_3", stage="window:0:0")
    assert not res.passed
    assert res.blocked_by == [rule.rule_id]
    assert rule.rule_id in res.warnings[0]

    # a request that fits once max_tokens shrinks is auto-fixed instead, and the outcome is verified
    smaller = {**PARAMS, "estimated_prompt_tokens": 50000, "max_tokens": 16000}
    res = gate.pre_request("chat_completion", smaller, trace_id="run_4", stage="window:0:0")
    assert res.passed
    assert res.params["max_tokens"] == 57600 - 50000
    assert res.auto_fixes["max_tokens"]["rule_id"] == rule.rule_id
    gate.record_outcome("run_4", "window:0:0", success=True)
    stored = gate.manager.store.get_rule(rule.rule_id)
    assert stored.applied == 2
    assert stored.successes == 2
    assert stored.status == "active"
    assert any(v.effect == "成功预防" for v in gate.manager.get_entry(ids[0]).verifications)


def test_observation_rule_validates_itself_when_its_predictions_come_true(gate: WisdomGate) -> None:
    _overflow_run(gate, 3)
    (rule,) = gate.rules_for(MODEL)
    _overflow_run(gate, 2, start=3)  # predicted in shadow, then failed: two confirmations
    rule = gate.manager.store.get_rule(rule.rule_id)
    assert rule.status == "active"
    assert rule.params["_shadow_confirmed"] == 2
    assert not gate.pre_request("chat_completion", PARAMS, trace_id="run_9", stage="window:0:0").passed


def test_a_fixed_call_that_still_fails_is_a_counterexample(gate: WisdomGate) -> None:
    ids = _overflow_run(gate, 3)
    (rule,) = gate.rules_for(MODEL)
    gate.validate_rule(rule.rule_id)
    smaller = {**PARAMS, "estimated_prompt_tokens": 50000, "max_tokens": 16000}
    res = gate.pre_request("chat_completion", smaller, trace_id="run_x", stage="window:0:0")
    assert res.auto_fixes
    gate.record_call_failure(
        "context_overflow", OVERFLOW, model=MODEL, params=res.params, trace_id="run_x", stage="window:0:0"
    )
    e = gate.manager.get_entry(ids[-1])
    assert e.counterexamples == 1
    assert e.confidence == pytest.approx(0.85 * 0.7, rel=1e-3)
    assert gate.manager.store.get_rule(rule.rule_id).failures == 1


@pytest.mark.parametrize(
    ("code", "severity", "subtype", "etype"),
    [
        ("NonexistentUnit", Severity.CONTRADICTION, "hallucination", "cognitive"),
        ("MoveOnlyHighConfidence", Severity.WEAK_EVIDENCE, "reasoning_jump", "cognitive"),
        ("OwnershipContradiction", Severity.CONTRADICTION, "reasoning_jump", "cognitive"),
        ("CasterContradiction", Severity.CONTRADICTION, "reasoning_jump", "cognitive"),
        ("UnobservedProtocol", Severity.WARNING, "hallucination", "cognitive"),
        ("LookbackMalformed", Severity.WARNING, "parameter", "tool"),
    ],
)
def test_issue_codes_map_to_the_taxonomy(
    gate: WisdomGate, code: str, severity: Severity, subtype: str, etype: str
) -> None:
    eid = gate.record_validation_issue(code, severity, MODEL, "corona", "window:0:1", "detail", trace_id="t")
    assert eid is not None
    e = gate.manager.get_entry(eid)
    assert (e.type_code, e.subtype_code) == (etype, subtype)
    expected = {Severity.WARNING: "mild", Severity.WEAK_EVIDENCE: "moderate", Severity.CONTRADICTION: "severe"}
    assert e.severity == expected[severity]


def test_info_issues_are_not_errors(gate: WisdomGate) -> None:
    assert gate.record_validation_issue("LookbackIgnored", Severity.INFO, MODEL, None, None, "x") is None


def test_one_wrong_claim_makes_one_entry(gate: WisdomGate) -> None:
    facts = EvidenceContext.from_facts("3:20 单位 1001 建造 兵营", unit_ids=[1001])
    text = "显然 #9999 一共击毁了 27 辆坦克。"
    issue = ValidationIssue(Severity.CONTRADICTION, "NonexistentUnit", "unit 9999 does not exist", 200.0, 9999)
    metric, ids = gate.review_stage_text(
        text, evidence=facts, issues=[issue], model=MODEL, mod="corona", stage="window:0:0", trace_id="a1"
    )
    assert metric.severity == "severe"  # the evaluator did flag the claim…
    assert gate.manager.store.count_entries() == 1  # …but it is the validator's claim: one entry
    e = gate.manager.get_entry(ids[0])
    assert e.occurrences == 2
    assert "客观性评估器" in (e.detection_method or "")
    assert "NonexistentUnit" in (e.detection_method or "")
    # the same review again (a resumed run) still adds nothing
    gate.review_stage_text(
        text, evidence=facts, issues=[issue], model=MODEL, mod="corona", stage="window:0:0", trace_id="a1"
    )
    assert gate.manager.store.count_entries() == 1
    # a different claim in the same text is its own entry
    gate.review_stage_text(
        text + "玩家B 显然想要偷袭。",
        evidence=facts,
        issues=[issue],
        model=MODEL,
        mod="corona",
        stage="window:0:0",
        trace_id="a1",
    )
    assert gate.manager.store.count_entries() == 2


def test_pitfalls_are_scoped_and_bilingual(gate: WisdomGate) -> None:
    for u in (9001, 9002, 9003):
        gate.record_validation_issue(
            "NonexistentUnit",
            Severity.CONTRADICTION,
            MODEL,
            "corona",
            "window:0:1",
            f"unit {u}",
            trace_id="t",
            unit_id=u,
        )
    en = gate.pitfalls_for(MODEL, "corona", "window:2:0", Lang.EN)
    zh = gate.pitfalls_for(MODEL, "corona", "window:2:0", Lang.ZH)
    assert en == ["cite only unit ids that occur in the facts"]
    assert zh == ["只引用事实中出现过的 UnitId"]
    assert gate.pitfalls_for("other-model", "corona", "window:0:0", Lang.EN) == []
    # the three issues also formed a pitfall rule; validated, its own line joins the list
    (rule,) = [r for r in gate.rules_for(MODEL) if r.template == "pitfall"]
    gate.validate_rule(rule.rule_id)
    assert len(gate.pitfalls_for(MODEL, "corona", "window:2:0", Lang.EN)) == 2


def test_scene_changes_are_registered_automatically(gate: WisdomGate) -> None:
    (eid,) = _overflow_run(gate, 1)
    assert gate.observe_scene(MODEL, "v3", "DeepSeek", "k1", "1.0", mod="corona") == []
    assert gate.observe_scene(MODEL, "v3", "DeepSeek", "k1", "1.0", mod="corona") == []
    changes = gate.observe_scene(MODEL, "v3.1", "DeepSeek", "k1", "1.0", mod="corona")
    assert [c["change_type"] for c in changes] == ["model_upgrade"]
    assert changes[0]["affected_entries"] == 1
    assert gate.manager.get_entry(eid).confidence == pytest.approx(0.85 * 0.65, rel=1e-3)
    changes = gate.observe_scene(MODEL, "v3.1", "OpenRouter", "k2", "1.0", mod="corona")
    assert sorted(c["change_type"] for c in changes) == ["knowledge_update", "provider_change"]


def test_metrics_from_the_store(gate: WisdomGate) -> None:
    _overflow_run(gate, 3)
    (rule,) = gate.rules_for(MODEL)
    gate.validate_rule(rule.rule_id)
    gate.pre_request("chat_completion", PARAMS, trace_id="r", stage="s")  # refused: one interception
    m = gate.manager.metrics()
    assert m["entries"] == 3
    assert m["learned_rules"] == 1
    assert m["rule_auto_generation_rate"] == 1.0
    assert m["cluster_accuracy"] == 1.0
    assert m["prevention_success_rate"] == 1.0  # one application, one success
    assert m["pre_intercept_rate"] == pytest.approx(1 / (1 + 3))  # 3 preventable errors happened before
    assert m["audit_coverage"] == 0.0
    gate.manager.audit()
    assert gate.manager.metrics()["audit_coverage"] == 1.0
    assert m["recognition_rate"] is None


def test_deprecated_rule_only_advises_and_auto_fixes_are_logged(
    gate: WisdomGate, caplog: pytest.LogCaptureFixture
) -> None:
    _overflow_run(gate, 3)
    (rule,) = gate.rules_for(MODEL)
    gate.validate_rule(rule.rule_id)
    smaller = {**PARAMS, "estimated_prompt_tokens": 50000, "max_tokens": 16000}
    with caplog.at_level("WARNING", logger="replaysage.wisdom"):
        res = gate.pre_request("chat_completion", smaller, trace_id="log", stage="s")
    assert res.auto_fixes
    assert any("auto-fix" in r.getMessage() and rule.rule_id in r.getMessage() for r in caplog.records)
    # a model upgrade lowers the rule to deprecated (0.85 · 0.65 < 0.7): advice only, nothing is changed
    gate.observe_scene(MODEL, "v1")
    gate.observe_scene(MODEL, "v2")
    assert gate.manager.store.get_rule(rule.rule_id).status == "deprecated"
    res = gate.pre_request("chat_completion", smaller, trace_id="dep", stage="s")
    assert res.passed
    assert res.auto_fixes == {}
    assert res.params["max_tokens"] == 16000
    assert any(rule.rule_id in s for s in res.suggestions)


def recorded(entry_id: str | None) -> str:
    """The id of an error the gate recorded (None would mean it recorded nothing)."""
    assert entry_id is not None
    return entry_id


def test_labels_and_hallucination_trend_feed_the_metrics(gate: WisdomGate) -> None:
    from datetime import timedelta

    from app.wisdom.entry import iso, now_utc

    ids = [
        recorded(
            gate.record_validation_issue(
                "NonexistentUnit", Severity.CONTRADICTION, MODEL, "corona", "window:0:0", "x", trace_id="t", unit_id=u
            )
        )
        for u in (1, 2, 3)
    ]
    gate.manager.label_entry(ids[0], True)
    gate.manager.label_entry(ids[1], True)
    gate.manager.label_entry(ids[2], False)
    m = gate.manager.metrics()
    assert m["recognition_rate"] == pytest.approx(2 / 3)
    # four hallucinations 31–59 days ago (baseline), three in the last 30 days: (4 − 3) / 4
    for i in range(4):
        e = gate.manager.get_entry(ids[0])
        e.id, e.dedupe_key = "", f"old{i}"
        e.created_at = iso(now_utc() - timedelta(days=40 + i))
        gate.manager.record_entry(e)
    assert gate.manager.metrics()["hallucination_reduction_rate"] == pytest.approx(0.25)


def test_injected_pitfalls_are_verified_by_the_stage_review(gate: WisdomGate) -> None:
    ids = [
        recorded(
            gate.record_validation_issue(
                "NonexistentUnit",
                Severity.CONTRADICTION,
                MODEL,
                "corona",
                "window:0:0",
                f"unit {u}",
                trace_id="old",
                unit_id=u,
            )
        )
        for u in (1, 2)
    ]
    # a window that got the pitfall and made no such error: the pitfall prevented it
    assert gate.pitfalls_for(MODEL, "corona", "window", Lang.EN, trace_id="run")
    gate.review_stage_text("3:20 玩家A 建造了兵营。", model=MODEL, mod="corona", stage="window:1:0", trace_id="run")
    verified = [e for e in ids if any(v.effect == "成功预防" for v in gate.manager.get_entry(e).verifications)]
    assert verified
    # a window that got the pitfall and still invented a unit: a counterexample for the injected entry
    assert gate.pitfalls_for(MODEL, "corona", "window", Lang.EN, trace_id="run")
    issue = ValidationIssue(Severity.CONTRADICTION, "NonexistentUnit", "unit 77 does not exist", None, 77)
    gate.review_stage_text(
        "3:20 #77 出现。", issues=[issue], model=MODEL, mod="corona", stage="window:1:1", trace_id="run"
    )
    assert sum(gate.manager.get_entry(e).counterexamples for e in ids) == 1


def test_one_review_of_thousands_of_wrong_claims_adds_a_few_entries_the_worst(gate: WisdomGate) -> None:
    from app.wisdom.gate import MAX_ISSUE_ENTRIES

    facts = EvidenceContext.from_facts("3:20 单位 1001 建造 兵营", unit_ids=[1001])
    weak = [
        ValidationIssue(Severity.WEAK_EVIDENCE, "MoveOnlyEvidence", f"unit {k} only moved", 60.0, k)
        for k in range(5000)
    ]
    worst = [ValidationIssue(Severity.FATAL, "NonexistentUnit", f"unit {k} does not exist", 60.0, k) for k in (7, 8)]
    _metric, ids = gate.review_stage_text(
        "3:20 单位 1001 建造了兵营。",
        evidence=facts,
        issues=[*weak, *worst, worst[0]],
        model=MODEL,
        mod="corona",
        stage="window:0:0",
        trace_id="big",
    )
    assert gate.manager.store.count_entries() == MAX_ISSUE_ENTRIES
    entries = [gate.manager.get_entry(i) for i in ids]
    # the two Fatal claims first (each once), then the first of the rest
    assert [(e.error_code, (e.params or {}).get("claim")) for e in entries] == [
        ("NonexistentUnit", "unit:7"),
        ("NonexistentUnit", "unit:8"),
        ("MoveOnlyEvidence", "unit:0"),
    ]
