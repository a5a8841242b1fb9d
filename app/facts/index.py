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
* 0x1FE ``I I I O*``: power hash, 0, k, then k sources and a trailing 0; 0x200 ``I P F O I I O``: the non-zero
  object ids are the caster (a construction-yard vehicle or core for the deploy power);
* 0x205 ``O I B I``: factory, unit hash (the new unit's id is not in the command); 0x207 ``O I I`` and 0x209
  ``O I I P F``: constructor, structure hash; 0x208 ``O I I``: constructor, flag, structure hash;
* 0x20A sell / 0x228 repair ``O``: the structure; 0x212 ``O``: harvester order naming an own object; 0x248
  ``O``: "harvest from node" whose id is the ore node (a low map-object id, e.g. #233/#234 in
  ``ra3_1v1_infinity_isle_allies_vs_empire_24m``), so the strong evidence goes to the selected harvesters;
* 0x24E ``I``: science hash.

Kane's Wrath and Tiberium Wars use other ids for the same messages; ``app.facts.roles`` maps each to the RA3 id
with the same meaning (its role), checked on the KW/TW corpus, so the same rules build the same facts there.
Type hashes are read where ``app.replay.names.HASH_ARGS`` says (KW queue-unit has it at argument 2).
"""

from __future__ import annotations

import bisect
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from app.facts.model import (
    TICKS_PER_SECOND,
    BuildStep,
    Evidence,
    FactEvent,
    FirstProduction,
    GroupState,
    Owner,
    OwnershipVerdict,
    PackAction,
    PackChain,
    PackStep,
    PlayerInfo,
    ProductionKind,
    ProtocolPick,
    Role,
    Strength,
)
from app.facts.roles import Departure, player_left_id, role_of
from app.replay.commands import Category, CommandInfo, command_info
from app.replay.model import ArgKind, Command, Game, Replay
from app.replay.names import HASH_ARGS

# RA3 command ids with a special meaning for the index (notes §4.3).
SELECT = 0x1F5
SELECT_NO_SOUND = 0x1F6
DESELECT = 0x1F8
REMOVE_FROM_SELECTION = 0x1F9
CREATE_GROUP = 0x1FA
SELECT_GROUP = 0x1FB
ADD_GROUP = 0x1FC
POWER = 0x1FE
POWER_AT_LOCATION = 0x1FF
POWER_WITH_FACING = 0x200
POWER_ON_OBJECT = 0x201
START_UPGRADE = 0x203
CANCEL_UPGRADE = 0x204
QUEUE_UNIT = 0x205
CANCEL_UNIT = 0x206
START_STRUCTURE = 0x207
CANCEL_STRUCTURE = 0x208
PLACE_STRUCTURE = 0x209
SELL = 0x20A
HARVESTER_ORDER = 0x212
START_REPAIR = 0x228
Q_SELECT = 0x22A
POWER_TWO_TARGETS = 0x232
HARVEST_FROM_NODE = 0x248
SELECT_PROTOCOL = 0x24E

UNPACK_POWER_HASHES = frozenset({0xCD754906})
"""0x200 power that deploys a construction-yard vehicle or an Empire core (``SpecialPower_UnpackReplaceSelf``).

[verified on ``ra3_1v1_infinity_isle_allies_vs_empire_24m``: the Allied player's yard #237 packs at 2:17.6, vehicle
#370 deploys with this hash at 2:52.5 and a new constructor #391 issues its first build at 3:06.1; the Empire player
deploys each core with the same hash.]"""

PACK_POWER_HASHES = frozenset({0x6710551A})
"""0x1FE power cast by a construction yard to pack up (``SpecialPower_PackReplaceSelf``).

The same replay casts it on yards #237, #238 and #391; the notes §4.3 quote it as the real value of KWRAS's
misaligned ``0x10551A20`` key."""

_INDEXED_IDS = frozenset(
    {
        CREATE_GROUP, SELECT_GROUP, ADD_GROUP, SELECT, START_STRUCTURE, PLACE_STRUCTURE, QUEUE_UNIT, START_REPAIR,
        SELL, HARVESTER_ORDER, HARVEST_FROM_NODE, POWER, POWER_WITH_FACING, SELECT_PROTOCOL,
    }
)
_ORDER_CATEGORIES = frozenset(
    {Category.ORDER_MOVE, Category.ORDER_ATTACK, Category.ORDER_OTHER, Category.GARRISON, Category.HARVEST}
)
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


def _hex(value: int) -> str:
    return f"0x{value & 0xFFFFFFFF:08X}"


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


@dataclass(slots=True)
class _PlayerState:
    selection: tuple[int, ...] | None = ()  # None = unknown (after a Q-select)
    groups: dict[int, tuple[int, ...]] = field(default_factory=dict)


class ReplayFactIndex:
    """Facts of one replay: events, ownership evidence, groups, protocols, first productions, pack chains.

    Build it with :meth:`build` (or :func:`build_fact_index`); it is immutable afterwards and every query is a
    dictionary lookup or a bisect.
    """

    def __init__(
        self,
        replay: Replay,
        names: Mapping[int, str],
        players: tuple[PlayerInfo, ...],
        events: tuple[FactEvent, ...],
    ) -> None:
        self.replay = replay
        self.names = names
        self.players = players
        self.events = events
        self._times = [e.time_code for e in events]
        self._evidence: dict[int, list[Evidence]] = defaultdict(list)
        self._seen: dict[int, int] = {}
        self._group_history: dict[tuple[int, int], list[GroupState]] = defaultdict(list)
        self._protocols: list[ProtocolPick] = []
        self._first: dict[tuple[int, ProductionKind, int], FirstProduction] = {}
        self._build_steps: list[BuildStep] = []
        self._constructors: dict[int, list[int]] = defaultdict(list)
        self._factories: dict[int, list[tuple[int, int]]] = defaultdict(list)
        self._chains: list[PackChain] = []
        self._departures: list[Departure] = []
        self._by_object: dict[int, list[FactEvent]] | None = None
        self.duration_seconds = replay.duration_seconds

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
        players = tuple(
            PlayerInfo(
                slot=s.index,
                name=s.display_name or f"P{s.index}",
                faction=s.faction,
                team=s.team,
                kind=str(s.kind),
                is_player=s.is_player,
            )
            for s in replay.header.slots
        )
        infos: dict[int, CommandInfo] = {}
        states: dict[int, _PlayerState] = defaultdict(_PlayerState)
        events: list[FactEvent] = []
        pending: list[tuple[Command, FactEvent]] = []
        game = replay.game
        append_event = events.append
        append_pending = pending.append
        for i, cmd in enumerate(replay.commands):
            cid = cmd.command_id
            info = infos.get(cid)
            if info is None:
                info = infos[cid] = command_info(game, cid)
            if info.automatic:  # about half of all commands (heartbeats, timing): nothing to resolve
                cat = info.category
                append_event(FactEvent(i, cmd.time_code, cmd.player, cid, cat, True, None, (), (), None, None))
                continue
            ev = _make_event(i, cmd, info, states[cmd.player], game)
            append_event(ev)
            append_pending((cmd, ev))
        index = cls(replay, names, players, tuple(events))
        index._ingest(pending)
        index._resolve_factions()
        return index

    def _resolve_factions(self) -> None:
        """Fill ``played_faction`` by majority over the faction prefixes of the distinct types each player ordered."""
        from app.replay.stats import faction_of_name

        votes: dict[int, Counter[str]] = defaultdict(Counter)
        for f in self._first.values():
            faction = faction_of_name(f.name)
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

    def _ingest(self, pending: Sequence[tuple[Command, FactEvent]]) -> None:
        groups: dict[int, dict[int, tuple[int, ...]]] = defaultdict(dict)
        seen = self._seen
        evidence = self._evidence
        game = self.replay.game
        left_id = player_left_id(game)
        structure_hashes: set[int] = set()
        yards: set[int] = set()  # constructor-class objects: they built structures with 0x207/0x209
        for _cmd, ev in pending:
            if role_of(game, ev.command_id)[0] in (START_STRUCTURE, PLACE_STRUCTURE):
                if ev.type_hash is not None:
                    structure_hashes.add(ev.type_hash)
                if ev.object_ids:
                    yards.add(ev.object_ids[0])
        player_slots = {p.slot for p in self.players if p.is_player}
        for cmd, ev in pending:
            if ev.automatic:
                continue
            for oid in ev.object_ids:
                if oid and oid not in seen:
                    seen[oid] = ev.time_code
            if ev.command_id == left_id:
                self._note_departure(ev, cmd)
                continue
            cid = ev.command_id
            role = role_of(game, cid)[0]
            if role not in _INDEXED_IDS:
                continue
            p = ev.player
            owner = p in player_slots
            tc = ev.time_code

            def add(oid: int, strength: Strength, role: Role) -> None:
                # called right away, inside this iteration: the closure sees this command's p, cid and tc
                if oid:
                    evidence[oid].append(Evidence(oid, p, strength, role, cid, tc))  # noqa: B023

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
            elif role in (START_STRUCTURE, PLACE_STRUCTURE):
                if owner and ev.object_ids:
                    add(ev.object_ids[0], Strength.STRONG, Role.BUILDER)
                if ev.object_ids and ev.type_hash is not None:
                    if ev.object_ids[0] not in self._constructors[p]:
                        self._constructors[p].append(ev.object_ids[0])
                    self._note_first(p, ProductionKind.STRUCTURE, ev.type_hash, tc, ev.object_ids[0])
                    if role == PLACE_STRUCTURE:
                        self._build_steps.append(
                            BuildStep(p, tc, ev.type_hash, self.name_of(ev.type_hash), cid, ev.position)
                        )
            elif role == QUEUE_UNIT:
                if ev.object_ids and ev.type_hash is not None:
                    factory = ev.object_ids[0]
                    if owner:
                        add(factory, Strength.STRONG, Role.FACTORY)
                    self._factories[p].append((factory, ev.type_hash))
                    is_core = factory in yards and ev.type_hash not in structure_hashes
                    kind = ProductionKind.STRUCTURE if is_core else ProductionKind.UNIT
                    if is_core and self._is_core_step(p, ev):
                        self._build_steps.append(BuildStep(p, tc, ev.type_hash, self.name_of(ev.type_hash), cid, None))
                    self._note_first(p, kind, ev.type_hash, tc, factory)
            elif role == START_REPAIR:
                if owner:
                    for oid in ev.object_ids:
                        add(oid, Strength.STRONG, Role.REPAIR)
            elif role == SELL:
                if owner:
                    for oid in ev.object_ids:
                        add(oid, Strength.STRONG, Role.SELL)
            elif role == HARVESTER_ORDER:
                if owner:
                    for oid in (*ev.object_ids, *ev.affected_ids):
                        add(oid, Strength.STRONG, Role.HARVESTER)
            elif role == HARVEST_FROM_NODE:
                if owner:
                    for oid in ev.affected_ids:  # the command's own id is the ore node
                        add(oid, Strength.STRONG, Role.HARVESTER)
            elif role in (POWER, POWER_WITH_FACING):
                if owner:
                    for oid in _casters(cmd, role):
                        add(oid, Strength.STRONG, Role.CASTER)
            elif role == SELECT_PROTOCOL and ev.type_hash is not None:
                self._protocols.append(ProtocolPick(p, tc, ev.type_hash, self.name_of(ev.type_hash)))
        for lst in evidence.values():
            lst.sort(key=lambda e: (e.time_code, e.player))
        self._chains = _pack_chains(self.events, yards, self.players, self.name_of, game)

    def _is_core_step(self, player: int, ev: FactEvent) -> bool:
        """A core queued twice in a row within 1 s is one build step (a double click), not two."""
        for step in reversed(self._build_steps):
            if step.player != player:
                continue
            return not (
                step.command_id == QUEUE_UNIT
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

    def _note_first(self, player: int, kind: ProductionKind, type_hash: int, tc: int, source: int) -> None:
        key = (player, kind, type_hash)
        if key not in self._first:
            self._first[key] = FirstProduction(player, kind, type_hash, self.name_of(type_hash), tc, source)

    # ------------------------------------------------------------------ names and players

    def name_of(self, type_hash: int) -> str:
        """Internal name of a hash, or ``0x…`` when the name table lacks it."""
        return self.names.get(type_hash) or _hex(type_hash)

    def hash_of(self, name: str) -> int | None:
        """Hash of a type name (case-insensitive), or the value of a ``0x…`` text; None when unknown."""
        text = name.strip()
        if text.lower().startswith("0x"):
            try:
                return int(text, 16)
            except ValueError:
                return None
        for h, n in self.names.items():  # KW/TW knowledge names hashes directly (no internal SAGE name)
            if n.lower() == text.lower():
                return h
        from app.replay.asset_hash import asset_hash

        return asset_hash(text)

    def player_name(self, slot: int) -> str:
        """Display name of a slot (``P<n>`` when out of range)."""
        if 0 <= slot < len(self.players):
            return self.players[slot].name
        return f"P{slot}"

    @property
    def playing(self) -> tuple[PlayerInfo, ...]:
        """Slots that play (humans and AIs), in slot order."""
        return tuple(p for p in self.players if p.is_player)

    def player_slot(self, name_or_slot: str | int) -> int | None:
        """Resolve a player given by slot number or (case-insensitive) name."""
        if isinstance(name_or_slot, int):
            return name_or_slot if 0 <= name_or_slot < len(self.players) else None
        text = name_or_slot.strip()
        for p in self.players:
            if p.name.lower() == text.lower():
                return p.slot
        if text.isdigit():
            return self.player_slot(int(text))
        return None

    # ------------------------------------------------------------------ ownership queries

    def id_exists(self, object_id: int) -> bool:
        """True when any command (of anyone, observers included) mentions ``object_id``."""
        return object_id in self._seen

    def first_seen(self, object_id: int) -> float | None:
        """Seconds of the first command that mentions ``object_id`` (None when never seen)."""
        tc = self._seen.get(object_id)
        return None if tc is None else tc / TICKS_PER_SECOND

    def evidence(self, object_id: int) -> tuple[Evidence, ...]:
        """All ownership evidence for ``object_id`` in time order (observers never contribute)."""
        return tuple(self._evidence.get(object_id, ()))

    def evidence_ids(self) -> tuple[int, ...]:
        """Every object id with at least one evidence record, sorted."""
        return tuple(sorted(self._evidence))

    def owner(self, object_id: int) -> Owner:
        """The likely owner of ``object_id``.

        A single player with strong evidence owns it. Strong evidence from two players is a conflict (plan §7.1
        rule 4: abnormal play, undecidable). Without strong evidence, the player who selected it most often is a
        weak owner.
        """
        strong: dict[int, int] = defaultdict(int)
        weak: dict[int, int] = defaultdict(int)
        for e in self._evidence.get(object_id, ()):
            (strong if e.strength is Strength.STRONG else weak)[e.player] += 1
        strong_players = tuple(sorted(strong))
        weak_players = tuple(sorted(p for p in weak if p not in strong))
        if len(strong_players) == 1:
            return Owner(object_id, strong_players[0], Strength.STRONG, strong_players, weak_players, False)
        if len(strong_players) > 1:
            return Owner(object_id, None, None, strong_players, weak_players, True)
        if weak_players:
            best = min(weak_players, key=lambda p: (-weak[p], p))
            return Owner(object_id, best, Strength.WEAK, (), weak_players, False)
        return Owner(object_id, None, None, (), (), False)

    def check_ownership(self, object_id: int, player: int) -> OwnershipVerdict:
        """Check the claim "``object_id`` belongs to ``player``" with the four rules of plan §7.1."""
        o = self.owner(object_id)
        if o.conflict:
            return OwnershipVerdict.CONFLICT
        if o.strong_players:
            return (
                OwnershipVerdict.CONFIRMED_STRONG if player in o.strong_players else OwnershipVerdict.CONTRADICTION
            )
        if player in o.weak_players:
            return OwnershipVerdict.SUPPORTED_WEAK
        if o.weak_players:
            return OwnershipVerdict.OTHER_WEAK_ONLY
        return OwnershipVerdict.NO_EVIDENCE

    def owned_objects(self, player: int, strength: Strength = Strength.STRONG) -> tuple[int, ...]:
        """Object ids whose likely owner is ``player`` with at least ``strength``, sorted."""
        out = []
        for oid in self._evidence:
            o = self.owner(oid)
            if o.player == player and (strength is Strength.WEAK or o.strength is Strength.STRONG):
                out.append(oid)
        return tuple(sorted(out))

    def casters(self, power_hash: int | None = None) -> tuple[Evidence, ...]:
        """Caster evidence (only 0x1FE/0x200, plan §7.2), optionally of one power, in time order."""
        out = [
            e
            for lst in self._evidence.values()
            for e in lst
            if e.role is Role.CASTER
            and (power_hash is None or self._power_of(e) == power_hash)
        ]
        return tuple(sorted(out, key=lambda e: (e.time_code, e.object_id)))

    def _power_of(self, e: Evidence) -> int | None:
        i = bisect.bisect_left(self._times, e.time_code)
        while i < len(self.events) and self.events[i].time_code == e.time_code:
            ev = self.events[i]
            if ev.command_id == e.command_id and ev.player == e.player and e.object_id in ev.object_ids:
                return ev.type_hash
            i += 1
        return None

    # ------------------------------------------------------------------ groups and selection

    def group_history(self, player: int, group: int) -> tuple[GroupState, ...]:
        """Every assignment of control group ``group`` by ``player``, in time order."""
        return tuple(self._group_history.get((player, group), ()))

    def group_members(self, player: int, group: int, at_seconds: float) -> tuple[int, ...]:
        """Members of ``player``'s control group ``group`` at a moment (empty before the first assignment)."""
        hist = self._group_history.get((player, group), [])
        tc = at_seconds * TICKS_PER_SECOND
        current: tuple[int, ...] = ()
        for state in hist:
            if state.time_code <= tc:
                current = state.members
            else:
                break
        return current

    def groups_of(self, player: int) -> tuple[int, ...]:
        """Group numbers ``player`` ever assigned, sorted."""
        return tuple(sorted(g for (p, g) in self._group_history if p == player))

    def selection_at(self, player: int, at_seconds: float) -> tuple[int, ...] | None:
        """The tracked selection of ``player`` just after the last command at or before ``at_seconds``.

        Returns None when it is unknown (after a Q-select, whose resulting set the replay does not record).
        """
        tc = at_seconds * TICKS_PER_SECOND
        i = bisect.bisect_right(self._times, tc) - 1
        while i >= 0:
            ev = self.events[i]
            role = role_of(self.replay.game, ev.command_id)[0]
            if ev.player == player and ev.category in (Category.SELECTION, Category.GROUP) and role != 0x1FD:
                return _selection_after(ev, role)
            if ev.player == player and ev.category in _ORDER_CATEGORIES:
                return ev.affected_ids
            i -= 1
        return ()

    # ------------------------------------------------------------------ production, protocols, chains

    @property
    def protocols(self) -> tuple[ProtocolPick, ...]:
        """Every protocol pick (0x24E), in time order."""
        return tuple(self._protocols)

    def protocols_of(self, player: int) -> tuple[ProtocolPick, ...]:
        """The protocols ``player`` picked, in time order."""
        return tuple(p for p in self._protocols if p.player == player)

    def first_productions(
        self, player: int | None = None, kind: ProductionKind | None = None
    ) -> tuple[FirstProduction, ...]:
        """First production records, sorted by time (then player, name)."""
        out = [
            f
            for f in self._first.values()
            if (player is None or f.player == player) and (kind is None or f.kind is kind)
        ]
        return tuple(sorted(out, key=lambda f: (f.time_code, f.player, f.name)))

    def first_production(self, player: int, type_name_or_hash: str | int) -> FirstProduction | None:
        """When ``player`` first ordered a type (unit or structure), or None if never."""
        h = type_name_or_hash if isinstance(type_name_or_hash, int) else self.hash_of(type_name_or_hash)
        if h is None:
            return None
        found = [self._first.get((player, k, h)) for k in ProductionKind]
        hits = [f for f in found if f is not None]
        return min(hits, key=lambda f: f.time_code) if hits else None

    def build_order(self, player: int | None = None) -> tuple[BuildStep, ...]:
        """Structures placed (0x209) and Empire cores queued at a yard (0x205), in time order."""
        return tuple(s for s in self._build_steps if player is None or s.player == player)

    def constructors(self, player: int) -> tuple[int, ...]:
        """Object ids that built structures for ``player`` (construction yards, cranes), first-use order."""
        return tuple(self._constructors.get(player, ()))

    def factories(self, player: int) -> tuple[tuple[int, tuple[str, ...]], ...]:
        """Factories of ``player`` (first-use order) with the distinct type names each produced."""
        order: dict[int, list[str]] = {}
        for fid, h in self._factories.get(player, ()):
            names = order.setdefault(fid, [])
            n = self.name_of(h)
            if n not in names:
                names.append(n)
        return tuple((fid, tuple(n)) for fid, n in order.items())

    @property
    def pack_chains(self) -> tuple[PackChain, ...]:
        """Pack/unpack chains of construction-yard vehicles (MCV-class entities only), by player."""
        return tuple(self._chains)

    # ------------------------------------------------------------------ events

    def events_between(
        self,
        start_seconds: float,
        end_seconds: float,
        player: int | None = None,
        categories: Iterable[Category] | None = None,
    ) -> tuple[FactEvent, ...]:
        """Events with ``start <= t < end`` (bisect on time), optionally of one player and some categories."""
        lo = bisect.bisect_left(self._times, start_seconds * TICKS_PER_SECOND - 1e-9)
        hi = bisect.bisect_left(self._times, end_seconds * TICKS_PER_SECOND - 1e-9)
        cats = frozenset(categories) if categories is not None else None
        return tuple(
            e
            for e in self.events[lo:hi]
            if (player is None or e.player == player) and (cats is None or e.category in cats)
        )

    def events_for_object(self, object_id: int) -> tuple[FactEvent, ...]:
        """Events that name ``object_id`` or whose order affected it (through the tracked selection), in time order.

        The object → events map is built on the first call (the validator asks about many ids per answer).
        """
        if self._by_object is None:
            by: dict[int, list[FactEvent]] = defaultdict(list)
            for e in self.events:
                for oid in {*e.object_ids, *e.affected_ids}:
                    by[oid].append(e)
            self._by_object = by
        return tuple(self._by_object.get(object_id, ()))


def command_queue_id(game: Game) -> int:
    """The "queue unit" id of a game (RA3 0x205, KW 0x22D, TW 0x223)."""
    return {Game.RA3: QUEUE_UNIT, Game.KW: 0x22D, Game.TW: 0x223}[game]


def _casters(cmd: Command, role: int) -> tuple[int, ...]:
    """Casters of 0x1FE (the k sources after the count) and 0x200 (its non-zero object ids)."""
    if role == POWER:
        k = _int_arg(cmd, 2)
        objs = _objects(cmd)
        if k is None:
            return tuple(o for o in objs if o)
        return tuple(o for o in objs[:k] if o)
    return tuple(o for o in _objects(cmd) if o)


def _selection_after(ev: FactEvent, role: int) -> tuple[int, ...] | None:
    """The selection a selection/group event leaves (None = unknown, e.g. after a Q-select)."""
    if role == Q_SELECT:
        return None
    if role == DESELECT:
        return ()
    if role == 0x1FD:  # team-related, meaning unknown: look further back
        return None
    return ev.affected_ids


def _make_event(
    i: int, cmd: Command, info: CommandInfo, state: _PlayerState | None, game: Game
) -> FactEvent:
    """Resolve one command and advance the player's selection / group state (any game, through its roles)."""
    cid, id_group = role_of(game, cmd.command_id)
    if info.automatic:
        return FactEvent(i, cmd.time_code, cmd.player, cmd.command_id, info.category, True, None, (), (), None, None)
    objects = _objects(cmd) if ArgKind.OBJECT in cmd.kinds else ()
    type_hash: int | None = None
    group: int | None = None
    affected: tuple[int, ...] = ()
    cat = info.category
    # one path for every game: ``cid`` is the command's RA3 role (app.facts.roles)
    spec = HASH_ARGS[game].get(cmd.command_id)
    if spec is not None:
        type_hash = _int_arg(cmd, spec[0])
    elif id_group is not None:
        group = id_group
    elif game is Game.RA3 and cid in (CREATE_GROUP, SELECT_GROUP, ADD_GROUP, 0x1FD):
        group = _int_arg(cmd, 0)
    if cid == POWER:
        objects = _casters(cmd, cid)
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
    return FactEvent(
        command_index=i,
        time_code=cmd.time_code,
        player=cmd.player,
        command_id=cmd.command_id,
        category=cat,
        automatic=info.automatic,
        type_hash=type_hash,
        object_ids=objects,
        affected_ids=affected,
        position=_position(cmd) if ArgKind.POSITION in cmd.kinds else None,
        group=group,
    )


def _is_mcv_name(name: str) -> bool:
    """MCV-class type names: ``AlliedMCV``, ``SovietMCV_Naval``, ``JapanMCV`` (RA3 and Corona naming)."""
    return "MCV" in name


def _pack_chains(
    events: Sequence[FactEvent],
    yards: set[int],
    players: Sequence[PlayerInfo],
    name_of: Callable[[int], str],
    game: Game = Game.RA3,
) -> list[PackChain]:
    """Pack/unpack chains restricted to MCV-class entities.

    The replay never says what an object is, so a deploy (0x200 with the unpack power) is chained only when it is
    an MCV-class vehicle's by construction:

    * after a pack of that player's construction yard, the first deploy of an id newer than every id seen before
      the pack (the pack creates the vehicle);
    * after the player queued an MCV-class type (0x205 of ``…MCV…``), when a construction yard the player never
      used before shows up: the latest deploy since the queue of an id newer than every id seen at queue time.

    Empire cores use the same deploy power but are never chained: a pack does not create them and no new yard
    follows their deploy. Each chain step after an unpack closes with the first command of the new yard.
    """
    chains: list[PackChain] = []
    max_seen = 0
    open_pack: dict[int, tuple[int, int]] = {}  # player -> (time_code, max id at pack time)
    steps: dict[int, list[PackStep]] = defaultdict(list)
    waiting_yard: dict[int, bool] = {}
    known_yards: dict[int, set[int]] = defaultdict(set)
    queued: dict[int, list[tuple[int, int, int]]] = defaultdict(list)  # player -> (tc, factory, max id then)
    deploys: dict[int, list[tuple[int, int, tuple[float, float] | None]]] = defaultdict(list)
    chained: set[int] = set()
    for ev in events:
        p = ev.player
        if not (0 <= p < len(players) and players[p].is_player):
            max_seen = max(max_seen, *ev.object_ids, 0)
            continue
        cid = role_of(game, ev.command_id)[0]
        if cid == POWER and ev.type_hash in PACK_POWER_HASHES and ev.object_ids:
            yard = ev.object_ids[0]
            last = steps[p][-1] if steps[p] else None
            repeated = last is not None and last.action is PackAction.PACK and last.object_id == yard
            if yard in yards and not repeated:  # a double click sends the pack twice
                steps[p].append(PackStep(PackAction.PACK, ev.time_code, yard, None))
                open_pack[p] = (ev.time_code, max_seen)
        elif cid == POWER_WITH_FACING and ev.type_hash in UNPACK_POWER_HASHES:
            vehicle = max(ev.object_ids, default=0)
            if p in open_pack and vehicle > open_pack[p][1]:
                steps[p].append(PackStep(PackAction.UNPACK, ev.time_code, vehicle, ev.position))
                chained.add(vehicle)
                del open_pack[p]
                waiting_yard[p] = True
            elif vehicle:
                deploys[p].append((ev.time_code, vehicle, ev.position))
        elif cid == QUEUE_UNIT and ev.type_hash is not None and ev.object_ids and _is_mcv_name(name_of(ev.type_hash)):
            queued[p].append((ev.time_code, ev.object_ids[0], max_seen))
        if cid in (START_STRUCTURE, PLACE_STRUCTURE, QUEUE_UNIT) and ev.object_ids:
            yard = ev.object_ids[0]
            if (cid != QUEUE_UNIT or yard in yards) and yard not in known_yards[p]:
                if waiting_yard.get(p):
                    steps[p].append(PackStep(PackAction.NEW_YARD, ev.time_code, yard, None))
                    waiting_yard[p] = False
                elif queued[p] and known_yards[p]:
                    q_tc, factory, limit = queued[p][0]
                    cands = [d for d in deploys[p] if d[0] >= q_tc and d[1] > limit and d[1] not in chained]
                    if cands:
                        vehicle = cands[-1][1]
                        d_tc, _v, pos = next(d for d in cands if d[1] == vehicle)  # a deploy is often sent twice
                        queued[p].pop(0)
                        chained.add(vehicle)
                        steps[p].append(PackStep(PackAction.PRODUCE, q_tc, factory, None))
                        steps[p].append(PackStep(PackAction.UNPACK, d_tc, vehicle, pos))
                        steps[p].append(PackStep(PackAction.NEW_YARD, ev.time_code, yard, None))
                known_yards[p].add(yard)
        if ev.object_ids:
            max_seen = max(max_seen, *ev.object_ids)
    for p in sorted(steps):
        ordered = sorted(steps[p], key=lambda st: st.time_code)  # stable: a produce step lands before its unpack
        chains.append(PackChain(p, tuple(ordered)))
    return chains


def build_fact_index(replay: Replay, names: Mapping[int, str] | None = None) -> ReplayFactIndex:
    """Index a parsed replay (see :meth:`ReplayFactIndex.build`)."""
    return ReplayFactIndex.build(replay, names)
