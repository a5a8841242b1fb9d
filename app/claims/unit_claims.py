"""Unit claims: an object id, its owner, its type and the evidence for them (plan §7.1, §7.5, §7.6).

:class:`UnitClaimChecker` reads one claim and runs its parts in a fixed order (the order of the issues): the
object exists, the claimed owner against the ownership evidence (here: strong and weak evidence, an object that
changed hands), move-only certainty, the type name, each evidence line (:mod:`app.claims.evidence_lines`), and
the rules on the type (:mod:`app.claims.unit_types`). Last, a true claim with one wrong citation is downgraded.
"""

from __future__ import annotations

from typing import Any

from app.claims.evidence_lines import EvidenceCheck, parse_evidence
from app.claims.issues import Severity, ValidationIssue
from app.claims.parse import unit_id_of
from app.claims.replay_lookup import ReplayCheck, ReplayLookup
from app.claims.timeparse import format_time
from app.claims.unit_types import UnitTypeRules
from app.facts import OwnerChange, OwnershipVerdict
from app.facts.model import TICKS_PER_SECOND
from app.i18n import tr

HIGH_CONFIDENCE = frozenset({"confirmed", "highly likely", "highly_likely", "确定", "高度可能"})
_ROLE_WORDS = {
    "group_member": ("把它编入编队", "put it in a control group"),
    "group_recall": ("调用含它的编队", "recalled a group holding it"),
    "builder": ("用它建造建筑", "built a structure with it"),
    "factory": ("用它生产单位", "queued a unit at it"),
    "repair": ("修理它", "repaired it"),
    "sell": ("出售它", "sold it"),
    "upgrade": ("在它上面升级", "upgraded it"),
    "rally": ("设置它的集结点", "set its rally point"),
    "harvester": ("命令它采矿", "sent it to harvest"),
    "dock": ("把矿车派往它", "sent harvesters to it"),
    "caster": ("用它施放技能", "cast a power with it"),
}
"""How an evidence role reads in a message (the order that shows the owner)."""


class UnitClaimChecker(ReplayCheck):
    """Checks the unit claims of a reply, one at a time."""

    def __init__(self, lookup: ReplayLookup, evidence: EvidenceCheck, types: UnitTypeRules) -> None:
        super().__init__(lookup)
        self.evidence = evidence
        self.types = types

    def check(self, claim: dict[str, Any], n: int, issues: list[ValidationIssue]) -> None:
        """Unit claim ``n``: its issues appended to ``issues``."""
        start = len(issues)
        self._unit_claim(claim, n, issues)
        self.evidence.one_wrong_citation(claim, issues, start)

    def _unit_claim(self, claim: dict[str, Any], n: int, issues: list[ValidationIssue]) -> None:
        where = tr(self.lang, "unit claim {n}", n=n + 1)
        ref = f"unit:{n}"
        uid = unit_id_of(claim.get("unitId"))
        if uid is None:
            issues.append(
                ValidationIssue(
                    Severity.INFO,
                    "UnitIdUnreadable",
                    tr(
                        self.lang,
                        "{where}: unitId {value!r} is not an object id",
                        where=where,
                        value=claim.get("unitId"),
                    ),
                    claim=ref,
                )
            )
            return
        if not self.lookup.exists(uid, issues, where, ref):
            return
        confidence = str(claim.get("confidence", "")).strip().lower()
        high = confidence in HIGH_CONFIDENCE
        evidence = parse_evidence(claim.get("evidence"))
        player = self.lookup.player(claim.get("player"), issues, where, ref)
        if player is not None:
            times = [e.seconds for e in evidence if e.seconds is not None]
            self._ownership(uid, player, high, times, where=where, ref=ref, issues=issues)
        if high and evidence and all(e.kind == "move" for e in evidence):
            issues.append(
                ValidationIssue(
                    Severity.WEAK_EVIDENCE,
                    "MoveOnlyEvidence",
                    tr(
                        self.lang,
                        "{where}: the high-confidence claim on #{uid} rests on move evidence only (moves carry "
                        "no unit id and cannot be verified)",
                        where=where,
                        uid=uid,
                    ),
                    unit_id=uid,
                    claim=ref,
                )
            )
        raw_type = claim.get("type")
        type_name = self.lookup.type_name(raw_type)
        if raw_type and not type_name:
            self.lookup.unknown_type(raw_type, where, issues, ref)
        for e in evidence:
            self.evidence.check_line(uid, player, type_name, e, where=where, ref=ref, issues=issues)
        entry = self.lookup.entry(type_name) if type_name else None
        if entry is not None and entry.kind not in ("unit", "structure"):
            issues.append(
                ValidationIssue(
                    Severity.WARNING,
                    "TypeNotAUnit",
                    tr(
                        self.lang,
                        "{where}: {type_name} is a {kind}, not a unit or structure type",
                        where=where,
                        type_name=type_name,
                        kind=entry.kind,
                    ),
                    unit_id=uid,
                    claim=ref,
                )
            )
        if type_name:
            self.types.check(uid, player, type_name, evidence, where=where, ref=ref, issues=issues)

    def _ownership(
        self,
        uid: int,
        player: int,
        high: bool,
        times: list[float],
        *,
        where: str,
        ref: str,
        issues: list[ValidationIssue],
    ) -> None:
        """The claimed owner against the evidence; an object that changed hands against its owner at ``times``."""
        verdict = self.index.check_ownership(uid, player, times)
        owner = self.index.owner(uid)
        name = self.index.player_name(player)
        others = ", ".join(self.index.player_name(p) for p in owner.strong_players if p != player)
        strong_fact = tr(self.lang, "strong ownership evidence of #{uid}: {others}", uid=uid, others=others)
        lines = self._strong_lines(uid, player)
        if lines:  # the real lines, in the log's words (issue 28 §2)
            strong_fact += tr(self.lang, " ({lines})", lines=lines)
        changes = self.index.ownership_changes(uid)
        if changes and verdict is OwnershipVerdict.CONTRADICTION:
            issues.append(self._owner_at_time(uid, player, times, changes, where=where, ref=ref))
            return
        if verdict is OwnershipVerdict.CONFLICT:
            issues.append(
                ValidationIssue(
                    Severity.CONTRADICTION,
                    "OwnershipConflict",
                    tr(
                        self.lang,
                        "{where}: #{uid} has strong evidence from several players ({others}); ownership is undecidable",
                        where=where,
                        uid=uid,
                        others=others,
                    ),
                    unit_id=uid,
                    claim=ref,
                    fact=strong_fact,
                )
            )
        elif verdict is OwnershipVerdict.CONTRADICTION:
            issues.append(
                ValidationIssue(
                    Severity.CONTRADICTION,
                    "OwnershipContradiction",
                    tr(
                        self.lang,
                        "{where}: #{uid} is claimed for {name} but {others} has strong ownership evidence",
                        where=where,
                        uid=uid,
                        name=name,
                        others=others,
                    ),
                    unit_id=uid,
                    claim=ref,
                    fact=strong_fact,
                )
            )
        elif verdict is OwnershipVerdict.OTHER_WEAK_ONLY:
            weak = ", ".join(self.index.player_name(p) for p in owner.weak_players)
            issues.append(
                ValidationIssue(
                    Severity.WARNING,
                    "OwnershipWeakOther",
                    tr(
                        self.lang,
                        "{where}: #{uid} was only selected by {weak} (weak evidence) and {name} has none; lower "
                        "the confidence",
                        where=where,
                        uid=uid,
                        weak=weak,
                        name=name,
                    ),
                    unit_id=uid,
                    claim=ref,
                    fact=tr(self.lang, "#{uid} was only ever selected by {weak}", uid=uid, weak=weak),
                )
            )
        elif verdict is OwnershipVerdict.NO_EVIDENCE and high:
            issues.append(
                ValidationIssue(
                    Severity.WEAK_EVIDENCE,
                    "NoOwnershipEvidence",
                    tr(
                        self.lang,
                        "{where}: #{uid} is attributed to {name} with high confidence but there is no ownership "
                        "evidence",
                        where=where,
                        uid=uid,
                        name=name,
                    ),
                    unit_id=uid,
                    claim=ref,
                    fact=tr(self.lang, "#{uid} has no ownership evidence", uid=uid),
                )
            )

    def _strong_lines(self, uid: int, player: int) -> str:
        """Each other player's first strong evidence of ``uid``: what the order was and when."""
        first: dict[int, Any] = {}
        for e in sorted(self.index.evidence(uid), key=lambda e: e.time_code):
            if e.strength.value == "strong" and e.player != player:
                first.setdefault(e.player, e)
        parts = []
        for p, e in first.items():
            zh, en = _ROLE_WORDS.get(str(e.role), (str(e.role), str(e.role)))
            parts.append(
                f"{format_time(e.time_code / TICKS_PER_SECOND)} {self.index.player_name(p)} " + self._m(zh, en)
            )
        return ", ".join(parts[:3])

    def _owner_at_time(
        self,
        uid: int,
        player: int,
        times: list[float],
        changes: tuple[OwnerChange, ...],
        *,
        where: str,
        ref: str,
    ) -> ValidationIssue:
        """A claim for a player who did not own the object at the claimed time: say who did, and when it changed."""
        name = self.index.player_name(player)
        wrong = [t for t in times if player not in self.index.owners_at(uid, t)]
        at = ", ".join(format_time(t) for t in wrong[:3])
        steps_zh, steps_en = [], []
        for c in changes:
            a, b = self.index.player_name(c.from_player), self.index.player_name(c.to_player)
            since, by = (
                format_time(c.since_time_code / TICKS_PER_SECOND),
                format_time(c.by_time_code / TICKS_PER_SECOND),
            )
            how_zh = f"（{b} 在 {since} 下令进入它）" if c.order_time_code is not None else ""
            how_en = f" ({b} ordered to enter it at {since})" if c.order_time_code is not None else ""
            steps_zh.append(f"{a} → {b}，在 {since}–{by} 之间{how_zh}")
            steps_en.append(f"{a} → {b} between {since} and {by}{how_en}")
        fact = self._m(f"#{uid} 易手：" + "；".join(steps_zh), f"#{uid} changed hands: " + "; ".join(steps_en))
        if wrong:
            owners = ", ".join(self.index.player_name(p) for p in self.index.owners_at(uid, wrong[0])) or "?"
            message = tr(
                self.lang,
                "{where}: #{uid} is claimed for {name} at {at}, but it was {owners}'s then",
                where=where,
                uid=uid,
                name=name,
                at=at,
                owners=owners,
            )
        else:
            message = tr(
                self.lang, "{where}: #{uid} is claimed for {name}, who never owned it", where=where, uid=uid, name=name
            )
        return ValidationIssue(
            Severity.CONTRADICTION, "OwnershipContradiction", message, unit_id=uid, claim=ref, fact=fact
        )
