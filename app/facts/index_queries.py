"""The queries of :class:`app.facts.index.ReplayFactIndex`, one class per question.

- :class:`EventQueries`: the events in a time span or about one object;
- :class:`OwnershipQueries`: who owns an object, since when, with what evidence, and who cast a power;
- :class:`GroupQueries`: control groups and the selection at a time;
- :class:`ProductionQueries`: protocols, first productions, batches, cancels, build order, factories, pack chains.
"""

from __future__ import annotations

import bisect
import itertools
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from itertools import compress
from operator import and_

from app.facts.index_base import _ORDER_CATEGORIES, IndexData, _selection_after
from app.facts.model import (
    TICKS_PER_SECOND,
    BuildStep,
    EventRest,
    Evidence,
    FactEvent,
    FirstProduction,
    GroupState,
    Owner,
    OwnerChange,
    OwnershipVerdict,
    PackChain,
    ProductionKind,
    ProtocolPick,
    Role,
    Strength,
)
from app.facts.roles import role_of
from app.replay.commands import (  # RA3 command ids with a meaning for the index (notes §4.3)
    GARRISON,
    Category,
)


def _names_ids(part: EventRest) -> bool:
    """A resolved part with object ids or ids its order affected (the selection)."""
    return bool(part[3]) or bool(part[4])


class EventQueries(IndexData):
    """The events in a time span or about one object."""

    # ------------------------------------------------------------------ events

    def events_between(
        self,
        start_seconds: float,
        end_seconds: float,
        player: int | None = None,
        categories: Iterable[Category] | None = None,
    ) -> tuple[FactEvent, ...]:
        """Events with ``start <= t < end`` (bisect on time), optionally of one player and some categories."""
        return tuple(self.iter_events_between(start_seconds, end_seconds, player, categories))

    def iter_events_between(
        self,
        start_seconds: float,
        end_seconds: float,
        player: int | None = None,
        categories: Iterable[Category] | None = None,
    ) -> Iterator[FactEvent]:
        """:meth:`events_between` one event at a time: only the events that pass are built (see ``EventList``)."""
        span = self.event_span(start_seconds, end_seconds)
        events = self.events
        if player is None and categories is None:
            yield from events.select(span)
            return
        # filtered on the columns, in C: only the events that pass are built
        mask: Iterator[bool] | None = None
        if categories is not None:
            cats = frozenset(categories)
            keep = [r[0] in cats for r in events.rests]
            mask = map(keep.__getitem__, events.rest[span.start : span.stop])
        if player is not None:
            mine = map(player.__eq__, events.players[span.start : span.stop])
            mask = mine if mask is None else map(and_, mask, mine)
        yield from events.select(compress(span, mask))  # type: ignore[arg-type]  # set above: not both None

    def event_span(self, start_seconds: float, end_seconds: float) -> range:
        """Indexes of the events with ``start <= t < end`` (bisect on time)."""
        lo = bisect.bisect_left(self._times, start_seconds * TICKS_PER_SECOND - 1e-9)
        hi = bisect.bisect_left(self._times, end_seconds * TICKS_PER_SECOND - 1e-9)
        return range(lo, hi)

    def events_for_object(self, object_id: int) -> tuple[FactEvent, ...]:
        """Events that name ``object_id`` or whose order affected it (through the tracked selection), in time order.

        The object → events map is built on the first call (the validator asks about many ids per answer).
        """
        if self._by_object is None:
            by: dict[int, list[FactEvent]] = defaultdict(list)
            for e in self.events.select(self.events.where(_names_ids)):
                for oid in {*e.object_ids, *e.affected_ids}:
                    by[oid].append(e)
            self._by_object = by
        return tuple(self._by_object.get(object_id, ()))


class OwnershipQueries(EventQueries):
    """Who owns an object, since when and on what evidence; who cast a power."""

    # ------------------------------------------------------------------ ownership queries

    def id_exists(self, object_id: int) -> bool:
        """True when any command (of anyone, observers included) mentions ``object_id``."""
        return object_id in self._seen

    def first_seen(self, object_id: int) -> float | None:
        """Seconds of the first command that mentions ``object_id`` (None when never seen)."""
        tc = self._seen.get(object_id)
        return None if tc is None else tc / TICKS_PER_SECOND

    def existed_by(self, object_id: int) -> float | None:
        """Seconds by which ``object_id`` existed: the first mention of it or of any newer id, whichever is earlier.

        The engine gives out object ids in creation order (notes §4.3), so an id named at time t proves that every
        lower id had been created by t. None when neither it nor a newer id is ever named.
        """
        if self._created_by is None:
            ids = sorted(self._seen)
            best: list[int] = []
            low = None
            for oid in reversed(ids):
                tc = self._seen[oid]
                low = tc if low is None else min(low, tc)
                best.append(low)
            best.reverse()
            self._created_by = (ids, best)
        ids, best = self._created_by
        i = bisect.bisect_left(ids, object_id)
        return best[i] / TICKS_PER_SECOND if i < len(ids) else None

    def evidence(self, object_id: int) -> tuple[Evidence, ...]:
        """All ownership evidence for ``object_id`` in time order (observers never contribute)."""
        return tuple(self._evidence.get(object_id, ()))

    def evidence_ids(self) -> tuple[int, ...]:
        """Every object id with at least one evidence record, sorted."""
        return tuple(sorted(self._evidence))

    def ownership_changes(self, object_id: int) -> tuple[OwnerChange, ...] | None:
        """How ``object_id`` passed between players, in time order; None when their strong evidence takes turns.

        Strong evidence comes only from an owner's orders, so when it moves from player A to player B and A never
        gives another owner-only order for it, the object changed hands (an engineer's capture, a hijack, a vehicle
        re-crewed after its pilot was sniped, a captured MCV): a timeline, not a conflict. The change lies between
        A's last and B's first strong evidence, after B's own enter order on it when there is one (0x210, RA3).
        Evidence that goes back and forth (A, B, A) stays undecidable. Empty for an object with one owner.
        """
        strong = [e for e in self._evidence.get(object_id, ()) if e.strength is Strength.STRONG]
        runs: list[list[Evidence]] = []
        for e in strong:
            if runs and runs[-1][0].player == e.player:
                runs[-1].append(e)
            else:
                runs.append([e])
        if len({r[0].player for r in runs}) != len(runs):
            return None
        changes = []
        for before, after in itertools.pairwise(runs):
            last, first = before[-1].time_code, after[0].time_code
            enter = next(
                (
                    ev.time_code
                    for ev in self.events_for_object(object_id)
                    if ev.player == after[0].player
                    and last <= ev.time_code <= first
                    and role_of(self.replay.game, ev.command_id)[0] == GARRISON
                    and object_id in ev.target_ids
                ),
                None,
            )
            changes.append(OwnerChange(object_id, before[0].player, after[0].player, last, first, enter))
        return tuple(changes)

    def owners_at(self, object_id: int, seconds: float) -> tuple[int, ...]:
        """The player(s) ``object_id`` may have belonged to at a moment, from its strong evidence and changes.

        One player outside a change's window; both players inside it (the replay does not say when within it the
        object changed hands); empty without strong evidence or when the evidence takes turns.
        """
        changes = self.ownership_changes(object_id)
        o = self.owner(object_id)
        if changes is None or not o.strong_players:
            return ()
        if not changes:
            return o.strong_players
        tc = seconds * TICKS_PER_SECOND
        current = changes[0].from_player
        for c in changes:
            if tc < c.since_time_code:
                break
            if tc < c.by_time_code:
                return (current, c.to_player)
            current = c.to_player
        return (current,)

    def owner(self, object_id: int) -> Owner:
        """The likely owner of ``object_id``.

        A single player with strong evidence owns it. Strong evidence from two players is a conflict (plan §7.1
        rule 4: abnormal play, undecidable) unless it forms an ownership timeline (:meth:`ownership_changes`):
        then the last owner owns it. Without strong evidence, the player who selected it most often is a weak owner.
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
            changes = self.ownership_changes(object_id)
            if changes:
                return Owner(object_id, changes[-1].to_player, Strength.STRONG, strong_players, weak_players, False)
            return Owner(object_id, None, None, strong_players, weak_players, True)
        if weak_players:
            best = min(weak_players, key=lambda p: (-weak[p], p))
            return Owner(object_id, best, Strength.WEAK, (), weak_players, False)
        return Owner(object_id, None, None, (), (), False)

    def check_ownership(self, object_id: int, player: int, at_seconds: Sequence[float] = ()) -> OwnershipVerdict:
        """Check the claim "``object_id`` belongs to ``player``" with the four rules of plan §7.1.

        An object that changed hands (:meth:`ownership_changes`) is checked against its owner at the claimed
        moments ``at_seconds`` (the claim's evidence times): the claim holds when ``player`` may have owned it at
        every one of them; without moments, when ``player`` owned it at some time.
        """
        o = self.owner(object_id)
        if o.conflict:
            return OwnershipVerdict.CONFLICT
        if len(o.strong_players) > 1 and at_seconds:
            held = all(player in self.owners_at(object_id, t) for t in at_seconds)
            return OwnershipVerdict.CONFIRMED_STRONG if held else OwnershipVerdict.CONTRADICTION
        if o.strong_players:
            return OwnershipVerdict.CONFIRMED_STRONG if player in o.strong_players else OwnershipVerdict.CONTRADICTION
        if player in o.weak_players:
            return OwnershipVerdict.SUPPORTED_WEAK
        if o.weak_players:
            return OwnershipVerdict.OTHER_WEAK_ONLY
        return OwnershipVerdict.NO_EVIDENCE

    def all_ownership_changes(self) -> tuple[OwnerChange, ...]:
        """Every object that changed hands (see :meth:`ownership_changes`), in time order of the change."""
        if self._all_changes is None:
            strong = Strength.STRONG
            several = [
                oid for oid, lst in self._evidence.items() if len({e.player for e in lst if e.strength is strong}) > 1
            ]
            out = [c for oid in several for c in (self.ownership_changes(oid) or ())]
            self._all_changes = tuple(sorted(out, key=lambda c: (c.since_time_code, c.object_id)))
        return self._all_changes

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
            if e.role is Role.CASTER and (power_hash is None or self._power_of(e) == power_hash)
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


class GroupQueries(IndexData):
    """Control groups and the selection at a time."""

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


class ProductionQueries(IndexData):
    """Protocols, first productions, batches, cancels, build order, factories and pack chains."""

    # ------------------------------------------------------------------ production, protocols, chains

    @property
    def protocols(self) -> tuple[ProtocolPick, ...]:
        """Every protocol pick (0x24E), in time order."""
        return tuple(self._protocols)

    def protocols_of(self, player: int) -> tuple[ProtocolPick, ...]:
        """The protocols ``player`` picked, in time order."""
        return tuple(p for p in self._protocols if p.player == player)

    def first_productions(
        self, player: int | None = None, kind: ProductionKind | None = None, *, include_cancelled: bool = False
    ) -> tuple[FirstProduction, ...]:
        """First production records, sorted by time (then player, name).

        Types whose every order was cancelled were never produced: they come only with ``include_cancelled``
        (marked ``cancelled``).
        """
        out = [
            f
            for f in self._first.values()
            if (player is None or f.player == player)
            and (kind is None or f.kind is kind)
            and (include_cancelled or not f.cancelled)
        ]
        return tuple(sorted(out, key=lambda f: (f.time_code, f.player, f.name)))

    def first_production(
        self, player: int, type_name_or_hash: str | int, *, include_cancelled: bool = False
    ) -> FirstProduction | None:
        """When ``player`` first ordered a type (unit or structure) and kept the order, or None if never.

        With ``include_cancelled`` a type whose every order was cancelled gives its first (cancelled) order.
        """
        h = type_name_or_hash if isinstance(type_name_or_hash, int) else self.hash_of(type_name_or_hash)
        if h is None:
            return None
        found = [self._first.get((player, k, h)) for k in ProductionKind]
        hits = [f for f in found if f is not None and (include_cancelled or not f.cancelled)]
        return min(hits, key=lambda f: (f.cancelled, f.time_code)) if hits else None

    def batch(self, command_index: int) -> int:
        """Units the queue-unit order at ``command_index`` asks for: 5 for a shift-click (``app.facts.roles``), else 1.

        1 for every other command, so a caller may sum it over any events to count units ordered.
        """
        return self._batches.get(command_index, 1)

    def units_ordered(
        self, player: int | None = None, start_seconds: float = 0.0, end_seconds: float = float("inf")
    ) -> Counter[str]:
        """Units (and Empire cores) queued per type name in ``[start, end)``, a shift-click counting five.

        Every order counts as given, cancels included: this is what the players asked for, as the log shows it.
        """
        out: Counter[str] = Counter()
        lo, hi = start_seconds * TICKS_PER_SECOND - 1e-9, end_seconds * TICKS_PER_SECOND - 1e-9  # as events_between
        for p, tc, type_hash, units in self._queue_orders:
            if (player is None or p == player) and lo <= tc < hi:
                out[self.name_of(type_hash)] += units
        return out

    def is_cancelled(self, command_index: int) -> bool:
        """True when the production or structure order at ``command_index`` was taken back (0x206 / 0x208)."""
        return command_index in self._cancelled

    def build_order(self, player: int | None = None) -> tuple[BuildStep, ...]:
        """Structures placed (0x209) and Empire cores queued at a yard (0x205), in time order."""
        return tuple(s for s in self._build_steps if player is None or s.player == player)

    def constructors(self, player: int) -> tuple[int, ...]:
        """Object ids that built structures for ``player`` (construction yards, cranes), first-use order."""
        return tuple(self._constructors.get(player, ()))

    def factories(self, player: int) -> tuple[tuple[int, tuple[str, ...]], ...]:
        """Factories of ``player`` (first-use order) with the distinct type names each produced.

        A type all of whose orders at that factory were cancelled was not produced there and is left out.
        """
        order: dict[int, list[str]] = {}
        for fid, h, i in self._factories.get(player, ()):
            names = order.setdefault(fid, [])
            n = self.name_of(h)
            if n not in names and i not in self._cancelled:
                names.append(n)
        return tuple((fid, tuple(n)) for fid, n in order.items())

    @property
    def pack_chains(self) -> tuple[PackChain, ...]:
        """Pack/unpack chains of construction-yard vehicles (MCV-class entities only), by player."""
        return tuple(self._chains)

    @property
    def other_deploys(self) -> tuple[PackChain, ...]:
        """Per player, the deploys (unpack power) of vehicles no MCV chain explains (Empire cores, Corona miners).

        One unpack step per vehicle: its last deploy order (a re-sent order supersedes the earlier one).
        """
        return tuple(self._deploys)
