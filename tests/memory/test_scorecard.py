"""The monthly scorecard on a store built step by step, each figure computed by hand in the comments."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.memory import Candidate, EvidenceKind, FactType, FeedbackInput
from tests.memory.helpers import Clock, make_store, ts


def _domain(subject: str, value: str, dedupe: str = "") -> Candidate:
    return Candidate(
        FactType.DOMAIN,
        subject,
        "style",
        value,
        value,
        value,
        EvidenceKind.BEHAVIOUR,
        "q",
        fields={"version_anchor": "RA3 1.12"},
        dedupe=dedupe,
    )


def test_scorecard_figures_on_a_constructed_store(tmp_path: Path) -> None:
    clock = Clock("2026-03-10T00:00:00")
    store = make_store(tmp_path, clock)
    # F1: explicit preference given Mar 9 12:00, usable Mar 10 00:00 -> lead 0.5 day
    f1 = store.record_feedback(FeedbackInput("a", preference="以后报告请简洁", ts=ts("2026-03-09T12:00:00")))
    # F2: given Mar 7, usable Mar 10 -> lead 3 days
    f2 = store.record_feedback(FeedbackInput("a", preference="请用中文", ts=ts("2026-03-07T00:00:00")))
    # F3/F4: behaviour vs behaviour -> F4 in conflict, queue item Q1 opened Mar 10
    store.commit([_domain("mod:x", "a"), _domain("mod:x", "b")])
    [q1] = store.queue()
    clock.set("2026-03-13T00:00:00")
    store.reject(q1.id, "rev")  # Q1 resolved after 3 days
    clock.set("2026-03-15T00:00:00")
    f5 = store.record_feedback(FeedbackInput("a", preference="以后写详细"))  # supersedes F1 (L1), lead 0
    clock.set("2026-03-16T00:00:00")
    f6 = store.record_feedback(FeedbackInput("a", preference="switch to English please"))  # supersedes F2 (L2)
    assert [r.outcomes[0].action for r in (f5, f6)] == ["superseded", "superseded"]
    clock.set("2026-03-17T00:00:00")
    store.flip_back(f6.outcomes[0].fact_id or 0)  # L2 flipped back
    clock.set("2026-03-20T00:00:00")
    store.commit([_domain("mod:y", "a"), _domain("mod:y", "b")])  # F7, F8 + Q2 opened Mar 20, never resolved
    clock.set("2026-03-21T00:00:00")
    store.commit([_domain("mod:y", "a", dedupe="second")])  # F7 now has 2 pieces of evidence
    clock.set("2026-03-25T00:00:00")
    facts = store.facts()
    assert len(facts) == 8
    for i, f in enumerate(sorted(facts, key=lambda f: f.id)[:10]):
        store.record_audit(f.id, "auditor", correct=i != 0)
    for i in range(2):
        store.record_audit(facts[i].id, "auditor", correct=True)  # 10 verdicts in all, 1 wrong
    clock.set("2026-04-15T00:00:00")
    assert f1.outcomes[0].fact_id
    assert f2.outcomes[0].fact_id

    card = store.scorecard("2026-03")
    assert card.metrics["intake_error_rate"] == pytest.approx(1 / 10)
    assert card.metrics["evidence_density"] == pytest.approx(9 / 8)  # seven facts with 1, F7 with 2
    assert card.metrics["preference_lead_days"] == pytest.approx(0.25)  # median of 0.5, 3, 0, 0
    assert card.metrics["conflict_residence_days"] == pytest.approx(7.5)  # median of 3 and 12 (Mar 20 -> Apr 1)
    assert card.metrics["flip_back_rate"] == pytest.approx(0.5)  # L1, L2; L2 flipped
    assert card.samples == {
        "intake_error_rate": 10,
        "evidence_density": 8,
        "preference_lead_days": 4,
        "conflict_residence_days": 2,
        "flip_back_rate": 2,
    }
    assert {a.split("=")[0] for a in card.alerts} == {
        "intake_error_rate",
        "evidence_density",
        "conflict_residence_days",
        "flip_back_rate",
    }
    assert card.healthy("preference_lead_days") is True

    april = store.scorecard("2026-04")
    assert april.metrics["conflict_residence_days"] == pytest.approx(26.0)  # Q2 open Mar 20 -> now (Apr 15)
    assert april.metrics["flip_back_rate"] is None
    assert april.metrics["intake_error_rate"] is None
    february = store.scorecard("2026-02")
    assert february.metrics["evidence_density"] is None

    trend = store.scorecard_trend(3)
    assert [c.month for c in trend] == ["2026-02", "2026-03", "2026-04"]


@pytest.mark.parametrize(
    "values",
    [[], [4.0], [3.0, 1.0], [5.0, 1.0, 9.0], [0.5, 3.0, 0.0, 0.0, 7.25, 2.0, 2.0], [1.0, 2.0, 3.0, 4.0, 100.0, 6.0]],
)
def test_sql_median_equals_the_statistics_median(values: list[float]) -> None:
    """The scorecard's medians are computed in SQL: the same value as ``statistics.median`` over the rows."""
    import statistics

    from sqlalchemy import Column, Float, Integer, MetaData, Table, create_engine, insert
    from sqlalchemy.orm import Session

    from app.memory.scorecard import sql_median

    meta = MetaData()
    table = Table("numbers", meta, Column("id", Integer, primary_key=True), Column("x", Float), Column("k", Integer))
    engine = create_engine("sqlite://")
    meta.create_all(engine)
    with Session(engine) as s:
        rows: list[dict[str, float | int | None]] = [{"x": v, "k": 1} for v in values]
        rows += [{"x": 1000.0, "k": 2}, {"x": None, "k": 1}]  # another kind, and a missing value: not counted
        s.execute(insert(table), rows)
        n, median = sql_median(s, table.c.x, table.c.k == 1, table.c.x.is_not(None))
    assert n == len(values)
    assert median == (statistics.median(values) if values else None)
