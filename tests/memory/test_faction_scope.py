"""Issue 30 §8: a player's faction facts are scoped by the faction, so many factions never flood the queue.

In one team test 30 of 37 review items were "Player X usually plays Y" conflicts of players who use several
factions. A faction fact now holds only where its own faction is played: each faction counts its own games.
"""

from __future__ import annotations

from app.memory import FactType
from app.memory.candidates import run_candidates
from tests.memory.helpers import Clock, analyse, make_store, run_ep


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
