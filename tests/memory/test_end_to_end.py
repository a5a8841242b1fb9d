"""End to end over the real corpus: two replays that share a player (``nickname``, both as Allies).

The first analysis leaves hypotheses; the player-tendency facts become active only when the second replay
repeats them. Expected values come from the replay bytes (notes §4.3: 0x209 place structure, I0 = structure
hash): nickname (slot 1) places 0x296799CF, 0x296799CF, 0x509BD329 first in both files, and picks protocol
0xDD6C4C5B first (0x24E).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from app.i18n import Lang
from app.memory import ClaimInput, MemoryStore, episode_from_replay
from tests.conftest import corpus_file
from tests.memory.helpers import Clock, make_store

FIRST = "ra3_1v1_infinity_isle_allies_mirror_12m.RA3Replay"
SECOND = "ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay"
OPENING_HASHES = (0x296799CF, 0x296799CF, 0x509BD329)


def _name(mod: str, h: int) -> str:
    try:
        from app.knowledge.names import hash_names

        return hash_names(mod).get(h) or f"0x{h:08X}"
    except ImportError:
        return f"0x{h:08X}"


def _opening(store: MemoryStore) -> list:  # type: ignore[type-arg]
    return [f for f in store.facts(subject="player:nickname") if f.attribute == "opening"]


def test_shared_player_hypothesis_then_active(tmp_path: Path) -> None:
    clock = Clock()
    store = make_store(tmp_path, clock)
    ep1 = episode_from_replay(corpus_file(FIRST))
    assert [(p.name, p.faction) for p in ep1.players] == [("0010", "Allies"), ("nickname", "Allies")]
    expected = " → ".join(_name("RA3", h) for h in OPENING_HASHES)
    store.record_run(ep1)
    store.run_batch()
    [f] = _opening(store)
    assert (f.value, f.status, f.confidence, f.evidence_count) == (expected, "hypothesis", 0.4, 1)
    assert store.injection_for(["nickname"], "", "", "", Lang.ZH).fact_ids == ()

    clock.set("2026-03-11T00:00:00")
    ep2 = episode_from_replay(corpus_file(SECOND))
    assert ep2.replay_hash != ep1.replay_hash
    store.record_run(ep2)
    store.run_batch()
    [f] = _opening(store)
    assert (f.status, f.confidence, f.evidence_count) == ("active", 0.64, 2)
    detail = store.fact(f.id)
    assert {s.context["map"] for s in detail.sources} == {"Infinity Isle", "Snow Plow"}
    [proto] = [x for x in store.facts(subject="player:nickname") if x.attribute == "first_protocol"]
    assert (proto.value, proto.status) == (_name("RA3", 0xDD6C4C5B), "active")
    # players seen once stay hypotheses; the extracted replay facts are active at 0.95 at once
    assert {x.status for x in store.facts(subject="player:0010")} == {"hypothesis"}
    assert {x.status for x in store.facts(subject="player:lanyiiiiiii")} == {"hypothesis"}
    lineups = store.facts(type="project_fact")
    assert len(lineups) == 2
    assert {x.confidence for x in lineups} == {0.95}

    inj = store.injection_for(["nickname", "0010"], "", "", "", Lang.ZH)
    assert f.id in inj.fact_ids
    assert f"（可能）玩家 nickname 使用盟军时的开局建筑顺序：{expected}" in inj.text
    assert all(fid in {x.id for x in store.facts(subject="player:nickname")} for fid in inj.fact_ids)

    # analysing the same replay again adds no evidence
    store.record_run(episode_from_replay(corpus_file(SECOND)))
    store.run_batch()
    assert _opening(store)[0].evidence_count == 2


def test_immediate_track_takes_extractions_only_and_batch_the_rest(tmp_path: Path) -> None:
    store = make_store(tmp_path, Clock())
    res = store.record_run(episode_from_replay(corpus_file(FIRST)))
    # 1 extracted lineup + 4 habits for each of the 2 players; habits are never urgent
    assert len(res.candidates) == 9
    assert [o.action for o in res.outcomes] == ["new"]
    assert store.facts()[0].type == "project_fact"
    assert res.pending == 8
    assert store.batch_due()
    report = store.run_batch_if_due()
    assert report is not None
    assert report.candidates == 8
    assert not store.batch_due()
    assert store.run_batch_if_due() is None


def test_immediate_track_commits_at_most_five(tmp_path: Path) -> None:
    store = make_store(tmp_path, Clock())
    ep = episode_from_replay(corpus_file(FIRST))
    rules = tuple(ClaimInput(f"rule {i}", "rule", key=f"rule{i}", value=str(i)) for i in range(7))
    res = store.record_run(replace(ep, claims=rules))
    assert len(res.outcomes) == 5
    assert res.pending == 1 + 7 + 8 - 5


def test_unreadable_replay_is_a_known_error(tmp_path: Path) -> None:
    from app.errors import KnownError

    bad = tmp_path / "bad.RA3Replay"
    bad.write_bytes(b"not a replay")
    with pytest.raises(KnownError):
        episode_from_replay(bad)


def test_player_claims_accumulate_across_replays_whatever_the_time(tmp_path: Path) -> None:
    from tests.memory.helpers import analyse

    store = make_store(tmp_path, Clock())
    for path, t in ((FIRST, "191.0"), (SECOND, "6.0")):
        ep = episode_from_replay(corpus_file(path))
        claims = (
            ClaimInput("nickname picked Protocol X", "protocol", "nickname", "protocol:X", t),
            ClaimInput("nickname wins when he harasses", "strategy", "nickname", "harass-wins", "true"),
        )
        analyse(store, replace(ep, claims=claims))
    facts = {x.attribute: x for x in store.facts(subject="player:nickname")}
    f = facts["claim:protocol:X"]
    assert (f.value, f.evidence_count, f.status) == ("yes", 2, "active")
    g = facts["claim:harass-wins"]  # a correlation without a known mechanism stays an observation
    assert (g.evidence_count, g.status) == (2, "observation")
