"""Fact index on corpus replays: every expected value below was read off the raw commands by hand.

The raw commands were dumped with the reader (``read_replay(...).commands``: time code, slot, id, args) and the
structure hashes checked with ``asset_hash`` against the names of notes §6.
"""

from __future__ import annotations

from collections import Counter

import pytest

from app.facts import (
    OwnershipVerdict,
    PackAction,
    ProductionKind,
    ReplayFactIndex,
    Role,
    Strength,
    build_fact_index,
)
from app.replay import ArgKind, read_replay
from app.replay.asset_hash import asset_hash
from tests.conftest import corpus_file
from tests.support.typed import int_arg

SNOW = "ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay"
EMPIRE = "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"
OBSERVERS = "ra3_1v1_infinity_isle_observers_12m.RA3Replay"

SOVIET = 0  # lanyiiiiiii, Soviets
ALLIED = 1  # nickname, Allies


@pytest.fixture(scope="module")
def snow() -> ReplayFactIndex:
    return build_fact_index(read_replay(corpus_file(SNOW)))


@pytest.fixture(scope="module")
def empire() -> ReplayFactIndex:
    return build_fact_index(read_replay(corpus_file(EMPIRE)))


@pytest.fixture(scope="module")
def observers() -> ReplayFactIndex:
    return build_fact_index(read_replay(corpus_file(OBSERVERS)))


def roles(index: ReplayFactIndex, oid: int, player: int) -> set[Role]:
    return {e.role for e in index.evidence(oid) if e.player == player}


# ---------------------------------------------------------------- build order / first production


def test_hashes_of_the_first_structures_match_their_names() -> None:
    # notes §6 lists SovietBarracks → 0x80D4EA1E; the wall hashes were matched by hashing candidate names.
    assert asset_hash("SovietBarracks") == 0x80D4EA1E
    assert asset_hash("AlliedBarracks") == 0x509BD329
    assert asset_hash("AlliedWallPiece") == 0x296799CF


def test_first_structure_each_player_places(snow: ReplayFactIndex) -> None:
    # raw: tc 42 slot 0 0x209 (0x272=626, 0x80D4EA1E, 1, (2327.5, 1681.8, 210), 2.356)
    #      tc 64 slot 1 0x209 (0x273=627, 0x296799CF, 1, (3239.7, 4248.6, 210), 3.927)
    sov = snow.build_order(SOVIET)[0]
    assert (sov.time_code, sov.type_hash, sov.name, sov.command_id) == (42, 0x80D4EA1E, "SovietBarracks", 0x209)
    assert sov.position is not None
    assert round(sov.position[0]) == 2328
    assert round(sov.position[1]) == 1682
    ally = snow.build_order(ALLIED)[0]
    assert (ally.time_code, ally.type_hash, ally.name) == (64, 0x296799CF, "AlliedWallPiece")
    # The Allied barracks was started first (0x207 at tc 21) but placed only at tc 189 (12.6 s).
    barracks = next(s for s in snow.build_order(ALLIED) if s.name == "AlliedBarracks")
    assert barracks.time_code == 189


def test_first_production_per_type(snow: ReplayFactIndex) -> None:
    # raw: tc 218 slot 0 0x205 (628, 0x33026FA1 SovietScoutInfantry, 0, 2) is slot 0's first queue;
    #      tc 21 slot 1 0x207 (627, AlliedBarracks) is slot 1's first structure order.
    scout = snow.first_production(SOVIET, "SovietScoutInfantry")
    assert scout is not None
    assert (scout.time_code, scout.kind, scout.source_id) == (218, ProductionKind.UNIT, 628)
    assert snow.first_production(SOVIET, 0x33026FA1) == scout
    barracks = snow.first_production(ALLIED, "AlliedBarracks")
    assert barracks is not None
    assert (barracks.time_code, barracks.kind) == (21, ProductionKind.STRUCTURE)
    assert snow.first_production(ALLIED, "SovietScoutInfantry") is None
    # every first-production record of a type never cancelled (no 0x206 of it) is the earliest raw order of it
    raw_first: dict[tuple[int, int], int] = {}
    cancelled_types = {(c.player, int_arg(c, 1)) for c in snow.replay.commands if c.command_id == 0x206}
    for c in snow.replay.commands:
        if c.command_id in (0x205, 0x207, 0x209):
            raw_first.setdefault((c.player, int_arg(c, 1)), c.time_code)
    for f in snow.first_productions():
        if (f.player, f.type_hash) not in cancelled_types:
            assert raw_first[(f.player, f.type_hash)] == f.time_code
    # every ordered type has a record (placed-only walls included), cancelled or not
    assert {(f.player, f.type_hash) for f in snow.first_productions(include_cancelled=True)} == set(raw_first)


def test_empire_cores_count_as_structures(empire: ReplayFactIndex) -> None:
    # raw: tc 18 slot 1 0x205 (238, 0xC6B3F8AA, 0, 0): the Empire yard #238 (it also builds walls with 0x207)
    core = empire.first_production(1, 0xC6B3F8AA)
    assert core is not None
    assert core.kind is ProductionKind.STRUCTURE
    assert core.source_id == 238
    assert empire.build_order(1)[0].time_code == 18


# ---------------------------------------------------------------- protocols


def test_protocols_and_when(snow: ReplayFactIndex) -> None:
    # raw 0x24E: tc 86 slot 1 (0xDD6C4C5B); tc 5331 slot 0 (0x0AA8A772) and (0x3A7E2F69); tc 8826 slot 0
    # (0x9584D47B); tc 11880 slot 0 (0xDAB43816)
    assert [(p.time_code, p.science_hash) for p in snow.protocols_of(ALLIED)] == [(86, 0xDD6C4C5B)]
    assert [(p.time_code, p.science_hash) for p in snow.protocols_of(SOVIET)] == [
        (5331, 0x0AA8A772),
        (5331, 0x3A7E2F69),
        (8826, 0x9584D47B),
        (11880, 0xDAB43816),
    ]
    assert len(snow.protocols) == sum(1 for c in snow.replay.commands if c.command_id == 0x24E)


# ---------------------------------------------------------------- control groups and selection


def test_control_group_members_over_time(snow: ReplayFactIndex) -> None:
    # raw 0x1FA by slot 0 for group 2: tc 314 (647); tc 5419 (889, 925, 938, 940); tc 6855 (1245, 940, 925, 889);
    # tc 7034 (1295, 889, 925, 940, 1245); tc 8687 (1481, 1509, 940). Group 4: tc 493 (658, 660).
    assert snow.group_members(SOVIET, 2, 20.0) == ()
    assert snow.group_members(SOVIET, 2, 21.0) == (647,)
    assert snow.group_members(SOVIET, 2, 400.0) == (889, 925, 938, 940)
    assert snow.group_members(SOVIET, 2, 470.0) == (1295, 889, 925, 940, 1245)
    assert snow.group_members(SOVIET, 2, 600.0) == (1481, 1509, 940)
    assert snow.group_members(SOVIET, 4, 40.0) == (658, 660)
    assert [g.time_code for g in snow.group_history(SOVIET, 2)] == [314, 5419, 6855, 7034, 8687]
    # groups are per player: slot 1 never assigned a group
    assert snow.groups_of(ALLIED) == ()
    assert snow.group_members(ALLIED, 2, 400.0) == ()


def test_orders_without_ids_know_the_selection(snow: ReplayFactIndex) -> None:
    # raw: tc 4530 slot 0 0x1F5 (1, 0, 889), same frame 0x1F6 (0, 0, 925) (B0 = 0: add), then tc 4535 0x214 move
    move = next(e for e in snow.events_between(4535 / 15, 4536 / 15, player=SOVIET) if e.command_id == 0x214)
    assert move.affected_ids == (889, 925)
    assert move.object_ids == ()
    assert snow.selection_at(SOVIET, 4533 / 15) == (889, 925)
    # raw: tc 4610 0x1F5 (1, 0, 880) replaces it; tc 4613 0x214 moves #880 only
    move2 = next(e for e in snow.events_between(4613 / 15, 4614 / 15, player=SOVIET) if e.command_id == 0x214)
    assert move2.affected_ids == (880,)
    # tc 314 0x1FA assigns group 2 = (647); tc 391 0x1FB recalls it: the recall carries the members
    recall = next(e for e in snow.events_between(391 / 15, 392 / 15, player=SOVIET) if e.command_id == 0x1FB)
    assert recall.group == 2
    assert recall.affected_ids == (647,)


# ---------------------------------------------------------------- ownership tiers (plan §7.1)


def test_builder_is_strong_and_belongs_to_one_player(snow: ReplayFactIndex) -> None:
    # #626 is the Soviet yard: builder of every slot-0 0x207/0x209 from tc 22 on, never named by slot 1
    ev = snow.evidence(626)
    assert ev[0].time_code == 22
    assert ev[0].role is Role.BUILDER
    assert ev[0].strength is Strength.STRONG
    assert {e.player for e in ev} == {SOVIET}
    owner = snow.owner(626)
    assert (owner.player, owner.strength, owner.conflict) == (SOVIET, Strength.STRONG, False)
    assert snow.check_ownership(626, SOVIET) is OwnershipVerdict.CONFIRMED_STRONG
    assert snow.check_ownership(626, ALLIED) is OwnershipVerdict.CONTRADICTION


def test_selecting_an_enemy_factory_is_no_evidence(snow: ReplayFactIndex) -> None:
    # #645 is the Allied barracks: slot 1 queues units there (0x205 (645, …) at tc 226, 231, …);
    # slot 0 attacks it (0x20D (645) at tc 1717, 1723, 1728, 1834, 2055, 2354) and clicks it once between:
    # tc 2039 0x1F5 (1, 0, 645). A click on an object one attacks is not a claim to own it (issue 14).
    assert [e for e in snow.evidence(645) if e.player == SOVIET] == []
    assert Role.FACTORY in roles(snow, 645, ALLIED)
    assert snow.owner(645).player == ALLIED
    assert snow.owner(645).strength is Strength.STRONG
    assert snow.check_ownership(645, SOVIET) is OwnershipVerdict.CONTRADICTION


def test_factory_not_the_new_unit(snow: ReplayFactIndex) -> None:
    """0x205 / 0x206 name the factory; the unit's id is not in the command, so no unit gets evidence from it."""
    factories = {
        int(c.args[0])  # type: ignore[call-overload]
        for c in snow.replay.commands
        if c.command_id in (0x205, 0x206)
    }
    with_factory_role = {oid for oid in snow.evidence_ids() if any(e.role is Role.FACTORY for e in snow.evidence(oid))}
    assert with_factory_role == factories
    assert {e.command_id for oid in with_factory_role for e in snow.evidence(oid) if e.role is Role.FACTORY} == {
        0x205,
        0x206,
    }


def test_group_member_and_recall_are_strong(snow: ReplayFactIndex) -> None:
    # tc 493 0x1FA (4, 658, 660); tc 5547 0x1FB recalls group 3 = (1040, 1001) assigned at tc 5354
    for oid in (658, 660):
        members = [e for e in snow.evidence(oid) if e.role is Role.GROUP_MEMBER]
        assert (members[0].strength, members[0].time_code, members[0].player) == (Strength.STRONG, 493, SOVIET)
    recalls = [e for e in snow.evidence(1001) if e.role is Role.GROUP_RECALL]
    assert recalls
    assert all(e.strength is Strength.STRONG and e.player == SOVIET for e in recalls)
    assert recalls[0].time_code == 5547


def test_repair_sell_and_harvester_orders_are_strong(snow: ReplayFactIndex) -> None:
    # tc 2236 slot 1 0x228 (645,): repair; tc 962 slot 1 0x20A (657,): sell of its second barracks
    assert any(
        e.role is Role.REPAIR and e.time_code == 2236 and e.strength is Strength.STRONG for e in snow.evidence(645)
    )
    assert [(e.player, e.role, e.time_code) for e in snow.evidence(657) if e.role is Role.SELL] == [
        (ALLIED, Role.SELL, 962)
    ]
    # tc 3627 slot 1 0x212 (724,) while slot 1's selection is (736,) (0x1F5 just before): both are its own; #724
    # is the refinery the harvester docks at
    assert Role.DOCK in roles(snow, 724, ALLIED)
    assert Role.HARVESTER in roles(snow, 736, ALLIED)
    # 0x248 (624,) names an ore node (a map object, below the first player object #626): no evidence for it,
    # but the selected harvester #857 (0x1F5 (1, 0, 857) before tc 7722) gets strong evidence
    assert snow.evidence(624) == ()
    assert snow.id_exists(624)
    assert snow.check_ownership(624, SOVIET) is OwnershipVerdict.NO_EVIDENCE
    assert any(e.role is Role.HARVESTER and e.time_code == 7722 for e in snow.evidence(857))


def test_casters_are_the_single_sources_of_powers(snow: ReplayFactIndex, empire: ReplayFactIndex) -> None:
    # tc 662 slot 0 0x1FE (0xB1B78CB8, 0, 1, 647, 0): caster #647
    assert any(e.role is Role.CASTER and e.time_code == 662 and e.player == SOVIET for e in snow.evidence(647))
    # tc 7295 and 10186 slot 0 0x1FF (0x36DF8D71 = SpecialPowerOrbitalRefuse_Rank1, P, target, 0, 1, 58): the
    # protocol power's source is #58, a low id (the player's own object); the second target #645 is the Allied
    # barracks. The target gets nothing, the source is slot 0's caster.
    assert asset_hash("SpecialPowerOrbitalRefuse_Rank1") == 0x36DF8D71
    assert Role.CASTER not in roles(snow, 645, SOVIET)
    assert [(e.player, e.role, e.command_id, e.time_code) for e in snow.evidence(58)] == [
        (SOVIET, Role.CASTER, 0x1FF, 7295),
        (SOVIET, Role.CASTER, 0x1FF, 10186),
    ]
    ev = [e for e in snow.events_for_object(58) if e.command_id == 0x1FF][-1]
    assert (ev.time_code, ev.actor_ids, ev.target_ids) == (10186, (58,), (645,))
    # 0x200: tc 97 slot 1 (0xCD754906, P, F, 0, 0, 1, 241) deploys Empire core #241
    casts = [(e.player, e.command_id, e.time_code) for e in empire.evidence(241) if e.role is Role.CASTER]
    assert casts == [(1, 0x200, 97)]


def test_selection_only_is_weak(snow: ReplayFactIndex) -> None:
    # #663 appears only in two slot-1 selections (tc 795 and 1187) and nowhere else
    assert [(e.player, e.strength, e.time_code) for e in snow.evidence(663)] == [
        (ALLIED, Strength.WEAK, 795),
        (ALLIED, Strength.WEAK, 1187),
    ]
    assert snow.owner(663).player == ALLIED
    assert snow.owner(663).strength is Strength.WEAK
    assert snow.check_ownership(663, ALLIED) is OwnershipVerdict.SUPPORTED_WEAK
    assert snow.check_ownership(663, SOVIET) is OwnershipVerdict.OTHER_WEAK_ONLY


def test_id_existence(snow: ReplayFactIndex) -> None:
    assert snow.id_exists(626)
    assert not snow.id_exists(99_999)
    assert snow.first_seen(626) == pytest.approx(22 / 15)
    assert snow.check_ownership(99_999, SOVIET) is OwnershipVerdict.NO_EVIDENCE


def test_captured_yard_changes_hands(observers: ReplayFactIndex) -> None:
    """Two players with strong evidence one after the other, from a real engineer capture: a timeline (issue 28).

    #439 is slot 4's construction yard (0x207 (439, …) at tc 2245, 0x209 at tc 2546); slot 3 sends engineers
    into it (0x210 (0, 439) at tc 8221) and then sells it (0x20A (439,) at tc 8314). Slot 4 never acts with it
    again, so it is slot 3's from the capture on (``tests/facts/test_ownership.py``), not undecidable.
    """
    assert Role.BUILDER in roles(observers, 439, 4)
    assert [(e.role, e.time_code) for e in observers.evidence(439) if e.player == 3] == [(Role.SELL, 8314)]
    owner = observers.owner(439)
    assert not owner.conflict
    assert owner.player == 3
    assert owner.strong_players == (3, 4)
    assert observers.check_ownership(439, 4, [2546 / 15]) is OwnershipVerdict.CONFIRMED_STRONG
    assert observers.check_ownership(439, 4, [8314 / 15]) is OwnershipVerdict.CONTRADICTION


def test_observers_make_no_ownership(observers: ReplayFactIndex) -> None:
    # slots 0, 2, 5 are observers and send 0x1F5 selections with object ids
    obs = {p.slot for p in observers.players if not p.is_player}
    assert {0, 2, 5} <= obs
    raw = Counter(
        c.player
        for c in observers.replay.commands
        if c.player in obs and c.command_id == 0x1F5 and c.values(ArgKind.OBJECT)
    )
    assert sum(raw.values()) > 50
    assert not any(e.player in obs for oid in observers.evidence_ids() for e in observers.evidence(oid))


# ---------------------------------------------------------------- pack chains


def test_pack_chain_of_the_allied_yard(empire: ReplayFactIndex) -> None:
    # raw: tc 2064 slot 0 0x1FE (0x6710551A, 0, 1, 237, 0) packs yard #237; tc 2587 0x200 (0xCD754906, …, 370)
    # deploys #370; tc 2791 slot 0 0x207 (391, …) is the new yard's first build.
    chain = next(c for c in empire.pack_chains if c.player == 0)
    assert [(s.action, s.time_code, s.object_id) for s in chain.steps[:3]] == [
        (PackAction.PACK, 2064, 237),
        (PackAction.UNPACK, 2587, 370),
        (PackAction.NEW_YARD, 2791, 391),
    ]


def test_core_deploys_are_not_mcv_chains(empire: ReplayFactIndex) -> None:
    # the Empire player deploys ~25 cores with 0xCD754906 (e.g. #241 at tc 97) but packs its yard only once
    # (tc 628, #238): only the deploy right after that pack is chained
    raw_deploys = [c for c in empire.replay.commands if c.command_id == 0x200 and c.player == 1]
    assert len(raw_deploys) > 20
    chain = next(c for c in empire.pack_chains if c.player == 1)
    unpacks = [s for s in chain.steps if s.action is PackAction.UNPACK]
    assert len(unpacks) == 1
    assert chain.steps[0].action is PackAction.PACK
    assert chain.steps[0].object_id == 238
    assert 241 not in {s.object_id for s in chain.steps}


@pytest.fixture(scope="module")
def three() -> ReplayFactIndex:
    return build_fact_index(read_replay(corpus_file("ra3_3v3_spring_showdown_19m.RA3Replay")))


def test_random_factions_resolved_from_orders(three: ReplayFactIndex) -> None:
    # header: slots 2 (Chtholly) and 4 (Toolman) are Random. raw: slot 2's first structure order is
    # 0x207 AlliedPowerPlant (0x89B86E3D, notes §6); slot 4's first order is 0x205 (yard, 0xC6B3F8AA)
    # = JapanPowerPlantEgg, an Empire core.
    assert asset_hash("JapanPowerPlantEgg") == 0xC6B3F8AA
    assert three.first_productions(2)[0].type_hash == 0x89B86E3D
    assert three.first_productions(4)[0].type_hash == 0xC6B3F8AA
    by_slot = {p.slot: p for p in three.players}
    assert (by_slot[2].faction, by_slot[2].played_faction) == ("Random", "Allies")
    assert (by_slot[4].faction, by_slot[4].played_faction) == ("Random", "Empire")
    assert by_slot[5].played_faction == by_slot[5].faction == "Soviets"


def test_produced_mcv_chain(three: ReplayFactIndex) -> None:
    """An MCV queued at a factory, deployed, and the yard it became (3v3, slot 5, Soviets).

    raw: tc 8254 0x205 (2429, 0x1545FAC2 = SovietMCV_Naval, 0, 6); tc 9524 and 9528 0x200 (0xCD754906, …, 3506)
    deploy #3506; tc 9773 0x207 (3523, SovietWallPiece, 1) is the first order of yard #3523, which slot 5 packs
    later (0x1FE PackReplaceSelf on #3523).
    """
    assert asset_hash("SovietMCV_Naval") == 0x1545FAC2
    chain = next(c for c in three.pack_chains if c.player == 5)
    steps = [(s.action, s.time_code, s.object_id) for s in chain.steps]
    i = steps.index((PackAction.PRODUCE, 8254, 2429))
    # the deploy was sent twice; the second order (tc 9528) is the one that produced the yard
    assert steps[i + 1 : i + 4] == [
        (PackAction.UNPACK, 9528, 3506),
        (PackAction.NEW_YARD, 9773, 3523),
        (PackAction.PACK, steps[i + 3][1], 3523),
    ]
