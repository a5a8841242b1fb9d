"""``replaysage memory`` against the user store (REPLAYSAGE_HOME points at a temp folder in tests)."""

from __future__ import annotations

import json

import pytest

from app.cli import main
from app.memory import FeedbackInput, MemoryStore
from app.store import open_database
from tests.conftest import corpus_file
from tests.memory.helpers import analyse, run_ep


def _seed() -> tuple[int, int]:
    store = MemoryStore(open_database())
    old = store.record_feedback(FeedbackInput("ana", preference="请简洁", ts=1.0)).outcomes[0].fact_id
    new = store.record_feedback(FeedbackInput("ana", preference="详细一点", ts=2.0)).outcomes[0].fact_id
    analyse(store, run_ep("r1", "p", ("A", "B")))
    analyse(store, run_ep("r2", "p", ("B", "A"), played="2026-01-02T00:00:00"))
    store.db.close()
    assert old is not None
    assert new is not None
    return old, new


def test_facts_show_queue_flip_back_json(capsys: pytest.CaptureFixture[str]) -> None:
    old, new = _seed()
    assert main(["memory", "facts", "--status", "active", "--json"]) == 0
    facts = json.loads(capsys.readouterr().out)
    assert [f["id"] for f in facts if f["subject"] == "analyst:ana"] == [new]
    assert main(["memory", "show", str(new), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["chain"] == [old, new]
    assert shown["fact"]["sources"][0]["quote"] == "详细一点"
    assert main(["memory", "queue", "--json"]) == 0
    queue = json.loads(capsys.readouterr().out)
    assert [q["kind"] for q in queue] == ["conflict"]
    assert main(["memory", "flip-back", str(new), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["id"] == old
    assert main(["memory", "flip-back", str(old)]) == 2
    assert "head of its chain" in capsys.readouterr().err
    assert main(["memory", "show", "99999"]) == 2


def test_distil_and_scorecard(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REPLAYSAGE_LANG", "en")
    replay = corpus_file("ra3_1v1_infinity_isle_allies_mirror_12m.RA3Replay")
    assert main(["memory", "distil", str(replay), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["episodes"]) == 1
    assert out["batch"]["candidates"] == out["episodes"][0]["pending"]
    assert main(["memory", "scorecard", "--month", "2026-03", "--json"]) == 0
    card = json.loads(capsys.readouterr().out)
    assert set(card["metrics"]) == {
        "intake_error_rate",
        "evidence_density",
        "preference_lead_days",
        "conflict_residence_days",
        "flip_back_rate",
    }
    assert card["healthy"]["flip_back_rate"] == [0.0, 0.15]
    assert main(["memory", "scorecard", "--month", "March"]) == 2
    capsys.readouterr()
    assert main(["memory", "scorecard"]) == 0
    assert "Evidence density" in capsys.readouterr().out
