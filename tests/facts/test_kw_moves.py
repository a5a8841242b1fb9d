"""KW/TW moves and selections in the compact log, read through their RA3 roles (issues 33, 28 §1).

The compact log's rules are written against RA3 ids (``app.replay.commands``); KW/TW send the same messages with
other numbers (``app.facts.roles``). Framing as in ``test_kwtw.py``: word = id | (player + 3) << 11, argument group
``d`` = (count − 1) << 4 | type (6 = position), 0xFF ends the command. In ``kw_test`` BoolBada is player 0
(``.. 1A``). The expected values are read from the bytes and the raw commands, not from the index under test.
"""

from __future__ import annotations

import re
import struct

from app.facts.eventlog import CompactLevel, build_compact_log
from app.facts.index import build_fact_index
from app.facts.roles import role_of
from app.replay import ArgKind, read_replay
from app.replay.commands import ATTACK_MOVE, CREATE_GROUP, FORCE_MOVE, FORMATION_MOVE, MOVE, REVERSE_MOVE
from app.replay.model import Game
from tests.conftest import REPO_ROOT

KW_TEST = REPO_ROOT / "tests" / "data" / "replays" / "kw" / "kw_test.KWReplay"
TW_FILE = REPO_ROOT / "tests" / "data" / "replays" / "tw" / "tw_1v1_riverside_rumble_10m.CNC3Replay"


def test_kw_and_tw_moves_have_the_ra3_move_roles() -> None:
    # kw_test: 0x246/0x247/0x248/0x28E carry one position (``P``), 0x27A ``P F I B B``, RA3's 0x214/0x215/0x216/
    # 0x236 and 0x22C layouts (notes §4.3); TW's 0x23C/0x23D/0x270/0x284 the same (KW - 10)
    kinds = {c.command_id: c.kinds for c in read_replay(KW_TEST).commands}
    p = ArgKind.POSITION
    assert kinds[0x246] == kinds[0x247] == kinds[0x248] == kinds[0x28E] == (p,)
    assert kinds[0x27A] == (p, ArgKind.FLOAT, ArgKind.INT, ArgKind.BOOL, ArgKind.BOOL)
    tw_kinds = {c.command_id: c.kinds for c in read_replay(TW_FILE).commands}
    assert tw_kinds[0x23C] == tw_kinds[0x23D] == tw_kinds[0x284] == (p,)
    for kw, ra3 in ((0x246, MOVE), (0x247, ATTACK_MOVE), (0x248, FORCE_MOVE), (0x27A, FORMATION_MOVE)):
        assert role_of(Game.KW, kw)[0] == ra3
        assert role_of(Game.TW, kw - 10)[0] == ra3
    assert role_of(Game.KW, 0x28E)[0] == REVERSE_MOVE
    # the raw ids that collide with RA3's: KW 0x215 is "add group 7", KW 0x248 a force-move (RA3: harvest a node)
    assert role_of(Game.KW, 0x215)[0] != ATTACK_MOVE
    assert role_of(Game.KW, 0x248)[0] == FORCE_MOVE


def test_a_kw_move_burst_is_merged_at_level_3() -> None:
    # BoolBada's five moves after selecting #693 (0:51.27): 46 1A | 06 <x y z> | FF, 0.13-1.47 s apart
    moves = [struct.unpack("<fff", m)[:2] for m in re.findall(rb"\x46\x1a\x06(.{12})\xff", KW_TEST.read_bytes(), re.S)]
    first = next(i for i, (x, y) in enumerate(moves) if (round(x), round(y)) == (2350, 3249))
    burst = [(round(x), round(y)) for x, y in moves[first : first + 5]]
    assert burst == [(2350, 3249), (2363, 3244), (2491, 3076), (2307, 3480), (2207, 3539)]
    replay = read_replay(KW_TEST)
    mine = [c for c in replay.commands if c.player == 0 and 769 <= c.time_code <= 826 and c.command_id != 0x28F]
    assert [(c.time_code, c.command_id) for c in mine] == [
        (769, 0x1F5),  # select #693
        (771, 0x246),
        (773, 0x246),
        (782, 0x246),
        (804, 0x246),
        (818, 0x246),
        (826, 0x1F8),  # deselect
    ]
    assert mine[0].values(ArgKind.OBJECT) == [693]
    ix = build_fact_index(replay)
    full = [ln.text for ln in build_compact_log(ix, CompactLevel.FULL, count_tokens=False).lines]
    assert [t for t in full if "BoolBada  Move #693" in t and "0:51.40" <= t[:7] <= "0:54.53"] == [
        "0:51.40  BoolBada  Move #693 (2350,3249)",
        "0:51.53  BoolBada  Move #693 (2363,3244)",
        "0:52.13  BoolBada  Move #693 (2491,3076)",
        "0:53.60  BoolBada  Move #693 (2307,3480)",
        "0:54.53  BoolBada  Move #693 (2207,3539)",
    ]
    merged = build_compact_log(ix, CompactLevel.MERGE_BURSTS, count_tokens=False)
    at = [ln.text for ln in merged.lines if 771 <= ln.time_code <= 818 and ln.player == 0]
    assert at == ["0:51.40  BoolBada  Move ×5 #693 (2207,3539)"]  # the last move's point
    collapsed = build_compact_log(ix, CompactLevel.COLLAPSE_SELECTION, count_tokens=False)
    # kw_test holds 551 moves and 74 attack-moves: level 3 merges bursts of them, 1269 lines become 864
    assert (len(collapsed.lines), len(merged.lines)) == (1269, 864)


def test_a_kw_create_group_keeps_its_line_and_a_q_select_leaves_no_empty_set() -> None:
    # KW 0x1FA+n creates group n (no group argument): 0x1FB / 0x1FC are groups 1 and 2, not RA3's select / add
    replay = read_replay(KW_TEST)
    [created] = [c for c in replay.commands if c.command_id == 0x1FB and c.time_code == 299]  # 0:19.93
    assert (created.player, created.values(ArgKind.OBJECT)) == (1, [703])
    assert role_of(Game.KW, 0x1FB) == (CREATE_GROUP, 1)
    ix = build_fact_index(replay)
    lines = [ln.text for ln in build_compact_log(ix, CompactLevel.COLLAPSE_SELECTION, count_tokens=False).lines]
    assert "0:19.93  joohan  Create group 1 [1] #703" in lines
    # a Q-select (KW 0x277) leaves a selection the replay does not write: never "∅"
    q = [t for t in lines if "  Q select" in t]
    assert q
    assert not [t for t in q if "∅" in t]
