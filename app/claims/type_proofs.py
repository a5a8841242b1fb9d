"""What the replay proves about an object's type, and whether a claimed type agrees with it (plan §7.6).

Two proofs, both from the orders alone:

* a factory is of a type that can make what it queued or researched (knowledge ``producedBy``): when exactly one
  type can make all of it, the object is proven to be of that type (:meth:`TypeProofs.products`,
  :meth:`TypeProofs.proven_type`);
* the engine gives out object ids in creation order (notes §4.3): an id was created after the first order of every
  smaller id's proven type (:meth:`TypeProofs.created_after`), and existed by the time it or a newer id was named.

:meth:`TypeProofs.type_fits_object` holds a claimed type against both (``TypeNotOfProducts``,
``NotPlacedInWindow``, ``ExistedBeforeOrdered``). A unit claim's type and the type a sell or repair names both
ask it; the origin rules (:mod:`app.claims.producers`) use the creation bound and the proven types.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from app.claims.issues import ValidationIssue
from app.claims.replay_lookup import ReplayCheck, ReplayLookup
from app.claims.time_match import FRAME_SLACK, to_frames
from app.claims.timeparse import format_time
from app.facts.model import FactEvent
from app.i18n import tr
from app.knowledge.model import Entry
from app.replay.commands import PLACE_STRUCTURE, QUEUE_UNIT, START_STRUCTURE, START_UPGRADE

START_TAGS = frozenset({"construction_yard", "mcv", "mcv_class", "harvester"})
"""Types a player may own without ordering them (the starting MCV and yard, the free miner of a refinery)."""
PLACEMENT_SLACK_FRAMES = 15
"""How far outside an object's creation window from id order a placement may lie and still count (1 s)."""


class TypeProofs(ReplayCheck):
    """Per object, the type its products prove and the window its id was created in (each built once)."""

    def __init__(self, lookup: ReplayLookup) -> None:
        super().__init__(lookup)
        self._anchors: list[tuple[int, tuple[float, int, str]]] | None = None
        self._made: dict[int, list[Entry]] | None = None

    def type_fits_object(
        self, uid: int, player: int, type_name: str, *, where: str, ref: str, issues: list[ValidationIssue]
    ) -> bool:
        """What the replay proves about an object, which any type claimed for it must agree with.

        * The engine gives out object ids in creation order (notes §4.3, :meth:`ReplayFactIndex.existed_by`): an
          object that existed at time t is not of a type its player first ordered after t (any order of the type,
          or of a core that unpacks into it, taken back or not). Starting and free types are exempt.
        * A factory is of a type that can make what it queued or researched (knowledge ``producedBy``).

        Returns False when it raised an issue.
        """
        entry = self.lookup.entry(type_name)
        if entry is None or entry.kind not in ("unit", "structure"):
            return True
        made = self.made_by(uid)
        if made:
            wrong = [e for e in made if type_name not in e.producers]
            if wrong:
                fact = tr(
                    self.lang,
                    "#{uid} ordered {id}, which only {producers} can make",
                    uid=uid,
                    id=wrong[0].id,
                    producers=", ".join(wrong[0].producers),
                )
                issues.append(self.lookup.not_of_type("TypeNotOfProducts", uid, type_name, fact, where=where, ref=ref))
                return False
        if not entry.producers or any(entry.has_tag(t) for t in START_TAGS):
            return True
        if not self._placed_in_window(uid, type_name, where=where, ref=ref, issues=issues):
            return False
        orders = self.lookup.commands(
            (QUEUE_UNIT, START_STRUCTURE, PLACE_STRUCTURE), player, self.lookup.hashes(type_name)
        )
        existed = self.index.existed_by(uid)
        if not orders or existed is None or to_frames(existed) + FRAME_SLACK >= orders[0].time_code:
            return True
        who = self.index.player_name(player)
        ordered = self.index.name_of(orders[0].type_hash or 0)
        fact = tr(
            self.lang,
            "#{uid} existed by {existed} (ids are given out in creation order and it or a newer id "
            "was named then), but {who} first ordered {ordered} at {seconds}",
            uid=uid,
            existed=format_time(existed),
            who=who,
            ordered=ordered,
            seconds=format_time(orders[0].seconds),
        )
        issues.append(
            self.lookup.not_of_type("ExistedBeforeOrdered", uid, type_name, fact, where=where, ref=ref, at=existed)
        )
        return False

    def _placed_in_window(
        self, uid: int, type_name: str, *, where: str, ref: str, issues: list[ValidationIssue]
    ) -> bool:
        """A structure that only a yard or crane builds comes into being when it is placed (0x209): is one left for it?

        Each object was created within its window from id order (:meth:`created_after`, :meth:`existed_by`), and
        objects of one type were created in id order, each by its own placement. So the objects proven to be of the
        type (by what they built), with ``uid`` among them in id order, must each get a later placement than the one
        before, inside their windows. A capture changes the owner, not the id, so every player's placements and
        proven objects count. Empire structures (from cores), yards (MCV deploys), walls (one placement makes many
        pieces) and anything a unit deploys into are exempt; nothing is said when the proven objects alone do not fit
        (the knowledge or the windows would be wrong). Returns False when it raised an issue.
        """
        entry = self.lookup.entry(type_name)
        if entry is None or entry.kind != "structure" or not entry.producers or entry.has_tag("wall"):
            return True
        makers = [self.lookup.entry(p) for p in entry.producers]
        if any(m is None or m.kind != "structure" or m.unpacks_to for m in makers):
            return True
        proven = self.proven_ids(type_name)
        if uid in proven or self.index.existed_by(uid) is None or self.created_after(uid) is None:
            return True
        placed = self.lookup.commands((PLACE_STRUCTURE,), None, self.lookup.hashes(type_name))
        if self._placements_fit(proven, placed) is None:
            return True
        together = sorted((*proven, uid))
        fit = self._placements_fit(together, placed)
        if fit is not None:
            return True
        existed = self.index.existed_by(uid) or 0.0
        after = self.created_after(uid)
        assert after is not None
        lo = to_frames(after[0]) - PLACEMENT_SLACK_FRAMES
        hi = to_frames(existed) + PLACEMENT_SLACK_FRAMES
        inside = [e for e in placed if lo <= e.time_code <= hi]
        window = tr(
            self.lang,
            "#{uid} was created between {after} and {existed} (ids are given out in creation order; "
            "the smaller #{after_2} is a {after_3}, first ordered at {after})",
            uid=uid,
            after=format_time(after[0]),
            existed=format_time(existed),
            after_2=after[1],
            after_3=after[2],
        )
        if inside:
            times = ", ".join(f"{self.index.player_name(e.player)} {format_time(e.seconds)}" for e in inside)
            others = " ".join(f"#{o}" for o in proven)
            fact = window + tr(
                self.lang,
                "; the placements of {type_name} in that time ({times}) all made other objects proven to "
                "be {type_name} ({others}, by what they built or researched)",
                type_name=type_name,
                times=times,
                others=others,
            )
        else:
            near = ", ".join(
                f"{self.index.player_name(e.player)} {format_time(e.seconds)}"
                for e in (*[e for e in placed if e.time_code < lo][-1:], *[e for e in placed if e.time_code > hi][:1])
            ) or tr(self.lang, "none")
            fact = window + tr(
                self.lang,
                ", and no player placed a {type_name} in that time; nearest placements: {near}",
                type_name=type_name,
                near=near,
            )
        issues.append(
            self.lookup.not_of_type("NotPlacedInWindow", uid, type_name, fact, where=where, ref=ref, at=existed)
        )
        return False

    def _placements_fit(self, ids: Sequence[int], placed: Sequence[FactEvent]) -> list[FactEvent] | None:
        """Placements for ``ids`` (sorted), each later than the one before and inside its id's creation window.

        Greedy earliest choice: with objects in creation order and placements in time order it finds a fit whenever
        one exists. None when there is none.
        """
        out: list[FactEvent] = []
        k = 0
        for oid in ids:
            after = self.created_after(oid)
            existed = self.index.existed_by(oid)
            lo = to_frames(after[0]) - PLACEMENT_SLACK_FRAMES if after is not None else 0
            hi = to_frames(existed) + PLACEMENT_SLACK_FRAMES if existed is not None else 1 << 30
            while k < len(placed) and placed[k].time_code < lo:
                k += 1
            if k == len(placed) or placed[k].time_code > hi:
                return None
            out.append(placed[k])
            k += 1
        return out

    def proven_ids(self, type_name: str) -> list[int]:
        """Object ids the replay proves to be of ``type_name``: what they queued or researched only it can make."""
        return sorted(oid for oid, made in self.products().items() if self.proven_type(made) == type_name)

    @staticmethod
    def proven_type(made: Sequence[Entry]) -> str | None:
        """The one type that can make everything in ``made``, if there is exactly one."""
        types = set.intersection(*(set(m.producers) for m in made)) if made else set()
        return types.pop() if len(types) == 1 else None

    def proven_types(self) -> dict[int, str]:
        """Per object id, the one type its own queue and research orders prove (those that prove one)."""
        out: dict[int, str] = {}
        for oid, made in self.products().items():
            proven = self.proven_type(made)
            if proven:
                out[oid] = proven
        return out

    def created_after(self, uid: int) -> tuple[float, int, str] | None:
        """The latest time ``uid`` is known to be created after, with the smaller id and type that prove it.

        An object whose type the replay proves (a factory that queued or researched what only one type can make)
        was created after the first order of that type by any player; ids are given out in creation order, so every
        newer id was created after that too. None when no smaller id has a proven type.
        """
        if self._anchors is None:
            anchors: list[tuple[int, float, str]] = []
            for oid, made in self.products().items():
                proven = self.proven_type(made) or ""
                entry = self.lookup.entry(proven)
                if entry is None or any(entry.has_tag(t) for t in START_TAGS):
                    continue  # not proven, or a type the player may own without ordering it (the starting yard)
                first = self.lookup.commands(
                    (QUEUE_UNIT, START_STRUCTURE, PLACE_STRUCTURE), None, self.lookup.hashes(proven)
                )
                if first:
                    anchors.append((oid, first[0].seconds, proven))
            # for each anchor id: the latest first-order time among anchors up to it, and the anchor that has it
            best: list[tuple[int, tuple[float, int, str]]] = []
            for oid, seconds, proven in sorted(anchors):
                top = (seconds, oid, proven)
                best.append((oid, top if not best or seconds > best[-1][1][0] else best[-1][1]))
            self._anchors = best
        i = bisect.bisect_left(self._anchors, uid, key=lambda a: a[0])
        return self._anchors[i - 1][1] if i else None

    def made_by(self, uid: int) -> list[Entry]:
        """Knowledge entries (with known producers) that ``uid`` queued or researched as the factory."""
        return self.products().get(uid, [])

    def products(self) -> dict[int, list[Entry]]:
        """Per factory id, the knowledge entries (with known producers) it queued or researched (built once)."""
        if self._made is None:
            self._made = {}
            for c in (QUEUE_UNIT, START_UPGRADE):
                for e in self.lookup.by_command.get(c, ()):
                    factory = (e.actor_ids or e.object_ids)[:1]
                    entry = self.knowledge.lookup(e.type_hash) if self.knowledge and e.type_hash is not None else None
                    if not factory or entry is None or not entry.producers:
                        continue
                    made = self._made.setdefault(factory[0], [])
                    if entry not in made:
                        made.append(entry)
        return self._made
