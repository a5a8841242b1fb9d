"""Whether the type a unit claim gives fits what the object did and what its player produced (plan §7.6).

Each rule answers "can #id be a X?" from one kind of fact: the unit abilities it alone cast (knowledge
``usedBy``), the yard/crane/MCV chains (:mod:`app.claims.yards`), what its orders show it doing
(:mod:`app.claims.factories`), where it came from (:mod:`app.claims.producers`), an Empire core's place in its
yard's queue, whether its player ever ordered the type, and whether it was operated before the type's first
order. What the object's products and id order prove is :mod:`app.claims.type_proofs`, asked here in its place in
the sequence (the order of the rules is the order of the issues).
"""

from __future__ import annotations

from collections.abc import Sequence

from app.claims.evidence_lines import ORDER_EVIDENCE, EvidenceItem
from app.claims.factories import Deed, deeds, misfit
from app.claims.issues import Severity, ValidationIssue
from app.claims.producers import deployed_not_building, no_producer_held, pack_vehicles, unordered_mcv
from app.claims.replay_lookup import ReplayCheck, ReplayLookup
from app.claims.roles import POWER_COMMANDS, roles_of
from app.claims.time_match import FRAME_SLACK, to_frames
from app.claims.timeparse import format_time
from app.claims.type_proofs import START_TAGS, TypeProofs
from app.claims.yards import Proof, base_kind, base_proofs, contradiction
from app.facts.chains import UNPACK_POWER_HASHES
from app.facts.roles import role_of
from app.i18n import tr
from app.replay.commands import POWER_WITH_FACING, QUEUE_UNIT


class UnitTypeRules(ReplayCheck):
    """The rules a unit claim's type must pass, run in their fixed order by :meth:`check`."""

    def __init__(self, lookup: ReplayLookup, proofs: TypeProofs) -> None:
        super().__init__(lookup)
        self.proofs = proofs
        self._base: dict[int, list[Proof]] | None = None
        self._deeds: dict[int, list[Deed]] | None = None

    def check(
        self,
        uid: int,
        player: int | None,
        type_name: str,
        evidence: Sequence[EvidenceItem],
        *,
        where: str,
        ref: str,
        issues: list[ValidationIssue],
    ) -> None:
        """Every rule on the claimed type of ``uid``; those about its player only when the claim names one."""
        self._abilities_fit(uid, type_name, where, ref, issues)
        self._base_class_fits(uid, type_name, where=where, ref=ref, issues=issues)
        self._deeds_fit(uid, type_name, where=where, ref=ref, issues=issues)
        if player is None:
            return
        self._origin_fits(uid, player, type_name, where=where, ref=ref, issues=issues)
        self._core_in_order(uid, player, type_name, where=where, ref=ref, issues=issues)
        self._type_produced(uid, player, type_name, where=where, ref=ref, issues=issues)
        if self.proofs.type_fits_object(uid, player, type_name, where=where, ref=ref, issues=issues):
            self._operated_before_produced(uid, player, type_name, evidence, where=where, ref=ref, issues=issues)

    def _type_produced(
        self, uid: int, player: int, type_name: str, *, where: str, ref: str, issues: list[ValidationIssue]
    ) -> None:
        """A unit typed as something its player never ordered (starting and free types excepted)."""
        if self.lookup.ordered(player, type_name):
            return
        entry = self.lookup.entry(type_name)
        if entry is None or entry.kind not in ("unit", "structure") or not entry.producers:
            return  # not a buildable type we know (spawned, captured, tech building): nothing to hold against
        if any(entry.has_tag(t) for t in START_TAGS):
            return
        who = self.index.player_name(player)
        others = [p.name for p in self.index.playing if p.slot != player and self.lookup.ordered(p.slot, type_name)]
        fact = tr(self.lang, "{who} never ordered {type_name}", who=who, type_name=type_name)
        if others:
            fact += tr(self.lang, "; {others} did", others=", ".join(others))
        issues.append(
            ValidationIssue(
                Severity.CONTRADICTION if others else Severity.WARNING,
                "TypeNeverProduced",
                tr(
                    self.lang,
                    "{where}: #{uid} is typed {type_name} for {who}, but {fact}",
                    where=where,
                    uid=uid,
                    type_name=type_name,
                    who=who,
                    fact=fact,
                ),
                unit_id=uid,
                claim=ref,
                fact=fact,
            )
        )

    def _abilities_fit(self, uid: int, type_name: str, where: str, ref: str, issues: list[ValidationIssue]) -> None:
        """A unit that alone cast a unit ability its claimed type cannot use (knowledge ``usedBy``) is mistyped.

        Only casts with a single source count: a multi-unit ability command lists the whole selection.
        """
        if self.knowledge is None:
            return
        game = self.index.replay.game
        for ev in self.index.events_for_object(uid):
            if role_of(game, ev.command_id)[0] not in POWER_COMMANDS or ev.type_hash is None:
                continue
            roles = self.lookup.known_roles(ev)  # by the order's role in its game; None where its layout is not read
            if roles is None or roles.actors != (uid,):
                continue
            entry = self.knowledge.lookup(ev.type_hash)
            if entry is None or not entry.has_tag("unit_ability") or not entry.producers:
                continue
            if type_name not in entry.producers:
                fact = tr(
                    self.lang,
                    "#{uid} alone cast {id} at {seconds}; only {producers} can use it",
                    uid=uid,
                    id=entry.id,
                    seconds=format_time(ev.seconds),
                    producers=", ".join(entry.producers),
                )
                issues.append(
                    self.lookup.not_of_type(
                        "AbilityNotOfType", uid, type_name, fact, where=where, ref=ref, at=ev.seconds
                    )
                )
                return

    def _base_class_fits(
        self, uid: int, type_name: str, *, where: str, ref: str, issues: list[ValidationIssue]
    ) -> None:
        """A yard, crane or MCV claim against what the pack chains and build orders prove (app.claims.yards)."""
        kind = base_kind(type_name, self.lookup.entry(type_name))
        if kind is None:
            return
        if self._base is None:
            self._base = base_proofs(self.index)
        proof = contradiction(kind, self._base.get(uid, []))
        if proof is not None:
            fact = self._m(proof.zh, proof.en)
            issues.append(
                self.lookup.not_of_type(
                    "BaseClassMismatch", uid, type_name, fact, where=where, ref=ref, at=proof.seconds
                )
            )

    def _deeds_fit(self, uid: int, type_name: str, *, where: str, ref: str, issues: list[ValidationIssue]) -> None:
        """A type that cannot do what the object's orders show it doing (app.claims.factories)."""
        entry = self.lookup.entry(type_name)
        if entry is None or self.knowledge is None:
            return
        if self._deeds is None:
            self._deeds = deeds(self.index, self.knowledge)
        deed = misfit(entry, self._deeds.get(uid, []))
        if deed is not None:
            fact = self._m(deed.zh, deed.en)
            issues.append(
                self.lookup.not_of_type("TypeCannotDo", uid, type_name, fact, where=where, ref=ref, at=deed.seconds)
            )

    def _origin_fits(
        self, uid: int, player: int, type_name: str, *, where: str, ref: str, issues: list[ValidationIssue]
    ) -> None:
        """Where the object came from, against the claimed type (app.claims.producers): the first rule that decides."""
        entry = self.lookup.entry(type_name)
        if entry is None or self.knowledge is None:
            return
        after = self.proofs.created_after(uid)
        found = [("DeployedNotBuilding", deployed_not_building(self.index, uid, entry, self.lookup.unread))]
        if found[-1][1] is None:
            proven = self.proofs.proven_types()
            held = no_producer_held(self.index, self.knowledge, uid, player, entry, created_after=after, proven=proven)
            found.append(("NoProducerHeld", held))
        if found[-1][1] is None:
            explained = pack_vehicles(self.index)
            mcv = unordered_mcv(
                self.index,
                uid,
                player,
                entry=entry,
                created_after=after,
                ordered=self.lookup.ordered,
                explained=explained,
                knowledge=self.knowledge,
            )
            found.append(("UnorderedMcv", mcv))
        code, origin = found[-1]
        if origin is not None:
            fact = self._m(origin.zh, origin.en)
            issues.append(self.lookup.not_of_type(code, uid, type_name, fact, where=where, ref=ref, at=origin.seconds))

    def _core_in_order(
        self, uid: int, player: int, type_name: str, *, where: str, ref: str, issues: list[ValidationIssue]
    ) -> None:
        """An Empire core must come from an order its place in the queue allows.

        A yard builds its cores one after another in the order they were queued, and object ids grow with creation
        time. So when ``k`` cores of the player (ids that deployed with the unpack power, newer than the first yard)
        have smaller ids than ``uid``, at least ``k`` cores were made before it: it comes from the ``k``-th core
        order or a later one, issued before ``uid`` first appears. Checked only while the player's core orders go
        to one yard at a time (with two yards working together the completion order is not the queue order).
        """
        entry = self.lookup.entry(type_name)
        if self.knowledge is None or entry is None or not entry.unpacks_to or not entry.has_tag("core"):
            return
        seen = self.index.first_seen(uid)
        if seen is None:
            return
        cores = {e.id for e in self.knowledge if e.unpacks_to and e.has_tag("core")}
        core_hashes = {self.lookup.hash_of(c) for c in cores}
        orders = [
            e
            for e in self.lookup.commands((QUEUE_UNIT,), player, frozenset(h for h in core_hashes if h is not None))
            if e.object_ids and e.seconds <= seen
            for _ in range(self.index.batch(e.command_index))  # a shift-click order queues five cores
        ]
        yards = [e.object_ids[0] for e in orders]
        blocks = [y for k, y in enumerate(yards) if k == 0 or yards[k - 1] != y]
        if not orders or len(blocks) != len(set(blocks)):
            return  # no core orders, or two yards took turns
        chained = {st.object_id for ch in self.index.pack_chains for st in ch.steps}
        deployed = {
            oid
            for ev in self.lookup.by_command.get(POWER_WITH_FACING, ())
            if ev.player == player and ev.type_hash in UNPACK_POWER_HASHES and not self.lookup.unread(ev)
            for oid in roles_of(ev, self.index.replay.game).actors
            if oid > yards[0] and oid not in chained
        }
        k = sum(1 for oid in deployed if oid < uid)
        allowed = [e for e in orders[k:] if e.type_hash in (self.lookup.hashes(type_name) or ())]
        if allowed:
            return
        names = ", ".join(f"{self.index.name_of(e.type_hash or 0)} {format_time(e.seconds)}" for e in orders[k : k + 3])
        fact = self._m(
            f"{self.index.player_name(player)} 有 {k} 个编号更小的核心已经展开，#{uid} 至少是第 {k + 1} 个造出的核心；"
            f"{format_time(seen)} 之前的第 {k + 1} 条及以后的核心指令是：{names or '无'}",
            f"{k} cores of {self.index.player_name(player)} with smaller ids deployed, so #{uid} is at least core "
            f"number {k + 1}; the core orders from number {k + 1} on before {format_time(seen)} are: {names or 'none'}",
        )
        issues.append(self.lookup.not_of_type("CoreOrderMismatch", uid, type_name, fact, where=where, ref=ref))

    def _operated_before_produced(
        self,
        uid: int,
        player: int,
        type_name: str,
        evidence: Sequence[EvidenceItem],
        *,
        where: str,
        ref: str,
        issues: list[ValidationIssue],
    ) -> None:
        first = self.lookup.first_of(player, type_name)
        if first is None:
            return  # pre-placed or starting units (MCV, starting infantry) have no production record
        entry = self.lookup.entry(type_name)
        if entry is not None and any(entry.has_tag(t) for t in START_TAGS):
            return  # a refinery's free miner, the starting MCV: they exist before any order of their type
        # produce/build/place evidence quotes the order that made the unit, not the unit being operated
        times = [e.seconds for e in evidence if e.seconds is not None and e.kind not in ORDER_EVIDENCE]
        seen = self.index.first_seen(uid)
        operated = min([*times, *([seen] if seen is not None else [])], default=None)
        if operated is not None and to_frames(operated) + FRAME_SLACK < first.time_code:
            fact = tr(
                self.lang,
                "{player} first ordered {type_name} at {seconds}",
                player=self.index.player_name(player),
                type_name=type_name,
                seconds=format_time(first.seconds),
            )
            issues.append(
                ValidationIssue(
                    Severity.CONTRADICTION,
                    "OperatedBeforeProduced",
                    tr(
                        self.lang,
                        "{where}: #{uid} is operated at {operated}, before {player} first produced {type_name} "
                        "({seconds})",
                        where=where,
                        uid=uid,
                        operated=format_time(operated),
                        player=self.index.player_name(player),
                        type_name=type_name,
                        seconds=format_time(first.seconds),
                    ),
                    time_seconds=operated,
                    unit_id=uid,
                    claim=ref,
                    fact=fact,
                )
            )
