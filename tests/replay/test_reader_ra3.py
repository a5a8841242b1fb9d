"""RA3 corpus: header, slots, chunk walk, command split, footer.

Expected values were read by hand from the files' bytes (the ``M=``/``MC=``/``S=`` settings text, the UTF-16
map name, the 22-byte mod block), using the faction table of the notes (§1.2), not copied from reader output.
"""

from __future__ import annotations

import struct

import pytest

from app.replay.model import Game, SlotKind
from tests.conftest import corpus_file
from tests.replay.conftest import first_chunk_offset, parsed, raw_chunk_walk, raw_footer

# file -> (map name, map path, (mod, version), S= entries as (kind, name, faction, team); closed X count)
EXPECTED: dict[str, tuple[str, str, tuple[str, str], list[tuple[str, str, str, int]], int]] = {
    "corona_pve_vs_ai_10m.RA3Replay": (
        "无限岛[1](Infinity Isle)",
        "data/maps/[1]map_mp_2_rao1",
        ("corona", "3.18A"),
        [
            ("human", "st", "Celestial", 0),
            ("ai", "", "Empire", -1),
            ("commentator", "post Commentator", "Commentator", -1),
        ],
        3,
    ),
    "ra3_1v1_battlebase_two_observers_15m.RA3Replay": (
        "战斗实验平台(Battlebase Beta)",
        "data/maps/official/map_mp_2_feasel4",
        ("RA3", ""),
        [
            ("observer", "寄术型解说-墨喵", "Observer", -1),
            ("observer", "偶数型解说-樱井", "Observer", -1),
            ("human", "Trebla", "Empire", -1),
            ("human", "SFT-行星之上", "Empire", -1),
            ("commentator", "post Commentator", "Commentator", -1),
        ],
        1,
    ),
    "ra3_1v1_industrial_strength_observer_7m.RA3Replay": (
        "工业区(Industrial Strength)",
        "data/maps/official/map_mp_2_feasel6",
        ("RA3", ""),
        [
            ("human", "极北之蛋", "Empire", -1),
            ("observer", "Neutralize", "Observer", -1),
            ("human", "Superion", "Allies", -1),
            ("commentator", "post Commentator", "Commentator", -1),
        ],
        2,
    ),
    "ra3_1v1_infinity_isle_allies_mirror_12m.RA3Replay": (
        "Infinity Isle",
        "data/maps/official/map_mp_2_rao1",
        ("RA3", ""),
        [
            ("human", "0010", "Allies", -1),
            ("human", "nickname", "Allies", -1),
            ("commentator", "post Commentator", "Commentator", -1),
        ],
        3,
    ),
    "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay": (
        "Infinity Isle",
        "data/maps/official/map_mp_2_rao1",
        ("RA3", ""),
        [
            ("human", "YuiYui", "Allies", -1),
            ("human", "Kimi_no_Ouji", "Empire", -1),
            ("commentator", "post Commentator", "Commentator", -1),
        ],
        3,
    ),
    "ra3_1v1_infinity_isle_observers_12m.RA3Replay": (
        "Infinity Isle",
        "data/maps/official/map_mp_2_rao1",
        ("RA3", ""),
        [
            ("observer", "[LT]Laimis", "Observer", -1),
            ("commentator", "post Commentator", "Commentator", -1),
            ("observer", "HugeSini_no_Ouji", "Observer", -1),
            ("human", "LostLamb", "Empire", -1),
            ("human", "H2O||IaMGoDoFWaR", "Allies", -1),
            ("observer", "uji", "Observer", -1),
        ],
        0,
    ),
    "ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay": (
        "Snow Plow",
        "data/maps/official/map_mp_2_feasel5",
        ("RA3", ""),
        [
            ("human", "lanyiiiiiii", "Soviets", -1),
            ("human", "nickname", "Allies", -1),
            ("commentator", "post Commentator", "Commentator", -1),
        ],
        3,
    ),
    "ra3_3v3_spring_showdown_19m.RA3Replay": (
        "Spring Showdown",
        "data/maps/internal/spring_showdown",
        ("RA3", ""),
        [
            ("human", "Rumi", "Allies", 0),
            ("human", "Lilika", "Empire", 0),
            ("human", "Chtholly", "Random", 1),
            ("human", "lizisys", "Allies", 0),
            ("human", "Toolman", "Random", 1),
            ("human", "MahoMahoRepublic", "Soviets", 1),
        ],
        0,
    ),
}
FILES = sorted(EXPECTED)


@pytest.mark.parametrize("name", FILES)
def test_header_map_mod_and_slots(name: str) -> None:
    replay = parsed(name)
    map_name, map_path, (mod, version), slots, closed = EXPECTED[name]
    h = replay.header
    assert h.game is Game.RA3
    assert h.version == (1, 12, 3444, 25830)
    assert h.vermagic == "1.12.3444.25830"
    # notes §1.1 item 22 says 0xF904323F for Corona too, but the Corona file's bytes after its vermagic
    # text are 8D C3 3B 2B (checked with a hex dump): the build hash differs with the mod.
    assert h.magic_hash == (0x2B3BC38D if mod == "corona" else 0xF904323F)
    assert h.map_name == map_name
    assert h.map_path == map_path
    assert (h.mod_name, h.mod_version) == (mod, version)
    got = [(s.kind.value, s.name, s.faction, s.team) for s in h.slots if s.kind is not SlotKind.CLOSED]
    assert got == slots
    assert sum(s.kind is SlotKind.CLOSED for s in h.slots) == closed


@pytest.mark.parametrize("name", FILES)
def test_walk_reaches_footer_and_footer_matches_bytes(name: str) -> None:
    replay = parsed(name)
    data = corpus_file(name).read_bytes()
    assert not replay.truncated, replay.truncation_reason
    assert replay.footer is not None
    final_tc, seconds = raw_footer(data)
    assert replay.footer.final_time_code == final_tc
    assert replay.footer.seconds == seconds
    assert seconds == final_tc // 15  # notes §3: verified on every RA3 file
    chunks, stop, how = raw_chunk_walk(data, first_chunk_offset(data))
    assert how == "terminator"
    assert replay.header.chunk_offset == first_chunk_offset(data)
    assert replay.chunk_count == len(chunks)
    assert chunks[-1][1] == final_tc  # footer tc == last chunk's tc
    assert data[stop + 4 : stop + 4 + 17] == b"RA3 REPLAY FOOTER"


@pytest.mark.parametrize("name", FILES)
def test_every_command_chunk_splits_into_its_declared_count(name: str) -> None:
    replay = parsed(name)
    total = 0
    for chunk in replay.chunks:
        if chunk.chunk_type != 1:
            assert chunk.commands is None
            continue
        assert chunk.data[0] == 1
        (declared,) = struct.unpack_from("<I", chunk.data, 1)
        assert chunk.commands is not None
        assert len(chunk.commands) == declared
        assert all(c.time_code == chunk.time_code for c in chunk.commands)
        total += declared
    assert total == len(replay.commands)


@pytest.mark.parametrize("name", FILES)
def test_commands_map_to_slots_and_end_marker_is_the_savers(name: str) -> None:
    replay = parsed(name)
    slots = replay.header.slots
    kinds = {s.index: s.kind for s in slots}
    assert all(c.player >= 0 for c in replay.commands)
    assert {kinds[c.player] for c in replay.commands} <= {SlotKind.HUMAN, SlotKind.AI, SlotKind.OBSERVER}
    # notes §4.1: exactly one 0x001 per file, from the saver, in the final chunk (tc == footer tc)
    ends = [c for c in replay.commands if c.command_id == 0x001]
    assert len(ends) == 1
    assert ends[0].player == replay.header.replay_saver
    assert ends[0].time_code == replay.final_time_code
    # ids are 11 bits and every command id is either the end marker or in 0x1F5..0x25F (notes §4.1)
    assert all(c.command_id == 0x001 or 0x1F5 <= c.command_id <= 0x25F for c in replay.commands)


def test_cameras_are_kept_out_of_the_action_stream() -> None:
    replay = parsed("ra3_1v1_infinity_isle_observers_12m.RA3Replay")
    cams = list(replay.cameras())
    assert cams
    assert len(cams) == sum(1 for c in replay.chunks if c.chunk_type == 2)
    # camera slots: playing slots plus the saver (notes §2); the post-commentator slot never has any
    cam_slots = {c.slot for c in cams}
    players = {s.index for s in replay.header.slots if s.is_player}
    assert players <= cam_slots <= players | {replay.header.replay_saver}
    assert all(c.time_code == c.time_code for c in cams)
    assert len(replay.commands) == sum(len(c.commands or []) for c in replay.chunks)


def test_corona_header_details() -> None:
    h = parsed("corona_pve_vs_ai_10m.RA3Replay").header
    assert h.map_crc == "0"
    ai = [s for s in h.slots if s.kind is SlotKind.AI]
    assert len(ai) == 1
    assert ai[0].ai_difficulty == "hard"  # CH
    assert ai[0].faction_id == 2
    assert ai[0].start_position == 1
    assert ai[0].ai_personality == 1


def test_mirror_settings_values() -> None:
    h = parsed("ra3_1v1_infinity_isle_allies_mirror_12m.RA3Replay").header
    assert h.map_crc == "8B444C39"
    assert h.seed == 142698101
    assert h.title == "0010"
    assert h.description == "No Match Description"
    assert h.settings["PC"] == "2"
    first = h.slots[0]
    assert (first.color, first.clan) == (5, "RA3Bar")
    assert first.ip == "38.77.20.95"  # 264D145F
