"""MCV chains: every pack and unpack order of a construction yard or its vehicle, and the id each one produced.

Why a module of its own: the replay never says what an object is, so a chain is rebuilt from what the engine
writes when an object replaces itself. Packing (RA3 ``SpecialPower_PackReplaceSelf``, KW/TW
``SpecialPower_GrantPackUpgrade``) destroys the yard and creates a vehicle with a new id; the engine then moves the
player's selection from the old object to the new one, which the replay records as an automatic pair in the same
frame: ``0x1F6`` (select without sound) of the new id and ``0x1F9`` (remove from selection) of the old id.
[verified: each of the 41 packs (distinct yards) in the RA3 corpus is followed 0.13–0.6 s later by such a pair
naming the packed yard, e.g. the Allies mirror's #237 packed at 1:20.73 and the pair ``#353`` / ``#237`` at 1:20.87; in
Kane's Wrath the deploy makes the same pair with the new yard, e.g. ``kw_epic_scorp`` slot 7: #933 packs at 2:56.53
→ #1749 at 2:56.93, #1749 deploys at 3:32.67 → yard #1778 at 3:33.07.] An RA3 deploy (``0x200`` with
``SpecialPower_UnpackReplaceSelf``) writes no such pair: the yard is the first new constructor of that player whose
id is newer than every id named when the deploy was ordered (ids are given out in creation order, notes §4.3f).

So the chain is: pack order → (pair) vehicle id → deploy orders of that vehicle (the last one before the yard
appears is the one that took effect) → yard id. A yard is anything that builds (0x207 / 0x209), queues a core or
packs: a yard that only packs (never built anything) is still a yard. A deploy of a known MCV by another player
than the one who packed it means the vehicle changed hands (captured, or re-crewed after its driver was killed):
the chain of the new owner starts with a ``captured`` step. Deploys of vehicles no chain explains (Empire cores,
Celestial miners, expansion vehicles) are listed apart, one step per vehicle (its last deploy order).

Where no pair was written (the yard was not selected when packing finished) the vehicle is the first deploy of an id
newer than every id named at the pack. In KW/TW the unpack power belongs to MCVs alone, so any vehicle that casts it
is one (a queued MCV order it can come from is its ``produce`` step). In RA3 cores and other vehicles share the
power, so an MCV queued at a factory is linked only when a new yard follows: through the latest deploy since the
queue of an id newer than every id seen then.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from app.facts.model import EventList, EventRest, FactEvent, PackAction, PackChain, PackStep, PlayerInfo
from app.facts.roles import RoleIds
from app.replay.commands import PLACE_STRUCTURE as _PLACE_STRUCTURE
from app.replay.commands import POWER as _POWER
from app.replay.commands import POWER_WITH_FACING as _POWER_WITH_FACING
from app.replay.commands import QUEUE_UNIT as _QUEUE_UNIT
from app.replay.commands import REMOVE_FROM_SELECTION as _REMOVE_FROM_SELECTION
from app.replay.commands import SELECT_NO_SOUND as _SELECT_NO_SOUND
from app.replay.commands import START_STRUCTURE as _START_STRUCTURE
from app.replay.model import Game

PACK_POWER_HASHES = frozenset({0x6710551A, 0xE763C6B8})
"""Powers a construction yard casts to pack up: RA3 ``SpecialPower_PackReplaceSelf`` (0x1FE; the notes §4.3 quote
it as the real value of KWRAS's misaligned ``0x10551A20`` key) and KW/TW ``SpecialPower_GrantPackUpgrade``
(0x226 / 0x21C; KWRAS "MCV Pack", key ``0x63C6B820`` one byte off)."""

UNPACK_POWER_HASHES = frozenset({0xCD754906, 0xF33039C8})
"""Powers that deploy a base vehicle: RA3 ``SpecialPower_UnpackReplaceSelf`` (0x200 with a position and facing;
Empire cores and Corona's Celestial miners use it too) and KW/TW ``SpecialPower_GrantUnpackUpgrade`` (targetless,
KWRAS "MCV Unpack")."""


def is_mcv_name(name: str) -> bool:
    """MCV-class type names: ``AlliedMCV``, ``SovietMCV_Naval``, ``JapanMCV`` (RA3 and Corona naming)."""
    return "MCV" in name


@dataclass(slots=True)
class _Pending:
    """An order waiting for the id it produces."""

    player: int
    step: int  # index of its step in the player's list
    max_seen: int  # the newest id named when it was ordered


@dataclass(slots=True)
class _Builder:
    players: Sequence[PlayerInfo]
    name_of: Callable[[int], str]
    cancelled: frozenset[int]
    game: Game
    constructors: frozenset[int]  # every object that ever built (0x207 / 0x209): a core queued there is a yard's
    steps: dict[int, list[PackStep]] = field(default_factory=lambda: defaultdict(list))
    max_seen: int = 0
    packed: set[int] = field(default_factory=set)  # yards with a pack order
    packs: dict[int, _Pending] = field(default_factory=dict)  # yard -> its pack, until the vehicle is known
    vehicles: dict[int, int] = field(default_factory=dict)  # MCV vehicle -> player whose chain it belongs to
    unpacks: dict[int, _Pending] = field(default_factory=dict)  # vehicle -> its deploy, until the yard is known
    yards: dict[int, set[int]] = field(default_factory=lambda: defaultdict(set))  # player -> constructors seen
    queued: dict[int, list[tuple[int, int, int]]] = field(default_factory=lambda: defaultdict(list))
    deploys: dict[int, list[tuple[int, int, tuple[float, float] | None]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    last_no_sound: dict[int, tuple[int, tuple[int, ...]]] = field(default_factory=dict)  # player -> (tc, ids)
    roles: RoleIds = field(init=False)

    def __post_init__(self) -> None:
        self.roles = RoleIds(self.game)

    def is_player(self, p: int) -> bool:
        return 0 <= p < len(self.players) and self.players[p].is_player

    def add(self, p: int, step: PackStep) -> int:
        self.steps[p].append(step)
        return len(self.steps[p]) - 1

    def produced(self, pending: _Pending, oid: int) -> None:
        """Write the id an order produced into its step."""
        lst = self.steps[pending.player]
        lst[pending.step] = replace(lst[pending.step], produced_id=oid)

    # ------------------------------------------------------------------ events

    def event(self, ev: FactEvent) -> None:
        p = ev.player
        if not self.is_player(p):
            self.seen(ev)
            return
        role = self.roles[ev.command_id]
        if role == _POWER and ev.type_hash in PACK_POWER_HASHES and ev.object_ids:
            self.pack(ev, ev.object_ids[0])
        elif role in (_POWER, _POWER_WITH_FACING) and ev.type_hash in UNPACK_POWER_HASHES:
            vehicle = max(ev.object_ids, default=0)
            if vehicle:
                self.unpack(ev, vehicle)
        elif role == _SELECT_NO_SOUND:
            self.last_no_sound[p] = (ev.time_code, ev.object_ids)
        elif role == _REMOVE_FROM_SELECTION:
            self.replacement(ev)
        elif (
            role == _QUEUE_UNIT
            and ev.type_hash is not None
            and ev.object_ids
            and is_mcv_name(self.name_of(ev.type_hash))
            and ev.command_index not in self.cancelled
        ):
            self.queued[p].append((ev.time_code, ev.object_ids[0], self.max_seen))
        if role in (_START_STRUCTURE, _PLACE_STRUCTURE) and ev.object_ids:
            self.yard_acts(p, ev.object_ids[0], ev.time_code)
        elif role == _QUEUE_UNIT and ev.object_ids and ev.object_ids[0] in self.constructors:
            self.yard_acts(p, ev.object_ids[0], ev.time_code)  # a core queued at a known yard
        self.seen(ev)

    def seen(self, ev: FactEvent) -> None:
        if ev.object_ids:
            self.max_seen = max(self.max_seen, *ev.object_ids)

    def pack(self, ev: FactEvent, yard: int) -> None:
        p = ev.player
        self.yard_acts(p, yard, ev.time_code)  # a yard that packs before it ever built is a yard all the same
        if yard in self.packed:
            return  # a double click sends the pack twice
        self.packed.add(yard)
        i = self.add(p, PackStep(PackAction.PACK, ev.time_code, yard, None))
        self.packs[yard] = _Pending(p, i, self.max_seen)

    def replacement(self, ev: FactEvent) -> None:
        """A 0x1F9 right after a 0x1F6 of the same player and frame: the old object turned into the new one."""
        p = ev.player
        last = self.last_no_sound.get(p)
        if last is None or last[0] != ev.time_code or len(ev.object_ids) != 1 or len(last[1]) != 1:
            return
        old, new = ev.object_ids[0], last[1][0]
        pack = self.packs.pop(old, None)
        if pack is not None:  # the yard became a vehicle
            self.produced(pack, new)
            self.vehicles[new] = pack.player
            return
        unpack = self.unpacks.get(old)
        if unpack is not None and unpack.player == p:  # the vehicle became a yard (KW/TW write this pair too)
            self.new_yard(unpack, old, new, ev.time_code)

    def unpack(self, ev: FactEvent, vehicle: int) -> None:
        p = ev.player
        step = PackStep(PackAction.UNPACK, ev.time_code, vehicle, ev.position)
        pending = self.unpacks.get(vehicle)
        if pending is not None and pending.player == p:  # sent again before the yard appeared: this one counts
            self.steps[p][pending.step] = step
            self.unpacks[vehicle] = _Pending(p, pending.step, self.max_seen)
            return
        owner = self.vehicles.get(vehicle)
        if owner is None:
            owner = self.unpaired_pack_vehicle(p, vehicle)
        if owner is None and self.game is not Game.RA3:  # the KW/TW unpack power is the MCV's alone
            owner = p
            self.vehicles[vehicle] = p
            self.queued_vehicle(p, vehicle)
        if owner is None:
            self.deploys[p].append((ev.time_code, vehicle, ev.position))
            return
        if owner != p:  # another player packed it: the vehicle changed hands before it deployed
            self.add(p, PackStep(PackAction.CAPTURED, ev.time_code, vehicle, None, from_player=owner))
            self.vehicles[vehicle] = p
        self.unpacks[vehicle] = _Pending(p, self.add(p, step), self.max_seen)

    def queued_vehicle(self, p: int, vehicle: int) -> None:
        """A KW/TW MCV that no pack made: the oldest MCV order of ``p`` it can come from (ids grow) made it."""
        for k, (q_tc, factory, limit) in enumerate(self.queued[p]):
            if vehicle > limit:
                del self.queued[p][: k + 1]
                self.add(p, PackStep(PackAction.PRODUCE, q_tc, factory, None, vehicle))
                return

    def unpaired_pack_vehicle(self, p: int, vehicle: int) -> int | None:
        """The vehicle of ``p``'s pack that wrote no pair: the first deploy of an id newer than the pack."""
        for yard, pack in list(self.packs.items()):
            if pack.player == p and vehicle > pack.max_seen:
                del self.packs[yard]
                self.produced(pack, vehicle)
                self.vehicles[vehicle] = p
                return p
        return None

    def yard_acts(self, p: int, yard: int, tc: int) -> None:
        """``yard`` built, queued a core or packed: the first time, it may be the yard a deploy produced."""
        if yard in self.yards[p]:
            return
        self.yards[p].add(yard)
        for vehicle, pending in list(self.unpacks.items()):
            if pending.player == p and yard > pending.max_seen:
                self.new_yard(pending, vehicle, yard, tc)
                return
        self.produced_mcv(p, yard, tc)

    def new_yard(self, pending: _Pending, vehicle: int, yard: int, tc: int) -> None:
        del self.unpacks[vehicle]
        self.produced(pending, yard)
        self.yards[pending.player].add(yard)
        self.add(pending.player, PackStep(PackAction.NEW_YARD, tc, yard, None))

    def produced_mcv(self, p: int, yard: int, tc: int) -> None:
        """A new yard after an MCV was queued: the vehicle is the latest deploy since the queue of a newer id."""
        if not self.queued[p] or len(self.yards[p]) < 2:
            return
        first_tc, _factory, first_limit = self.queued[p][0]
        cands = [d for d in self.deploys[p] if d[0] >= first_tc and d[1] > first_limit and d[1] not in self.vehicles]
        if not cands:
            return
        d_tc, vehicle, pos = cands[-1]
        # each earlier candidate deploy used up one MCV order (its yard never showed: destroyed while deploying)
        k = min(len(cands) - 1, len(self.queued[p]) - 1)
        while k > 0 and self.queued[p][k][2] >= vehicle:
            k -= 1
        q_tc, factory, _limit = self.queued[p][k]
        del self.queued[p][: k + 1]
        self.vehicles[vehicle] = p
        self.deploys[p] = [d for d in self.deploys[p] if d[1] != vehicle]
        self.add(p, PackStep(PackAction.PRODUCE, q_tc, factory, None, vehicle))
        self.add(p, PackStep(PackAction.UNPACK, d_tc, vehicle, pos, yard))
        self.add(p, PackStep(PackAction.NEW_YARD, tc, yard, None))

    # ------------------------------------------------------------------ result

    def result(self) -> tuple[list[PackChain], list[PackChain]]:
        chains = [
            PackChain(p, tuple(sorted(self.steps[p], key=lambda st: st.time_code)))  # stable: produce before unpack
            for p in sorted(self.steps)
            if self.steps[p]
        ]
        others: list[PackChain] = []
        for p in sorted(self.deploys):
            latest: dict[int, PackStep] = {}
            for tc, vehicle, pos in self.deploys[p]:
                if vehicle not in self.vehicles:
                    latest[vehicle] = PackStep(PackAction.UNPACK, tc, vehicle, pos)  # the vehicle's last deploy wins
            if latest:
                steps = tuple(sorted(latest.values(), key=lambda st: (st.time_code, st.object_id)))
                others.append(PackChain(p, steps))
        return chains, others


def pack_chains(
    events: Sequence[FactEvent],
    players: Sequence[PlayerInfo],
    name_of: Callable[[int], str],
    cancelled: frozenset[int] = frozenset(),
    *,
    constructors: frozenset[int] = frozenset(),
    game: Game = Game.RA3,
) -> tuple[list[PackChain], list[PackChain]]:
    """MCV chains by player, and per player the deploys no chain explains (see the module docstring).

    ``constructors`` are the objects that ever built a structure (0x207 / 0x209): a core queued at one of them is a
    yard at work (an Empire yard may queue cores before it builds anything else).
    """
    b = _Builder(players, name_of, cancelled, game, constructors)
    if isinstance(events, EventList):
        # only the orders that name an object or select without sound change anything here: the others (a move
        # to the selection, a deselect) are not built (issue 29: a file of 100 argument-less commands a chunk)
        roles = RoleIds(game)
        acting = {cid for cid in set(events.ids) if roles[cid] in _ROLES_WITHOUT_OBJECTS}
        for ev in events.select(events.where(_order_with_ids, acting, _is_order)):
            b.event(ev)
    else:
        for ev in events:
            if not ev.automatic:
                b.event(ev)
    return b.result()


_ROLES_WITHOUT_OBJECTS = frozenset({_SELECT_NO_SOUND, _REMOVE_FROM_SELECTION, _POWER, _POWER_WITH_FACING})
"""Roles :meth:`_Builder.event` reads even when the order names no object (a 0x1F6 of nothing still replaces the
player's last one); every other order changes nothing unless it names one."""


def _is_order(part: EventRest) -> bool:
    return not part[1]  # not automatic


def _order_with_ids(part: EventRest) -> bool:
    return not part[1] and bool(part[3])  # not automatic, object ids written
