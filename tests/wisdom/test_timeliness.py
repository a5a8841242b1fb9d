"""Decay formulas, state boundaries, scene changes, counterexamples and the audit (spec: 时效性管理)."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from app.wisdom import ErrorWisdomManager, WisdomEntry
from app.wisdom.timeliness import (
    compute_confidence,
    counterexample_decay,
    scene_change_decay,
    state_of,
    time_decay,
)

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def test_time_decay_is_one_percent_per_day_exponential() -> None:
    # e^-0.3 = 0.74081822068171…, e^-1 = 0.36787944117144…
    assert time_decay(0.9, 30) == pytest.approx(0.9 * 0.7408182206817179)
    assert time_decay(1.0, 100) == pytest.approx(0.36787944117144233)
    assert time_decay(0.8, 0) == pytest.approx(0.8)


def test_scene_change_lowers_by_35_percent_and_counterexamples_by_30_percent_each() -> None:
    assert scene_change_decay(0.8) == pytest.approx(0.52)
    assert scene_change_decay(1.0, 2) == pytest.approx(0.4225)
    assert counterexample_decay(0.9, 1) == pytest.approx(0.63)
    assert counterexample_decay(1.0, 3) == pytest.approx(0.343)
    # all three together: 0.9 · e^-0.1 · 0.65 · 0.7²
    assert compute_confidence(0.9, 10, 1, 2) == pytest.approx(0.9 * math.exp(-0.1) * 0.65 * 0.49)


@pytest.mark.parametrize(
    ("confidence", "state"),
    [
        (0.95, "active"),
        (0.7000001, "active"),
        (0.7, "deprecated"),
        (0.5, "deprecated"),
        (0.3, "deprecated"),
        (0.2999999, "archived"),
        (0.0, "archived"),
    ],
)
def test_state_boundaries(confidence: float, state: str) -> None:
    assert state_of(confidence) == state


def _entry(created: datetime, confidence: float, model: str | None = None) -> WisdomEntry:
    stamp = created.strftime("%Y-%m-%dT%H:%M:%SZ")
    return WisdomEntry(
        id="",
        timestamp=stamp,
        trace_id="t",
        version="1.0",
        error_type="工具性错误",
        error_subtype="调用失败类",
        description="d",
        severity="mild",
        root_cause="r",
        prevention_strategy="p",
        created_at=stamp,
        updated_at=stamp,
        confidence=confidence,
        base_confidence=confidence,
        model=model,
    )


def test_audit_moves_entries_between_states_and_reports(manager: ErrorWisdomManager) -> None:
    fresh = manager.record_entry(_entry(NOW - timedelta(days=1), 0.9))
    middle = manager.record_entry(_entry(NOW - timedelta(days=100), 0.95))  # 0.95·e^-1 = 0.3495 → deprecated
    old = manager.record_entry(_entry(NOW - timedelta(days=200), 0.95))  # 0.95·e^-2 = 0.1286 → archived
    report = manager.timeliness.run_audit(now=NOW)
    assert report["审计条目数"] == 3
    assert report["覆盖率"] == 1.0
    assert report["状态分布"] == {"active": 1, "deprecated": 1, "archived": 1}
    moved = {c["id"]: c["to"] for c in report["状态变化"]}
    assert moved == {middle: "deprecated", old: "archived"}
    assert manager.get_entry(middle).confidence == pytest.approx(0.95 * math.exp(-1.0))
    assert manager.get_entry(fresh).status == "active"
    # running it again changes nothing: confidence is recomputed from causes, never multiplied in place
    again = manager.timeliness.run_audit(now=NOW)
    assert again["状态变化"] == []
    assert manager.get_entry(middle).confidence == pytest.approx(0.95 * math.exp(-1.0))


def test_scene_change_hits_only_the_affected_model(manager: ErrorWisdomManager) -> None:
    a = manager.record_entry(_entry(datetime.now(UTC), 0.9, model="m1"))
    b = manager.record_entry(_entry(datetime.now(UTC), 0.9, model="m2"))
    out = manager.register_scene_change("model_upgrade", "m1 v1 → v2", ["model:m1"])
    assert out["affected_entries"] == [a]
    assert manager.get_entry(a).confidence == pytest.approx(0.9 * 0.65, rel=1e-3)
    assert manager.get_entry(a).status == "deprecated"  # 0.585
    assert manager.get_entry(b).confidence == pytest.approx(0.9)
    assert manager.store.list_scene_changes()[0]["change_type"] == "model_upgrade"


def test_counterexamples_compound(manager: ErrorWisdomManager) -> None:
    eid = manager.record_entry(_entry(datetime.now(UTC), 0.9))
    assert manager.timeliness.register_counterexample(eid, "still failed") == pytest.approx(0.63, rel=1e-3)
    assert manager.timeliness.register_counterexample(eid, "again") == pytest.approx(0.441, rel=1e-3)
    e = manager.get_entry(eid)
    assert e.status == "deprecated"
    assert e.counterexamples == 2
    assert [v.effect for v in e.verifications] == ["反例", "反例"]
    assert manager.timeliness.is_usable(eid)
