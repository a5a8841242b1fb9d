"""Shift-click batch orders ("Queue unit ×5"), checked by hand against the bytes and the ids that appear afterwards.

Command framing (notes §4.1/§4.2): word = id | (player field) << 11, then argument groups ``d`` = (count − 1) << 4 |
type, ended by 0xFF.

* RA3 0x205 ``O I B I``: ``05 12 | 04 <factory> | 00 <unit hash> | 02 <flag> | 00 <int> | FF`` for slot 0
  (player field 2). In ``ra3_1v1_infinity_isle_allies_mirror_12m`` slot 0 ("0010") sends, at barracks #253
  (``FD 00 00 00``), Peacekeeper orders (hash ``97 BC 9C 13`` = 0x139CBC97, AlliedAntiInfantryInfantry)
  ``05 12 04 FD000000 00 97BC9C13 02 01 00 02000000 FF`` at tc 233 (0:15.53) and tc 235 (0:15.67), flag byte 01;
  the next two, at tc 1065/1067 (1:11.00/1:11.13), have flag byte 00.
* KW 0x22D ``O B I I B I``: ``2D 32 | 03 <factory> | 02 <b> | 10 <unit hash> <int> | 02 <flag> | 00 <int> | FF``;
  player field 6 is command player 3, which is slot 7 (L1onCub) in ``kw_epic_scorp`` (closed slots skipped,
  notes §5). Command 740, tc 2869 (3:11.27): ``2D 32 03 0A060000 02 00 10 D58B70BB 00000000 02 01 00 03000000 FF``:
  factory #1546, NODAttackBike (0xBB708BD5), second bool 01; commands 733 and 738 (3:09.33, 3:10.73) are
  NODScorpionBuggy (``1D 53 54 63``) at the same factory with that bool 00.
"""

from __future__ import annotations

import re
import struct

import pytest

from app.facts.eventlog import build_compact_log
from app.facts.report import facts_json
from app.facts.summary import build_summary
from app.i18n import Lang
from tests.conftest import REPO_ROOT, corpus_file
from tests.support.corpus import corpus_index

MIRROR = "ra3_1v1_infinity_isle_allies_mirror_12m.RA3Replay"
EPIC = "kw_epic_scorp.KWReplay"
PEACEKEEPER = 0x139CBC97


def test_ra3_flag_bytes_and_the_peacekeepers_it_made() -> None:
    ix = corpus_index(MIRROR)
    data = (REPO_ROOT / "tests" / "data" / "replays" / "ra3" / MIRROR).read_bytes()
    # every Peacekeeper order of slot 0 at #253, in file order: the flag byte of each
    flags = [
        m.group(1)[0]
        for m in re.finditer(rb"\x05\x12\x04\xfd\x00\x00\x00\x00\x97\xbc\x9c\x13\x02(.)\x00\x02\x00\x00\x00\xff", data)
    ]
    assert flags[:4] == [1, 1, 0, 0]
    orders = [
        e
        for e in ix.events
        if e.player == 0 and e.command_id == 0x205 and e.type_hash == PEACEKEEPER and e.seconds < 113.6
    ]
    assert [(e.time_code, ix.batch(e.command_index)) for e in orders] == [(233, 5), (235, 5), (1065, 1), (1067, 1)]
    # the ids: control group 2 at 1:53.60 holds 12 objects, all first named after the orders; slot 0's only other
    # infantry are the 4 dogs (the Bark casters #261, #301, #302 and #304) and one engineer ordered at 0:14.53, so 4
    # orders made at least 11 units: only 2 × 5 + 2 fits
    group = ix.group_members(0, 2, 113.6)
    assert len(group) == 12
    assert all((ix.first_seen(o) or 0) > 15.67 for o in group)
    assert not {261, 301, 302, 304} & set(group)
    assert ix.units_ordered(0, 0.0, 113.6)["AlliedAntiInfantryInfantry"] == 12


def test_ra3_log_summary_and_json_count_the_batch() -> None:
    ix = corpus_index(MIRROR)
    lines = [ln.text for ln in build_compact_log(ix, 2, Lang.EN, count_tokens=False).lines_between(15.5, 15.7)]
    assert lines == [
        "0:15.53  0010  Queue unit ×5 AlliedAntiInfantryInfantry #253",
        "0:15.67  0010  Queue unit ×5 AlliedAntiInfantryInfantry #253",
    ]
    zh = build_compact_log(ix, 2, Lang.ZH, count_tokens=False).lines_between(15.5, 15.6)
    assert [ln.text for ln in zh] == ["0:15.53  0010  生产单位 ×5 AlliedAntiInfantryInfantry #253"]
    # units per type: the orders' batches summed by hand from the log (every 0x205 of slot 0 with its flag)
    orders = [e for e in ix.events if e.player == 0 and e.command_id == 0x205]
    by_hand: dict[str, int] = {}
    for e in orders:
        cmd = ix.replay.commands[e.command_index]
        name = ix.name_of(e.type_hash or 0)
        by_hand[name] = by_hand.get(name, 0) + (5 if cmd.args[2] else 1)
    assert dict(ix.units_ordered(0)) == by_hand
    doc = facts_json(ix, build_summary(ix, Lang.EN))
    rows = {r["type"]: r["units"] for r in doc["units_ordered"] if r["slot"] == 0}
    assert rows == by_hand
    summary = build_summary(ix, Lang.EN)
    assert f"AlliedAntiInfantryInfantry {by_hand['AlliedAntiInfantryInfantry']}" in summary


@pytest.mark.corpus
def test_kw_flag_bytes_and_the_bikes_it_made() -> None:
    ix = corpus_index(EPIC)
    cmd = ix.replay.commands[740]
    assert (cmd.time_code, cmd.player, cmd.command_id) == (2869, 7, 0x22D)
    assert (cmd.args[0], cmd.args[2]) == (1546, 0xBB708BD5)
    assert (cmd.args[1], cmd.args[4]) == (0, 1)
    # the first flagged order of slot 7 at #1546 in the file is that one: NODAttackBike
    data = corpus_file(EPIC).read_bytes()
    found = re.search(rb"\x2d\x32\x03\x0a\x06\x00\x00\x02\x00\x10(.{4})\x00{4}\x02\x01\x00\x03\x00{3}\xff", data)
    assert found is not None
    assert struct.unpack("<I", found.group(1))[0] == 0xBB708BD5
    assert [ix.batch(i) for i in (733, 738, 740)] == [1, 1, 5]
    log = build_compact_log(ix, 2, Lang.EN, count_tokens=False)
    assert [ln.text for ln in log.lines_between(191.2, 191.3)] == [
        "3:11.27  L1onCub  Queue unit ×5 NODAttackBike #1546"
    ]
    # the ids: #1757 is slot 7's harvester (its 2:37.40 order), #1785 its Hand of Nod (first named 3:41.60); between
    # them four new ids join the army group 1 (never harvesting); slot 7's only unit orders that can make them are
    # the three at 3:09.33–3:11.27, so the flagged one made at least two. By 4:06.13 group 1 has 7 members first
    # named after that order: 2 Scorpions + 5 Attack Bikes
    group = ix.group_members(7, 1, 246.2)
    new = sorted(o for o in group if (ix.first_seen(o) or 0) > 191.27)
    assert new == [1765, 1770, 1777, 1782, 1790, 1795, 1812]
    assert [o for o in new if 1757 < o < 1785] == [1765, 1770, 1777, 1782]
    assert all(e.role.value != "harvester" for o in new for e in ix.evidence(o))
    assert any(e.role.value == "harvester" and e.player == 7 for e in ix.evidence(1757))
    made = ix.units_ordered(7, 189.0, 191.3)
    assert dict(made) == {"NODScorpionBuggy": 2, "NODAttackBike": 5}
    assert sum(made.values()) == len(new)
