"""MCV chains: every pack and unpack order on the corpus and the id it produced (``app.facts.chains``).

The expected tables were read by hand from the decoded commands (``replaysage facts FILE --log --level 0``):

* a pack (RA3 0x1FE ``SpecialPower_PackReplaceSelf`` 0x6710551A, KW 0x226 ``SpecialPower_GrantPackUpgrade``
  0xE763C6B8) of yard Y is followed within a second by the engine's own pair in one frame: 0x1F6 of the new vehicle
  V and 0x1F9 of Y (e.g. the Allies mirror, tc 1211 slot 0 packs #237; tc 1213 ``0x1F6 #353`` + ``0x1F9 #237``);
* an RA3 deploy (0x200 ``SpecialPower_UnpackReplaceSelf`` 0xCD754906) of V writes no pair: its yard is the first
  new constructor (it builds, queues a core or packs) with an id above every id named before the deploy order; in
  KW the deploy (0x226 ``SpecialPower_GrantUnpackUpgrade`` 0xF33039C8) writes the pair with the yard.

The tests check the pack pairs and the yards' first acts against the raw commands, independently of the builder.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from app.facts.index import ReplayFactIndex
from app.facts.model import PackAction
from app.facts.summary import build_summary
from app.i18n import Lang
from tests.support.corpus import corpus_index

P, U, C = "pack", "unpack", "captured"

EXPECTED: dict[str, dict[int, list[tuple[str, int, int, int | None]]]] = {
    "ra3_1v1_infinity_isle_allies_mirror_12m.RA3Replay": {
        0: [(P, 1211, 237, 353), (U, 1575, 353, 364), (P, 9720, 364, 1604)],
        1: [
            (P, 1143, 238, 350),
            (U, 1285, 350, 356),
            (P, 3260, 356, 410),
            (U, 3297, 410, 413),
            (P, 3935, 413, 446),
            (U, 4491, 446, 464),
        ],
    },
    "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay": {
        0: [(P, 2064, 237, 370), (U, 2587, 370, 391), (P, 17380, 391, 1679), (U, 17546, 1679, 1721)],
        1: [(P, 628, 238, 280), (U, 819, 280, 333)],
    },
    "ra3_1v1_infinity_isle_observers_12m.RA3Replay": {4: [(P, 1661, 238, 408), (U, 2044, 408, 439)]},
    "ra3_1v1_industrial_strength_observer_7m.RA3Replay": {
        2: [(P, 1753, 764, 896), (U, 2341, 896, 910), (P, 2798, 910, 946), (U, 3242, 946, 1061), (P, 5308, 1061, 1568)]
    },
    # the Soviet player packs seven times; the 11:26.27 pack of #2080 (a yard that never built: it only packs) was
    # missed before, and its deploy at 11:43.80 was listed as "not MCVs: Empire cores…"; the deploy at 11:43.80 made
    # no yard that ever acted (the game ends at 14:00 without a new constructor of slot 0)
    "ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay": {
        0: [
            (P, 1938, 626, 760),
            (U, 1975, 760, 798),
            (P, 2921, 798, 861),
            (U, 2973, 861, 886),
            (P, 5170, 886, 1025),
            (U, 5533, 1025, 1188),
            (P, 7647, 1188, 1513),
            (U, 7695, 1513, 1517),
            (P, 8240, 1517, 1543),
            (U, 10033, 1543, 2080),
            (P, 10294, 2080, 2306),
            (U, 10557, 2306, None),
        ],
        1: [(P, 3652, 627, 896), (U, 3849, 896, 914), (P, 10811, 914, 2520)],
    },
    "ra3_1v1_battlebase_two_observers_15m.RA3Replay": {
        2: [(P, 500, 768, 808), (U, 575, 808, 816), (P, 10818, 816, 1403), (U, 11733, 1403, None)],
        3: [(P, 637, 769, 814), (U, 702, 814, 817)],
    },
    # slot 5 (Soviets) deploys #5677 at 16:46.73; its yard is #5706 (packed at 17:21.33), not the older #5546 (a
    # constructor that existed before the deploy) the chain was linked to before
    "ra3_3v3_spring_showdown_19m.RA3Replay": {
        0: [(P, 2193, 721, 1178), (U, 2454, 1178, 1221), (P, 11631, 1221, 4267), (U, 11908, 4267, 4435)],
        1: [(P, 551, 722, 856), (U, 1024, 856, 991)],
        2: [
            (P, 2735, 723, 1251),
            (U, 2786, 1251, 1319),
            (P, 11008, 1319, 4014),
            (U, 15203, 5697, 5743),
            (P, 15542, 5743, 5839),
        ],
        3: [(P, 1877, 724, 1151), (U, 2023, 1151, 1175), (P, 10921, 1175, 3960), (U, 11135, 3960, 4075)],
        4: [(P, 595, 725, 863), (U, 654, 863, 889), (P, 3627, 889, 1364), (U, 3675, 1364, 1386)],
        5: [
            (P, 2212, 726, 1179),
            (U, 2328, 1179, 1222),
            (P, 3985, 1222, 1440),
            (U, 4113, 1440, 1487),
            (P, 6370, 1487, 2330),
            (U, 6428, 2330, 2420),
            (P, 7579, 2420, 2662),
            (U, 7848, 2662, 2901),
            (U, 9528, 3506, 3523),
            (P, 13138, 3523, 4958),
            (U, 13186, 4958, 4972),
            (P, 13981, 4972, 5407),
            (U, 14566, 5407, 5537),
            (P, 15053, 5537, 5677),
            (U, 15101, 5677, 5706),
            (P, 15620, 5706, 5873),
            (U, 15996, 5873, None),
        ],
    },
    "kw_epic_scorp.KWReplay": {
        1: [(P, 1627, 932, 1600), (U, 1907, 1600, 1625), (P, 5138, 1625, 2045), (U, 5898, 2045, 2425)],
        7: [(P, 2648, 933, 1749), (U, 3190, 1749, 1778), (P, 6218, 1778, 2590), (U, 6753, 2590, 2837)],
    },
}
NO_CHAINS = ("corona_pve_vs_ai_10m.RA3Replay",)


def _steps(ix: ReplayFactIndex) -> dict[int, list[tuple[str, int, int, int | None]]]:
    return {
        c.player: [
            (s.action.value, s.time_code, s.object_id, s.produced_id) for s in c.steps if s.action.value in (P, U, C)
        ]
        for c in ix.pack_chains
    }


def _pair_after(ix: ReplayFactIndex, player: int, tc: int, old: int) -> int | None:
    """The new id of the first 0x1F6 + 0x1F9 (old) pair of ``player`` in one frame within 1 s after ``tc``."""
    cmds = [c for c in ix.replay.commands if c.player == player and tc <= c.time_code <= tc + 15]
    for a, b in itertools.pairwise(cmds):
        if a.time_code == b.time_code and a.command_id == 0x1F6 and b.command_id == 0x1F9 and b.args[-1] == old:
            new = a.args[-1]
            return new if isinstance(new, int) else None
    return None


def _first_act_after(ix: ReplayFactIndex, player: int, oid: int, tc: int) -> bool:
    """``oid`` builds (0x207 / 0x209 or KW 0x22F / 0x231), queues or packs for ``player`` after ``tc``."""
    return any(
        e.player == player and e.time_code >= tc and e.object_ids[:1] == (oid,) and e.category.value != "selection"
        for e in ix.events_for_object(oid)
    )


@pytest.mark.corpus
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_pack_and_unpack_and_the_id_it_produced(name: str) -> None:
    ix = corpus_index(name)
    assert _steps(ix) == EXPECTED[name]
    named_before = sorted((e.time_code, max(e.object_ids)) for e in ix.events if e.object_ids)
    for player, steps in EXPECTED[name].items():
        for action, tc, oid, made in steps:
            if action == P:  # the engine's own pair names the vehicle
                assert _pair_after(ix, player, tc, oid) == made, (player, tc, oid)
            elif made is not None:  # the yard: newer than every id named before the deploy, and it acts later
                newest = max(i for t, i in named_before if t < tc)
                assert made > newest, (player, tc, made, newest)
                assert _first_act_after(ix, player, made, tc), (player, tc, made)


@pytest.mark.corpus
@pytest.mark.parametrize("name", NO_CHAINS)
def test_no_chain_without_a_pack_or_an_mcv(name: str) -> None:
    assert corpus_index(name).pack_chains == ()


@pytest.mark.corpus
def test_soviet_and_allied_deploys_are_not_called_empire_cores() -> None:
    ix = corpus_index("ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay")
    for lang, core in ((Lang.EN, "Empire cores"), (Lang.ZH, "帝国核心")):
        deploy_lines = [ln for ln in build_summary(ix, lang).splitlines() if "not MCVs" in ln or "非基地车" in ln]
        assert deploy_lines
        assert not any(core in ln for ln in deploy_lines)
    # the Allied #1027 harvested from node #622 at 6:49.20 and deploys at 12:16.20: no MCV chain explains it
    (other,) = ix.other_deploys
    assert (other.player, [(s.time_code, s.object_id) for s in other.steps]) == (1, [(11043, 1027)])
    assert all(s.action is not PackAction.CAPTURED for c in ix.pack_chains for s in c.steps)


def test_a_packed_vehicle_deployed_by_another_player_is_captured(tmp_path: Path) -> None:
    """No corpus replay has one, so this file is written with the project's writer and read back.

    Alice (slot 0) builds with yard #100, packs it (0x1FE 0x6710551A) and the engine pair names vehicle #200;
    Boris (slot 1) orders to enter #200 (0x210), deploys it (0x200 0xCD754906) and builds with yard #300.
    """
    from app.facts.index import build_fact_index
    from app.replay import read_replay
    from app.replay.asset_hash import asset_hash
    from app.replay.model import Game, Replay
    from app.replay.sample import _pos, _Script, sample_header
    from app.replay.writer import make_footer, replay_bytes

    s = _Script(sample_header())
    s.place_structure(10, 0, 100, "AlliedPowerPlant", at=(500.0, 500.0))
    s.select(100, 0, 100)
    s.add(101, 0, 0x1FE, (0, [0x6710551A, 0, 1]), (4, [100, 0]))
    s.add(104, 0, 0x1F6, (2, [1, 0]), (4, [200]))
    s.add(104, 0, 0x1F9, (4, [100]))
    s.add(300, 1, 0x210, (4, [0, 200]))
    s.add(400, 1, 0x200, (0, [0xCD754906]), (7, [_pos(900.0, 900.0)]), (1, [0.5]), (4, [0]), (0, [0, 1]), (4, [200]))
    s.start_structure(460, 1, 300, "SovietPowerPlant")
    path = tmp_path / "captured.RA3Replay"
    path.write_bytes(replay_bytes(Replay.from_chunks(str(path), s.header, s.chunks(600), make_footer(Game.RA3, 600))))
    ix = build_fact_index(read_replay(path))
    chains = {
        c.player: [(st.action, st.time_code, st.object_id, st.produced_id) for st in c.steps] for c in ix.pack_chains
    }
    assert chains[0] == [(PackAction.PACK, 101, 100, 200)]
    assert chains[1] == [
        (PackAction.CAPTURED, 400, 200, None),
        (PackAction.UNPACK, 400, 200, 300),
        (PackAction.NEW_YARD, 460, 300, None),
    ]
    captured = next(st for st in ix.pack_chains[1].steps if st.action is PackAction.CAPTURED)
    assert captured.from_player == 0
    assert asset_hash("SpecialPower_PackReplaceSelf") == 0x6710551A
    text = build_summary(ix, Lang.EN)
    assert "captured #200 (was Alice's) → 0:26.67 unpack #200 (900,900) → 0:30.67 new yard #300" in text
