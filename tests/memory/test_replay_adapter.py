"""Episodes from a fact index: no re-read of the file, the game's own commands (KW/TW), Empire cores.

Expected values are derived from the raw commands (``read_replay``), with the layouts of notes §4.3 (RA3
0x205 queue unit ``O I …``: factory, unit type hash; 0x209 place structure ``O I …``: builder, structure hash)
and the Kane's Wrath queue command 0x22D (factory object, a flag, then the unit type hash).
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

from app.facts import build_fact_index
from app.knowledge.names import hash_names
from app.memory import episode_from_replay
from app.memory.replay_adapter import episode_from_index, replay_hash_of
from app.replay import read_replay
from app.replay.reader import parse_replay
from tests.conftest import corpus_file

ALLIES_MIRROR = "ra3_1v1_infinity_isle_allies_mirror_12m.RA3Replay"
EMPIRE = "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"
KW = "kw_test.KWReplay"
KW_QUEUE_UNIT = 0x22D
RA3_QUEUE_UNIT, RA3_START, RA3_PLACE = 0x205, 0x207, 0x209


def test_episode_from_index_is_what_the_file_wrapper_returns_without_touching_the_file(tmp_path: Path) -> None:
    path = corpus_file(ALLIES_MIRROR)
    data = path.read_bytes()
    index = build_fact_index(parse_replay(data, str(path)))
    elsewhere = str(tmp_path / "gone.RA3Replay")  # never read: the index is all it needs
    ep = episode_from_index(index, "feedfacecafebeef", elsewhere, model="m", analyst="a", analysis_id=7)
    from_file = episode_from_replay(path, model="m", analyst="a", analysis_id=7)
    assert from_file.replay_hash == hashlib.sha256(data).hexdigest()[:16]
    assert replay_hash_of(data) == from_file.replay_hash
    assert ep == replace(from_file, replay_hash="feedfacecafebeef", replay_path=elsewhere)
    assert (ep.model, ep.analyst, ep.analysis_id) == ("m", "a", 7)


def test_kw_first_units_come_from_the_kw_queue_command() -> None:
    path = corpus_file(KW)
    replay = read_replay(path)
    players = {s.index: s.name for s in replay.header.slots if s.kind.value == "human"}
    expected: dict[str, list[tuple[str, float]]] = {name: [] for name in players.values()}
    seen: dict[str, set[int]] = {name: set() for name in players.values()}
    for cmd in replay.commands:
        if cmd.command_id != KW_QUEUE_UNIT or cmd.player not in players:
            continue
        name, type_hash = players[cmd.player], cmd.args[2]
        assert isinstance(type_hash, int)
        if type_hash not in seen[name]:  # first time each unit type is queued
            seen[name].add(type_hash)
            label = hash_names("KW").get(type_hash, f"0x{type_hash:08X}")  # KW knowledge since issue 20
            expected[name].append((label, round(cmd.time_code / 15, 1)))
    ep = episode_from_replay(path)
    got = {name: [(t.name, t.seconds) for t in items] for name, items in ep.first_productions.items()}
    assert got == {name: items[:4] for name, items in expected.items()}
    assert all(len(items) == 4 for items in got.values())
    # KW placements (0x231) give openings since issue 20; 0x231 by player 0 at tc 102 (tests/facts/test_kwtw.py)
    first = ep.openings["BoolBada"][0]
    assert (first.name, first.seconds) == ("NODPowerPlant", 6.8)
    assert ep.protocols == {}


def test_empire_first_unit_is_a_unit_and_the_opening_starts_with_a_core() -> None:
    path = corpus_file(EMPIRE)
    replay = read_replay(path)
    [slot] = [s for s in replay.header.slots if s.faction == "Empire"]
    mine = [c for c in replay.commands if c.player == slot.index]
    # Construction yards: the objects that build (0x207 start / 0x209 place) for this player.
    yards = {c.args[0] for c in mine if c.command_id in (RA3_START, RA3_PLACE)}
    structure_hashes = {c.args[1] for c in mine if c.command_id in (RA3_START, RA3_PLACE)}
    queued = [c for c in mine if c.command_id == RA3_QUEUE_UNIT]
    first_unit = next(c for c in queued if c.args[0] not in yards)
    first_core = next(c for c in queued if c.args[0] in yards and c.args[1] not in structure_hashes)
    first_place = next(c for c in mine if c.command_id == RA3_PLACE)
    assert first_core.time_code < first_place.time_code  # the Empire opens with a core, not a placement

    ep = episode_from_replay(path)
    unit = ep.first_productions[slot.name][0]
    assert unit.seconds == round(first_unit.time_code / 15, 1)
    assert isinstance(first_unit.args[1], int)
    assert unit.name == hash_names("RA3").get(first_unit.args[1], f"0x{first_unit.args[1]:08X}")
    assert "Egg" not in unit.name  # Empire cores are "...Egg" structures, not units
    opening = ep.openings[slot.name]
    assert opening[0].seconds == round(first_core.time_code / 15, 1)
    assert len(opening) == 6
