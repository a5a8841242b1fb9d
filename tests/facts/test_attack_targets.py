"""A click on a hostile object selects it, so a player's selection of an object it ordered attacked is not evidence
of owning it (issue 14).

Checked by hand on the Allies mirror with ``replaysage inspect --commands --json --all``: nickname attacks #392 at
10:34.87 (0x20D ``O``, time code 9523) and its very next selection, at 10:35.07 (0x1F5 ``B B O*``, time code 9526),
is #392 alone; #392 is nickname's only at these two commands and a second attack at 10:46.87. The labeller found
#392 to be 0010's power plant (placed 2:54.40, attacked by nickname in 0010's base).
The expected values below are read from the raw commands (``read_replay``), not from the fact index under test.
"""

from __future__ import annotations

from app.facts import OwnershipVerdict
from app.facts.model import Strength
from app.replay import ArgKind
from tests.support.corpus import corpus_index, corpus_replay

MIRROR = "ra3_1v1_infinity_isle_allies_mirror_12m.RA3Replay"
VS_EMPIRE = "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"
SELECT, CREATE_GROUP, ATTACK = 0x1F5, 0x1FA, 0x20D


_replay = corpus_replay
_index = corpus_index


def _slot(name: str, player: str) -> int:
    [slot] = [s.index for s in _replay(name).header.slots if s.name == player]
    return slot


def _commands(name: str, command_id: int, oid: int) -> list[tuple[int, int]]:
    """(time code, player) of every ``command_id`` command naming ``oid``."""
    return [
        (c.time_code, c.player)
        for c in _replay(name).commands
        if c.command_id == command_id and oid in c.values(ArgKind.OBJECT)
    ]


def test_the_hand_checked_commands_hold_on_the_bytes() -> None:
    nickname = _slot(MIRROR, "nickname")
    assert _commands(MIRROR, ATTACK, 392) == [(9523, nickname), (9703, nickname)]  # 10:34.87, 10:46.87
    assert _commands(MIRROR, SELECT, 392) == [(9526, nickname)]  # 10:35.07
    [select] = [c for c in _replay(MIRROR).commands if c.command_id == SELECT and c.time_code == 9526]
    assert [v for v in select.values(ArgKind.OBJECT) if v] == [392]


def test_selecting_an_object_one_attacked_is_no_ownership_evidence() -> None:
    index = _index(MIRROR)
    assert index.evidence(392) == ()
    assert index.check_ownership(392, _slot(MIRROR, "0010")) is OwnershipVerdict.NO_EVIDENCE
    assert index.check_ownership(392, _slot(MIRROR, "nickname")) is OwnershipVerdict.NO_EVIDENCE


def test_strong_evidence_stays_when_a_player_attacks_its_own_unit() -> None:
    """Kimi_no_Ouji puts #772 in a control group (0x1FA at 9:56.07) and attacks it at 11:11.07 (time code 10066)."""
    kimi = _slot(VS_EMPIRE, "Kimi_no_Ouji")
    assert (10066, kimi) in _commands(VS_EMPIRE, ATTACK, 772)
    assert (8941, kimi) in _commands(VS_EMPIRE, CREATE_GROUP, 772)
    owner = _index(VS_EMPIRE).owner(772)
    assert owner.player == kimi
    assert owner.strength is Strength.STRONG
