"""ReplayFactIndex: every fact the analysis may cite, built in one pass over a replay's commands.

Why an index and not the raw commands: the model never sees the replay, and each claim it makes ("unit #812 is
P2's", "P1 picked Tactical Bombers at 4:10", "P2 had bombers before 6:00") is checked here. The rules follow the
v2 plan: ownership evidence in two tiers (§7.1), casters only where the layout is certain (§7.2), protocols and
control-group state (§7.3), first production per type (§7.6).

Argument positions are the RA3 ones of ``sage-replay-format.md`` §4.3, checked on the corpus:

* 0x1F5/0x1F6 ``B B O*`` select: B0 = 1 replaces the selection, B0 = 0 adds to it [the notes' guess, confirmed on
  the corpus: after a B0 = 0 select, the next 0x1F9 removes ids of the *previous* selection in 49 of 54 cases],
  0x1F8 clear, 0x1F9 ``O*`` remove, 0x22A Q-select (the
  resulting set is not written, so the tracked selection becomes unknown);
* 0x1FA ``I O*`` create group (group number, members), 0x1FB / 0x1FC ``I`` select / add group;
* powers: 0x1FE ``I I I(k) O×k O``, 0x1FF ``I P O I I(k) O×k``, 0x200 ``I P F O I I(k) O×k``, 0x201
  ``I O I I(k) O×k P`` and 0x232 ``I O I P P I(k) O×k``: the power hash first; the object ids *before* the count
  k are the target (0 = none), the k ids after it are the sources (0x1FE adds a trailing 0). Checked on the
  corpus: of the 56 records of a power on an object (0x201), 47 have sources with ownership evidence from other
  commands, and in all 47 it is the issuing player's (none another player's); the target is another player's in
  45 records (Shrink Ray, Kamikaze on enemy units). Protocol
  (player-level) powers name the player's own object as the source, a very low id: #1…#N for the N playing slots
  in slot order in 7 of the 8 corpus files (``SpecialPowerChronoSwapSelect`` of the 3v3's fourth slot: #4; the
  Corona Centurion power: #1), #58 for the Soviet slot on Snow Plow; see :func:`power_roles`;
* 0x205 ``O I B I``: factory, unit hash (the new unit's id is not in the command); 0x207 ``O I I`` and 0x209
  ``O I I P F``: constructor, structure hash; 0x208 ``O I I``: constructor, flag, structure hash;
* 0x203/0x204 upgrade ``I I O``: hash, 1, the structure that upgrades; 0x202 rally ``O O P B O``: the structure
  first; 0x20A sell / 0x228 repair ``O``: the structure; 0x212 ``O``: harvester order naming the refinery to dock
  at (``docs/replay-format.md`` §4.3e); 0x248 ``O``: "harvest from node" whose id is the ore node (a low
  map-object id, e.g. #233/#234 in ``ra3_1v1_infinity_isle_allies_vs_empire_24m``), so the strong evidence goes to
  the selected harvesters;
* 0x24E ``I``: science hash.

Kane's Wrath and Tiberium Wars use other ids for the same messages; ``app.facts.roles`` maps each to the RA3 id
with the same meaning (its role), checked on the KW/TW corpus, so the same rules build the same facts there.
Type hashes are read where ``app.replay.names.HASH_ARGS`` says (KW queue-unit has it at argument 2). Two RA3
layouts are not verified there and stay RA3-only: cancels (0x206 / 0x208 and the shift-click flag, see
:data:`_CANCEL_GAMES`: KW/TW orders all stand) and the sources / targets of powers other than the targetless one
(:data:`POWER_LAYOUT_ROLES`).
"""

from __future__ import annotations

from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from app.facts.chains import pack_chains
from app.facts.index_base import _ORDER_CATEGORIES
from app.facts.index_queries import GroupQueries, OwnershipQueries, ProductionQueries
from app.facts.model import (
    TICKS_PER_SECOND,
    BuildStep,
    EventList,
    EventRest,
    Evidence,
    FactEvent,
    FirstProduction,
    GroupState,
    PlayerInfo,
    ProductionKind,
    ProtocolPick,
    Role,
    Strength,
)
from app.facts.orders import OrderBook, cancel_count
from app.facts.roles import Departure, RoleIds, batch_size, player_left_id, role_of
from app.replay.commands import (  # RA3 command ids with a meaning for the index (notes §4.3)
    ADD_GROUP,
    ATTACK,
    CANCEL_STRUCTURE,
    CANCEL_UNIT,
    CANCEL_UPGRADE,
    CREATE_GROUP,
    DESELECT,
    FORCE_FIRE,
    GARRISON,
    HARVEST_FROM_NODE,
    HARVESTER_ORDER,
    PLACE_STRUCTURE,
    POWER,
    POWER_AT_LOCATION,
    POWER_ON_OBJECT,
    POWER_TWO_TARGETS,
    POWER_WITH_FACING,
    Q_SELECT,
    QUEUE_UNIT,
    REMOVE_FROM_SELECTION,
    SELECT,
    SELECT_GROUP,
    SELECT_NO_SOUND,
    SELECT_PROTOCOL,
    SELL,
    SET_RALLY,
    START_REPAIR,
    START_STRUCTURE,
    START_UPGRADE,
    Category,
    CommandInfo,
    command_info,
)
from app.replay.model import ArgKind, Command, CommandList, Game, Replay, command_columns
from app.replay.names import HASH_ARGS

if TYPE_CHECKING:
    from app.knowledge.model import Knowledge


POWER_IDS = frozenset({POWER, POWER_AT_LOCATION, POWER_WITH_FACING, POWER_ON_OBJECT, POWER_TWO_TARGETS})
"""Every power command: they share the ``…, k, k sources`` layout (see :func:`power_roles`)."""
POWER_LAYOUT_ROLES: Mapping[Game, frozenset[int]] = {
    Game.RA3: POWER_IDS,
    Game.KW: frozenset({POWER, POWER_AT_LOCATION, POWER_ON_OBJECT}),
    Game.TW: frozenset({POWER}),
}
"""Power roles whose ``…, k, k sources`` layout is verified per game, so :func:`power_roles` may read it.

KW: the targetless power 0x226 (``I I I O*``), the located 0x227 (``I P O I I(k) O×k``: hash, point, 0, 0, k
sources) and the on-object 0x228 (``I O I I(k) O×k P``: hash, target, 0, k sources, point); in every corpus
record k is the number of object ids that follow (``tests/facts/test_kwtw.py`` decodes some by hand), and a KW/TW
record where it is not (TW writes k = -1 without sources) keeps no actors or targets (:func:`source_count_holds`).
TW: only the targetless power; its located / on-object records include that k = -1 form."""
_CANCEL_GAMES = frozenset({Game.RA3})
"""Games whose cancel layouts (0x206 / 0x208) and shift-click flag (:func:`app.facts.orders.cancel_count`) are
verified; elsewhere every production / structure order stands (the KW/TW cancel semantics are not checked on the
corpus)."""
_TARGET_ORDERS = frozenset({ATTACK, FORCE_FIRE, GARRISON, HARVEST_FROM_NODE})
_SELF_ACTING = frozenset(
    {
        QUEUE_UNIT,
        CANCEL_UNIT,
        START_STRUCTURE,
        CANCEL_STRUCTURE,
        PLACE_STRUCTURE,
        START_UPGRADE,
        CANCEL_UPGRADE,
        SELL,
        START_REPAIR,
        0x229,
        SET_RALLY,
    }
)
"""Commands whose first object id is the one that acts (factory, constructor, upgrading/sold/repaired structure)."""
_INDEXED_IDS = frozenset(
    {
        CREATE_GROUP,
        SELECT_GROUP,
        ADD_GROUP,
        SELECT,
        START_STRUCTURE,
        PLACE_STRUCTURE,
        CANCEL_STRUCTURE,
        QUEUE_UNIT,
        CANCEL_UNIT,
        START_REPAIR,
        SELL,
        START_UPGRADE,
        CANCEL_UPGRADE,
        SET_RALLY,
        HARVESTER_ORDER,
        HARVEST_FROM_NODE,
        SELECT_PROTOCOL,
        *POWER_IDS,
    }
)
_ROLES_WITHOUT_IDS = frozenset(
    {CREATE_GROUP, SELECT_GROUP, ADD_GROUP, HARVESTER_ORDER, HARVEST_FROM_NODE, SELECT_PROTOCOL}
)
"""Roles whose orders :meth:`ReplayFactIndex._ingest` reads even when they write no object id: groups, the
selection that harvests, the protocol's hash. Every other role there acts on the ids the order writes (selected,
acting, cast or attacked objects; a production order with no factory is no order)."""
KEY_CATEGORIES = frozenset(
    {
        Category.BUILD,
        Category.PRODUCTION,
        Category.PLACE,
        Category.SELL,
        Category.REPAIR,
        Category.POWER,
        Category.PROTOCOL,
        Category.UPGRADE,
    }
)
"""Categories every compaction level keeps and the summary samples from (issue 3)."""


_OBJECT = ArgKind.OBJECT
_POSITION = ArgKind.POSITION


def _objects(cmd: Command) -> tuple[int, ...]:
    # The reader decodes OBJECT arguments as ints; zip without ``strict`` because args and kinds always pair up.
    return tuple([a for a, k in zip(cmd.args, cmd.kinds) if k is _OBJECT])  # type: ignore[misc]  # noqa: B905


def _position(cmd: Command) -> tuple[float, float] | None:
    a = cmd.args[cmd.kinds.index(_POSITION)]
    return (a[0], a[1])  # type: ignore[index]


def _int_arg(cmd: Command, i: int) -> int | None:
    if i < len(cmd.args) and cmd.kinds[i] is ArgKind.INT:
        value = cmd.args[i]
        return value if isinstance(value, int) else None
    return None


STRUCTURE_TYPE = "<structure>"
"""The proven type of an object that produced, built, upgraded, was sold or got a rally point: some structure."""
_OWNER_ROLES: Mapping[int, Role] = {
    START_STRUCTURE: Role.BUILDER,
    PLACE_STRUCTURE: Role.BUILDER,
    CANCEL_STRUCTURE: Role.BUILDER,
    QUEUE_UNIT: Role.FACTORY,
    CANCEL_UNIT: Role.FACTORY,
    START_UPGRADE: Role.UPGRADE,
    CANCEL_UPGRADE: Role.UPGRADE,
    SELL: Role.SELL,
    START_REPAIR: Role.REPAIR,
    SET_RALLY: Role.RALLY,
}
"""Owner-only commands on one object (strong evidence for their actor) and the role they give it."""


@dataclass(slots=True)
class _PlayerState:
    selection: tuple[int, ...] | None = ()  # None = unknown (after a Q-select)
    groups: dict[int, tuple[int, ...]] = field(default_factory=dict)


class ReplayFactIndex(OwnershipQueries, GroupQueries, ProductionQueries):
    """Facts of one replay: events, ownership evidence, groups, protocols, first productions, pack chains.

    Build it with :meth:`build` (or :func:`build_fact_index`); it is immutable afterwards and every query is a
    dictionary lookup or a bisect.

    This class builds the tables (:class:`app.facts.index_base.IndexData`); the queries are its bases, one per
    question (:mod:`app.facts.index_queries`).
    """

    # ------------------------------------------------------------------ build

    @classmethod
    def build(cls, replay: Replay, names: Mapping[int, str] | None = None) -> ReplayFactIndex:
        """Index ``replay`` in one pass.

        Args:
            replay: A parsed replay.
            names: Hash → internal name table; defaults to ``app.knowledge.names.hash_names`` of the replay's mod.
        """
        if names is None:
            from app.knowledge.names import hash_names

            names = hash_names(replay.header.mod_name)
        labels = player_labels([s.display_name for s in replay.header.slots])
        players = tuple(
            PlayerInfo(
                slot=s.index,
                name=s.display_name or f"P{s.index}",
                faction=s.faction,
                team=s.team,
                kind=str(s.kind),
                is_player=s.is_player,
                label=label,
            )
            for s, label in zip(replay.header.slots, labels, strict=True)
        )
        infos: dict[int, CommandInfo] = {}
        states: dict[int, _PlayerState] = defaultdict(_PlayerState)
        commands = replay.commands
        time_codes, slots, ids = command_columns(commands)
        # each event is its command's columns plus an index into the resolved parts (see EventList); an automatic
        # command's part depends on its id only, and a player's order equal to that player's previous one (the same
        # order again, or one more order to an unchanged selection) shares its part
        rests: list[EventRest] = []
        automatic: dict[int, int] = {}  # command id -> its part
        previous: dict[int, int] = {}  # player -> the part of the player's last order
        # player -> the bytes of the player's last order: the same bytes again resolve to the same part (every
        # branch of _resolve leaves a state that the same command leaves unchanged, and its part depends on that
        # state only), so a repeated order is neither decoded nor resolved (issue 29: 100 equal commands a chunk)
        last_raw: dict[int, bytes] = {}
        data = commands.data if isinstance(commands, CommandList) else b""
        offsets: Sequence[int] = commands.offsets if isinstance(commands, CommandList) else ()
        rest = array("H")  # 2 bytes an event until there are more than 65,535 parts
        game = replay.game
        add_rest = rest.append
        for i, (cid, player) in enumerate(zip(ids, slots, strict=True)):
            info = infos.get(cid)
            if info is None:
                info = infos[cid] = command_info(game, cid)
            if info.automatic:  # about half of all commands (heartbeats, timing): nothing to resolve, nothing decoded
                r = automatic.get(cid, -1)
                if r < 0:
                    r = automatic[cid] = len(rests)
                    rests.append((info.category, True, *_AUTOMATIC_REST))
            else:
                r = previous.get(player, -1)
                raw = last_raw.get(player)
                # a command ends where its own bytes say, so bytes that start with the last order are that order
                if r < 0 or raw is None or not data.startswith(raw, offsets[i]):
                    resolved = _resolve(commands[i], info, states[player], game)
                    if r < 0 or rests[r] != resolved:
                        r = previous[player] = len(rests)
                        rests.append(resolved)
                    if isinstance(commands, CommandList):
                        last_raw[player] = commands.raw(i)
            if r > 0xFFFF and rest.typecode == "H":
                rest = array("I", rest)
                add_rest = rest.append
            add_rest(r)
        if not isinstance(commands, CommandList):  # a replay built in memory: its columns are lists
            slots = array("b" if all(-128 <= s < 128 for s in slots) else "i", slots)
            ids = array("H", ids)
        # the events share the command list's columns: every pass over them reads the slot and the id, in C
        events = EventList(time_codes, slots, ids, rest, rests)
        index = cls(replay, names, players, events)
        index.knowledge = _knowledge_of(replay)
        index._ingest()
        index._resolve_factions()
        return index

    def _resolve_factions(self) -> None:
        """Fill ``played_faction`` by majority over the faction prefixes of the distinct types each player ordered."""
        from app.replay.stats import faction_of_name

        votes: dict[int, Counter[str]] = defaultdict(Counter)
        k = self.knowledge if self.replay.game is not Game.RA3 else None  # KW/TW: the knowledge's faction
        for f in self._first.values():
            if k is not None and f.kind is not ProductionKind.STRUCTURE:
                continue  # KW/TW: structures decide, as in app.replay.stats
            faction = faction_of_name(f.name) if k is None else _specific_faction(k, f.type_hash)
            if faction:
                votes[f.player][faction] += 1
        self.players = tuple(
            replace(p, played_faction=min(votes[p.slot].items(), key=lambda kv: (-kv[1], kv[0]))[0])
            if votes.get(p.slot)
            else p
            for p in self.players
        )

    def _is_player(self, slot: int) -> bool:
        return 0 <= slot < len(self.players) and self.players[slot].is_player

    def _ingest(self) -> None:
        """Evidence, groups, orders and chains from the events of orders (not automatic)."""
        events = self.events
        commands = self.replay.commands
        groups: dict[int, dict[int, tuple[int, ...]]] = defaultdict(dict)
        seen = self._seen
        evidence = self._evidence
        game = self.replay.game
        left_id = player_left_id(game)
        structure_hashes: set[int] = set()
        yards: set[int] = set()  # constructor-class objects: they built structures with 0x207/0x209
        roles = RoleIds(game)
        ids = events.ids
        distinct = set(ids)
        builds = {cid for cid in distinct if roles[cid] in (START_STRUCTURE, PLACE_STRUCTURE)}
        for ev in events.select(events.with_ids(builds)):
            if ev.type_hash is not None and not ev.automatic:
                structure_hashes.add(ev.type_hash)
                if ev.object_ids:
                    yards.add(ev.object_ids[0])
        known_types = self._known_types(None, roles)
        orders = OrderBook()
        player_slots = {p.slot for p in self.players if p.is_player}
        attacked: set[tuple[int, int]] = set()  # (player, object) pairs of 0x20D attack orders
        # the orders this loop does something with: those that write an object id, and those of the roles that act
        # without one (on a group, the selection, a hash, a slot); the others (a move to the selection, a deselect)
        # change nothing here and are not built (issue 29: a file of 100 argument-less commands a chunk)
        acting = {cid for cid in distinct if roles[cid] in _ROLES_WITHOUT_IDS or cid == left_id}
        for ev in events.select(events.where(_order_with_ids, acting, _is_order)):
            i = ev.command_index
            for oid in ev.object_ids:
                if oid and oid not in seen:
                    seen[oid] = ev.time_code
            if ev.command_id == left_id:
                self._note_departure(ev, commands[i])
                continue
            cid = ev.command_id
            role = roles[cid]
            if role == ATTACK:
                attacked.update((ev.player, oid) for oid in ev.target_ids)
            if role not in _INDEXED_IDS:
                continue
            p = ev.player
            owner = p in player_slots
            tc = ev.time_code

            def add(oid: int, strength: Strength, as_role: Role) -> None:
                # called right away, inside this iteration: the closure sees this command's p, cid and tc
                if oid:
                    evidence[oid].append(Evidence(oid, p, strength, as_role, cid, tc))  # noqa: B023

            if role == CREATE_GROUP and ev.group is not None:
                members = ev.object_ids
                groups[p][ev.group] = members
                self._group_history[(p, ev.group)].append(GroupState(p, ev.group, tc, members))
                if owner:
                    for oid in members:
                        add(oid, Strength.STRONG, Role.GROUP_MEMBER)
            elif role in (SELECT_GROUP, ADD_GROUP) and ev.group is not None:
                if owner:
                    for oid in groups[p].get(ev.group, ()):
                        add(oid, Strength.STRONG, Role.GROUP_RECALL)
            elif role == SELECT:
                if owner:
                    for oid in ev.object_ids:
                        add(oid, Strength.WEAK, Role.SELECTED)
            elif role in _OWNER_ROLES:
                if owner:
                    for oid in ev.actor_ids:
                        add(oid, Strength.STRONG, _OWNER_ROLES[role])
                self._note_order(commands[i], ev, orders, yards, structure_hashes)
            elif role == HARVESTER_ORDER:
                if owner:
                    for oid in ev.object_ids:  # the dock (a refinery, docs/replay-format.md §4.3e)
                        add(oid, Strength.STRONG, Role.DOCK)
                    for oid in ev.affected_ids:
                        add(oid, Strength.STRONG, Role.HARVESTER)
            elif role == HARVEST_FROM_NODE:
                if owner:
                    for oid in ev.affected_ids:  # the command's own id is the ore node
                        add(oid, Strength.STRONG, Role.HARVESTER)
            elif role in POWER_IDS:
                if owner and len(ev.actor_ids) == 1:
                    add(ev.actor_ids[0], Strength.STRONG, Role.CASTER)
                elif owner:
                    for oid in self._able_members(ev.actor_ids, ev.type_hash, known_types):
                        add(oid, Strength.WEAK, Role.ABILITY_GROUP)
            elif role == SELECT_PROTOCOL and ev.type_hash is not None:
                self._protocols.append(ProtocolPick(p, tc, ev.type_hash, self.name_of(ev.type_hash)))
        # a click on a hostile object selects it too (0x1F5 with that one id, e.g. #392 by nickname at 10:35.07 in
        # the Allies mirror, right after attacking it at 10:34.87): a player's weak evidence on an object that player
        # ordered attacked is not evidence of owning it (strong evidence stays: a player may attack its own units)
        for oid, lst in list(evidence.items()):
            kept = [e for e in lst if e.strength is Strength.STRONG or (e.player, oid) not in attacked]
            if not kept:
                del evidence[oid]
            elif len(kept) < len(lst):
                evidence[oid] = kept
        for lst in evidence.values():
            lst.sort(key=lambda e: (e.time_code, e.player))
        self._finish_orders(orders)
        self._chains, self._deploys = pack_chains(
            self.events, self.players, self.name_of, self._cancelled, constructors=frozenset(yards), game=game
        )

    def _note_order(
        self, cmd: Command, ev: FactEvent, orders: OrderBook, yards: set[int], structure_hashes: set[int]
    ) -> None:
        """Record a production / structure order or its cancel (the factory and constructor lists come from here).

        Compared by the command's RA3 role (``app.facts.roles``); build steps keep the game's own command id. Cancels
        are matched to orders only where their layout and the shift-click flag are verified (:data:`_CANCEL_GAMES`):
        in Kane's Wrath and Tiberium Wars every order stands and counts once.
        """
        cid, p = ev.command_id, ev.player
        role = role_of(self.replay.game, cid)[0]
        ra3_layout = self.replay.game in _CANCEL_GAMES
        if ev.type_hash is None or not ev.object_ids:
            return
        source = ev.object_ids[0]
        if role in (START_STRUCTURE, PLACE_STRUCTURE):
            if source not in self._constructors[p]:
                self._constructors[p].append(source)
            if role == PLACE_STRUCTURE:
                orders.place(ev)
                self._build_steps.append(
                    BuildStep(
                        p, ev.time_code, ev.type_hash, self.name_of(ev.type_hash), cid, ev.position, ev.command_index
                    )
                )
            else:
                orders.start(ev, ProductionKind.STRUCTURE, 1)
        elif role == QUEUE_UNIT:
            self._factories[p].append((source, ev.type_hash, ev.command_index))
            self._queue_orders.append((p, ev.time_code, ev.type_hash, batch_size(self.replay.game, cmd)))
            is_core = source in yards and ev.type_hash not in structure_hashes
            batch = batch_size(self.replay.game, cmd)
            if batch > 1:
                self._batches[ev.command_index] = batch
            orders.start(ev, ProductionKind.STRUCTURE if is_core else ProductionKind.UNIT, batch)
            if is_core and self._is_core_step(p, ev):
                self._build_steps.append(
                    BuildStep(p, ev.time_code, ev.type_hash, self.name_of(ev.type_hash), cid, None, ev.command_index)
                )
        elif role in (CANCEL_UNIT, CANCEL_STRUCTURE) and ra3_layout:
            unit = role == CANCEL_UNIT
            orders.cancel(ev, cancel_count(cmd) if unit else 1, unit=unit)

    def _finish_orders(self, orders: OrderBook) -> None:
        """First productions from the orders that stayed, the cancelled ones marked; cancelled core steps dropped."""
        self._cancelled = frozenset(orders.cancelled)
        for o in orders.all:
            key = (o.player, o.kind, o.type_hash)
            current = self._first.get(key)
            cancelled = o.command_index in self._cancelled
            if current is None or (current.cancelled and not cancelled):
                self._first[key] = FirstProduction(
                    o.player, o.kind, o.type_hash, self.name_of(o.type_hash), o.time_code, o.source, cancelled
                )
        self._build_steps = [s for s in self._build_steps if s.command_index not in self._cancelled]

    def _known_types(self, pending: Iterable[int] | None = None, roles: RoleIds | None = None) -> dict[int, str]:
        """Object types the orders prove (kept only when every proof of an object agrees).

        Structures produce, build, upgrade, are sold or get a rally point; the single source of an ability that the
        knowledge says only one type uses is of that type.
        """
        found: dict[int, set[str]] = defaultdict(set)
        if roles is None:
            roles = RoleIds(self.replay.game)
        events = self.events
        ids = events.ids
        proving = {cid for cid in set(ids) if roles[cid] in _OWNER_ROLES or roles[cid] in (HARVESTER_ORDER, *POWER_IDS)}
        picked = events.with_ids(proving) if pending is None else (i for i in pending if ids[i] in proving)
        for ev in events.select(picked):
            if ev.automatic:
                continue
            cid = roles[ev.command_id]
            if cid in _OWNER_ROLES or cid == HARVESTER_ORDER:  # all of them name a structure
                for oid in ev.actor_ids or ev.object_ids:
                    found[oid].add(STRUCTURE_TYPE)
            elif cid in POWER_IDS and len(ev.actor_ids) == 1:
                users = self._users_of(ev.type_hash)
                if users is not None and len(users) == 1:
                    found[ev.actor_ids[0]].add(next(iter(users)))
        return {oid: next(iter(types)) for oid, types in found.items() if len(types) == 1}

    def _users_of(self, power_hash: int | None) -> frozenset[str] | None:
        """Types that can use a power per the knowledge (``usedBy``), or None when the knowledge does not say."""
        if power_hash is None or self.knowledge is None:
            return None
        entry = self.knowledge.lookup(power_hash)
        users = entry.producers if entry is not None and entry.kind == "power" else ()
        return frozenset(users) or None

    def _able_members(
        self, sources: tuple[int, ...], power_hash: int | None, known_types: Mapping[int, str]
    ) -> tuple[int, ...]:
        """The members of an ability group that may have used it.

        Every member counts unless its proven type is excluded by the knowledge's ``usedBy`` (a structure never uses
        a unit ability; a proven Peacekeeper never uses the Javelin's lock-on).
        """
        users = self._users_of(power_hash)
        if users is None:
            return sources
        structure_users = self.knowledge is not None and any(self.knowledge.is_structure(u) for u in users)
        out = []
        for oid in sources:
            known = known_types.get(oid)
            if known is None or known in users or (known == STRUCTURE_TYPE and structure_users):
                out.append(oid)
        return tuple(out)

    def _is_core_step(self, player: int, ev: FactEvent) -> bool:
        """A core queued twice in a row within 1 s is one build step (a double click), not two."""
        for step in reversed(self._build_steps):
            if step.player != player:
                continue
            return not (
                role_of(self.replay.game, step.command_id)[0] == QUEUE_UNIT
                and step.type_hash == ev.type_hash
                and ev.time_code - step.time_code <= TICKS_PER_SECOND
            )
        return True

    def _note_departure(self, ev: FactEvent, cmd: Command) -> None:
        """Record "player *I* left" (``app.facts.roles.PLAYER_LEFT``): the slot is the first argument."""
        slot = _int_arg(cmd, 0)
        if slot is not None and self._is_player(slot) and all(d.player != slot for d in self._departures):
            self._departures.append(Departure(slot, ev.time_code, ev.player))

    @property
    def departures(self) -> tuple[Departure, ...]:
        """Players who left before the end, in time order (the first one is the player who left first)."""
        return tuple(self._departures)


def command_queue_id(game: Game) -> int:
    """The "queue unit" id of a game (RA3 0x205, KW 0x22D, TW 0x223)."""
    return {Game.RA3: QUEUE_UNIT, Game.KW: 0x22D, Game.TW: 0x223}[game]


def power_roles(cmd: Command) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``(sources, targets)`` of a power command (0x1FE, 0x1FF, 0x200, 0x201, 0x232), zero ids left out.

    Every power writes a count k followed by the k source object ids (the casters); the object ids written before
    the count are the target (0 when the power has none). The count is the last int argument that an object id
    follows: ``I O I I(k) O P`` for a power on an object, ``I I I(k) O O`` for a targetless one (whose trailing
    0 is not a source). A layout without such an int (none in the corpus) makes every id a source.
    """
    kinds, args = cmd.kinds, cmd.args
    j = -1
    for i in range(len(kinds) - 1):
        if kinds[i] is ArgKind.INT and kinds[i + 1] is _OBJECT:
            j = i
    if j < 0:
        return tuple(o for o in _objects(cmd) if o), ()
    k = args[j]
    after = [a for a, kd in zip(args[j + 1 :], kinds[j + 1 :], strict=True) if kd is _OBJECT]
    before = [a for a, kd in zip(args[:j], kinds[:j], strict=True) if kd is _OBJECT]
    count = k if isinstance(k, int) and k >= 0 else len(after)
    return (
        tuple(o for o in after[:count] if o),  # type: ignore[misc]
        tuple(o for o in before if o),  # type: ignore[misc]
    )


def source_count_holds(cmd: Command) -> bool:
    """True when the power's count k (the last int an object id follows) is exactly the object ids after it.

    The check that makes a KW layout safe to read: a record of another form (TW's k = -1 with no sources, where the
    rule would take the hash for the count) names no caster rather than a wrong one.
    """
    kinds, args = cmd.kinds, cmd.args
    j = max((i for i in range(len(kinds) - 1) if kinds[i] is ArgKind.INT and kinds[i + 1] is _OBJECT), default=-1)
    return j > 0 and args[j] == sum(1 for kd in kinds[j + 1 :] if kd is _OBJECT)


def _knowledge_of(replay: Replay) -> Knowledge | None:
    """The mod's knowledge (with the user's overrides) for ``usedBy``; None when there is none for the mod."""
    from app.knowledge.errors import KnowledgeError
    from app.knowledge.loader import load_with_user_knowledge

    try:
        return load_with_user_knowledge(replay.header.mod_name)
    except KnowledgeError:
        return None


def _specific_faction(knowledge: Knowledge, type_hash: int | None) -> str:
    """The faction a type belongs to (``""`` for shared ``Neutral`` types and unknown ones)."""
    faction = knowledge.faction_of(type_hash) if type_hash is not None else None
    return faction if faction and faction != "Neutral" else ""


def _is_order(part: EventRest) -> bool:
    """A resolved part of a player's order (not of an automatic command)."""
    return not part[1]


def _order_with_ids(part: EventRest) -> bool:
    """A resolved part of a player's order that writes object ids."""
    return not part[1] and bool(part[3])


_AUTOMATIC_REST = (None, (), (), None, None, (), ())
"""An automatic command's fields after ``automatic``: no type, ids, position, group, actors or targets."""


def _resolve(cmd: Command, info: CommandInfo, state: _PlayerState | None, game: Game) -> EventRest:
    """Resolve one player command: its event's fields after ``command_id`` (an :data:`EventRest`).

    Advances the player's selection / group state; any game, through its roles.
    """
    cid, id_group = role_of(game, cmd.command_id)
    objects = _objects(cmd) if ArgKind.OBJECT in cmd.kinds else ()
    type_hash: int | None = None
    group: int | None = None
    affected: tuple[int, ...] = ()
    actors: tuple[int, ...] = ()
    targets: tuple[int, ...] = ()
    cat = info.category
    # one path for every game: ``cid`` is the command's RA3 role (app.facts.roles); only where the arguments are
    # differs: RA3 by its own layouts, KW/TW by HASH_ARGS (KW queue unit: argument 2) and the group in the id
    if game is Game.RA3:
        if cid in (QUEUE_UNIT, START_STRUCTURE, PLACE_STRUCTURE, CANCEL_UNIT):
            type_hash = _int_arg(cmd, 1)
        elif cid == CANCEL_STRUCTURE:
            type_hash = _int_arg(cmd, 2)
        elif cat in (Category.POWER, Category.UPGRADE, Category.PROTOCOL):
            type_hash = _int_arg(cmd, 0)
        elif cid in (CREATE_GROUP, SELECT_GROUP, ADD_GROUP, 0x1FD):
            group = _int_arg(cmd, 0)
    else:
        spec = HASH_ARGS[game].get(cmd.command_id)
        if spec is not None:
            type_hash = _int_arg(cmd, spec[0])
        group = id_group
    if cid in POWER_IDS:
        # KW/TW located and on-object records are read only where their count holds (the targetless one,
        # ``I I I(k) O×k O``, ends with a 0 id after its sources and was decoded by hand)
        if cid in POWER_LAYOUT_ROLES[game] and (game is Game.RA3 or cid == POWER or source_count_holds(cmd)):
            actors, targets = power_roles(cmd)
            if cid == POWER:
                objects = actors
    elif cid in _SELF_ACTING:
        actors = objects[:1] if objects and objects[0] else ()
    elif cid in _TARGET_ORDERS:
        targets = tuple(o for o in objects if o)
    if state is not None:
        sel = state.selection
        if cid in (SELECT, SELECT_NO_SOUND):
            if cmd.args and cmd.args[0] == 0:  # B0 = 0 adds to the selection (see module docstring)
                state.selection = None if sel is None else sel + tuple(o for o in objects if o not in sel)
            else:
                state.selection = objects
            affected = state.selection or ()
        elif cid == DESELECT:
            state.selection = ()
        elif cid == REMOVE_FROM_SELECTION:
            if sel is not None:
                drop = set(objects)
                state.selection = tuple(o for o in sel if o not in drop)
                affected = state.selection
        elif cid == Q_SELECT:
            state.selection = None
        elif cid == CREATE_GROUP and group is not None:
            state.groups[group] = objects
            state.selection = objects
            affected = objects
        elif cid == SELECT_GROUP and group is not None:
            state.selection = state.groups.get(group, ())
            affected = state.selection
        elif cid == ADD_GROUP and group is not None:
            base = sel or ()
            extra = tuple(o for o in state.groups.get(group, ()) if o not in base)
            state.selection = base + extra
            affected = state.selection
        elif cat in _ORDER_CATEGORIES and sel:
            affected = sel
        if targets and cid in _TARGET_ORDERS:
            actors = affected
    return (
        cat,  # category
        info.automatic,
        type_hash,
        objects,  # object_ids
        affected,  # affected_ids
        _position(cmd) if ArgKind.POSITION in cmd.kinds else None,
        group,
        actors,  # actor_ids
        targets,  # target_ids
    )


def player_labels(names: Sequence[str]) -> list[str]:
    """Labels for the slots' names, in slot order (the one place prompts' names are made).

    Each is :func:`~app.safetext.name_label`, or ``P<n>`` when nothing printable is left; ``(P<n>)`` is appended
    where two labels would otherwise be the same, so a label always names one slot.
    """
    from app.safetext import name_label

    labels = [name_label(n) or f"P{i}" for i, n in enumerate(names)]
    seen = Counter(label.lower() for label in labels)
    return [f"{label} (P{i})" if seen[label.lower()] > 1 else label for i, label in enumerate(labels)]


def build_fact_index(replay: Replay, names: Mapping[int, str] | None = None) -> ReplayFactIndex:
    """Index a parsed replay (see :meth:`ReplayFactIndex.build`)."""
    return ReplayFactIndex.build(replay, names)
