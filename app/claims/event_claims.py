"""Event claims: an order of a kind, by a player, at a time (plan §7.2, §7.3; issue 21).

A claim may also name a type, an actor and a target. :class:`EventClaimChecker` looks the order up among the
player's orders of that kind (and type) within 2 s; when it is not there it says what the log has instead (the same
order at another time, another player's order at that time, the line of that kind at the claimed time). A protocol
is checked by :mod:`app.claims.protocol_picks`; the type a sell or repair names must fit the object
(:mod:`app.claims.type_proofs`); the actor and the target are held against the roles the matching records give
them (:mod:`app.claims.roles`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.claims.issues import Severity, ValidationIssue
from app.claims.kinds import EVENT_KINDS, KIND_ALIASES, NAMED_KINDS, OBJECT_KINDS
from app.claims.parse import unit_id_of
from app.claims.protocol_picks import ProtocolPickCheck
from app.claims.replay_lookup import ReplayCheck, ReplayLookup
from app.claims.roles import POWER_COMMANDS, Roles, roles_of
from app.claims.time_match import EVENT_TOLERANCE_SECONDS, within
from app.claims.timeparse import format_time, parse_time
from app.claims.type_proofs import TypeProofs
from app.facts.model import FactEvent
from app.i18n import Lang, tr

KIND_WORDS = frozenset({*EVENT_KINDS, *KIND_ALIASES, "event", "order", "unit", "structure", "building"})
"""Words that name an event's kind, not a type: a ``name`` equal to one of them (``"name": "sell"``) is no name."""


def claim_actor(claim: dict[str, Any]) -> tuple[Any, bool]:
    """The actor id value of an event claim and whether it was given as ``actorId`` (``unitId`` is its alias)."""
    for key in ("actorId", "actor"):
        if claim.get(key) not in (None, ""):
            return claim[key], True
    for key in ("unitId", "caster"):
        if claim.get(key) not in (None, ""):
            return claim[key], False
    return None, False


class EventClaimChecker(ReplayCheck):
    """Checks the event claims of a reply, one at a time."""

    def __init__(self, lookup: ReplayLookup, proofs: TypeProofs, protocols: ProtocolPickCheck) -> None:
        super().__init__(lookup)
        self.proofs = proofs
        self.protocols = protocols

    def check(self, claim: dict[str, Any], n: int, issues: list[ValidationIssue]) -> None:
        """Event claim ``n``: its issues appended to ``issues``."""
        where = tr(self.lang, "event claim {n}", n=n + 1)
        ref = f"event:{n}"
        raw_kind = str(claim.get("kind", "")).strip().lower()
        kind = KIND_ALIASES.get(raw_kind, raw_kind)
        seconds = parse_time(str(claim.get("time", ""))) if claim.get("time") is not None else None
        player = self.lookup.player(claim.get("player"), issues, where, ref)
        actor_value, explicit = claim_actor(claim)
        actor = unit_id_of(actor_value)
        target = unit_id_of(claim.get("targetId"))
        for uid in (actor, target):
            if uid is not None and not self.lookup.exists(uid, issues, where, ref):
                return
        name = str(claim.get("name", "")).strip()
        if name and name.lower() in KIND_WORDS:  # "name": "sell" repeats the kind: it names no type
            issues.append(
                ValidationIssue(
                    Severity.INFO,
                    "NameIsKind",
                    tr(
                        self.lang,
                        "{where}: name {name!r} is the event kind, not an internal name (leave name out when the "
                        "log shows no type)",
                        where=where,
                        name=name,
                    ),
                    claim=ref,
                )
            )
            name = ""
        if kind == "protocol":
            self.protocols.check(player, name, seconds, where=where, ref=ref, issues=issues, event=True)
            return
        if kind not in EVENT_KINDS:
            issues.append(
                ValidationIssue(
                    Severity.INFO,
                    "UnknownEventKind",
                    tr(self.lang, "{where}: unknown event kind {raw_kind!r}", where=where, raw_kind=raw_kind),
                    claim=ref,
                )
            )
            return
        type_hashes: frozenset[int] | None = None
        type_name = self.lookup.type_name(name) if name else None
        if name and type_name is None and (kind in NAMED_KINDS or actor is not None):
            self.lookup.unknown_type(name, where, issues, ref)
            return
        if type_name and kind in NAMED_KINDS:
            type_hashes = self.lookup.hashes(type_name)
        if kind == "power" and actor is not None and player is not None:
            acted = [
                e
                for e in self.lookup.commands(POWER_COMMANDS, None, None)
                if (r := self.lookup.known_roles(e)) is not None and r.acts(actor)
            ]
            if acted and all(e.player != player for e in acted):
                actual = self.index.player_name(acted[0].player)
                fact = tr(
                    self.lang,
                    "#{actor} cast powers for {actual} at {times}",
                    actor=actor,
                    actual=actual,
                    times=self.lookup.times(acted, seconds),
                )
                issues.append(
                    ValidationIssue(
                        Severity.CONTRADICTION,
                        "CasterContradiction",
                        tr(
                            self.lang,
                            "{where}: #{actor} cast powers for {actual}, not {player}",
                            where=where,
                            actor=actor,
                            actual=actual,
                            player=self.index.player_name(player),
                        ),
                        time_seconds=acted[0].seconds,
                        unit_id=actor,
                        claim=ref,
                        fact=fact,
                    )
                )
                return
        candidates = self.lookup.commands(EVENT_KINDS[kind], player, type_hashes)
        if kind in ("sell", "repair") and actor is not None:
            candidates = [e for e in candidates if actor in e.object_ids]
        who = self.index.player_name(player) if player is not None else tr(self.lang, "any player")
        what = name or (f"#{actor}" if actor is not None else kind)
        near = (
            candidates
            if seconds is None
            else [e for e in candidates if within(seconds, e.time_code, EVENT_TOLERANCE_SECONDS)]
        )
        if not near and self._other_player(kind, player, type_hashes, actor, seconds, where, ref, issues):
            return
        if not near:
            # what the log has instead: this player's orders of that type elsewhere, and the line of that kind at
            # the claimed time (another type, e.g. the 8:03.80 line that queued a Tech1 tank)
            at_time = (
                [
                    e
                    for e in self.lookup.commands(EVENT_KINDS[kind], player, None)
                    if within(seconds, e.time_code, EVENT_TOLERANCE_SECONDS)
                ]
                if seconds is not None and player is not None
                else []
            )
            line = self.lookup.nearest_line(at_time, seconds)
            said = f"{who} {kind} {what}" + (f" {format_time(seconds)}" if seconds is not None else "")
            at: float | None = seconds
            if candidates:
                assert seconds is not None
                fact = tr(
                    self.lang,
                    "{who}'s {kind} orders for {what} are at {times}",
                    who=who,
                    kind=kind,
                    what=what,
                    times=self.lookup.times(candidates, seconds),
                )
                code, at = "EventTimeMismatch", min(candidates, key=lambda e: abs(e.seconds - seconds)).seconds
                wrong = tr(self.lang, "{said}: no such line within 2 s; {fact}", said=said, fact=fact)
            else:
                fact = tr(self.lang, "{who} never issued a {kind} order for {what}", who=who, kind=kind, what=what)
                code, wrong = "EventNotObserved", tr(self.lang, "{said}: {fact}", said=said, fact=fact)
            if line:
                fact += tr(self.lang, "; the log at that time: {line}", line=line)
                wrong += tr(self.lang, "; the log at that time: {line}", line=line)
            issues.append(
                ValidationIssue(
                    Severity.CONTRADICTION,  # the prompt: more than 2 s off, or no such line, is an error
                    code,
                    f"{where}：{wrong}" if self.lang is Lang.ZH else f"{where}: {wrong}",
                    time_seconds=at,
                    unit_id=actor,
                    claim=ref,
                    fact=fact,
                )
            )
            return
        if kind in OBJECT_KINDS and actor is not None and type_name:
            # a sell or repair names the object's type: it must agree with what the replay proves about the object
            self.proofs.type_fits_object(actor, near[0].player, type_name, where=where, ref=ref, issues=issues)
        if actor is not None or target is not None:
            self._roles(
                kind,
                actor,
                target,
                explicit=explicit,
                near=near,
                candidates=candidates,
                where=where,
                ref=ref,
                issues=issues,
            )

    def _other_player(  # noqa: PLR0917 - the event claim's parts
        self,
        kind: str,
        player: int | None,
        type_hashes: frozenset[int] | None,
        actor: int | None,
        seconds: float | None,
        where: str,
        ref: str,
        issues: list[ValidationIssue],
    ) -> bool:
        """A wrong player: the claimed order is in the log at that time, but another player's (a Contradiction).

        Returns:
            True when it found one (the issue is added).
        """
        if player is None or seconds is None or (type_hashes is None and (actor is None or kind not in OBJECT_KINDS)):
            return False  # an order without a type or an object could be any other order: no wrong player to name
        theirs = [
            e
            for e in self.lookup.commands(EVENT_KINDS[kind], None, type_hashes)
            if e.player != player
            and within(seconds, e.time_code, EVENT_TOLERANCE_SECONDS)
            and (actor is None or actor in e.object_ids or kind not in OBJECT_KINDS)
        ]
        if not theirs:
            return False
        line = self.lookup.nearest_line(theirs, seconds)
        at = seconds
        other = self.index.player_name(min(theirs, key=lambda e: abs(e.seconds - at)).player)
        who = self.index.player_name(player)
        fact = tr(self.lang, "the log at that time: {line}", line=line)
        own = self.lookup.commands(EVENT_KINDS[kind], player, type_hashes)
        own = [e for e in own if actor is None or kind not in OBJECT_KINDS or actor in e.object_ids]
        if own:  # the claimed player's own orders of it elsewhere: the time may be what is wrong
            fact += tr(
                self.lang, "; {who}'s own such orders are at {times}", who=who, times=self.lookup.times(own, seconds)
            )
        issues.append(
            ValidationIssue(
                Severity.CONTRADICTION,
                "PlayerMismatch",
                tr(
                    self.lang,
                    "{where}: wrong player: the {kind} order at {seconds} is {other}'s, not {who}'s; {fact}",
                    where=where,
                    kind=kind,
                    seconds=format_time(seconds),
                    other=other,
                    who=who,
                    fact=fact,
                ),
                time_seconds=theirs[0].seconds,
                unit_id=actor,
                claim=ref,
                fact=fact,
            )
        )
        return True

    def _roles(
        self,
        kind: str,
        actor: int | None,
        target: int | None,
        *,
        explicit: bool,
        near: Sequence[FactEvent],
        candidates: Sequence[FactEvent],
        where: str,
        ref: str,
        issues: list[ValidationIssue],
    ) -> None:
        """Check the actor and the target of an event claim against the matching records (issue 21)."""
        roles = [(e, r) for e in near if (r := self.lookup.known_roles(e)) is not None]
        if not roles:
            return  # the matching orders do not say who acted on whom: nothing decides the actor or the target
        candidates = [e for e in candidates if not self.lookup.unread(e)]
        first, first_roles = roles[0]
        at = format_time(first.seconds)

        def describe(r: Roles) -> str:
            src = " ".join(f"#{i}" for i in (*r.actors, *r.either)) or tr(self.lang, "the player")
            tgt = " ".join(f"#{i}" for i in r.targets)
            return self._m(
                f"来源（施放/执行者）{src}" + (f"，目标 {tgt}" if tgt else ""),
                f"source (actor) {src}" + (f", target {tgt}" if tgt else ""),
            )

        fact = tr(self.lang, "the record at {at}: ", at=at) + describe(first_roles)
        if actor is not None and not any(r.acts(actor) for _e, r in roles):
            swapped = any(r.is_target(actor) for _e, r in roles)
            if swapped:
                issues.append(
                    ValidationIssue(
                        Severity.CONTRADICTION,
                        "CasterTargetConfusion",
                        tr(
                            self.lang,
                            "{where}: #{actor} is the target of this power, not its source (actorId is the one that "
                            "acts, the target goes in targetId); {fact}",
                            where=where,
                            actor=actor,
                            fact=fact,
                        ),
                        time_seconds=first.seconds,
                        unit_id=actor,
                        claim=ref,
                        fact=fact,
                    )
                )
            elif kind in ("produce", "build", "place") and not explicit:
                issues.append(
                    ValidationIssue(
                        Severity.INFO,
                        "ActorAmbiguous",
                        tr(
                            self.lang,
                            "{where}: #{actor} is not the factory or constructor of this order (the new unit's id is "
                            "not in the command); {fact}",
                            where=where,
                            actor=actor,
                            fact=fact,
                        ),
                        unit_id=actor,
                        claim=ref,
                    )
                )
            elif any(roles_of(e, self.index.replay.game).acts(actor) for e in candidates):
                times = self.lookup.times(
                    [e for e in candidates if roles_of(e, self.index.replay.game).acts(actor)], first.seconds
                )
                issues.append(
                    ValidationIssue(
                        Severity.CONTRADICTION,  # a wrong actor for the order at that time
                        "ActorMismatch",
                        tr(
                            self.lang,
                            "{where}: wrong actorId: #{actor} did not issue the order at {at} (it issued such orders "
                            "at {times}); {fact}",
                            where=where,
                            actor=actor,
                            at=at,
                            times=times,
                            fact=fact,
                        ),
                        time_seconds=first.seconds,
                        unit_id=actor,
                        claim=ref,
                        fact=fact,
                    )
                )
            else:
                issues.append(
                    ValidationIssue(
                        Severity.CONTRADICTION,
                        "ActorMismatch",
                        tr(
                            self.lang,
                            "{where}: wrong actorId: #{actor} never issued this order; {fact}",
                            where=where,
                            actor=actor,
                            fact=fact,
                        ),
                        time_seconds=first.seconds,
                        unit_id=actor,
                        claim=ref,
                        fact=fact,
                    )
                )
            return
        if target is not None and not any(r.is_target(target) for _e, r in roles):
            swapped = any(r.acts(target) and (actor is None or r.is_target(actor)) for _e, r in roles)
            issues.append(
                ValidationIssue(
                    Severity.CONTRADICTION,  # a wrong target, or source and target swapped
                    "CasterTargetConfusion" if swapped else "TargetMismatch",
                    self._m(
                        f"{where}：targetId 错了：#{target} 不是这条指令的目标"
                        + ("，它是施放者" if swapped else "")
                        + f"；{fact}",
                        f"{where}: wrong targetId: #{target} is not the target of this order"
                        + (", it is the source" if swapped else "")
                        + f"; {fact}",
                    ),
                    time_seconds=first.seconds,
                    unit_id=target,
                    claim=ref,
                    fact=fact,
                )
            )
