"""Value types of the fact index: events, ownership evidence, protocols, first productions, pack chains.

They are frozen and hashable so that the index can hand them out freely (the validator, the summary and the
compact log all read the same objects) without anyone being able to change a fact after the build.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import compress, count
from operator import and_, or_
from typing import NamedTuple, overload

from app.replay.commands import Category

TICKS_PER_SECOND = 15.0
"""SAGE logic frames per second: command time codes count these (notes §2)."""


class Strength(enum.StrEnum):
    """How much an ownership observation proves (plan §7.1).

    Strong: only the owner can issue it (group creation, building, producing, upgrading, setting a rally point,
    repairing, selling, harvesting, being the single source of a power). Weak: anyone can click an enemy unit, so
    a selection only hints; an ability sent to several selected objects shows only that each was in the group
    that used it, not which of them could.
    """

    STRONG = "strong"
    WEAK = "weak"


class Role(enum.StrEnum):
    """Which part an object played in the command that produced an evidence record."""

    GROUP_MEMBER = "group_member"  # member of a 0x1FA create-group
    GROUP_RECALL = "group_recall"  # member reached through 0x1FB/0x1FC via the player's own group table
    BUILDER = "builder"  # constructor in 0x207 / 0x209
    FACTORY = "factory"  # factory in 0x205 (the factory, never the new unit)
    REPAIR = "repair"  # 0x228
    SELL = "sell"  # 0x20A
    UPGRADE = "upgrade"  # the structure of a 0x203 start / 0x204 cancel upgrade
    RALLY = "rally"  # the structure of a 0x202 rally point
    HARVESTER = "harvester"  # the selected harvesters of 0x212 / 0x248
    DOCK = "dock"  # the refinery a 0x212 sends the selected harvesters to
    CASTER = "caster"  # the single source of a power (0x1FE, 0x1FF, 0x200, 0x201, 0x232)
    ABILITY_GROUP = "ability_group"  # one of several selected sources of one ability command (weak)
    SELECTED = "selected"  # 0x1F5 selection (weak)


class OwnershipVerdict(enum.StrEnum):
    """Outcome of checking the claim "object X belongs to player P" against the evidence (plan §7.1 rules).

    The validator maps these to its severities: ``NO_EVIDENCE`` → WeakEvidence (rule 1), ``CONTRADICTION``
    → Contradiction (rule 2), ``OTHER_WEAK_ONLY`` → Warning (rule 3), ``CONFLICT`` → Contradiction (rule 4).
    """

    CONFIRMED_STRONG = "confirmed_strong"  # P has strong evidence, nobody else has
    SUPPORTED_WEAK = "supported_weak"  # P has weak evidence only, nobody else has strong evidence
    NO_EVIDENCE = "no_evidence"  # nobody has any evidence for X
    CONTRADICTION = "contradiction"  # another player has strong evidence, P has none
    OTHER_WEAK_ONLY = "other_weak_only"  # only other players' weak evidence, nothing for P
    CONFLICT = "conflict"  # two or more players have strong evidence, taking turns (no ownership timeline)


@dataclass(frozen=True, slots=True)
class PlayerInfo:
    """One ``S=`` slot as the facts see it.

    Attributes:
        slot: Index into the header's slot list (= ``Command.player``).
        name: Display name.
        faction: Faction name from the header ("" when random/unknown).
        team: Team number (-1 = none).
        kind: Slot kind value (``human``, ``ai``, ``observer``, ``commentator``…).
        is_player: True for humans and AIs that play; observers' commands never make ownership.
        played_faction: The faction the player's orders show (type-name prefixes of what it built and produced);
            resolves a header ``Random``; "" when nothing was ordered or the names carry no faction.
        label: The name as prompts and reports show it (:func:`app.safetext.name_label`: one line, capped,
            unique within the replay); ``name`` keeps the full text from the file.
    """

    slot: int
    name: str
    faction: str
    team: int
    kind: str
    is_player: bool
    played_faction: str = ""
    label: str = ""


class FactEvent(NamedTuple):
    """One command, with its meaning resolved.

    A named tuple, not a frozen dataclass: a 3v3 replay has ~20,000 commands and a frozen dataclass's
    ``__init__`` costs several times more, which matters for the index's 300 ms budget.

    Attributes:
        command_index: Position in the replay's command list.
        time_code: Logic frame (15 per second).
        player: Slot index (-1 when it maps to no slot).
        command_id: Game command id.
        category: Command category from the reader's table.
        automatic: True for commands the game sends by itself (heartbeats, pre-game info).
        type_hash: The unit/structure/upgrade/power/science hash the command names, if any.
        object_ids: Object ids written in the command (the acting or targeted objects).
        affected_ids: For orders without ids (move, stop…): the player's tracked selection at that moment.
        position: Target position (x, y) when the command has one.
        group: Control-group number for 0x1FA/0x1FB/0x1FC.
        actor_ids: The objects that act in the command (a claim's ``actorId``): the source(s) of a power, the
            factory of a production order, the constructor of a structure order, the structure that upgrades, is
            sold, repaired or gets a rally point; for orders with a target object, the selection that obeys.
        target_ids: The objects acted on (a claim's ``targetId``): the target of a power on an object (0x201) or
            of a located power that names one, the target of an attack, force-fire, garrison or harvest order.
    """

    command_index: int
    time_code: int
    player: int
    command_id: int
    category: Category
    automatic: bool
    type_hash: int | None
    object_ids: tuple[int, ...]
    affected_ids: tuple[int, ...]
    position: tuple[float, float] | None
    group: int | None
    actor_ids: tuple[int, ...] = ()
    target_ids: tuple[int, ...] = ()

    @property
    def seconds(self) -> float:
        """Game time in seconds."""
        return self.time_code / TICKS_PER_SECOND


EventRest = tuple[
    Category,
    bool,
    "int | None",
    "tuple[int, ...]",
    "tuple[int, ...]",
    "tuple[float, float] | None",
    "int | None",
    "tuple[int, ...]",
    "tuple[int, ...]",
]
"""A :class:`FactEvent`'s fields after ``command_id``: what the index resolved (category … target_ids)."""

_new = tuple.__new__


class EventList(Sequence[FactEvent]):
    """The index's events without one object per event: columns, and each event's resolved fields shared.

    ``time_codes``, ``players`` and ``ids`` are the command columns (shared with the replay's
    :class:`app.replay.model.CommandList`); ``rest[i]`` indexes ``rests``, the distinct resolved parts, which events
    with equal ones share (every heartbeat, every order without ids to a player's unchanged selection). A
    :class:`FactEvent` is built on access, so a file of many tiny commands costs a few bytes an event (issue 29)
    while readers see the same sequence of events.
    """

    __slots__ = ("ids", "players", "rest", "rests", "time_codes")

    def __init__(
        self,
        time_codes: Sequence[int],
        players: Sequence[int],
        ids: Sequence[int],
        rest: Sequence[int],
        rests: Sequence[EventRest],
    ) -> None:
        self.time_codes = time_codes
        self.players = players
        self.ids = ids
        self.rest = rest
        self.rests = rests

    def __len__(self) -> int:
        return len(self.rest)

    @overload
    def __getitem__(self, i: int) -> FactEvent: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[FactEvent, ...]: ...

    def __getitem__(self, i: int | slice) -> FactEvent | tuple[FactEvent, ...]:
        if isinstance(i, slice):
            return tuple(self._at(j) for j in range(*i.indices(len(self.rest))))
        n = len(self.rest)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("event index out of range")
        return self._at(i)

    def _at(self, i: int) -> FactEvent:
        return _new(FactEvent, (i, self.time_codes[i], self.players[i], self.ids[i], *self.rests[self.rest[i]]))  # type: ignore[no-any-return]

    def where(
        self,
        part: Callable[[EventRest], bool],
        ids: Container[int] = frozenset(),
        id_part: Callable[[EventRest], bool] | None = None,
    ) -> Iterator[int]:
        """Indexes, in order, of the events whose resolved part passes ``part`` (or ``ids`` and ``id_part``).

        An event passes when ``part`` holds for its resolved part, or when its command id is in ``ids`` and
        ``id_part`` holds for its part. The predicates run once per distinct part (events share them: a file of
        200,000 tiny commands has a few hundred) and the events are filtered on the columns in C, so a pass that
        needs a few kinds of event builds only those (issue 29).
        """
        keep = [part(r) for r in self.rests]
        mask: Iterator[bool] = map(keep.__getitem__, self.rest)
        if id_part is not None:
            by_id = [id_part(r) for r in self.rests]
            mask = map(or_, mask, map(and_, map(by_id.__getitem__, self.rest), map(ids.__contains__, self.ids)))
        return compress(range(len(self.rest)), mask)

    def with_ids(self, ids: Container[int]) -> Iterator[int]:
        """Indexes, in order, of the events whose command id is in ``ids`` (filtered on the id column in C)."""
        return compress(range(len(self.rest)), map(ids.__contains__, self.ids))

    def select(self, indexes: Iterable[int]) -> Iterator[FactEvent]:
        """The events at ``indexes`` (in range), built one at a time."""
        tcs, slots, ids, rest, rests = self.time_codes, self.players, self.ids, self.rest, self.rests
        for i in indexes:
            yield _new(FactEvent, (i, tcs[i], slots[i], ids[i], *rests[rest[i]]))

    def __iter__(self) -> Iterator[FactEvent]:
        rests = self.rests
        for i, tc, p, cid, r in zip(count(), self.time_codes, self.players, self.ids, self.rest):
            yield _new(FactEvent, (i, tc, p, cid, *rests[r]))


class Evidence(NamedTuple):
    """One observation tying an object id to a player (a named tuple for the same reason as FactEvent).

    Attributes:
        object_id: Runtime object id.
        player: Slot index of the player who issued the command.
        strength: Strong or weak (plan §7.1).
        role: The object's part in the command.
        command_id: The command that produced it.
        time_code: When.
    """

    object_id: int
    player: int
    strength: Strength
    role: Role
    command_id: int
    time_code: int

    @property
    def seconds(self) -> float:
        """Game time in seconds."""
        return self.time_code / TICKS_PER_SECOND


@dataclass(frozen=True, slots=True)
class Owner:
    """The likely owner of an object id.

    Attributes:
        object_id: The id asked about.
        player: The likely owner's slot, or None when unknown or when strong evidence conflicts.
        strength: Strength of the evidence behind ``player`` (None when ``player`` is None).
        strong_players: Players with strong evidence, sorted.
        weak_players: Players with weak evidence only (no strong evidence of theirs), sorted.
        conflict: True when two or more players have strong evidence (plan §7.1 rule 4).
    """

    object_id: int
    player: int | None
    strength: Strength | None
    strong_players: tuple[int, ...]
    weak_players: tuple[int, ...]
    conflict: bool


@dataclass(frozen=True, slots=True)
class OwnerChange:
    """An object that passed from one player to another (the replay shows only orders: the moment is a window).

    An engineer's capture, a hijack, a vehicle re-crewed after its pilot was sniped, a captured vehicle.

    Attributes:
        object_id: The object.
        from_player: Its owner before.
        to_player: Its owner after.
        after_time_code: The previous owner's last strong evidence: it was still theirs then.
        by_time_code: The new owner's first strong evidence: it was theirs by then.
        order_time_code: The new owner's order to enter the object (0x210: an engineer, a hijacker, a driver) in
            that window, when there is one: the change happened after it.
    """

    object_id: int
    from_player: int
    to_player: int
    after_time_code: int
    by_time_code: int
    order_time_code: int | None = None

    @property
    def since_time_code(self) -> int:
        """The earliest moment the new owner may have had it (its enter order, else the old owner's last act)."""
        return self.order_time_code if self.order_time_code is not None else self.after_time_code


@dataclass(frozen=True, slots=True)
class ProtocolPick:
    """A 0x24E "select protocol" (purchase science) command (plan §7.3).

    Attributes:
        player: Slot index.
        time_code: When it was picked.
        science_hash: The science hash.
        name: Resolved science name, or ``0x…`` when the hash is not in the name table.
    """

    player: int
    time_code: int
    science_hash: int
    name: str

    @property
    def seconds(self) -> float:
        """Game time in seconds."""
        return self.time_code / TICKS_PER_SECOND


class ProductionKind(enum.StrEnum):
    """Whether a first-production record is about a unit or a structure."""

    UNIT = "unit"
    STRUCTURE = "structure"


@dataclass(frozen=True, slots=True)
class FirstProduction:
    """The first time a player ordered a type (plan §7.6 ``PlayerFirstProductionTime``).

    Units: the first 0x205 queue. Structures: the first 0x207 start or 0x209 placement, whichever is earlier;
    Empire cores (units a construction yard queues with 0x205) count as structures.

    Attributes:
        player: Slot index.
        kind: Unit or structure.
        type_hash: The type hash.
        name: Resolved type name (``0x…`` when unknown).
        time_code: When it was first ordered (the first order that was not cancelled, if there is one).
        source_id: The factory or constructor object id that took the order.
        cancelled: True when every order of the type was taken back (0x206 / 0x208): it was never produced.
    """

    player: int
    kind: ProductionKind
    type_hash: int
    name: str
    time_code: int
    source_id: int
    cancelled: bool = False

    @property
    def seconds(self) -> float:
        """Game time in seconds."""
        return self.time_code / TICKS_PER_SECOND


@dataclass(frozen=True, slots=True)
class BuildStep:
    """One step of a player's build order: a structure placed, or an Empire core queued at a yard.

    Attributes:
        player: Slot index.
        time_code: When.
        type_hash: Structure (or core) hash.
        name: Resolved name.
        command_id: 0x209 (placement) or 0x205 (core queued at a construction yard).
        position: Placement position (x, y) for 0x209.
        command_index: Position of the command in the replay's command list.
    """

    player: int
    time_code: int
    type_hash: int
    name: str
    command_id: int
    position: tuple[float, float] | None
    command_index: int = -1

    @property
    def seconds(self) -> float:
        """Game time in seconds."""
        return self.time_code / TICKS_PER_SECOND


class PackAction(enum.StrEnum):
    """A step of an MCV / construction-yard pack-unpack chain."""

    PRODUCE = "produce"  # an MCV-class vehicle is queued at a factory (object_id = the factory)
    PACK = "pack"  # a construction yard packs up into a mobile vehicle
    CAPTURED = "captured"  # another player's packed vehicle is deployed by this player: it changed hands
    UNPACK = "unpack"  # the vehicle deploys again
    NEW_YARD = "new_yard"  # the first command of the construction yard that the deploy produced


@dataclass(frozen=True, slots=True)
class PackStep:
    """One step of a pack chain.

    Attributes:
        action: Pack, unpack, the new yard's first appearance, a produced MCV or a vehicle that changed hands.
        time_code: When.
        object_id: The yard (pack, new_yard), vehicle (unpack, captured) or factory (produce).
        position: Deploy position for unpack.
        produced_id: The id the step produced (pack: the vehicle; unpack: the yard; produce: the vehicle), None
            when the replay does not show it (``app.facts.chains``).
        from_player: For ``captured``: the slot whose pack made the vehicle.
    """

    action: PackAction
    time_code: int
    object_id: int
    position: tuple[float, float] | None
    produced_id: int | None = None
    from_player: int | None = None

    @property
    def seconds(self) -> float:
        """Game time in seconds."""
        return self.time_code / TICKS_PER_SECOND


@dataclass(frozen=True, slots=True)
class PackChain:
    """The moves of one player's base vehicle: yard → pack → vehicle → unpack → new yard, and so on.

    Attributes:
        player: Slot index.
        steps: The steps in time order.
    """

    player: int
    steps: tuple[PackStep, ...]


@dataclass(frozen=True, slots=True)
class GroupState:
    """The members of one control group from ``time_code`` on (until the next assignment).

    Attributes:
        player: Slot index.
        group: Group number.
        time_code: When the group was assigned (0x1FA).
        members: Member object ids in command order.
    """

    player: int
    group: int
    time_code: int
    members: tuple[int, ...]

    @property
    def seconds(self) -> float:
        """Game time in seconds."""
        return self.time_code / TICKS_PER_SECOND
