"""The confidence ledger: the spec's worked example 0.40 → 0.64 → 0.96, tiers, negative evidence."""

from __future__ import annotations

import math

import pytest

from app.memory import EvidenceKind, FeedbackInput, ledger
from tests.memory.helpers import Clock, make_store


def _product_form(weights: list[float]) -> float:
    # c = 1 - Π(1 - w): the closed form of c <- c + (1 - c) w starting from 0, derived by hand from spec §4.1.
    return 1.0 - math.prod(1.0 - w for w in weights)


def test_worked_example_matches_the_closed_form() -> None:
    c1 = ledger.update(0.0, EvidenceKind.BEHAVIOUR)
    c2 = ledger.update(c1, EvidenceKind.BEHAVIOUR)
    c3 = ledger.update(c2, EvidenceKind.EXPLICIT)
    assert c1 == pytest.approx(_product_form([0.4]))
    assert c2 == pytest.approx(_product_form([0.4, 0.4]))
    assert c3 == pytest.approx(_product_form([0.4, 0.4, 0.9]))
    assert (round(c1, 2), round(c2, 2), round(c3, 2)) == (0.40, 0.64, 0.96)
    assert ledger.update(0.0, EvidenceKind.DOCUMENT) == 0.95
    assert ledger.update(0.0, EvidenceKind.REUSE) == 0.5


def test_counterexample_multiplies_by_one_minus_point_six() -> None:
    assert ledger.update(0.964, EvidenceKind.BEHAVIOUR, positive=False) == pytest.approx(round(0.964 * 0.4, 3))
    assert ledger.replay([(EvidenceKind.BEHAVIOUR, 1), (EvidenceKind.BEHAVIOUR, -1)]) == pytest.approx(0.16)


@pytest.mark.parametrize(
    ("conf", "tier", "text"),
    [
        (0.964, ledger.Tier.DIRECT, "X"),
        (0.8, ledger.Tier.DIRECT, "X"),
        (0.64, ledger.Tier.HEDGED, "（可能）X"),
        (0.5, ledger.Tier.HEDGED, "（可能）X"),
        (0.4, ledger.Tier.ON_DEMAND, "X"),
    ],
)
def test_injection_tiers(conf: float, tier: ledger.Tier, text: str) -> None:
    assert ledger.inject_policy(conf, "X") == (tier, text)


def test_store_walks_the_worked_example(store_url: str) -> None:
    """Two behavioural reactions then an explicit statement of the same preference, through the pipeline."""
    clock = Clock()
    store = make_store(store_url, clock)
    r1 = store.record_feedback(FeedbackInput("ana", correction="这份报告太长了"))
    fid = r1.outcomes[0].fact_id
    assert fid is not None
    f = store.fact(fid)
    assert (f.value, f.status, f.confidence, f.evidence_count) == ("concise", "hypothesis", 0.4, 1)
    clock.set("2026-03-11T00:00:00")
    store.record_feedback(FeedbackInput("ana", correction="still too long"))
    f = store.fact(fid)
    assert (f.status, f.confidence, f.evidence_count) == ("active", 0.64, 2)
    clock.set("2026-03-12T00:00:00")
    store.record_feedback(FeedbackInput("ana", preference="以后请写得简洁一些"))
    f = store.fact(fid)
    assert f.confidence == pytest.approx(0.964)
    assert f.evidence_count == 3
    assert [s.kind for s in f.sources] == ["behavior_inference", "behavior_inference", "explicit_statement"]
    assert [s.polarity for s in f.sources] == [1, 1, 1]


def test_reversal_phrase_is_negative_evidence(store_url: str) -> None:
    clock = Clock()
    store = make_store(store_url, clock)
    fid = store.record_feedback(FeedbackInput("ana", preference="请简洁")).outcomes[0].fact_id
    assert fid is not None
    assert store.fact(fid).confidence == 0.9
    clock.set("2026-03-11T00:00:00")
    store.record_feedback(FeedbackInput("ana", correction="太简略了，说详细点"))
    f = store.fact(fid)
    assert f.confidence == pytest.approx(0.36)  # 0.9 × (1 − 0.6)
    assert f.contradiction_count == 1
    assert [s.polarity for s in f.sources] == [1, -1]


def test_confirmation_prompt_after_ninety_days(store_url: str) -> None:
    clock = Clock("2026-01-01T00:00:00")
    store = make_store(store_url, clock)
    fid = store.record_feedback(FeedbackInput("ana", preference="请用中文")).outcomes[0].fact_id
    assert fid is not None
    clock.set("2026-03-31T00:00:00")  # 89 days
    assert store.confirmations_due("ana") == []
    clock.set("2026-04-02T00:00:00")  # 91 days
    due = store.confirmations_due("ana")
    assert [d[0].id for d in due] == [fid]
    assert due[0][1] == "仍保持：分析师希望用中文撰写报告？"
    f = store.confirm_preference(fid, keep=False)
    assert f.confidence == pytest.approx(0.36)
    assert store.confirmations_due("ana") == []
