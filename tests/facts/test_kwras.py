"""Kane's Wrath placements and shift-click queue orders against KWReplayAutoSaver's own reading.

``tests/data/kwras/<replay>.json`` holds what KWReplayAutoSaver (forcecore/KWReplayAutoSaver, the tool KW players use)
read from each KW corpus file, produced outside this repository (``tests/data/kwras/PROVENANCE.md``): its structure
placements (command 0x31, its ``decode_placedown_cmd``) and queue orders (0x2D, its ``decode_queue_cmd``, printed
"Queue 5x …" for a shift-click), plus the chunks its command splitter gave up on and the queue orders it took for an
end-of-game marker. No code of the tool is here: only its output.

Everything the tool reads, the facts hold: the same placements (time within a frame, the same player, the same
structure, the same position) and the same queue orders with the same shift-click flag. The facts hold more, and
each extra is one of the tool's two known misreadings, checked on the bytes below:

* a chunk whose commands the tool cannot split (an argument byte 0xFF, e.g. in a placement's z coordinate, cuts its
  0xFF-terminated split; its fallback splitter then fails and ``fix_mismatch`` drops every command of the chunk);
* a queue order at a factory whose object id ends in byte 0x02 (``decode_queue_cmd`` tests ``data[1] == 0x02``, the
  low byte of the factory id, for its end-of-game case).

Players are compared by name: the tool numbers the players of its header list without the closed slots, the facts
number every header slot (``kw_epic_scorp``: L1onCub is the tool's player 3 and slot 7 here).
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from app.facts.index import ReplayFactIndex, build_fact_index
from app.replay import read_replay
from tests.conftest import REPO_ROOT, corpus_file

KWRAS = REPO_ROOT / "tests" / "data" / "kwras"
PLACE = 0x231  # KW place structure (the tool's 0x31: the low byte of the command word)
QUEUE = 0x22D  # KW queue unit (the tool's 0x2D)
AIRFIELD_SHORT = 4  # the tool counts a shift-click of an aircraft as four (its AFLD_UNITS): pads, not the order

REPLAYS = sorted(json.loads(p.read_text(encoding="utf-8"))["file"] for p in KWRAS.glob("*.json"))
IN_REPO = {p.name for p in (REPO_ROOT / "tests" / "data" / "replays" / "kw").glob("*.KWReplay")}
CASES = [pytest.param(n, marks=() if n in IN_REPO else pytest.mark.corpus) for n in REPLAYS]


@dataclass(frozen=True)
class Order:
    time_code: int
    player: str
    type_hash: int
    flag: bool = False  # queue orders: the shift-click flag
    position: tuple[float, float] | None = None


@cache
def theirs(replay: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((KWRAS / (Path(replay).stem + ".json")).read_text(encoding="utf-8"))
    return data


@cache
def ours(replay: str) -> ReplayFactIndex:
    return build_fact_index(read_replay(corpus_file(replay)))


def _their_orders(data: Mapping[str, Any]) -> tuple[list[Order], list[Order]]:
    names = [p["name"] for p in data["players"]]
    places = [
        Order(
            p["time_code"],
            names[p["player"]],
            int(p["type_id"], 16),
            position=(p["x"], p["y"]) if p["substructures"] == 1 else None,  # it reads only the first one right
        )
        for p in data["placements"]
    ]
    queues = [
        Order(q["time_code"], names[q["player"]], int(q["type_id"], 16), q["fivex_byte"] != 0) for q in data["queues"]
    ]
    return places, queues


def _our_orders(ix: ReplayFactIndex, until: int) -> tuple[list[Order], list[Order]]:
    name = {p.slot: p.name for p in ix.players}
    places = [
        Order(s.time_code, name[s.player], s.type_hash, position=s.position)
        for s in ix.build_order()
        if s.command_id == PLACE and s.time_code <= until
    ]
    queues = [
        Order(e.time_code, name[e.player], e.type_hash or 0, ix.batch(e.command_index) > 1)
        for e in ix.events
        if e.command_id == QUEUE and e.time_code <= until
    ]
    return places, queues


def _match(mine: list[Order], other: list[Order], *, positions: bool) -> tuple[list[Order], list[Order]]:
    """Pair each of ``other`` with one of ``mine`` (same player, type and flag, time within a frame, position when
    both have one); returns (mine left over, other left over)."""
    left = list(mine)
    missed: list[Order] = []
    for o in other:
        for i, m in enumerate(left):
            if (m.player, m.type_hash, m.flag) != (o.player, o.type_hash, o.flag) or abs(m.time_code - o.time_code) > 1:
                continue
            if (
                positions
                and o.position is not None
                and m.position is not None
                and m.position != pytest.approx(o.position, abs=1e-3)
            ):
                continue
            del left[i]
            break
        else:
            missed.append(o)
    return left, missed


@pytest.mark.parametrize("replay", CASES)
def test_the_facts_hold_every_placement_the_tool_reads(replay: str) -> None:
    data = theirs(replay)
    mine, _ = _our_orders(ours(replay), data["last_chunk_time_code"])
    other, _ = _their_orders(data)
    extra, missed = _match(mine, other, positions=True)
    assert missed == []
    # what the tool does not list sits in a chunk it dropped, nothing else
    dropped = {c["time_code"] for c in data["dropped_chunks"]}
    assert [o for o in extra if o.time_code not in dropped] == []


@pytest.mark.parametrize("replay", CASES)
def test_the_facts_hold_every_queue_order_and_its_shift_click(replay: str) -> None:
    data = theirs(replay)
    _, mine = _our_orders(ours(replay), data["last_chunk_time_code"])
    _, other = _their_orders(data)
    extra, missed = _match(mine, other, positions=False)
    assert missed == []
    names = [p["name"] for p in data["players"]]
    read_as_end = [
        Order(q["time_code"], names[q["player"]], int(q["type_id"], 16), q["fivex_byte"] != 0)
        for q in data["queues_read_as_end_of_game"]
    ]
    extra, unexplained = _match(extra, read_as_end, positions=False)
    assert unexplained == []
    dropped = {c["time_code"] for c in data["dropped_chunks"]}
    assert [o for o in extra if o.time_code not in dropped] == []


@pytest.mark.parametrize("replay", CASES)
def test_shift_click_counts_agree_with_queue_5x(replay: str) -> None:
    data = theirs(replay)
    ix = ours(replay)
    _, mine = _our_orders(ix, data["last_chunk_time_code"])
    # the tool prints a flagged order "Queue 5x" (aircraft: "Queue 4x"), a plain one "Queue 1x"
    printed = [re.match(r"Queue (\d)x ", q["text"]) for q in data["queues"]]
    assert all(m is not None for m in printed)
    counts = [int(m.group(1)) for m in printed if m is not None]
    flagged = sum(c in (5, AIRFIELD_SHORT) for c in counts)
    assert flagged == sum(q["fivex_byte"] != 0 for q in data["queues"])
    assert set(counts) <= {1, 5, AIRFIELD_SHORT}
    # the facts: the same flagged orders (plus those of chunks the tool dropped), each five units
    dropped = {c["time_code"] for c in data["dropped_chunks"]}
    lost = sum(q["fivex_byte"] != 0 for q in data["queues_read_as_end_of_game"])
    lost += sum(o.flag for o in mine if o.time_code in dropped)
    assert sum(o.flag for o in mine) == flagged + lost
    fives = {ix.batch(e.command_index) for e in ix.events if e.command_id == QUEUE}
    assert fives <= {1, 5}


EXPECTED = {
    # replay: the tool's placements, queue orders, "Queue 5x" and "Queue 4x" (aircraft) lines, as stored
    "kw_0x13_command.KWReplay": (57, 129, 32, 0),
    "kw_beacon.KWReplay": (0, 0, 0, 0),
    "kw_bh.KWReplay": (9, 32, 0, 0),
    "kw_big_player_id.KWReplay": (186, 488, 260, 5),
    "kw_corrupt-1.KWReplay": (109, 317, 146, 0),
    "kw_crane.KWReplay": (1, 0, 0, 0),
    "kw_epic_scorp.KWReplay": (36, 119, 90, 0),
    "kw_nodtest.KWReplay": (17, 19, 3, 0),
    "kw_t59_2.KWReplay": (15, 14, 0, 0),
    "kw_test.KWReplay": (27, 74, 40, 0),
}


def test_the_stored_output_covers_every_kw_file() -> None:
    assert set(REPLAYS) == set(EXPECTED)
    for replay, expected in EXPECTED.items():
        data = theirs(replay)
        texts = [q["text"] for q in data["queues"]]
        got = (len(data["placements"]), len(texts), sum(t.startswith("Queue 5x ") for t in texts))
        assert (*got, sum(t.startswith("Queue 4x ") for t in texts)) == expected


def _chunk_time(data: bytes, command: bytes) -> int:
    """Time code of the chunk holding ``command``: the nearest header before it (u32 time, u8 type 1, u32 size, then
    the data: 01 <u32 command count> … ending in 0xFF) whose data reaches past the command."""
    at = data.index(command)
    for start in range(at - 5, max(at - 4096, 9), -1):
        size = struct.unpack_from("<I", data, start - 4)[0]
        assert isinstance(size, int)
        if (
            data[start] == 1
            and data[start - 5] == 1
            and at + len(command) <= start + size < len(data)
            and data[start + size - 1] == 0xFF
        ):
            time_code = struct.unpack_from("<I", data, start - 9)[0]
            assert isinstance(time_code, int)
            return time_code
    raise AssertionError(command.hex(" "))


def test_a_placement_the_tool_drops_is_in_the_bytes() -> None:
    # kw_nodtest: BoolBada (slot 0: word 0x231 | 3 << 11 = 31 1A) places 0x40DCA116 with builder 0x2BD; the z
    # coordinate e0 ff 1f 41 holds a byte 0xFF, so the tool's 0xFF split finds three commands where the chunk says two
    replay = "kw_nodtest.KWReplay"
    raw = corpus_file(replay).read_bytes()
    head = bytes.fromhex("31 1a 03 bd 02 00 00 10 16 a1 dc 40 01 00 00 00 06")
    m = re.search(re.escape(head + bytes.fromhex("4c f4 88 45 78 93 13 45")) + rb"(\xe0\xff\x1f\x41)", raw)
    assert m is not None
    x, y, z = struct.unpack("<fff", m.group(0)[-12:])
    assert z == pytest.approx(10.0, abs=1e-3)  # 9.99998: a byte 0xFF inside the argument
    t = _chunk_time(raw, m.group(0))
    assert t == 3795
    data = theirs(replay)
    assert {"time_code": t, "ncmd": 2} in data["dropped_chunks"]
    assert all(p["time_code"] != t for p in data["placements"])
    step = next(s for s in ours(replay).build_order(0) if s.time_code == t)
    assert step.type_hash == 0x40DCA116
    assert step.position == pytest.approx((x, y))


@pytest.mark.corpus
def test_a_queue_order_the_tool_takes_for_the_end_is_in_the_bytes() -> None:
    # kw_epic_scorp: XXcyberstormXX (slot 1: 2D 22) queues 0xC3785BFE at factory 0x602, plain (last bool 00); the
    # factory id's low byte 0x02 is the byte the tool reads as its end-of-game case
    replay = "kw_epic_scorp.KWReplay"
    raw = corpus_file(replay).read_bytes()
    cmd = bytes.fromhex("2d 22 03 02 06 00 00 02 00 10 fe 5b 78 c3 00 00 00 00 02 00 00 03 00 00 00 ff")
    t = _chunk_time(raw, cmd)
    assert t == 912
    data = theirs(replay)
    assert {"time_code": t, "player": 1, "factory": 0x602, "type_id": "0xC3785BFE", "fivex_byte": 0} in data[
        "queues_read_as_end_of_game"
    ]
    assert all(q["time_code"] != t for q in data["queues"])
    ix = ours(replay)
    (ev,) = [e for e in ix.events if e.command_id == QUEUE and e.time_code == t]
    assert (ev.player, ev.type_hash, ix.batch(ev.command_index)) == (1, 0xC3785BFE, 1)
    assert 0x602 in ev.object_ids
