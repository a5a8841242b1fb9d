"""Kane's Wrath / Tiberium Wars facts checked against bytes decoded here by hand (docs/kw-tw-commands.md).

Command framing (notes §4.1/§4.2): word = id | (player + 3) << 11, then argument groups ``d`` = (count − 1) << 4 |
type (KW types: 0 int, 1 float, 2 bool, 3 object, 6 position), ended by 0xFF. In ``kw_test`` player 0 is BoolBada
(Nod) and player 1 joohan (Black Hand), so player 0's KW 0x231 starts ``31 1A`` and player 1's 0x226 ``26 22``.
"""

from __future__ import annotations

import re
import struct

import pytest

from app.corpus.coverage import coverage_report
from app.facts.index import ReplayFactIndex, build_fact_index
from app.facts.model import ProductionKind
from app.i18n import Lang
from app.replay import read_replay
from tests.conftest import REPO_ROOT

KW_DIR = REPO_ROOT / "tests" / "data" / "replays" / "kw"
KW_TEST = KW_DIR / "kw_test.KWReplay"
TW_FILE = REPO_ROOT / "tests" / "data" / "replays" / "tw" / "tw_1v1_riverside_rumble_10m.CNC3Replay"


@pytest.fixture(scope="module")
def kw() -> ReplayFactIndex:
    return build_fact_index(read_replay(KW_TEST))


def _first(pattern: bytes) -> re.Match[bytes]:
    m = re.search(pattern, KW_TEST.read_bytes(), re.DOTALL)
    assert m is not None, pattern
    return m


def test_first_placement_matches_the_bytes(kw: ReplayFactIndex) -> None:
    # 31 1A | 03 <builder> | 10 <hash> 01000000 | 06 <x y z> | 01 <angle> | FF
    m = _first(rb"\x31\x1a\x03(.{4})\x10(.{4})\x01\x00\x00\x00\x06(.{12})\x01.{4}\xff")
    builder, type_hash = struct.unpack("<II", m.group(1) + m.group(2))
    x, y, _z = struct.unpack("<fff", m.group(3))
    step = kw.build_order(0)[0]
    assert (builder, type_hash) == (241, 0xA333C6A8)
    assert step.type_hash == type_hash
    assert step.name == "NODPowerPlant"
    assert step.position == pytest.approx((x, y))
    assert builder in kw.constructors(0)


def test_first_unit_matches_the_bytes(kw: ReplayFactIndex) -> None:
    # 2D 1A | 03 <factory> | 02 <b> | 10 <unit hash> <int> | 02 <b> | 00 <int> | FF
    m = _first(rb"\x2d\x1a\x03(.{4})\x02.\x10(.{4}).{4}\x02.\x00.{4}\xff")
    factory, type_hash = struct.unpack("<II", m.group(1) + m.group(2))
    first = kw.first_productions(0, ProductionKind.UNIT)[0]
    assert (factory, type_hash) == (683, 0xA35D835C)
    assert (first.source_id, first.type_hash, first.name) == (factory, type_hash, "NodSaboteur")
    assert kw.owner(factory).player == 0


def test_power_cast_matches_the_bytes(kw: ReplayFactIndex) -> None:
    # 26 22 | 20 <power hash> 00000000 <k=1> | 13 <caster> <0> | FF  (0x226 = RA3 0x1FE layout)
    m = _first(rb"\x26\x22\x20(.{4})\x00\x00\x00\x00\x01\x00\x00\x00\x13(.{4})\x00\x00\x00\x00\xff")
    power, caster = struct.unpack("<II", m.group(1) + m.group(2))
    assert (power, caster) == (0xE763C6B8, 242)
    assert kw.name_of(power) == "SpecialPower_GrantPackUpgrade"
    assert any(e.object_id == caster and e.player == 1 for e in kw.casters(power))


def test_player_left_matches_the_bytes(kw: ReplayFactIndex) -> None:
    # 91 1A | 00 <slot> | 02 01 | FF: player 0's client announces that slot 1 left
    m = _first(rb"\x91\x1a\x00(.{4})\x02\x01\xff")
    (slot,) = struct.unpack("<I", m.group(1))
    assert slot == 1
    assert [d.player for d in kw.departures] == [1]
    assert kw.departures[0].reported_by == 0


def test_groups_carry_their_number_in_the_id(kw: ReplayFactIndex) -> None:
    # KW create group n = 0x1FA + n with the members only; joohan (slot 1) used groups 1, 2 and 4
    assert kw.groups_of(1) == (1, 2, 4)
    members = kw.group_history(1, 1)[0].members
    assert members
    assert all(kw.owner(o).player == 1 for o in members)


def test_no_conflicting_strong_evidence_in_kw_and_tw() -> None:
    for path in [*sorted(KW_DIR.glob("*.KWReplay")), TW_FILE]:
        ix = build_fact_index(read_replay(path))
        assert not [o for o in ix.evidence_ids() if ix.owner(o).conflict], path.name


def test_knowledge_names_most_kw_and_tw_ids() -> None:
    report = coverage_report([*sorted(KW_DIR.glob("*.KWReplay")), TW_FILE])
    assert report["kw"]["share"] >= 0.9
    assert report["kw"]["distinct"] > 80
    assert report["cnc3"]["distinct"] > 30


def test_tw_ids_are_kw_minus_ten() -> None:
    ix = build_fact_index(read_replay(TW_FILE))
    assert ix.build_order(0)[0].name == "NODPowerPlant"
    assert ix.build_order(0)[0].command_id == 0x231 - 10
    assert ix.first_productions(1)


def test_kw_summary_names_things_and_who_left(kw: ReplayFactIndex) -> None:
    from app.facts.summary import build_summary

    text = build_summary(kw)
    assert "NODPowerPlant" in text
    assert "NodSaboteur" in text
    assert "- Left: joohan at 10:01.80" in text  # tc 9027 / 15
    assert not re.search(r"0x[0-9A-F]{8}", text)
    assert "no game knowledge" not in text


def test_player_left_line_names_the_leaver_not_the_reporter(kw: ReplayFactIndex) -> None:
    # the 0x291 record above is sent by slot 0 (BoolBada, who plays on) and names slot 1 (joohan) as the leaver;
    # a model reading "BoolBada  Player left" would take the reporter for the player who conceded
    from app.facts.eventlog import CompactLevel, build_compact_log

    for lang, sep in ((Lang.EN, ": "), (Lang.ZH, "：")):
        log = build_compact_log(kw, CompactLevel.FULL, lang)
        label = "Player left" if lang is Lang.EN else "玩家离开"
        assert [ln.text for ln in log.lines if label in ln.text] == [f"10:01.80  BoolBada  {label}{sep}joohan"]
