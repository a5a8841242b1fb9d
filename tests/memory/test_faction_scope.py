"""Issue 30 §8: a player's faction facts are scoped by the faction, so many factions never flood the queue.

In one team test 30 of 37 review items were "Player X usually plays Y" conflicts of players who use several
factions. A faction fact now holds only where its own faction is played: each faction counts its own games.
"""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic import command

from app.memory import FactType
from app.memory.candidates import run_candidates
from app.store.db import _alembic_config, _make_engine
from app.store.migrations.versions.memory_0006 import scope_faction_facts
from tests.memory.helpers import Clock, analyse, make_store, run_ep
from ui.tabs.memory_review import _split_default


def test_the_faction_candidate_is_scoped_by_its_faction() -> None:
    cands = list(run_candidates(run_ep("r1", "p", ("Barracks", "Refinery"), faction="Empire")))
    faction = [c for c in cands if c.subject == "player:p" and c.attribute == "faction"]
    assert len(faction) == 1
    assert faction[0].type is FactType.PREFERENCE
    assert faction[0].value == "Empire"
    assert faction[0].scope == {"player": "p", "faction": "Empire", "mod": "RA3"}


def test_three_factions_make_three_scoped_facts_and_no_conflict(store_url: str) -> None:
    clock = Clock()
    store = make_store(store_url, clock)
    games = (
        ("r1", "Allies", "2026-01-01T00:00:00"),
        ("r2", "Soviets", "2026-01-02T00:00:00"),
        ("r3", "Empire", "2026-01-03T00:00:00"),
        ("r4", "Soviets", "2026-01-04T00:00:00"),  # a second Soviet game adds evidence to the Soviet fact
    )
    outcomes = []
    for replay, faction, played in games:
        outcomes += analyse(store, run_ep(replay, "p", ("Barracks", "Refinery"), faction=faction, played=played))
    facts = {f.value: f for f in store.facts(subject="player:p") if f.attribute == "faction"}
    assert set(facts) == {"Allies", "Soviets", "Empire"}
    for value, fact in facts.items():
        assert fact.scope == {"player": "p", "faction": value, "mod": "RA3"}
        assert fact.status != "conflict"
    assert facts["Soviets"].evidence_count == 2
    assert facts["Allies"].evidence_count == facts["Empire"].evidence_count == 1
    assert store.queue() == []  # no conflict of any kind: the opening is the same in every game too
    assert not [o for o in outcomes if o.action in ("queued", "review", "superseded", "scope_split")]


def test_faction_facts_stored_before_are_scoped_by_the_migration(store_url: str) -> None:
    """Facts of the old shape (scoped by player and mod only) and their conflict, then memory_0006's step."""
    clock = Clock()
    store = make_store(store_url, clock)
    for replay, faction, played in (("r1", "Allies", "2026-01-01T00:00:00"), ("r2", "Soviets", "2026-01-02T00:00:00")):
        old = next(
            c
            for c in run_candidates(run_ep(replay, "p", ("A",), faction=faction, played=played))
            if c.attribute == "faction"
        )
        old.scope = {"player": "p", "mod": "RA3"}  # as every faction fact was stored until issue 30
        store.commit([old])
    legacy = [q.id for q in store.queue()]
    assert len(legacy) == 1  # the old shape: a second faction is a conflict
    with store.db.session() as s:
        assert scope_faction_facts(s.connection()) == 2
    with store.db.session() as s:
        assert scope_faction_facts(s.connection()) == 0  # once only
    facts = {f.value: f for f in store.facts(subject="player:p") if f.attribute == "faction"}
    assert facts["Allies"].scope == {"player": "p", "mod": "RA3", "faction": "Allies"}
    assert facts["Soviets"].scope == {"player": "p", "mod": "RA3", "faction": "Soviets"}
    assert all(s.context["faction"] == v for v, f in facts.items() for s in f.sources)
    # the open item's Split by scope now offers the faction, each side with its own
    item = store.queue()[0]
    assert item.other is not None
    assert _split_default(store.fact(item.fact.id), store.fact(item.other.id)) == ("faction", "Soviets", "Allies")
    # new games add to their faction's fact: no new review item
    analyse(store, run_ep("r3", "p", ("A",), faction="Soviets", played="2026-01-03T00:00:00"))
    analyse(store, run_ep("r4", "p", ("A",), faction="Empire", played="2026-01-04T00:00:00"))
    assert [q.id for q in store.queue(open_only=False)] == legacy  # (the Soviet evidence may settle that one)
    facts = {f.value: f for f in store.facts(subject="player:p") if f.attribute == "faction"}
    assert set(facts) == {"Allies", "Soviets", "Empire"}
    assert facts["Soviets"].evidence_count == 2


def test_opening_a_store_at_memory_0005_runs_the_step(tmp_path: Path) -> None:
    """The step runs as the migration, when a store written before it is opened (SQLite: alembic in process)."""
    path = tmp_path / "memory.sqlite3"
    store = make_store(str(path), Clock())
    old = next(c for c in run_candidates(run_ep("r1", "p", ("A",), faction="Empire")) if c.attribute == "faction")
    old.scope = {"player": "p", "mod": "RA3"}
    store.commit([old])
    store.db.close()
    engine = _make_engine(f"sqlite:///{path}")
    cfg = _alembic_config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "memory_0005")  # the data step's downgrade keeps the rows as they are
        conn.execute(sa.text("UPDATE memory_facts SET scope = :s"), {"s": '{"mod": "RA3", "player": "p"}'})
    engine.dispose()
    reopened = make_store(str(path), Clock())
    facts = [f for f in reopened.facts(subject="player:p") if f.attribute == "faction"]
    assert [f.scope for f in facts] == [{"mod": "RA3", "player": "p", "faction": "Empire"}]
    reopened.db.close()
