"""Kane's Wrath / Tiberium Wars sell, exit, evacuate and attack ids, checked on the corpus bytes (issues 28 §1, 33).

Framing as in ``test_kwtw.py``: word = id | (player + 3) << 11, argument groups ``d`` = (count − 1) << 4 | type
(KW: 0 int, 3 object, 6 position), 0xFF ends the command. In ``kw_test`` BoolBada is player 0 (``.. 1A``) and joohan
player 1 (``.. 22``); BoolBada's yard is #241 (his placements start ``31 1A 03 F1000000``, ``test_kwtw.py``).

The ids follow the Generals message order SELL, EXIT, EVACUATE, …, DO_ATTACK_OBJECT, DO_FORCE_ATTACK_OBJECT,
DO_FORCE_ATTACK_GROUND (notes §4.1), as RA3's 0x20A/0x20C/0x20D do; TW ids are KW − 10. The expected values are
read from the raw commands (``read_replay``) or the bytes, not from the fact index under test.
"""

from __future__ import annotations

import re
import struct

import pytest

from app.facts.eventlog import CompactLevel, build_compact_log
from app.facts.index import build_fact_index
from app.facts.model import Strength
from app.replay import ArgKind, read_replay
from app.replay.commands import Category, command_info
from app.replay.model import Game, Replay
from tests.conftest import REPO_ROOT, corpus_files

KW_TEST = REPO_ROOT / "tests" / "data" / "replays" / "kw" / "kw_test.KWReplay"
SELL, EXIT, EVACUATE, ATTACK, FORCE_OBJECT, FORCE_GROUND = 0x234, 0x235, 0x236, 0x23C, 0x23D, 0x23E
SELECT, REMOVE_FROM_SELECTION = 0x1F5, 0x1F9
_O = ArgKind.OBJECT


def _kwtw() -> list[Replay]:
    return [read_replay(p) for p in corpus_files("kw") + corpus_files("tw")]


def _id(replay: Replay, kw_id: int) -> int:
    return kw_id - 10 if replay.game is Game.TW else kw_id


def _last_selection(replay: Replay, i: int) -> tuple[object, ...]:
    """Objects of the issuer's last 0x1F5 selection before command ``i``."""
    player = replay.commands[i].player
    prev = [c for c in replay.commands[:i] if c.player == player and c.command_id == SELECT]
    return tuple(prev[-1].values(_O))


def test_names_and_categories_in_both_games() -> None:
    for game, shift in ((Game.KW, 0), (Game.TW, 10)):
        assert command_info(game, SELL - shift).category is Category.SELL
        assert command_info(game, ATTACK - shift).name("en") == "Attack"
        assert command_info(game, ATTACK - shift).category is Category.ORDER_ATTACK
        assert command_info(game, FORCE_OBJECT - shift).name("en") == "Force-fire on object"
        assert command_info(game, FORCE_GROUND - shift).name("en") == "Force-fire on ground"
        assert command_info(game, EXIT - shift).category is Category.GARRISON
        assert command_info(game, EVACUATE - shift).name("en") == "Evacuate"
        assert not command_info(game, 0x292 - shift).known  # meaning not decided (docs/kw-tw-commands.md)


def test_joohans_attack_on_boolbadas_yard_matches_the_bytes() -> None:
    # 3C 22 | 03 <target F1000000 = #241> | 06 <x y z> | FF: joohan (player 1) attacks object #241 at a point
    found = re.findall(rb"\x3c\x22\x03\xf1\x00\x00\x00\x06(.{12})\xff", KW_TEST.read_bytes(), re.DOTALL)
    assert len(found) == 1
    x, y, _z = struct.unpack("<fff", found[0])
    assert (round(x), round(y)) == (950, 2650)
    replay = read_replay(KW_TEST)
    [i] = [i for i, c in enumerate(replay.commands) if c.command_id == ATTACK and c.values(_O) == [241]]
    cmd = replay.commands[i]
    assert (cmd.player, cmd.time_code) == (1, 2095)  # 2:19.67
    # joohan's selection then: deselect, select group 1 (0x205, tc 2056); group 1 was created (0x1FB) at tc 1412
    mine = [c for c in replay.commands[:i] if c.player == 1]
    last_pick = [c for c in mine if c.command_id in (SELECT, 0x1F8, 0x205)][-1]
    assert (last_pick.command_id, last_pick.time_code) == (0x205, 2056)
    created = [c for c in mine if c.command_id == 0x1FB][-1]
    assert created.time_code == 1412
    actors = tuple(created.values(_O))
    assert actors == (818, 808, 796)
    ix = build_fact_index(replay)
    [ev] = [e for e in ix.events_for_object(241) if e.command_index == i]
    assert ev.category is Category.ORDER_ATTACK
    assert (ev.target_ids, ev.actor_ids) == ((241,), actors)
    assert ix.owner(241).player == 0  # BoolBada's yard: the attack is on the enemy
    log = build_compact_log(ix, CompactLevel.FULL, count_tokens=False)
    [line] = [ln.text for ln in log.lines if ln.time_code == cmd.time_code and ln.command_id == ATTACK]
    assert line == "2:19.67  joohan  Attack #818 #808 #796 →#241 (950,2650)"


@pytest.mark.corpus
def test_every_attack_target_with_strong_owner_evidence_is_another_players() -> None:
    """KW 0x23C / TW 0x232 ``O P``: 645 targets with a strong owner in the corpus, none the attacker's."""
    seen = 0
    for replay in _kwtw():
        ix = build_fact_index(replay)
        for c in replay.commands:
            if c.command_id == _id(replay, ATTACK):
                assert c.kinds == (_O, ArgKind.POSITION)
                [target] = c.values(_O)
                assert isinstance(target, int)
                owner = ix.owner(target)
                if owner.strength is Strength.STRONG:
                    seen += 1
                    assert owner.player != c.player, (replay.path, c.time_code)
    assert seen == 645


@pytest.mark.corpus
def test_a_sold_object_is_never_named_again() -> None:
    """KW 0x234 / TW 0x22A ``O``: no later order names the object (only the engine's remove-from-selection)."""
    sells = 0
    for replay in _kwtw():
        cmds = replay.commands
        sell = _id(replay, SELL)
        for i, c in enumerate(cmds):
            if c.command_id != sell:
                continue
            sells += 1
            assert c.kinds == (_O,)
            [oid] = c.values(_O)
            later = {d.command_id for d in cmds[i + 1 :] if oid in d.values(_O)}
            assert later <= {sell, REMOVE_FROM_SELECTION}, (replay.path, c.time_code, later)
    assert sells == 108 + 16


def test_exit_names_the_passenger_then_the_selected_container() -> None:
    """kw_test: ``35 1A 13 <passenger> <container> FF``; the container is BoolBada's selection (#810, #811, #198)."""
    data = KW_TEST.read_bytes()
    pairs = [struct.unpack("<II", m) for m in re.findall(rb"\x35\x1a\x13(.{8})\xff", data, re.DOTALL)]
    assert pairs == [(738, 810), (748, 811), (986, 198)]
    replay = read_replay(KW_TEST)
    exits = [i for i, c in enumerate(replay.commands) if c.command_id == EXIT]
    assert [tuple(replay.commands[i].values(_O)) for i in exits] == pairs
    for i, (passenger, container) in zip(exits, pairs, strict=True):
        assert _last_selection(replay, i) == (container,)
        # the passenger is ordered on its own afterwards (it is out)
        later = [c for c in replay.commands[i + 1 :] if c.command_id == SELECT and c.values(_O) == [passenger]]
        assert later, passenger


@pytest.mark.corpus
def test_evacuate_has_ra3s_layout_and_names_the_selected_building() -> None:
    """KW 0x236 ``I O*`` (k, k buildings) as RA3 0x20C: epic_scorp evacuates map buildings #17 (twice) and #480."""
    [replay] = [r for r in _kwtw() if r.path.endswith("kw_epic_scorp.KWReplay")]
    evac = [i for i, c in enumerate(replay.commands) if c.command_id == EVACUATE]
    assert [replay.commands[i].args for i in evac] == [(1, 17), (1, 17), (1, 480)]
    for i in evac:
        assert _last_selection(replay, i) == replay.commands[i].args[1:]
