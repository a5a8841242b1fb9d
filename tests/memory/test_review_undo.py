"""Undoing a review ruling (issue 30): everything the ruling changed is as it was, and the history keeps both.

Real stores (SQLite and PostgreSQL through ``store_url``). Each test notes the facts' state before the ruling from
the store itself, rules, undoes, and compares: status, scope, texts, approval, confidence, supersede pointers, the
chain, the queue (the item and the counterexample closed with it are open again) and the verdict history.
"""

from __future__ import annotations

import json

import pytest

from app.memory import FactView, MemoryStateError, MemoryStore
from tests.memory.helpers import Clock, analyse, make_store, run_ep


def _state(f: FactView) -> tuple[object, ...]:
    return (f.status, f.scope, f.content_zh, f.content_en, f.approved_by, f.confidence, f.chain_depth)


def _conflict_with_counterexample(store: MemoryStore) -> tuple[int, int, int, int]:
    """p opened A → B, then C → D (a human conflict), then A → B again (its counterexample): ids of both items."""
    analyse(store, run_ep("r1", "p", ("A", "B")))
    analyse(store, run_ep("r2", "p", ("C", "D"), played="2026-01-02T00:00:00"))
    analyse(store, run_ep("r3", "p", ("A", "B"), played="2026-01-03T00:00:00"))
    items = store.queue()
    [conflict] = [q for q in items if q.kind == "conflict"]
    [counter] = [q for q in items if q.kind == "counterexample"]
    assert conflict.other is not None
    assert counter.fact.id == conflict.other.id  # the counterexample questions the current side
    return conflict.id, counter.id, conflict.fact.id, conflict.other.id


def test_undo_of_an_approval_returns_the_conflict_and_its_counterexample(store_url: str) -> None:
    clock = Clock()
    store = make_store(store_url, clock)
    conflict, counter, proposed, current = _conflict_with_counterexample(store)
    before = {i: _state(store.fact(i)) for i in (proposed, current)}
    assert store.fact(proposed).status == "conflict"
    assert len(store.chain(current)) == 1

    clock.set("2026-03-11T00:00:00")
    store.approve(conflict, "Ana")
    assert store.queue() == []  # the counterexample closed with its conflict
    assert store.fact(current).status == "superseded"
    assert [f.id for f in store.chain(current)] == [current, proposed]  # the approval is current
    assert store.fact(proposed).approved_by == "Ana"

    clock.set("2026-03-11T00:05:00")
    undone = store.undo_ruling(conflict, "Ana")
    assert (undone.resolved_at, undone.resolution, undone.reviewer) == (None, "", "")
    assert sorted(q.id for q in store.queue()) == sorted([conflict, counter])  # both back in the queue
    assert {i: _state(store.fact(i)) for i in (proposed, current)} == before
    assert [f.id for f in store.chain(current)] == [current]  # the chain no longer shows the approval
    assert [f.id for f in store.chain(proposed)] == [proposed]
    # the history keeps both events
    assert [(r.verdict, r.reviewer) for r in store.rulings(conflict)] == [("approve", "Ana"), ("undo", "Ana")]
    # the supersede counts as flipped back (the scorecard's flip-back rate sees the reversal)
    assert store.scorecard("2026-03").metrics["flip_back_rate"] == 1.0
    # undone once; a second undo has nothing to undo; a new ruling is possible and undoable again
    with pytest.raises(MemoryStateError, match="open"):
        store.undo_ruling(conflict, "Ana")
    store.reject(conflict, "Bo")
    store.undo_ruling(conflict, "Bo")
    assert {i: _state(store.fact(i)) for i in (proposed, current)} == before
    assert [r.verdict for r in store.rulings(conflict)] == ["approve", "undo", "reject", "undo"]


def test_undo_of_a_reject_and_of_a_split(store_url: str) -> None:
    store = make_store(store_url, Clock())
    analyse(store, run_ep("r1", "p", ("A", "B")))
    analyse(store, run_ep("r2", "p", ("B", "A"), played="2026-01-02T00:00:00"))
    analyse(store, run_ep("r3", "q", ("A", "B")))
    analyse(store, run_ep("r4", "q", ("B", "A"), played="2026-01-02T00:00:00"))
    first, second = [q for q in store.queue() if q.kind == "conflict"]
    assert first.other is not None
    assert second.other is not None
    sides = (first.fact.id, first.other.id, second.fact.id, second.other.id)
    before = {i: _state(store.fact(i)) for i in sides}

    rejected = store.reject(first.id, "rev")
    assert rejected.fact.status == "observation"
    split = store.split_scope(second.id, "rev", key="opponents", fact_value="Empire", other_value="Soviets")
    assert split.fact.scope["opponents"] == "Empire"
    assert store.queue() == []

    store.undo_ruling(second.id, "rev")
    after_split_undo = store.fact(second.fact.id)
    assert "opponents" not in after_split_undo.scope
    assert "opponents=" not in after_split_undo.content_en  # the scope note is taken out of the texts too
    store.undo_ruling(first.id, "rev")
    assert {i: _state(store.fact(i)) for i in sides} == before
    assert sorted(q.id for q in store.queue()) == sorted([first.id, second.id])
    assert [r.verdict for r in store.rulings(first.id)] == ["reject", "undo"]
    assert [r.verdict for r in store.rulings(second.id)] == ["split", "undo"]


def test_undo_refuses_what_it_cannot_undo_without_losing_later_changes(store_url: str) -> None:
    store = make_store(store_url, Clock())
    conflict, counter, proposed, current = _conflict_with_counterexample(store)
    with pytest.raises(MemoryStateError, match="is open"):
        store.undo_ruling(conflict, "Ana")
    store.approve(conflict, "Ana")
    with pytest.raises(MemoryStateError, match=f"closed with #{conflict}"):
        store.undo_ruling(counter, "Ana")  # closed with its conflict, not ruled on: undo the conflict
    store.flip_back(proposed)  # the approval was already reversed by hand
    with pytest.raises(MemoryStateError, match=f"fact {current} changed after the ruling"):
        store.undo_ruling(conflict, "Ana")
    assert [r.verdict for r in store.rulings(conflict)] == ["approve"]  # nothing recorded for a refused undo


def test_memory_review_undo_on_the_command_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.cli import main
    from app.store import open_database

    monkeypatch.setenv("REPLAYSAGE_LANG", "zh")
    store = MemoryStore(open_database())  # the user store the command opens (REPLAYSAGE_HOME is a temp folder)
    conflict, counter, proposed, current = _conflict_with_counterexample(store)
    before = {i: _state(store.fact(i)) for i in (proposed, current)}
    assert main(["memory", "review", "approve", str(conflict), "--reviewer", "Ana"]) == 0
    capsys.readouterr()
    assert main(["memory", "review", "undo", str(conflict), "--reviewer", "Ana", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["id"], out["resolution"], out["resolved_at"]) == (conflict, "", None)
    assert [(h["verdict"], h["reviewer"]) for h in out["history"]] == [("approve", "Ana"), ("undo", "Ana")]
    assert {i: _state(store.fact(i)) for i in (proposed, current)} == before
    assert sorted(q.id for q in store.queue()) == sorted([conflict, counter])
    assert main(["memory", "review", "show", str(conflict)]) == 0
    shown = capsys.readouterr().out
    assert "采纳 · Ana" in shown
    assert "撤销上一次裁决 · Ana" in shown
    assert main(["memory", "review", "undo", str(conflict), "--reviewer", "Ana"]) == 2  # nothing left to undo
    assert "has no ruling to undo" in capsys.readouterr().err
    store.db.close()


def test_undo_of_a_team_proposal_ruling_puts_the_proposal_back(store_url: str) -> None:
    from app.memory import FeedbackInput

    clock = Clock()
    store = make_store(store_url, clock)
    for i, text in enumerate(["请简洁", "还是要简洁", "简洁一点"]):
        clock.set(f"2026-03-1{i}T00:00:00")
        store.record_feedback(FeedbackInput("ana", preference=text))
    store.run_batch()
    [item] = store.queue()
    assert item.kind == "team_proposal"
    before = _state(store.fact(item.fact.id))
    store.approve(item.id, "lead")
    assert store.promotions("team")[0]["status"] == "promoted"
    store.undo_ruling(item.id, "lead")
    assert store.promotions("team")[0]["status"] == "proposed"  # not promoted after all
    assert _state(store.fact(item.fact.id)) == before
    assert [q.id for q in store.queue()] == [item.id]
