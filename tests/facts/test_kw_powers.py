"""Kane's Wrath located and on-object powers: caster(s) and target read from the bytes (issue 33).

Framing as in ``test_kwtw``: word = id | (player + 3) << 11, argument groups ``(count − 1) << 4 | type`` (KW: 0
int, 3 object, 6 position), 0xFF at the end. 0x228 (power on an object) is ``I O I I(k) O×k P``: hash, target, 0, k,
the k sources, a point; 0x227 (power at a location) is ``I P O I I(k) O×k``: hash, point, 0, 0, k, the k sources.
"""

from __future__ import annotations

import re
import struct

import pytest

from app.facts.index import build_fact_index, source_count_holds
from app.replay import read_replay
from tests.conftest import corpus_file


def _records(path_name: str, pattern: bytes) -> list[re.Match[bytes]]:
    return list(re.finditer(pattern, corpus_file(path_name).read_bytes(), re.DOTALL))


@pytest.mark.corpus
def test_power_on_object_has_its_sources_and_target() -> None:
    # shj is player 2 in kw_corrupt-1: 28 2A | 00 <hash> | 03 <target> | 10 <0> <k=3> | 23 <3 sources> | 06 <xyz> | FF
    found = _records(
        "kw_corrupt-1.KWReplay",
        rb"\x28\x2a\x00(.{4})\x03(.{4})\x10\x00\x00\x00\x00\x03\x00\x00\x00\x23(.{12})\x06.{12}\xff",
    )
    assert found
    power, target = struct.unpack("<II", found[0].group(1) + found[0].group(2))
    sources = struct.unpack("<III", found[0].group(3))
    assert (power, target, sources) == (0xB549549B, 3492, (3505, 3584, 3652))
    ix = build_fact_index(read_replay(corpus_file("kw_corrupt-1.KWReplay")))
    assert ix.name_of(power) == "SpecialPower_ConversionBeam"
    on_object = [e for e in ix.events if e.command_id == 0x228]
    for m in found:
        power, target = struct.unpack("<II", m.group(1) + m.group(2))
        sources = struct.unpack("<III", m.group(3))
        assert any(
            e.player == 2 and e.type_hash == power and e.target_ids == (target,) and e.actor_ids == sources
            for e in on_object
        ), (hex(power), target, sources)
    assert ix.player_name(2) == "shj"


@pytest.mark.corpus
def test_power_at_a_location_has_its_sources() -> None:
    # 27 <hi> | 00 <hash> | 06 <xyz> | 03 <0> | 10 <0> <k=1> | 03 <source> | FF (any player: the high byte varies)
    found = _records(
        "kw_0x13_command.KWReplay",
        rb"\x27([\x1a\x22\x2a\x32\x3a\x42\x4a\x52])\x00(.{4})\x06.{12}\x03\x00\x00\x00\x00"
        rb"\x10\x00\x00\x00\x00\x01\x00\x00\x00\x03(.{4})\xff",
    )
    assert found
    ix = build_fact_index(read_replay(corpus_file("kw_0x13_command.KWReplay")))
    located = [e for e in ix.events if e.command_id == 0x227]
    for m in found:
        player = (m.group(1)[0] >> 3) - 3
        power, source = struct.unpack("<II", m.group(2) + m.group(3))
        assert any(
            e.player == player and e.type_hash == power and e.actor_ids == (source,) and e.target_ids == ()
            for e in located
        ), (player, hex(power), source)
    assert all(e.actor_ids for e in located)  # every located power of this file names its caster


@pytest.mark.corpus
def test_a_record_whose_count_does_not_hold_names_no_caster() -> None:
    """TW writes on-object powers with k = -1 and no sources (``I O I I P``); read as KW's layout the hash would be
    the count and the target a caster. The check refuses it."""
    replay = read_replay(corpus_file("tw_1v1_riverside_rumble_10m.CNC3Replay"))
    odd = [c for c in replay.commands if c.command_id == 0x21E and c.args[3] == 0xFFFFFFFF]
    assert odd
    assert not any(source_count_holds(c) for c in odd)
    kw = read_replay(corpus_file("kw_corrupt-1.KWReplay"))
    assert all(source_count_holds(c) for c in kw.commands if c.command_id in (0x227, 0x228))
