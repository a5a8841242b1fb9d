"""Whether a unit claim's evidence lines name what the replay shows (plan §7.1, §7.5; issue 28 §2, §4).

An evidence line is ``kind|time|detail``. Each kind is looked up where the replay keeps it: a control group in the
group history, an order that made the unit (produce, build, place) among the orders of its player and type, a
protocol among the player's picks (:mod:`app.claims.protocol_picks`), anything else among the commands that name
the object. Moves carry no id and are not checked. A true claim with exactly one wrong citation is weak evidence,
not a contradiction (:meth:`EvidenceCheck.one_wrong_citation`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from app.claims.issues import Severity, ValidationIssue
from app.claims.kinds import EVENT_KINDS, EVIDENCE_CATEGORIES, EVIDENCE_KINDS
from app.claims.parse import unit_id_of
from app.claims.protocol_picks import ProtocolPickCheck
from app.claims.replay_lookup import ReplayCheck, ReplayLookup
from app.claims.roles import POWER_COMMANDS
from app.claims.time_match import EVENT_TOLERANCE_SECONDS, to_frames, within
from app.claims.timeparse import format_time, parse_time
from app.facts import OwnershipVerdict
from app.facts.model import TICKS_PER_SECOND
from app.i18n import tr

ORDER_EVIDENCE = frozenset({"produce", "build", "place"})
"""Evidence kinds that quote the order that made the unit (the new unit is not in the command)."""
TYPE_EVIDENCE = frozenset({"produce", "build", "place", "power"})
"""Evidence kinds that show what an object is (the order that made it, a power only its type has)."""
UNCHECKED_EVIDENCE = frozenset({"move"})
"""Moves carry coordinates and no id: nothing to check (the move-only rule covers them)."""

_GROUP_NUMBER = re.compile(r"\d+")
_ID_IN_TEXT = re.compile(r"#(\d+)")


@dataclass(frozen=True, slots=True)
class EvidenceItem:
    """One ``kind|time|detail`` evidence string of a unit claim."""

    kind: str
    seconds: float | None
    detail: str
    text: str = ""


def parse_evidence(items: Any) -> list[EvidenceItem]:
    """Parse evidence strings; anything that is not ``kind|time|detail`` keeps its text as the detail."""
    out: list[EvidenceItem] = []
    if not isinstance(items, list):
        items = [items] if items else []
    for raw in items:
        text = str(raw)
        parts = text.split("|", 2)
        kind = parts[0].strip().lower()
        seconds = parse_time(parts[1]) if len(parts) > 1 else None
        detail = parts[2].strip() if len(parts) > 2 else ""
        out.append(EvidenceItem(kind, seconds, detail, text))
    return out


class EvidenceCheck(ReplayCheck):
    """The evidence lines of unit claims against the replay."""

    def __init__(self, lookup: ReplayLookup, protocols: ProtocolPickCheck) -> None:
        super().__init__(lookup)
        self.protocols = protocols

    def one_wrong_citation(self, claim: dict[str, Any], issues: list[ValidationIssue], start: int) -> None:
        """A true claim with one wrong evidence citation is WeakEvidence, not a Contradiction (issue 28 §2).

        The claim is true when nothing else about it is wrong (its only issue above Info is that citation) and
        what the citation was to show is shown otherwise: a wrong type citation (produce, build, place, power)
        needs another type citation that checks out; a wrong ownership citation (a group, a selection…) needs
        another citation that checks out or the claimed player's strong ownership evidence in the replay.
        """
        mine = [(k, i) for k, i in enumerate(issues[start:], start) if i.needs_revision]
        if len(mine) != 1 or mine[0][1].code != "EvidenceNotFound" or mine[0][1].severity < Severity.CONTRADICTION:
            return
        k, wrong = mine[0]
        uid = unit_id_of(claim.get("unitId"))
        player = self.index.player_slot(str(claim.get("player", ""))) if claim.get("player") not in (None, "") else None
        if uid is None or player is None:
            return
        checked = [
            e
            for e in parse_evidence(claim.get("evidence"))
            if e.kind not in UNCHECKED_EVIDENCE and e.kind != "protocol" and e.seconds is not None
        ]
        bad = next((e for e in checked if e.text in wrong.message), None)
        if bad is None:
            return
        others = [e for e in checked if e is not bad]
        if bad.kind in TYPE_EVIDENCE:  # the type rests on it: another citation must show the type
            backed = any(e.kind in TYPE_EVIDENCE for e in others)
        else:  # ownership rests on it: the replay's own strong evidence, or another citation, backs the claim
            backed = bool(others) or self.index.check_ownership(uid, player) is OwnershipVerdict.CONFIRMED_STRONG
        if not backed:
            return
        issues[k] = replace(
            wrong,
            severity=Severity.WEAK_EVIDENCE,
            message=wrong.message + tr(self.lang, " (the claim itself checks out; only this citation is wrong)"),
        )

    def check_line(
        self,
        uid: int,
        player: int | None,
        type_name: str | None,
        e: EvidenceItem,
        *,
        where: str,
        ref: str,
        issues: list[ValidationIssue],
    ) -> None:
        """An evidence line must name something the replay shows (moves excepted)."""
        if e.kind in UNCHECKED_EVIDENCE:
            return
        if e.kind == "protocol":
            self.protocols.check(player, e.detail, e.seconds, where=where, ref=ref, issues=issues)
            return
        if e.seconds is None:
            if e.kind in EVIDENCE_KINDS:
                issues.append(
                    ValidationIssue(
                        Severity.INFO,
                        "EvidenceTimeUnreadable",
                        tr(self.lang, "{where}: evidence {text!r} has no readable time", where=where, text=e.text),
                        unit_id=uid,
                        claim=ref,
                    )
                )
            return
        found, fact = self._evidence_found(uid, player, type_name, e)
        if found:
            return
        issues.append(
            ValidationIssue(
                Severity.CONTRADICTION
                if e.kind in ("group", "produce", "build", "place", "power")
                else Severity.WARNING,
                "EvidenceNotFound",
                tr(
                    self.lang,
                    "{where}: evidence {text!r} is not in the replay ({fact})",
                    where=where,
                    text=e.text,
                    fact=fact,
                ),
                time_seconds=e.seconds,
                unit_id=uid,
                claim=ref,
                fact=fact,
            )
        )

    def _build_seconds(self, type_name: str | None) -> float | None:
        """The knowledge's build time of a type: the least time from its order to the unit (None: unknown).

        Why per type (issue 28 §4): one threshold for every unit fell between two claims of the evaluation; what a
        unit takes is the game's number. Power shortage only slows production down, so the time is a floor. A type
        whose time the knowledge does not give is never judged by it.
        """
        e = self.lookup.entry(type_name) if type_name else None
        return e.build_time if e is not None and e.build_time else None

    def _evidence_found(self, uid: int, player: int | None, type_name: str | None, e: EvidenceItem) -> tuple[bool, str]:
        assert e.seconds is not None
        t = e.seconds
        at = format_time(t)
        if e.kind == "group":
            m = _GROUP_NUMBER.search(e.detail)
            group = int(m.group()) if m else None
            if self._in_group(uid, group, t):
                return True, ""
            hint = self._group_hint(uid)
            return False, self._m(
                f"{at} 时 #{uid} 不在{'编队 ' + str(group) if group is not None else '任何编队'}中{hint}",
                f"#{uid} is not in {'group ' + str(group) if group is not None else 'any control group'} at {at}{hint}",
            )
        if e.kind in ORDER_EVIDENCE:
            named = self._detail_type(e.detail)
            cmds = EVENT_KINDS[e.kind]
            hits = self.lookup.commands(cmds, player, self.lookup.hashes(named))
            near = [ev for ev in hits if within(t, ev.time_code, EVENT_TOLERANCE_SECONDS)]
            if near:
                if any(uid in ev.object_ids for ev in near):
                    return True, ""  # the object is the factory / constructor of that order
                if named and type_name and e.kind == "produce" and named != type_name:
                    return False, tr(
                        self.lang,
                        "the order at {at} is for {named}, but the claimed type is {type_name}",
                        at=at,
                        named=named,
                        type_name=type_name,
                    )
                seen = self.index.first_seen(uid)
                built = self._build_seconds(named or type_name)
                if e.kind == "produce" and seen is not None and built is not None and seen < t + built:
                    what = named or type_name
                    return False, tr(
                        self.lang,
                        "#{uid} already appears at {seen}, {max:.1f} s after that order; a {what} takes "
                        "{built:g} s to build (knowledge), so that order did not make it",
                        uid=uid,
                        seen=format_time(seen),
                        max=max(0.0, seen - t),
                        what=what,
                        built=built,
                    )
                return True, ""
            if any(
                uid in ev.object_ids and within(t, ev.time_code, EVENT_TOLERANCE_SECONDS)
                for ev in self.lookup.commands(cmds, player, None)
            ):
                return True, ""  # the object is the factory / constructor of that order
            what = named or e.kind
            actual = self.lookup.times(hits, t) if hits else ""
            return False, self._m(
                f"{at} 附近没有 {what} 的{e.kind}指令" + (f"；实际时间 {actual}" if actual else ""),
                f"no {e.kind} order of {what} near {at}" + (f"; orders at {actual}" if actual else ""),
            )
        cats = EVIDENCE_CATEGORIES.get(e.kind)
        named = self._detail_type(e.detail) if e.kind == "power" else None
        hashes = self.lookup.hashes(named)
        # the line may be about the object itself or about another object its detail names ("… #626")
        for oid in (uid, *(int(x) for x in _ID_IN_TEXT.findall(e.detail))):
            for ev in self.index.events_for_object(oid):
                if (
                    (cats is None or ev.category in cats)
                    and within(t, ev.time_code, EVENT_TOLERANCE_SECONDS)
                    and (hashes is None or ev.type_hash in hashes)
                ):
                    return True, ""
        if e.kind == "power" and hashes:
            for ev in self.lookup.commands(POWER_COMMANDS, player, hashes):
                if within(t, ev.time_code, EVENT_TOLERANCE_SECONDS) and (self.lookup.unread(ev) or not ev.actor_ids):
                    # the record names no source (Tiberium Wars' unpack 0x21C) or its layout is not read for this
                    # game: who cast it is undecidable, so the citation is not wrong
                    return True, ""
        return False, tr(self.lang, "no {kind} command names #{uid} near {at}", kind=e.kind, uid=uid, at=at)

    def _detail_type(self, detail: str) -> str | None:
        """The first internal name an evidence detail mentions ("SpecialPower_X #626" → SpecialPower_X)."""
        for token in re.split(r"[\s,;，；()（）]+", detail):
            name = self.lookup.type_name(token)
            if name:
                return name
        return None

    def _in_group(self, uid: int, group: int | None, t: float) -> bool:
        tc_lo = to_frames(t) - round(EVENT_TOLERANCE_SECONDS * TICKS_PER_SECOND)
        tc_hi = to_frames(t) + round(EVENT_TOLERANCE_SECONDS * TICKS_PER_SECOND)
        for p in self.index.players:
            for g in self.index.groups_of(p.slot):
                if group is not None and g != group:
                    continue
                hist = self.index.group_history(p.slot, g)
                for k, state in enumerate(hist):
                    end = hist[k + 1].time_code if k + 1 < len(hist) else 1 << 30
                    if uid in state.members and state.time_code <= tc_hi and end >= tc_lo:
                        return True
        return False

    def _group_hint(self, uid: int) -> str:
        spans = [
            (p.slot, g, s.seconds)
            for p in self.index.players
            for g in self.index.groups_of(p.slot)
            for s in self.index.group_history(p.slot, g)
            if uid in s.members
        ]
        if not spans:
            return tr(self.lang, "; it was never put in a control group")
        shown = ", ".join(f"{g}@{format_time(sec)}" for _p, g, sec in spans[:3])
        return tr(self.lang, "; it was assigned to group {shown}", shown=shown)
