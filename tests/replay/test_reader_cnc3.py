"""Kane's Wrath and Tiberium Wars: header, slots, chunks and commands with their own numbering; truncation.

Expected slots were read from each file's ``S=`` text by hand, with the KW/TW faction tables of notes §1.2.
"""

from __future__ import annotations

import struct

import pytest

from app.replay.model import Game, SlotKind
from tests.conftest import corpus_file, corpus_files
from tests.replay.conftest import first_chunk_offset, parsed, raw_chunk_walk, raw_footer

TRUNCATED = {"kw_corrupt-1.KWReplay": "short-body", "kw_t59_2.KWReplay": "short-header"}
CNC3_FILES = [p.name for p in corpus_files("kw") + corpus_files("tw")]


@pytest.mark.parametrize("name", CNC3_FILES)
def test_every_kw_tw_file_reads(name: str) -> None:
    replay = parsed(name)
    assert replay.game is (Game.TW if name.startswith("tw_") else Game.KW)
    assert replay.header.map_path.startswith("data/maps/official/")
    data = corpus_file(name).read_bytes()
    chunks, _stop, how = raw_chunk_walk(data, first_chunk_offset(data))
    assert replay.chunk_count == len(chunks)
    if name in TRUNCATED:
        assert how == TRUNCATED[name]
        assert replay.truncated
        assert replay.footer is None
        return
    assert how == "terminator"
    assert not replay.truncated, replay.truncation_reason
    assert replay.footer is not None
    final_tc, _ = raw_footer(data)
    assert replay.footer.final_time_code == final_tc == chunks[-1][1]
    for chunk in replay.chunks:
        if chunk.chunk_type == 1:
            assert chunk.commands is not None
            assert len(chunk.commands) == struct.unpack_from("<I", chunk.data, 1)[0]


@pytest.mark.parametrize("name", sorted(TRUNCATED))
def test_truncated_kw_salvages_complete_chunks(name: str) -> None:
    replay = parsed(name)
    data = corpus_file(name).read_bytes()
    chunks, stop, _how = raw_chunk_walk(data, first_chunk_offset(data))
    assert replay.truncated
    assert str(stop) in replay.truncation_reason
    # every complete chunk is kept, with all its commands
    assert [c.offset for c in replay.chunks] == [c[0] for c in chunks]
    for chunk in replay.chunks:
        if chunk.chunk_type == 1:
            assert chunk.commands is not None
            assert len(chunk.commands) == struct.unpack_from("<I", chunk.data, 1)[0]
    assert replay.final_time_code == chunks[-1][1]


def test_tw_header() -> None:
    h = parsed("tw_1v1_riverside_rumble_10m.CNC3Replay").header
    assert h.game is Game.TW
    assert h.version == (1, 9, 2801, 21826)
    assert h.magic_hash == 0xA471E23C
    assert h.mod_name == "CNC3"
    assert h.map_name == "Riverside Rumble"
    players = [(s.name, s.faction) for s in h.slots if s.kind is SlotKind.HUMAN]
    assert players == [("lewisg396", "Nod"), ("d.Physick", "Scrin")]


@pytest.mark.corpus
def test_kw_slots_and_factions() -> None:
    h = parsed("kw_big_player_id.KWReplay").header
    assert h.map_name == "[1.02+] Tiberian Dunes"
    got = [(s.name, s.faction, s.team) for s in h.slots if s.kind is SlotKind.HUMAN]
    assert got == [
        ("BoolBada", "Random", 0),
        ("즈려밟아주겠다", "Black Hand", 0),
        ("R알못", "Random", 0),
        ("Pak", "Nod", 1),
        ("*D*P*D*", "GDI", 1),
        ("쉬움", "Random", 1),
    ]
    h2 = parsed("kw_0x13_command.KWReplay").header
    kinds = [(s.name, s.kind.value) for s in h2.slots]
    assert kinds[:6] == [
        ("BoolBada", "observer"),
        ("호빗", "observer"),
        ("Pak", "observer"),
        ("패널티0.5", "observer"),
        ("shj", "human"),
        ("CaNCer", "human"),
    ]
    assert parsed("kw_bh.KWReplay").header.slots[0].handicap == -40


@pytest.mark.corpus
def test_epic_scorp_command_players_skip_closed_slots() -> None:
    """Notes §5: L1onCub sits in slot 7 after four closed slots; its commands carry player number 3."""
    replay = parsed("kw_epic_scorp.KWReplay")
    slots = replay.header.slots
    assert slots[7].name == "L1onCub"
    assert all(slots[i].kind is SlotKind.CLOSED for i in range(3, 7))
    by_slot = {c.player for c in replay.commands}
    assert 7 in by_slot
    assert not by_slot & {3, 4, 5, 6}
    assert {c.player_field for c in replay.commands if c.player == 7} == {3 + 3}
    assert 7 in {cam.slot for cam in replay.cameras()}  # camera chunks use the raw index
    assert replay.header.replay_saver == 7


def test_kw_end_marker_is_0x02d() -> None:
    replay = parsed("kw_test.KWReplay")
    ends = [c for c in replay.commands if c.command_id == 0x02D]
    assert len(ends) == 1
    assert ends[0].time_code == replay.final_time_code
