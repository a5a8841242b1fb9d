"""Use in analysis (injection policy, determinism, recording), lesson reuse and promotions, staleness."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from app.i18n import Lang
from app.memory import FeedbackInput, IssueInput
from tests.memory.helpers import Clock, analyse, make_store, run_ep

HINT = "（该经验来自 map=Infinity Isle 场景，跨场景慎用）"


def test_injection_policy_and_order(tmp_path: Path) -> None:
    clock = Clock()
    store = make_store(tmp_path, clock)
    store.record_feedback(FeedbackInput("ana", preference="请简洁"))  # explicit: 0.9, direct
    analyse(store, run_ep("r1", "p", ("A", "B")))
    analyse(store, run_ep("r2", "p", ("A", "B"), played="2026-01-02T00:00:00"))  # 0.64, hedged
    analyse(store, run_ep("r3", "solo", ("C", "D")))  # 0.40: on demand only
    store.run_batch()
    inj = store.injection_for(["p", "solo"], "Infinity Isle", "m", "ana", Lang.ZH)
    lines = inj.text.splitlines()
    assert lines[0].startswith("【记忆】")
    assert lines[1] == "- 分析师偏好简洁的报告"
    assert f"- （可能）玩家 p 使用盟军时的开局建筑顺序：A → B{HINT}" in lines
    assert all("solo" not in line for line in lines)
    assert all("地图" not in line for line in lines)  # extracted replay facts are searchable, not injected
    assert len(inj.fact_ids) == len(lines) - 1
    assert store.injection_for(["p", "solo"], "Infinity Isle", "m", "ana", Lang.ZH) == inj
    en = store.injection_for(["p"], "", "", "ana", Lang.EN)
    assert en.text.splitlines()[1] == "- The analyst prefers concise reports"
    assert "(possibly) Player p opens as Allies with A → B" in en.text
    assert store.injection_for([], "", "", "", Lang.ZH).text == ""


def test_lesson_reuse_promotes_to_a_prevention_rule(tmp_path: Path) -> None:
    clock = Clock()
    store = make_store(tmp_path, clock)
    issue = (IssueInput("OwnershipContradiction", "Contradiction", "caster and target swapped"),)
    for i in range(2):
        ep = run_ep(f"r{i}", "p", ("A", "B"))
        store.record_run(replace(ep, issues=issue, model="m"))
    store.run_batch()
    [lesson] = store.facts(type="lesson")
    assert (lesson.status, lesson.confidence) == ("active", 0.64)
    for analysis_id in (7, 8):
        inj = store.injection_for([], "", "m", "", Lang.EN)
        assert lesson.id in inj.fact_ids
        store.record_injection(analysis_id, inj.fact_ids)
        ep = run_ep(f"ok{analysis_id}", "p", ("A", "B"))
        store.record_run(replace(ep, model="m", analysis_id=analysis_id))
    lesson = store.fact(lesson.id)
    assert lesson.reuse_count == 2
    assert lesson.confidence == 0.91  # 0.64 -> 0.82 -> 0.91 with reuse weight 0.5
    report = store.run_batch()
    assert report.promotions == 1
    [promo] = store.promotions("wisdom")
    assert promo["fact_id"] == lesson.id
    assert promo["payload"]["steps"]
    assert promo["payload"]["trigger"]["code"] == "OwnershipContradiction"
    assert promo["status"] in ("proposed", "promoted")
    try:
        from app.wisdom.store import WisdomStore
    except ImportError:  # the error-wisdom library is optional: the proposal record is what must exist
        return
    assert promo["status"] == "promoted"
    [rule] = [r for r in WisdomStore(store.db).list_rules() if r.rule_id == promo["external_id"]]
    assert rule.status == "observation"
    assert rule.model == "m"


def test_low_confidence_facts_are_found_on_demand(tmp_path: Path) -> None:
    store = make_store(tmp_path, Clock())
    analyse(store, run_ep("r1", "solo", ("Barracks", "Refinery")))
    assert store.injection_for(["solo"], "", "", "", Lang.ZH).fact_ids == ()
    hits = store.search("Barracks → Refinery")
    assert [(f.subject, f.confidence) for f in hits] == [("player:solo", 0.4)]


def test_team_proposal_goes_through_the_queue(tmp_path: Path) -> None:
    clock = Clock()
    store = make_store(tmp_path, clock)
    for i, text in enumerate(["请简洁", "还是要简洁", "简洁一点"]):
        clock.set(f"2026-03-1{i}T00:00:00")
        store.record_feedback(FeedbackInput("ana", preference=text))
    [pref] = store.facts(subject="analyst:ana")
    assert (pref.evidence_count, pref.confidence) == (3, 0.999)
    store.run_batch()
    [item] = store.queue()
    assert (item.kind, item.fact.id) == ("team_proposal", pref.id)
    assert store.promotions("team")[0]["status"] == "proposed"  # never promoted silently
    store.approve(item.id, "lead")
    assert store.promotions("team")[0]["status"] == "promoted"


def test_untouched_player_facts_drop_out_but_stay_searchable(tmp_path: Path) -> None:
    clock = Clock()
    store = make_store(tmp_path, clock)
    analyse(store, run_ep("r1", "p", ("A", "B")))
    analyse(store, run_ep("r2", "p", ("A", "B"), played="2026-01-02T00:00:00"))
    store.record_feedback(FeedbackInput("ana", preference="请简洁"))
    store.run_batch()
    assert len(store.injection_for(["p"], "", "", "ana", Lang.ZH).fact_ids) > 1
    clock.set("2026-09-10T00:00:00")  # 184 days later
    report = store.run_batch()
    assert report.demoted > 0
    inj = store.injection_for(["p"], "", "", "ana", Lang.ZH)
    # the player facts are demoted; the analyst's preference (0.9, unconfirmed for 184 days) has decayed with the
    # spec's 180-day half-life to 0.9 × 0.5^(184/180) = 0.442 < 0.5, so it waits for a confirmation
    assert inj.fact_ids == ()
    assert store.facts(subject="player:p", status="active")  # still there, searchable
    store.record_feedback(FeedbackInput("ana", preference="请简洁"))  # confirmed again: back in
    assert len(store.injection_for(["p"], "", "", "ana", Lang.ZH).fact_ids) == 1


def test_injection_tells_when_the_evidence_changed_direction(tmp_path: Path) -> None:
    clock = Clock()
    store = make_store(tmp_path, clock)
    store.record_feedback(FeedbackInput("ana", preference="请简洁"))
    clock.set("2026-03-11T08:00:00")
    store.record_feedback(FeedbackInput("ana", correction="太简略了"))  # 0.9 -> 0.36: out of injection
    assert store.injection_for([], "", "", "ana", Lang.ZH).text == ""
    clock.set("2026-03-12T00:00:00")
    store.record_feedback(FeedbackInput("ana", preference="还是简洁"))  # 0.36 + 0.64 x 0.9 = 0.936
    inj = store.injection_for([], "", "", "ana", Lang.ZH)
    assert inj.text.splitlines()[1] == "- 分析师偏好简洁的报告（轨迹：3 条证据，于 2026-03-11 发生方向翻转）"


def test_decay_half_lives_per_fact_type() -> None:
    from app.memory import ledger
    from app.memory.model import FactType

    # spec §3.1 FACT_SCHEMA: 180 / 365 / 730 / 270 days; one half-life halves what counts
    assert [
        ledger.decayed(0.9, t, d)
        for t, d in (
            (FactType.PREFERENCE, 180),
            (FactType.PROJECT_FACT, 365),
            (FactType.DOMAIN, 730),
            (FactType.LESSON, 270),
        )
    ] == [0.45] * 4
    assert ledger.decayed(0.8, FactType.PREFERENCE, 90) == round(0.8 / 2**0.5, 3)  # 0.566
    assert ledger.decayed(0.8, FactType.DOMAIN, 0) == 0.8
