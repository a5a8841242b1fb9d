"""Conflict rulings (§6.1) in the spec's order, reversible supersede and flip back (§6.2), counterexamples (§7.2)."""

from __future__ import annotations

import pytest

from app.i18n import Lang
from app.memory import Candidate, EvidenceKind, FactType, FeedbackInput, MemoryStateError
from tests.memory.helpers import Clock, analyse, make_store, run_ep


def _player_fact(store, player: str, attribute: str = "opening"):  # type: ignore[no-untyped-def]
    return [f for f in store.facts(subject=f"player:{player}") if f.attribute == attribute]


def test_scope_split_when_the_contexts_differ(store_url: str) -> None:
    clock = Clock()
    store = make_store(store_url, clock)
    analyse(store, run_ep("r1", "p", ("Barracks", "Refinery"), map_name="Infinity Isle"))
    res = analyse(
        store, run_ep("r2", "p", ("Refinery", "Barracks"), map_name="Snow Plow", played="2026-01-02T00:00:00")
    )
    split = [o for o in res if o.action == "scope_split"]
    assert len(split) == 1
    facts = {f.value: f for f in _player_fact(store, "p")}
    assert facts["Barracks → Refinery"].scope["map"] == "Infinity Isle"
    assert facts["Refinery → Barracks"].scope["map"] == "Snow Plow"
    assert {f.status for f in facts.values()} == {"hypothesis"}
    assert store.queue() == []


def test_authority_gap_asks_to_review_the_weaker_side(store_url: str) -> None:
    store = make_store(store_url, Clock())
    doc = Candidate(
        FactType.DOMAIN,
        "mod:RA3",
        "cost:AlliedPowerPlant",
        "800",
        "电厂 800",
        "power plant 800",
        EvidenceKind.DOCUMENT,
        "claim",
        fields={"version_anchor": "RA3 1.12"},
    )
    [old] = store.commit([doc])
    guess = Candidate(
        FactType.DOMAIN,
        "mod:RA3",
        "cost:AlliedPowerPlant",
        "750",
        "电厂 750",
        "power plant 750",
        EvidenceKind.BEHAVIOUR,
        "model said so",
        fields={"version_anchor": "RA3 1.12"},
    )
    [new] = store.commit([guess])
    assert (new.action, new.status) == ("review", "conflict")
    assert store.fact(old.fact_id or 0).status == "active"  # authority wins: no overwrite
    [item] = store.queue()
    assert (item.kind, item.fact.id, item.other.id if item.other else None) == ("review", new.fact_id, old.fact_id)


def test_authority_gap_stronger_newcomer_puts_the_old_side_under_review(store_url: str) -> None:
    store = make_store(store_url, Clock())
    [old] = store.commit(
        [
            Candidate(
                FactType.PREFERENCE,
                "analyst:a",
                "report_length",
                "concise",
                "简",
                "concise",
                EvidenceKind.BEHAVIOUR,
                "q",
                scope={"analyst": "a"},
            )
        ]
    )
    [new] = store.commit(
        [
            Candidate(
                FactType.PREFERENCE,
                "analyst:a",
                "report_length",
                "detailed",
                "详",
                "detailed",
                EvidenceKind.EXPLICIT,
                "I want detail",
                scope={"analyst": "a"},
            )
        ]
    )
    assert (new.action, new.status) == ("review", "active")
    assert store.fact(old.fact_id or 0).status == "conflict"
    [item] = store.queue()
    assert item.fact.id == old.fact_id


def test_recency_supersedes_and_flip_back_restores(store_url: str) -> None:
    clock = Clock()
    store = make_store(store_url, clock)
    first = store.record_feedback(FeedbackInput("a", preference="请简洁")).outcomes[0]
    clock.set("2026-03-11T00:00:00")
    store.record_feedback(FeedbackInput("a", correction="太长了"))  # second piece of evidence for "concise"
    before = store.fact(first.fact_id or 0)
    assert before.confidence == pytest.approx(0.94)  # 0.9 then + 0.1 × 0.4
    clock.set("2026-03-12T00:00:00")
    second = store.record_feedback(FeedbackInput("a", preference="以后写详细一点")).outcomes[0]
    assert second.action == "superseded"
    old, new = store.fact(first.fact_id or 0), store.fact(second.fact_id or 0)
    assert (old.status, old.superseded_by_id) == ("superseded", new.id)
    assert (new.status, new.supersedes_id, new.chain_depth) == ("active", old.id, 1)
    assert [f.id for f in store.chain(new.id)] == [old.id, new.id]
    restored = store.flip_back(new.id)
    assert restored.id == old.id
    assert (restored.status, restored.confidence, restored.evidence_count) == ("active", before.confidence, 2)
    assert store.fact(new.id).status == "superseded"
    with pytest.raises(MemoryStateError):
        store.flip_back(old.id)  # the chain head has nothing before it
    inj = store.injection_for([], "", "", "a", Lang.EN)
    assert inj.fact_ids == (old.id,)


def test_older_evidence_does_not_supersede_and_goes_to_the_human_queue(store_url: str) -> None:
    clock = Clock()
    store = make_store(store_url, clock)
    store.record_feedback(FeedbackInput("a", preference="请简洁", ts=clock.now))
    late = store.record_feedback(FeedbackInput("a", preference="详细", ts=clock.now - 86400)).outcomes[0]
    assert (late.action, late.status) == ("queued", "conflict")
    [item] = store.queue()
    assert item.kind == "conflict"


def test_behaviour_against_behaviour_goes_to_the_human_queue_and_review_actions(store_url: str) -> None:
    clock = Clock()
    store = make_store(store_url, clock)
    analyse(store, run_ep("r1", "p", ("Barracks", "Refinery")))
    res = analyse(store, run_ep("r2", "p", ("Refinery", "Barracks"), played="2026-01-02T00:00:00"))
    assert "queued" in [o.action for o in res]
    [item] = [q for q in store.queue() if q.kind == "conflict"]
    assert item.fact.value == "Refinery → Barracks"
    assert item.other is not None
    approved = store.approve(item.id, "rev")
    assert approved.fact.status == "active"
    assert approved.fact.approved_by == "rev"
    assert store.fact(item.other.id).status == "superseded"
    assert store.queue() == []


def test_reviewer_reject_and_split(store_url: str) -> None:
    store = make_store(store_url, Clock())
    analyse(store, run_ep("r1", "p", ("A", "B")))
    analyse(store, run_ep("r2", "p", ("B", "A"), played="2026-01-02T00:00:00"))
    analyse(store, run_ep("r3", "q", ("A", "B")))
    analyse(store, run_ep("r4", "q", ("B", "A"), played="2026-01-02T00:00:00"))
    items = [q for q in store.queue() if q.kind == "conflict"]
    assert len(items) == 2
    rejected = store.reject(items[0].id, "rev")
    assert rejected.fact.status == "observation"
    assert rejected.other is not None
    assert rejected.other.status == "hypothesis"
    split = store.split_scope(items[1].id, "rev", key="opponents", fact_value="Empire", other_value="Soviets")
    assert split.fact.scope["opponents"] == "Empire"
    assert split.other is not None
    assert split.other.scope["opponents"] == "Soviets"
    assert store.queue() == []


def test_counterexample_blocks_a_wrong_generalisation(store_url: str) -> None:
    """The same player's other replay opened differently: two agreeing replays do not make a habit."""
    clock = Clock()
    store = make_store(store_url, clock)
    analyse(store, run_ep("r1", "p", ("A", "B")))
    # recorded but not yet distilled (the batch has not run): only the episodic history knows it
    store.record_run(run_ep("r2", "p", ("C", "D"), played="2026-01-02T00:00:00"), immediate=False)
    r3 = store.record_run(run_ep("r3", "p", ("A", "B"), played="2026-01-03T00:00:00"), immediate=False)
    opening = [c for c in r3.candidates if c.attribute == "opening"]
    acc = store.commit(opening, r3.episode_id)
    assert acc
    assert acc[0].reason.startswith("counterexample")
    [fact] = [f for f in _player_fact(store, "p") if f.value == "A → B"]
    assert (fact.status, fact.evidence_count, fact.confidence) == ("hypothesis", 2, 0.64)
    [item] = store.queue()
    assert item.kind == "counterexample"
    assert item.fact.id == fact.id


def test_without_counterexample_the_same_evidence_activates(store_url: str) -> None:
    store = make_store(store_url, Clock())
    analyse(store, run_ep("r1", "p", ("A", "B")))
    analyse(store, run_ep("r3", "p", ("A", "B"), played="2026-01-03T00:00:00"))
    [fact] = _player_fact(store, "p")
    assert (fact.status, fact.confidence) == ("active", 0.64)


def test_a_chain_of_three_renders_as_unstable(store_url: str) -> None:
    clock = Clock()
    store = make_store(store_url, clock)
    for i, text in enumerate(["请简洁", "详细一点", "还是简洁吧"]):
        clock.set(f"2026-03-1{i}T00:00:00")
        store.record_feedback(FeedbackInput("a", preference=text))
    [current] = store.facts(subject="analyst:a", status="active")
    assert current.chain_depth == 2
    assert len(store.chain(current.id)) == 3
    inj = store.injection_for([], "", "", "a", Lang.ZH)
    assert "摇摆 3 次" in inj.text


def test_counterexample_from_a_distilled_conflict_also_blocks(store_url: str) -> None:
    store = make_store(store_url, Clock())
    analyse(store, run_ep("r1", "p", ("A", "B")))
    analyse(store, run_ep("r2", "p", ("C", "D"), played="2026-01-02T00:00:00"))  # human queue
    analyse(store, run_ep("r3", "p", ("A", "B"), played="2026-01-03T00:00:00"))
    [fact] = [f for f in _player_fact(store, "p") if f.value == "A → B"]
    assert (fact.status, fact.evidence_count) == ("hypothesis", 2)
    assert sorted(
        q.kind for q in store.queue() if q.fact.id == fact.id or (q.other is not None and q.other.id == fact.id)
    ) == ["conflict", "counterexample"]
