"""The write gate per type (§3.1) and the generalisation gates (§7.1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.memory import Candidate, EvidenceKind, FactType, MissingFieldError
from tests.memory.helpers import Clock, make_store

COMPLETE: dict[FactType, dict[str, Any]] = {
    FactType.PREFERENCE: {"scope": {"analyst": "ana"}},
    FactType.PROJECT_FACT: {"fields": {"source_file": "/r/a.RA3Replay", "observed_at": "2026-01-01T00:00:00Z"}},
    FactType.DOMAIN: {"fields": {"version_anchor": "corona 1.1"}},
    FactType.LESSON: {"fields": {"applicability": {"model": "m"}, "learned_from": ["replay:x"]}},
}
MISSING: dict[FactType, list[str]] = {
    FactType.PREFERENCE: ["scope"],
    FactType.PROJECT_FACT: ["source_file", "observed_at"],
    FactType.DOMAIN: ["version_anchor"],
    FactType.LESSON: ["applicability", "learned_from"],
}


def _cand(t: FactType, kind: EvidenceKind = EvidenceKind.DOCUMENT, **kw: Any) -> Candidate:
    return Candidate(
        type=t,
        subject=f"s:{t.value}",
        attribute="a",
        value="v",
        content_zh="事实",
        content_en="fact",
        kind=kind,
        quote="q",
        **kw,
    )


@pytest.mark.parametrize("ftype", list(FactType))
def test_missing_required_field_blocks_the_write(tmp_path: Path, ftype: FactType) -> None:
    store = make_store(tmp_path, Clock())
    with pytest.raises(MissingFieldError) as err:
        store.add_fact(_cand(ftype))
    for field in MISSING[ftype]:
        assert field in str(err.value)
    [out] = store.commit([_cand(ftype)])
    assert out.action == "blocked"
    assert store.facts() == []


@pytest.mark.parametrize("ftype", list(FactType))
def test_complete_fact_is_written(tmp_path: Path, ftype: FactType) -> None:
    store = make_store(tmp_path, Clock())
    f = store.add_fact(_cand(ftype, **COMPLETE[ftype]))
    assert f.status == "active"  # document evidence: extraction, one source is enough (§1.2)
    assert f.confidence == 0.95


def test_partial_lesson_fields_still_block(tmp_path: Path) -> None:
    store = make_store(tmp_path, Clock())
    [out] = store.commit([_cand(FactType.LESSON, fields={"applicability": {"model": "m"}})])
    assert (out.action, out.reason) == ("blocked", "missing learned_from")


def test_single_behavioural_sample_stays_a_hypothesis(tmp_path: Path) -> None:
    store = make_store(tmp_path, Clock())
    [out] = store.commit(
        [_cand(FactType.PREFERENCE, EvidenceKind.BEHAVIOUR, scope={"player": "p"}, mechanism="m", generalizes=True)]
    )
    assert (out.action, out.status) == ("new", "hypothesis")


def test_generalisation_without_mechanism_is_an_observation(tmp_path: Path) -> None:
    store = make_store(tmp_path, Clock())
    c = _cand(FactType.PREFERENCE, EvidenceKind.BEHAVIOUR, scope={"player": "p"}, generalizes=True)
    [out] = store.commit([c])
    assert out.status == "observation"
    # More evidence does not make a mechanism: it stays out of injection.
    c2 = _cand(FactType.PREFERENCE, EvidenceKind.BEHAVIOUR, scope={"player": "p"}, generalizes=True, dedupe="other")
    [out2] = store.commit([c2])
    assert (out2.action, out2.status) == ("accumulate", "observation")
    assert store.fact(out.fact_id or 0).evidence_count == 2


def test_same_replay_counts_once(tmp_path: Path) -> None:
    store = make_store(tmp_path, Clock())
    c = _cand(FactType.PREFERENCE, EvidenceKind.BEHAVIOUR, scope={"player": "p"}, mechanism="m", dedupe="replay:1")
    store.commit([c])
    [again] = store.commit(
        [_cand(FactType.PREFERENCE, EvidenceKind.BEHAVIOUR, scope={"player": "p"}, mechanism="m", dedupe="replay:1")]
    )
    assert again.action == "duplicate"
    assert store.fact(again.fact_id or 0).evidence_count == 1


def test_bad_episode_input_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    from dataclasses import replace

    from app.memory import EpisodeInputError, FeedbackInput
    from tests.memory.helpers import run_ep

    store = make_store(tmp_path, Clock())
    with pytest.raises(EpisodeInputError, match="replay_hash"):
        store.record_run(replace(run_ep("r1", "p", ("A", "B")), replay_hash=" "))
    with pytest.raises(EpisodeInputError, match="analyst"):
        store.record_feedback(FeedbackInput("", preference="请简洁"))
    with pytest.raises(EpisodeInputError, match="rating 9"):
        store.record_feedback(FeedbackInput("ana", rating=9))
    assert store.facts() == []
    assert store.batch_due()
