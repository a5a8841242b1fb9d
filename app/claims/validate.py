"""Check a reply's claims against the replay's fact index (plan §7.1–§7.7, issues 14 and 21).

Each rule names its code; the error-wisdom library maps codes to cognitive error classes (nonexistent unit →
hallucination, move-only certainty → reasoning jump…). Severity semantics (§7.7): anything above Info triggers
the one revision; Fatal only for an empty reply or no parsable claims after the revision.

Times are compared in logic frames (15 per second): a claimed ``m:ss.cc`` is rounded to the nearest frame and
may be one frame off (the log prints hundredths of a frame time, e.g. time code 1082 = 1:12.13). Claims that
name a command (an event claim, an evidence line) match a command of that kind within
:data:`EVENT_TOLERANCE_SECONDS`; a first-production time must lie within :data:`TIMELINE_TOLERANCE_SECONDS`.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from app import deadline
from app.claims.factories import Deed, deeds, misfit
from app.claims.issues import Severity, ValidationIssue
from app.claims.kinds import (  # the one definition of the kinds (issue 32)
    EVENT_KINDS,
    EVIDENCE_CATEGORIES,
    EVIDENCE_KINDS,
    KIND_ALIASES,
    NAMED_KINDS,
    OBJECT_KINDS,
)
from app.claims.kinds import INDEXED_COMMANDS as _INDEXED_COMMANDS
from app.claims.parse import ParsedClaims, unit_id_of
from app.claims.producers import deployed_not_building, no_producer_held, pack_vehicles, unordered_mcv
from app.claims.prose import ProseChecker
from app.claims.roles import POWER_COMMANDS, Roles, roles_of
from app.claims.timeparse import format_time, parse_time
from app.claims.yards import Proof, base_kind, base_proofs, contradiction
from app.facts import OwnerChange, OwnershipVerdict, ReplayFactIndex
from app.facts.chains import UNPACK_POWER_HASHES
from app.facts.index import POWER_LAYOUT_ROLES
from app.facts.model import TICKS_PER_SECOND, FactEvent, FirstProduction, ProductionKind
from app.facts.roles import role_of
from app.i18n import Lang, pick, tr, trc
from app.knowledge.model import Entry, Knowledge
from app.replay.commands import (
    PLACE_STRUCTURE,
    POWER_WITH_FACING,
    QUEUE_UNIT,
    SELECT_PROTOCOL,
    SELL,
    START_REPAIR,
    START_STRUCTURE,
    START_UPGRADE,
)

HIGH_CONFIDENCE = frozenset({"confirmed", "highly likely", "highly_likely", "确定", "高度可能"})
EVENT_TOLERANCE_SECONDS = 2.0
"""How far a claimed event time may lie from the command it names (the log prints every command's time)."""
TIMELINE_TOLERANCE_SECONDS = 2.0
"""How far a claimed first time may lie from the player's first order of that type."""
FRAME_SLACK = 1
"""A claimed time may be one frame off (rounding of ``m:ss.cc``)."""


ORDER_EVIDENCE = frozenset({"produce", "build", "place"})
"""Evidence kinds that quote the order that made the unit (the new unit is not in the command)."""
TYPE_EVIDENCE = frozenset({"produce", "build", "place", "power"})
"""Evidence kinds that show what an object is (the order that made it, a power only its type has)."""
UNCHECKED_EVIDENCE = frozenset({"move"})
"""Moves carry coordinates and no id: nothing to check (the move-only rule covers them)."""
START_TAGS = frozenset({"construction_yard", "mcv", "mcv_class", "harvester"})
"""Types a player may own without ordering them (the starting MCV and yard, the free miner of a refinery)."""

_ACTION_WORDS = {
    QUEUE_UNIT: ("生产单位", "Queue unit"),
    START_STRUCTURE: ("开始建造建筑", "Start structure"),
    PLACE_STRUCTURE: ("放置建筑", "Place structure"),
    SELL: ("出售", "Sell"),
    START_UPGRADE: ("开始升级", "Start upgrade"),
    START_REPAIR: ("修理", "Repair"),
    SELECT_PROTOCOL: ("选择协议", "Select protocol"),
}
"""How the log names each order's action (powers: 技能 / power), for the nearest real line in a message."""
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
KIND_WORDS = frozenset({*EVENT_KINDS, *KIND_ALIASES, "event", "order", "unit", "structure", "building"})
"""Words that name an event's kind, not a type: a ``name`` equal to one of them (``"name": "sell"``) is no name."""

_GROUP_NUMBER = re.compile(r"\d+")
_NAME_TOKEN = re.compile(r"0x[0-9A-Fa-f]+|[A-Za-z][A-Za-z0-9_]{2,}")
_ID_IN_TEXT = re.compile(r"#(\d+)")
PLACEMENT_SLACK_FRAMES = 15
"""How far outside an object's creation window from id order a placement may lie and still count (1 s)."""


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


def to_frames(seconds: float) -> int:
    """A claimed time as the nearest logic frame."""
    return round(seconds * TICKS_PER_SECOND)


def frames_apart(seconds: float, time_code: int) -> int:
    """How many frames a claimed time lies from a command's time code."""
    return abs(to_frames(seconds) - time_code)


def within(seconds: float, time_code: int, tolerance_seconds: float) -> bool:
    """True when a claimed time matches a time code within a tolerance (never less than one frame)."""
    return frames_apart(seconds, time_code) <= max(FRAME_SLACK, round(tolerance_seconds * TICKS_PER_SECOND))


def claim_actor(claim: dict[str, Any]) -> tuple[Any, bool]:
    """The actor id value of an event claim and whether it was given as ``actorId`` (``unitId`` is its alias)."""
    for key in ("actorId", "actor"):
        if claim.get(key) not in (None, ""):
            return claim[key], True
    for key in ("unitId", "caster"):
        if claim.get(key) not in (None, ""):
            return claim[key], False
    return None, False


def _load_knowledge(index: ReplayFactIndex) -> Knowledge | None:
    from app.knowledge.errors import KnowledgeError, UnknownModError
    from app.knowledge.loader import load_knowledge

    try:
        return load_knowledge(index.replay.header.mod_name)
    except (UnknownModError, KnowledgeError):
        return None


class ClaimValidator:
    """Validates parsed claims of one replay; cheap to build, reused for every window."""

    def __init__(self, index: ReplayFactIndex, lang: Lang = Lang.EN, knowledge: Knowledge | None = None) -> None:
        self.index = index
        self.lang = lang
        self.knowledge = knowledge if knowledge is not None else _load_knowledge(index)
        self._names = {name.lower(): name for name in index.names.values()}
        self._replay_hashes = {e.type_hash for e in index.events if e.type_hash is not None}
        self._anchors: list[tuple[int, tuple[float, int, str]]] | None = None
        self._made: dict[int, list[Entry]] | None = None
        self._prose: ProseChecker | None = None
        self._base: dict[int, list[Proof]] | None = None
        self._deeds: dict[int, list[Deed]] | None = None
        # keyed by the RA3 role of each command (app.facts.roles: KW/TW ids map to the RA3 id with the same
        # meaning); a power whose source layout is not verified for its game (POWER_LAYOUT_ROLES) is indexed as an
        # order of its player, name and time, but who cast it on whom is not read from it (see _known_roles)
        game = index.replay.game
        self._by_command: dict[int, list[FactEvent]] = {}
        self._roles_unread: set[int] = set()
        for e in index.events:
            role = role_of(game, e.command_id)[0]
            if e.automatic or role not in _INDEXED_COMMANDS:
                continue
            if role in POWER_COMMANDS and role not in POWER_LAYOUT_ROLES[game]:
                self._roles_unread.add(e.command_index)
            self._by_command.setdefault(role, []).append(e)

    # ------------------------------------------------------------------ helpers

    def _known_roles(self, ev: FactEvent) -> Roles | None:
        """The actor and target roles of ``ev``, or None where its game's layout for that order is not read.

        Why: Tiberium Wars writes its located and on-object powers in more than one form (one without sources), so
        which id cast the power is not known there; a claim about it is undecidable, never a contradiction.
        """
        return None if ev.command_index in self._roles_unread else roles_of(ev)

    def _m(self, zh: str, en: str) -> str:
        return pick(self.lang, zh, en)

    def _type_name(self, value: Any) -> str | None:
        """The internal name a claim's type refers to, when the replay's name table knows it."""
        if not value:
            return None
        text = str(value).strip()
        known = self._names.get(text.lower())
        if known:
            return known
        h = self.index.hash_of(text) if text.lower().startswith("0x") else None
        return text if h is not None and h in self._replay_hashes else None

    def canonical_type(self, name: str) -> str | None:
        """The internal type a claimed name means, a core taken as the structure it unpacks to; None if unknown."""
        t = self._type_name(name)
        if t is None:
            return None
        e = self._entry(t)
        return e.unpacks_to if e is not None and e.unpacks_to else t

    def type_names_in(self, text: str) -> list[str]:
        """The internal type names a free text mentions (tokens the knowledge or the replay knows)."""
        return [t for t in (self._type_name(tok) for tok in _NAME_TOKEN.findall(text)) if t]

    def _hash(self, name: str) -> int | None:
        return self.index.hash_of(name)

    def _entry(self, name: str) -> Entry | None:
        return self.knowledge.lookup(name) if self.knowledge is not None else None

    def _unknown_type(self, value: Any, where: str, issues: list[ValidationIssue], ref: str) -> None:
        # the example is a name this match's log prints (its first unit order), never another faction's unit
        example = next(
            (f.name for f in self.index.first_productions(kind=ProductionKind.UNIT) if not f.name.startswith("0x")),
            None,
        )
        issues.append(
            ValidationIssue(
                Severity.WARNING,
                "UnknownType",
                self._m(
                    f"{where}：{value!r} 不是知识库或录像中的内部名称（请用日志中出现的内部名"
                    + (f"，如 {example}）" if example else "）"),
                    f"{where}: {value!r} is not an internal name of the knowledge or the replay (use the names "
                    + (f"the log prints, e.g. {example})" if example else "the log prints)"),
                ),
                claim=ref,
            )
        )

    def _not_of_type(
        self, code: str, uid: int, type_name: str, fact: str, *, where: str, ref: str, at: float | None = None
    ) -> ValidationIssue:
        """The issue "#uid cannot be a type_name", with the replay fact that proves it."""
        return ValidationIssue(
            Severity.CONTRADICTION,
            code,
            tr(
                self.lang,
                "{where}: #{uid} cannot be a {type_name}: {fact}",
                where=where,
                uid=uid,
                type_name=type_name,
                fact=fact,
            ),
            time_seconds=at,
            unit_id=uid,
            claim=ref,
            fact=fact,
        )

    def _player(self, value: Any, issues: list[ValidationIssue], where: str, ref: str) -> int | None:
        if value is None or value == "":
            return None
        slot = self.index.player_slot(value if isinstance(value, int) else str(value))
        if slot is None:
            issues.append(
                ValidationIssue(
                    Severity.WARNING,
                    "UnknownPlayer",
                    tr(self.lang, "{where}: player {value!r} is not in this match", where=where, value=value),
                    claim=ref,
                )
            )
        return slot

    def _exists(self, uid: int, issues: list[ValidationIssue], where: str, ref: str) -> bool:
        if self.index.id_exists(uid):
            return True
        issues.append(
            ValidationIssue(
                Severity.CONTRADICTION,
                "NonexistentUnit",
                tr(self.lang, "{where}: object #{uid} never appears in the replay", where=where, uid=uid),
                unit_id=uid,
                claim=ref,
                fact=tr(self.lang, "no command of the replay names #{uid}", uid=uid),
            )
        )
        return False

    def _hashes(self, type_name: str | None) -> frozenset[int] | None:
        """The hashes an order of ``type_name`` may carry: its own, and those of the cores that unpack into it."""
        if not type_name:
            return None
        h = self._hash(type_name)
        out = {h} if h is not None else set()
        if self.knowledge is not None:
            out.update(e.hash for e in self.knowledge if e.unpacks_to == type_name)
        return frozenset(out)

    def _commands(
        self, commands: Iterable[int], player: int | None, type_hashes: frozenset[int] | None
    ) -> list[FactEvent]:
        out = [
            e
            for c in commands
            for e in self._by_command.get(c, ())
            if (player is None or e.player == player) and (type_hashes is None or e.type_hash in type_hashes)
        ]
        return sorted(out, key=lambda e: e.time_code)

    def _line(self, e: FactEvent) -> str:
        """One order as the log shows it: time, player, action, type and the ids it names."""
        zh, en = _ACTION_WORDS.get(role_of(self.index.replay.game, e.command_id)[0], ("技能", "power"))  # KW/TW ids
        parts = [format_time(e.seconds), self.index.player_name(e.player), self._m(zh, en)]
        if e.type_hash is not None:
            parts.append(self.index.name_of(e.type_hash))
        parts += [f"#{i}" for i in e.object_ids[:3]]
        return " ".join(parts)

    def _nearest_line(self, events: Sequence[FactEvent], seconds: float | None) -> str:
        """The line of ``events`` nearest to ``seconds`` (the first without a time); "" when there is none."""
        if not events:
            return ""
        best = min(events, key=lambda e: abs(e.seconds - seconds)) if seconds is not None else events[0]
        return self._line(best)

    def _times(self, events: Sequence[FactEvent], near: float | None = None, n: int = 3) -> str:
        picked = sorted(events, key=lambda e: abs(e.seconds - near))[:n] if near is not None else list(events[:n])
        return ", ".join(format_time(e.seconds) for e in sorted(picked, key=lambda e: e.time_code))

    # ------------------------------------------------------------------ entry point

    def validate(
        self,
        parsed: ParsedClaims,
        reply_text: str,
        *,
        after_revision: bool = False,
        span: tuple[float, float] | None = None,
    ) -> list[ValidationIssue]:
        """All issues of one reply (parse issues included), its text's numbers too (:mod:`app.claims.prose`).

        ``span`` is the window the reply analyses (None: the whole match); counts in the text are bounded by what
        was ordered by its end.
        """
        issues: list[ValidationIssue] = list(parsed.issues)
        if not reply_text.strip():
            issues.append(ValidationIssue(Severity.FATAL, "EmptyReply", tr(self.lang, "the reply is empty")))
            return issues
        if not parsed.marker_found:
            issues.append(
                ValidationIssue(
                    Severity.FATAL if after_revision else Severity.WARNING,
                    "MissingClaims",
                    tr(self.lang, "the reply has no [claims] block"),
                )
            )
            return issues
        if parsed.blocks_parsed == 0:
            issues.append(
                ValidationIssue(
                    Severity.FATAL if after_revision else Severity.WARNING,
                    "NoParsableClaims",
                    tr(self.lang, "no claims block could be parsed"),
                )
            )
            return issues
        for n, claim in enumerate(parsed.unit_claims):
            deadline.check()  # the run's deadline stops this CPU-bound loop too (it never awaits)
            start = len(issues)
            self._unit_claim(claim, n, issues)
            self._one_wrong_citation(claim, issues, start)
        for n, claim in enumerate(parsed.event_claims):
            deadline.check()
            self._event_claim(claim, n, issues)
        for n, claim in enumerate(parsed.timeline_claims):
            deadline.check()
            self._timeline_claim(claim, n, issues)
        if parsed.display_text.strip():
            issues += self.prose.check(parsed.display_text, span)
        return [self._with_fact(i) for i in issues]

    @property
    def prose(self) -> ProseChecker:
        """The checker of the numbers in a reply's text (built once, on first use)."""
        if self._prose is None:
            self._prose = ProseChecker(self.index, self.knowledge, self.lang)
        return self._prose

    def _with_fact(self, issue: ValidationIssue) -> ValidationIssue:
        """The issue whose message names what is wrong, then the real fact (issue 28 §2).

        The revision request quotes the message and the report stores it: one text, so what the model was told and
        what the reader sees are the same.
        """
        if not issue.fact or issue.fact in issue.message:
            return issue
        return replace(issue, message=issue.message + tr(self.lang, "; fact: ") + issue.fact)

    # ------------------------------------------------------------------ unit claims (§7.1, §7.5, §7.6)

    def _one_wrong_citation(self, claim: dict[str, Any], issues: list[ValidationIssue], start: int) -> None:
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
        if not self._exists(uid, issues, where, ref):
            return
        confidence = str(claim.get("confidence", "")).strip().lower()
        high = confidence in HIGH_CONFIDENCE
        evidence = parse_evidence(claim.get("evidence"))
        player = self._player(claim.get("player"), issues, where, ref)
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
        type_name = self._type_name(raw_type)
        if raw_type and not type_name:
            self._unknown_type(raw_type, where, issues, ref)
        for e in evidence:
            self._evidence_item(uid, player, type_name, e, where=where, ref=ref, issues=issues)
        entry = self._entry(type_name) if type_name else None
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
            self._abilities_fit(uid, type_name, where, ref, issues)
            self._base_class_fits(uid, type_name, where=where, ref=ref, issues=issues)
            self._deeds_fit(uid, type_name, where=where, ref=ref, issues=issues)
        if type_name and player is not None:
            self._origin_fits(uid, player, type_name, where=where, ref=ref, issues=issues)
            self._core_in_order(uid, player, type_name, where=where, ref=ref, issues=issues)
        if player is not None and type_name:
            self._type_produced(uid, player, type_name, where=where, ref=ref, issues=issues)
            if self._type_fits_object(uid, player, type_name, where=where, ref=ref, issues=issues):
                self._operated_before_produced(uid, player, type_name, evidence, where=where, ref=ref, issues=issues)

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

    def _type_produced(
        self, uid: int, player: int, type_name: str, *, where: str, ref: str, issues: list[ValidationIssue]
    ) -> None:
        """A unit typed as something its player never ordered (starting and free types excepted)."""
        if self._ordered(player, type_name):
            return
        entry = self._entry(type_name)
        if entry is None or entry.kind not in ("unit", "structure") or not entry.producers:
            return  # not a buildable type we know (spawned, captured, tech building): nothing to hold against
        if any(entry.has_tag(t) for t in START_TAGS):
            return
        who = self.index.player_name(player)
        others = [p.name for p in self.index.playing if p.slot != player and self._ordered(p.slot, type_name)]
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
        for ev in self.index.events_for_object(uid):
            if ev.command_id not in POWER_COMMANDS or ev.type_hash is None or roles_of(ev).actors != (uid,):
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
                    self._not_of_type("AbilityNotOfType", uid, type_name, fact, where=where, ref=ref, at=ev.seconds)
                )
                return

    def _base_class_fits(
        self, uid: int, type_name: str, *, where: str, ref: str, issues: list[ValidationIssue]
    ) -> None:
        """A yard, crane or MCV claim against what the pack chains and build orders prove (app.claims.yards)."""
        kind = base_kind(type_name, self._entry(type_name))
        if kind is None:
            return
        if self._base is None:
            self._base = base_proofs(self.index)
        proof = contradiction(kind, self._base.get(uid, []))
        if proof is not None:
            fact = self._m(proof.zh, proof.en)
            issues.append(
                self._not_of_type("BaseClassMismatch", uid, type_name, fact, where=where, ref=ref, at=proof.seconds)
            )

    def _deeds_fit(self, uid: int, type_name: str, *, where: str, ref: str, issues: list[ValidationIssue]) -> None:
        """A type that cannot do what the object's orders show it doing (app.claims.factories)."""
        entry = self._entry(type_name)
        if entry is None or self.knowledge is None:
            return
        if self._deeds is None:
            self._deeds = deeds(self.index, self.knowledge)
        deed = misfit(entry, self._deeds.get(uid, []))
        if deed is not None:
            fact = self._m(deed.zh, deed.en)
            issues.append(
                self._not_of_type("TypeCannotDo", uid, type_name, fact, where=where, ref=ref, at=deed.seconds)
            )

    def _origin_fits(
        self, uid: int, player: int, type_name: str, *, where: str, ref: str, issues: list[ValidationIssue]
    ) -> None:
        """Where the object came from, against the claimed type (app.claims.producers): the first rule that decides."""
        entry = self._entry(type_name)
        if entry is None or self.knowledge is None:
            return
        after = self._created_after(uid)
        found = [("DeployedNotBuilding", deployed_not_building(self.index, uid, entry, self._unread))]
        if found[-1][1] is None:
            proven = self._proven_types()
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
                ordered=self._ordered,
                explained=explained,
                knowledge=self.knowledge,
            )
            found.append(("UnorderedMcv", mcv))
        code, origin = found[-1]
        if origin is not None:
            fact = self._m(origin.zh, origin.en)
            issues.append(self._not_of_type(code, uid, type_name, fact, where=where, ref=ref, at=origin.seconds))

    def _unread(self, ev: FactEvent) -> bool:
        """True for an order whose game's source layout is not read (who cast it is unknown)."""
        return ev.command_index in self._roles_unread

    def _proven_types(self) -> dict[int, str]:
        """Per object id, the one type its own queue and research orders prove (those that prove one)."""
        out: dict[int, str] = {}
        for oid, made in self._products().items():
            proven = self._proven_type(made)
            if proven:
                out[oid] = proven
        return out

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
        entry = self._entry(type_name)
        if self.knowledge is None or entry is None or not entry.unpacks_to or not entry.has_tag("core"):
            return
        seen = self.index.first_seen(uid)
        if seen is None:
            return
        cores = {e.id for e in self.knowledge if e.unpacks_to and e.has_tag("core")}
        core_hashes = {self._hash(c) for c in cores}
        orders = [
            e
            for e in self._commands((QUEUE_UNIT,), player, frozenset(h for h in core_hashes if h is not None))
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
            for ev in self._by_command.get(POWER_WITH_FACING, ())
            if ev.player == player
            and ev.type_hash in UNPACK_POWER_HASHES
            and ev.command_index not in self._roles_unread
            for oid in roles_of(ev).actors
            if oid > yards[0] and oid not in chained
        }
        k = sum(1 for oid in deployed if oid < uid)
        allowed = [e for e in orders[k:] if e.type_hash in (self._hashes(type_name) or ())]
        if allowed:
            return
        names = ", ".join(f"{self.index.name_of(e.type_hash or 0)} {format_time(e.seconds)}" for e in orders[k : k + 3])
        fact = self._m(
            f"{self.index.player_name(player)} 有 {k} 个编号更小的核心已经展开，#{uid} 至少是第 {k + 1} 个造出的核心；"
            f"{format_time(seen)} 之前的第 {k + 1} 条及以后的核心指令是：{names or '无'}",
            f"{k} cores of {self.index.player_name(player)} with smaller ids deployed, so #{uid} is at least core "
            f"number {k + 1}; the core orders from number {k + 1} on before {format_time(seen)} are: {names or 'none'}",
        )
        issues.append(self._not_of_type("CoreOrderMismatch", uid, type_name, fact, where=where, ref=ref))

    def _type_fits_object(
        self, uid: int, player: int, type_name: str, *, where: str, ref: str, issues: list[ValidationIssue]
    ) -> bool:
        """What the replay proves about an object, which any type claimed for it must agree with.

        * The engine gives out object ids in creation order (notes §4.3, :meth:`ReplayFactIndex.existed_by`): an
          object that existed at time t is not of a type its player first ordered after t (any order of the type,
          or of a core that unpacks into it, taken back or not). Starting and free types are exempt.
        * A factory is of a type that can make what it queued or researched (knowledge ``producedBy``).

        Returns False when it raised an issue.
        """
        entry = self._entry(type_name)
        if entry is None or entry.kind not in ("unit", "structure"):
            return True
        made = self._made_by(uid)
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
                issues.append(self._not_of_type("TypeNotOfProducts", uid, type_name, fact, where=where, ref=ref))
                return False
        if not entry.producers or any(entry.has_tag(t) for t in START_TAGS):
            return True
        if not self._placed_in_window(uid, type_name, where=where, ref=ref, issues=issues):
            return False
        orders = self._commands((QUEUE_UNIT, START_STRUCTURE, PLACE_STRUCTURE), player, self._hashes(type_name))
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
        issues.append(self._not_of_type("ExistedBeforeOrdered", uid, type_name, fact, where=where, ref=ref, at=existed))
        return False

    def _placed_in_window(
        self, uid: int, type_name: str, *, where: str, ref: str, issues: list[ValidationIssue]
    ) -> bool:
        """A structure that only a yard or crane builds comes into being when it is placed (0x209): is one left for it?

        Each object was created within its window from id order (:meth:`_created_after`, :meth:`existed_by`), and
        objects of one type were created in id order, each by its own placement. So the objects proven to be of the
        type (by what they built), with ``uid`` among them in id order, must each get a later placement than the one
        before, inside their windows. A capture changes the owner, not the id, so every player's placements and
        proven objects count. Empire structures (from cores), yards (MCV deploys), walls (one placement makes many
        pieces) and anything a unit deploys into are exempt; nothing is said when the proven objects alone do not fit
        (the knowledge or the windows would be wrong). Returns False when it raised an issue.
        """
        entry = self._entry(type_name)
        if entry is None or entry.kind != "structure" or not entry.producers or entry.has_tag("wall"):
            return True
        makers = [self._entry(p) for p in entry.producers]
        if any(m is None or m.kind != "structure" or m.unpacks_to for m in makers):
            return True
        proven = self._proven_ids(type_name)
        if uid in proven or self.index.existed_by(uid) is None or self._created_after(uid) is None:
            return True
        placed = self._commands((PLACE_STRUCTURE,), None, self._hashes(type_name))
        if self._placements_fit(proven, placed) is None:
            return True
        together = sorted((*proven, uid))
        fit = self._placements_fit(together, placed)
        if fit is not None:
            return True
        existed = self.index.existed_by(uid) or 0.0
        after = self._created_after(uid)
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
        issues.append(self._not_of_type("NotPlacedInWindow", uid, type_name, fact, where=where, ref=ref, at=existed))
        return False

    def _placements_fit(self, ids: Sequence[int], placed: Sequence[FactEvent]) -> list[FactEvent] | None:
        """Placements for ``ids`` (sorted), each later than the one before and inside its id's creation window.

        Greedy earliest choice: with objects in creation order and placements in time order it finds a fit whenever
        one exists. None when there is none.
        """
        out: list[FactEvent] = []
        k = 0
        for oid in ids:
            after = self._created_after(oid)
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

    def _proven_ids(self, type_name: str) -> list[int]:
        """Object ids the replay proves to be of ``type_name``: what they queued or researched only it can make."""
        return sorted(oid for oid, made in self._products().items() if self._proven_type(made) == type_name)

    @staticmethod
    def _proven_type(made: Sequence[Entry]) -> str | None:
        """The one type that can make everything in ``made``, if there is exactly one."""
        types = set.intersection(*(set(m.producers) for m in made)) if made else set()
        return types.pop() if len(types) == 1 else None

    def _created_after(self, uid: int) -> tuple[float, int, str] | None:
        """The latest time ``uid`` is known to be created after, with the smaller id and type that prove it.

        An object whose type the replay proves (a factory that queued or researched what only one type can make)
        was created after the first order of that type by any player; ids are given out in creation order, so every
        newer id was created after that too. None when no smaller id has a proven type.
        """
        if self._anchors is None:
            anchors: list[tuple[int, float, str]] = []
            for oid, made in self._products().items():
                proven = self._proven_type(made) or ""
                entry = self._entry(proven)
                if entry is None or any(entry.has_tag(t) for t in START_TAGS):
                    continue  # not proven, or a type the player may own without ordering it (the starting yard)
                first = self._commands((QUEUE_UNIT, START_STRUCTURE, PLACE_STRUCTURE), None, self._hashes(proven))
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

    def _made_by(self, uid: int) -> list[Entry]:
        """Knowledge entries (with known producers) that ``uid`` queued or researched as the factory."""
        return self._products().get(uid, [])

    def _products(self) -> dict[int, list[Entry]]:
        """Per factory id, the knowledge entries (with known producers) it queued or researched (built once)."""
        if self._made is None:
            self._made = {}
            for c in (QUEUE_UNIT, START_UPGRADE):
                for e in self._by_command.get(c, ()):
                    factory = (e.actor_ids or e.object_ids)[:1]
                    entry = self.knowledge.lookup(e.type_hash) if self.knowledge and e.type_hash is not None else None
                    if not factory or entry is None or not entry.producers:
                        continue
                    made = self._made.setdefault(factory[0], [])
                    if entry not in made:
                        made.append(entry)
        return self._made

    def _first_of(self, player: int, type_name: str) -> FirstProduction | None:
        """The player's first production of the type or of a core that unpacks into it."""
        names = [type_name] + ([e.id for e in self.knowledge if e.unpacks_to == type_name] if self.knowledge else [])
        found = [f for f in (self.index.first_production(player, n) for n in names) if f is not None]
        return min(found, key=lambda f: f.time_code) if found else None

    def _ordered(self, player: int, type_name: str) -> bool:
        """True when ``player`` ordered the type (an order not taken back), or the core/egg that unpacks into it."""
        names = [type_name]
        if self.knowledge is not None:
            names += [e.id for e in self.knowledge if e.unpacks_to == type_name]
        for name in names:
            first = self.index.first_production(player, name)
            if first is not None and not getattr(first, "cancelled", False):
                return True
        return False

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
        first = self._first_of(player, type_name)
        if first is None:
            return  # pre-placed or starting units (MCV, starting infantry) have no production record
        entry = self._entry(type_name)
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

    # ------------------------------------------------------------------ evidence lines

    def _evidence_item(
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
            self._protocol(player, e.detail, e.seconds, where=where, ref=ref, issues=issues)
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
        e = self._entry(type_name) if type_name else None
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
            hits = self._commands(cmds, player, self._hashes(named))
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
                for ev in self._commands(cmds, player, None)
            ):
                return True, ""  # the object is the factory / constructor of that order
            what = named or e.kind
            actual = self._times(hits, t) if hits else ""
            return False, self._m(
                f"{at} 附近没有 {what} 的{e.kind}指令" + (f"；实际时间 {actual}" if actual else ""),
                f"no {e.kind} order of {what} near {at}" + (f"; orders at {actual}" if actual else ""),
            )
        cats = EVIDENCE_CATEGORIES.get(e.kind)
        named = self._detail_type(e.detail) if e.kind == "power" else None
        hashes = self._hashes(named)
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
            for ev in self._commands(POWER_COMMANDS, player, hashes):
                if within(t, ev.time_code, EVENT_TOLERANCE_SECONDS) and (
                    ev.command_index in self._roles_unread or not ev.actor_ids
                ):
                    # the record names no source (Tiberium Wars' unpack 0x21C) or its layout is not read for this
                    # game: who cast it is undecidable, so the citation is not wrong
                    return True, ""
        return False, tr(self.lang, "no {kind} command names #{uid} near {at}", kind=e.kind, uid=uid, at=at)

    def _detail_type(self, detail: str) -> str | None:
        """The first internal name an evidence detail mentions ("SpecialPower_X #626" → SpecialPower_X)."""
        for token in re.split(r"[\s,;，；()（）]+", detail):
            name = self._type_name(token)
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

    # ------------------------------------------------------------------ protocols (§7.3)

    def _protocol(
        self,
        player: int | None,
        name: str,
        seconds: float | None,
        *,
        where: str,
        ref: str,
        issues: list[ValidationIssue],
        event: bool = False,
    ) -> None:
        """A protocol pick (an event claim, or a unit claim's evidence line) against the player's picks.

        For an event claim a pick more than 2 s off is a Contradiction (the prompt's rule for every event); for an
        evidence line it stays a Warning. A special power claimed as a protocol is a Contradiction that names the
        power's line.
        """
        wanted = name.strip().lower()
        if not wanted:
            return
        picks = self.index.protocols if player is None else self.index.protocols_of(player)
        matches = [p for p in picks if p.name.lower() == wanted]
        who = self.index.player_name(player) if player is not None else tr(self.lang, "any player")
        if not matches and self._power_as_protocol(player, name, seconds, where=where, ref=ref, issues=issues):
            return
        if not matches and event and player is not None:
            theirs = [p for p in self.index.protocols if p.name.lower() == wanted and p.player != player]
            if theirs:
                other = min(theirs, key=lambda p: abs(p.seconds - seconds) if seconds is not None else 0.0)
                fact = tr(
                    self.lang,
                    "{player} picked {name} at {seconds}",
                    player=self.index.player_name(other.player),
                    name=other.name,
                    seconds=format_time(other.seconds),
                )
                issues.append(
                    ValidationIssue(
                        Severity.CONTRADICTION,
                        "PlayerMismatch",
                        tr(
                            self.lang,
                            "{where}: wrong player: {who} never picked protocol {name}; {fact}",
                            where=where,
                            who=who,
                            name=name,
                            fact=fact,
                        ),
                        time_seconds=other.seconds,
                        claim=ref,
                        fact=fact,
                    )
                )
                return
        if not matches:
            fact = tr(self.lang, "protocols {who} picked: ", who=who) + (
                ", ".join(f"{p.name} {format_time(p.seconds)}" for p in picks) or tr(self.lang, "none")
            )
            issues.append(
                ValidationIssue(
                    Severity.CONTRADICTION,
                    "ProtocolNotObserved",
                    tr(self.lang, "{where}: {who} never picked protocol {name}", where=where, who=who, name=name),
                    time_seconds=seconds,
                    claim=ref,
                    fact=fact,
                )
            )
            return
        if seconds is not None and not any(within(seconds, p.time_code, EVENT_TOLERANCE_SECONDS) for p in matches):
            actual = ", ".join(format_time(p.seconds) for p in matches)
            issues.append(
                ValidationIssue(
                    Severity.CONTRADICTION if event else Severity.WARNING,
                    "ProtocolTimeMismatch",
                    tr(
                        self.lang,
                        "{where}: protocol {name} was picked at {actual}, not {seconds}",
                        where=where,
                        name=name,
                        actual=actual,
                        seconds=format_time(seconds),
                    ),
                    time_seconds=matches[0].seconds,
                    claim=ref,
                    fact=tr(self.lang, "{who} picked {name} at {actual}", who=who, name=name, actual=actual),
                )
            )

    def _power_as_protocol(
        self,
        player: int | None,
        name: str,
        seconds: float | None,
        *,
        where: str,
        ref: str,
        issues: list[ValidationIssue],
    ) -> bool:
        """A special power claimed as a protocol (a Contradiction naming the power's line); True when it was one."""
        type_name = self._type_name(name)
        entry = self._entry(type_name) if type_name else None
        hashes = self._hashes(type_name) if type_name else None
        casts = self._commands(POWER_COMMANDS, player, hashes) if hashes else []
        if not casts and (entry is None or entry.kind != "power"):
            return False
        line = self._nearest_line(casts, seconds)
        fact = tr(self.lang, "{name} is a special power, not a protocol", name=name) + (
            tr(self.lang, "; its power line: {line}", line=line) if line else ""
        )
        issues.append(
            ValidationIssue(
                Severity.CONTRADICTION,
                "PowerAsProtocol",
                f"{where}：{fact}" if self.lang is Lang.ZH else f"{where}: {fact}",
                time_seconds=seconds,
                claim=ref,
                fact=fact,
            )
        )
        return True

    # ------------------------------------------------------------------ event claims (§7.2, §7.3, issue 21)

    def _event_claim(self, claim: dict[str, Any], n: int, issues: list[ValidationIssue]) -> None:
        where = tr(self.lang, "event claim {n}", n=n + 1)
        ref = f"event:{n}"
        raw_kind = str(claim.get("kind", "")).strip().lower()
        kind = KIND_ALIASES.get(raw_kind, raw_kind)
        seconds = parse_time(str(claim.get("time", ""))) if claim.get("time") is not None else None
        player = self._player(claim.get("player"), issues, where, ref)
        actor_value, explicit = claim_actor(claim)
        actor = unit_id_of(actor_value)
        target = unit_id_of(claim.get("targetId"))
        for uid in (actor, target):
            if uid is not None and not self._exists(uid, issues, where, ref):
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
            self._protocol(player, name, seconds, where=where, ref=ref, issues=issues, event=True)
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
        type_name = self._type_name(name) if name else None
        if name and type_name is None and (kind in NAMED_KINDS or actor is not None):
            self._unknown_type(name, where, issues, ref)
            return
        if type_name and kind in NAMED_KINDS:
            type_hashes = self._hashes(type_name)
        if kind == "power" and actor is not None and player is not None:
            acted = [
                e
                for e in self._commands(POWER_COMMANDS, None, None)
                if (r := self._known_roles(e)) is not None and r.acts(actor)
            ]
            if acted and all(e.player != player for e in acted):
                actual = self.index.player_name(acted[0].player)
                fact = tr(
                    self.lang,
                    "#{actor} cast powers for {actual} at {times}",
                    actor=actor,
                    actual=actual,
                    times=self._times(acted, seconds),
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
        candidates = self._commands(EVENT_KINDS[kind], player, type_hashes)
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
                    for e in self._commands(EVENT_KINDS[kind], player, None)
                    if within(seconds, e.time_code, EVENT_TOLERANCE_SECONDS)
                ]
                if seconds is not None and player is not None
                else []
            )
            line = self._nearest_line(at_time, seconds)
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
                    times=self._times(candidates, seconds),
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
            self._type_fits_object(actor, near[0].player, type_name, where=where, ref=ref, issues=issues)
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
            for e in self._commands(EVENT_KINDS[kind], None, type_hashes)
            if e.player != player
            and within(seconds, e.time_code, EVENT_TOLERANCE_SECONDS)
            and (actor is None or actor in e.object_ids or kind not in OBJECT_KINDS)
        ]
        if not theirs:
            return False
        line = self._nearest_line(theirs, seconds)
        at = seconds
        other = self.index.player_name(min(theirs, key=lambda e: abs(e.seconds - at)).player)
        who = self.index.player_name(player)
        fact = tr(self.lang, "the log at that time: {line}", line=line)
        own = self._commands(EVENT_KINDS[kind], player, type_hashes)
        own = [e for e in own if actor is None or kind not in OBJECT_KINDS or actor in e.object_ids]
        if own:  # the claimed player's own orders of it elsewhere: the time may be what is wrong
            fact += tr(self.lang, "; {who}'s own such orders are at {times}", who=who, times=self._times(own, seconds))
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
        roles = [(e, r) for e in near if (r := self._known_roles(e)) is not None]
        if not roles:
            return  # the matching orders do not say who acted on whom: nothing decides the actor or the target
        candidates = [e for e in candidates if e.command_index not in self._roles_unread]
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
            elif any(roles_of(e).acts(actor) for e in candidates):
                times = self._times([e for e in candidates if roles_of(e).acts(actor)], first.seconds)
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

    # ------------------------------------------------------------------ timeline claims (§7.6)

    def _timeline_claim(self, claim: dict[str, Any], n: int, issues: list[ValidationIssue]) -> None:
        where = tr(self.lang, "timeline claim {n}", n=n + 1)
        ref = f"timeline:{n}"
        player = self._player(claim.get("player"), issues, where, ref)
        raw_type = claim.get("type")
        type_name = self._type_name(raw_type)
        raw_time = claim.get("firstTime", claim.get("time"))
        seconds = parse_time(str(raw_time)) if raw_time is not None else None
        if raw_type and not type_name:
            self._unknown_type(raw_type, where, issues, ref)
            return
        if player is None or not type_name:
            return
        who = self.index.player_name(player)
        first = self._first_of(player, type_name)
        hashes = self._hashes(type_name)
        orders = self._commands(
            (QUEUE_UNIT, START_STRUCTURE, PLACE_STRUCTURE, START_UPGRADE, SELECT_PROTOCOL), player, hashes
        )
        # the first order of the type (even one taken back later: it is what the log shows first), or the first
        # production that was not taken back
        times = sorted({*(e.time_code for e in orders[:1]), *([first.time_code] if first is not None else [])})
        if not times:
            issues.append(
                ValidationIssue(
                    Severity.CONTRADICTION,
                    "TimelineNotObserved",
                    tr(
                        self.lang,
                        "{where}: {who} never produced {type_name}",
                        where=where,
                        who=who,
                        type_name=type_name,
                    ),
                    time_seconds=seconds,
                    claim=ref,
                    fact=trc(
                        self.lang,
                        "app.claims.validate",
                        "{who} never ordered {type_name}",
                        who=who,
                        type_name=type_name,
                    ),
                )
            )
        elif seconds is not None and not any(within(seconds, tc, TIMELINE_TOLERANCE_SECONDS) for tc in times):
            actual = format_time(times[0] / TICKS_PER_SECOND)
            fact = tr(
                self.lang, "{who} first ordered {type_name} at {actual}", who=who, type_name=type_name, actual=actual
            )
            issues.append(
                ValidationIssue(
                    # a firstTime names the player's first Queue unit / Start structure line (the prompt); no line
                    # within 2 s supports it: the prompt's "more than 2 s away, or no such line, is an error"
                    Severity.CONTRADICTION,
                    "TimelineMismatch",
                    tr(
                        self.lang,
                        "{where}: {who} first produced {type_name} at {actual}, not {seconds}",
                        where=where,
                        who=who,
                        type_name=type_name,
                        actual=actual,
                        seconds=format_time(seconds),
                    ),
                    time_seconds=times[0] / TICKS_PER_SECOND,
                    claim=ref,
                    fact=fact,
                )
            )

    # ------------------------------------------------------------------ revision support

    def relevant_facts(self, issues: Iterable[ValidationIssue], limit: int = 40) -> str:
        """Facts that bear on the issues, for the revision prompt (plan §10)."""
        lines: list[str] = []
        seen: set[int] = set()
        for issue in issues:
            uid = issue.unit_id
            if uid is None or uid in seen:
                continue
            seen.add(uid)
            if not self.index.id_exists(uid):
                lines.append(tr(self.lang, "#{uid}: not in the replay", uid=uid))
                continue
            ev = self.index.evidence(uid)
            strong = sorted({self.index.player_name(e.player) for e in ev if e.strength.value == "strong"})
            weak = sorted({self.index.player_name(e.player) for e in ev if e.strength.value == "weak"})
            first = self.index.first_seen(uid)
            lines.append(
                self._m(
                    f"#{uid}：首次出现 {format_time(first or 0)}；强证据 {', '.join(strong) or '无'}；弱证据 "
                    f"{', '.join(weak) or '无'}",
                    f"#{uid}: first seen {format_time(first or 0)}; strong evidence {', '.join(strong) or 'none'}; "
                    f"weak evidence {', '.join(weak) or 'none'}",
                )
            )
        return "\n".join(lines[:limit])
