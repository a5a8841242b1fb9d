"""Check a reply's claims against the replay's fact index (plan §7.1–§7.7).

Each rule names its code; the error-wisdom library maps codes to cognitive error classes (nonexistent unit →
hallucination, move-only certainty → reasoning jump…). Severity semantics (§7.7): anything above Info triggers
the one revision; Fatal only for an empty reply or no parsable claims after the revision.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from app.claims.issues import Severity, ValidationIssue
from app.claims.parse import ParsedClaims, unit_id_of
from app.claims.timeparse import format_time, parse_time
from app.facts import OwnershipVerdict, ReplayFactIndex, Role
from app.i18n import Lang, pick

HIGH_CONFIDENCE = frozenset({"confirmed", "highly likely", "highly_likely", "确定", "高度可能"})
POWER_AT_OBJECT = 0x201
POWER_TWO_POINTS = 0x232
TIMELINE_TOLERANCE_SECONDS = 10.0
PROTOCOL_TOLERANCE_SECONDS = 10.0


@dataclass(frozen=True, slots=True)
class EvidenceItem:
    """One ``kind|time|detail`` evidence string of a unit claim."""

    kind: str
    seconds: float | None
    detail: str


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
        out.append(EvidenceItem(kind, seconds, detail))
    return out


class ClaimValidator:
    """Validates parsed claims of one replay; cheap to build, reused for every window."""

    def __init__(self, index: ReplayFactIndex, lang: Lang = Lang.EN) -> None:
        self.index = index
        self.lang = lang
        self._names = {name.lower(): name for name in index.names.values()}
        self._protocol_names = {p.name.lower() for p in index.protocols}

    # ------------------------------------------------------------------ helpers

    def _m(self, zh: str, en: str) -> str:
        return pick(self.lang, zh, en)

    def _type_name(self, value: Any) -> str | None:
        """The internal name a claim's type refers to, when the replay's name table knows it."""
        if not value:
            return None
        return self._names.get(str(value).strip().lower())

    def _player(self, value: Any, issues: list[ValidationIssue], where: str) -> int | None:
        if value is None or value == "":
            return None
        slot = self.index.player_slot(value if isinstance(value, int) else str(value))
        if slot is None:
            issues.append(ValidationIssue(
                Severity.WARNING, "UnknownPlayer",
                self._m(f"{where}：玩家 {value!r} 不在本局中", f"{where}: player {value!r} is not in this match"),
            ))
        return slot

    def _exists(self, uid: int, issues: list[ValidationIssue], where: str) -> bool:
        if self.index.id_exists(uid):
            return True
        issues.append(ValidationIssue(
            Severity.CONTRADICTION, "NonexistentUnit",
            self._m(f"{where}：对象 #{uid} 从未在录像中出现", f"{where}: object #{uid} never appears in the replay"),
            unit_id=uid,
        ))
        return False

    # ------------------------------------------------------------------ entry point

    def validate(self, parsed: ParsedClaims, reply_text: str, *, after_revision: bool = False) -> list[ValidationIssue]:
        """All issues of one reply (parse issues included)."""
        issues: list[ValidationIssue] = list(parsed.issues)
        if not reply_text.strip():
            issues.append(ValidationIssue(Severity.FATAL, "EmptyReply", self._m("回复为空", "the reply is empty")))
            return issues
        if not parsed.marker_found:
            issues.append(ValidationIssue(
                Severity.FATAL if after_revision else Severity.WARNING, "MissingClaims",
                self._m("回复没有 [机器可读声明]", "the reply has no [claims] block"),
            ))
            return issues
        if parsed.blocks_parsed == 0:
            issues.append(ValidationIssue(
                Severity.FATAL if after_revision else Severity.WARNING, "NoParsableClaims",
                self._m("[机器可读声明] 中没有可解析的 JSON 块", "no claims block could be parsed"),
            ))
            return issues
        for n, claim in enumerate(parsed.unit_claims, 1):
            self._unit_claim(claim, n, issues)
        for n, claim in enumerate(parsed.event_claims, 1):
            self._event_claim(claim, n, issues)
        for n, claim in enumerate(parsed.timeline_claims, 1):
            self._timeline_claim(claim, n, issues)
        return issues

    # ------------------------------------------------------------------ unit claims (§7.1, §7.5, §7.6)

    def _unit_claim(self, claim: dict[str, Any], n: int, issues: list[ValidationIssue]) -> None:
        where = self._m(f"单位声明 {n}", f"unit claim {n}")
        uid = unit_id_of(claim.get("unitId"))
        if uid is None:
            issues.append(ValidationIssue(
                Severity.INFO, "UnitIdUnreadable",
                self._m(f"{where}：unitId {claim.get('unitId')!r} 不是对象编号", f"{where}: unitId "
                        f"{claim.get('unitId')!r} is not an object id"),
            ))
            return
        if not self._exists(uid, issues, where):
            return
        confidence = str(claim.get("confidence", "")).strip().lower()
        high = confidence in HIGH_CONFIDENCE
        evidence = parse_evidence(claim.get("evidence"))
        player = self._player(claim.get("player"), issues, where)
        if player is not None:
            self._ownership(uid, player, high, where, issues)
        if high and evidence and all(e.kind == "move" for e in evidence):
            issues.append(ValidationIssue(
                Severity.WEAK_EVIDENCE, "MoveOnlyEvidence",
                self._m(f"{where}：#{uid} 的高置信结论只有 move 证据（move 不带单位 ID，无法核实）",
                        f"{where}: the high-confidence claim on #{uid} rests on move evidence only "
                        "(moves carry no unit id and cannot be verified)"),
                unit_id=uid,
            ))
        for e in evidence:
            if e.kind == "protocol":
                self._protocol(player, e.detail, e.seconds, where=where, issues=issues)
        type_name = self._type_name(claim.get("type"))
        if player is not None and type_name:
            self._operated_before_produced(uid, player, type_name, evidence, where=where, issues=issues)

    def _ownership(self, uid: int, player: int, high: bool, where: str, issues: list[ValidationIssue]) -> None:
        verdict = self.index.check_ownership(uid, player)
        owner = self.index.owner(uid)
        name = self.index.player_name(player)
        others = ", ".join(self.index.player_name(p) for p in owner.strong_players if p != player)
        if verdict is OwnershipVerdict.CONFLICT:
            issues.append(ValidationIssue(
                Severity.CONTRADICTION, "OwnershipConflict",
                self._m(f"{where}：#{uid} 同时有多名玩家的强证据（{others}），无法判定归属",
                        f"{where}: #{uid} has strong evidence from several players ({others}); ownership is "
                        "undecidable"),
                unit_id=uid,
            ))
        elif verdict is OwnershipVerdict.CONTRADICTION:
            issues.append(ValidationIssue(
                Severity.CONTRADICTION, "OwnershipContradiction",
                self._m(f"{where}：声称 #{uid} 属于 {name}，但 {others} 有强所有权证据",
                        f"{where}: #{uid} is claimed for {name} but {others} has strong ownership evidence"),
                unit_id=uid,
            ))
        elif verdict is OwnershipVerdict.OTHER_WEAK_ONLY:
            weak = ", ".join(self.index.player_name(p) for p in owner.weak_players)
            issues.append(ValidationIssue(
                Severity.WARNING, "OwnershipWeakOther",
                self._m(f"{where}：#{uid} 只有 {weak} 的选择（弱证据），{name} 没有任何证据，建议降低置信度",
                        f"{where}: #{uid} was only selected by {weak} (weak evidence) and {name} has none; "
                        "lower the confidence"),
                unit_id=uid,
            ))
        elif verdict is OwnershipVerdict.NO_EVIDENCE and high:
            issues.append(ValidationIssue(
                Severity.WEAK_EVIDENCE, "NoOwnershipEvidence",
                self._m(f"{where}：#{uid} 被高置信地归于 {name}，但没有任何所有权证据",
                        f"{where}: #{uid} is attributed to {name} with high confidence but there is no ownership "
                        "evidence"),
                unit_id=uid,
            ))

    def _operated_before_produced(
        self, uid: int, player: int, type_name: str, evidence: Sequence[EvidenceItem], *, where: str,
        issues: list[ValidationIssue],
    ) -> None:
        first = self.index.first_production(player, type_name)
        if first is None:
            return  # pre-placed or starting units (MCV, starting infantry) have no production record
        times = [e.seconds for e in evidence if e.seconds is not None]
        seen = self.index.first_seen(uid)
        operated = min([*times, *([seen] if seen is not None else [])], default=None)
        if operated is not None and operated + 1e-6 < first.seconds:
            issues.append(ValidationIssue(
                Severity.CONTRADICTION, "OperatedBeforeProduced",
                self._m(
                    f"{where}：#{uid} 在 {format_time(operated)} 就被操作，早于 {self.index.player_name(player)} "
                    f"首次生产 {type_name}（{format_time(first.seconds)}）",
                    f"{where}: #{uid} is operated at {format_time(operated)}, before "
                    f"{self.index.player_name(player)} first produced {type_name} ({format_time(first.seconds)})",
                ),
                time_seconds=operated, unit_id=uid,
            ))

    # ------------------------------------------------------------------ protocols (§7.3)

    def _protocol(self, player: int | None, name: str, seconds: float | None, *, where: str,
                  issues: list[ValidationIssue]) -> None:
        wanted = name.strip().lower()
        if not wanted:
            return
        picks = self.index.protocols if player is None else self.index.protocols_of(player)
        matches = [p for p in picks if p.name.lower() == wanted]
        if not matches:
            who = self.index.player_name(player) if player is not None else self._m("任何玩家", "any player")
            issues.append(ValidationIssue(
                Severity.CONTRADICTION, "ProtocolNotObserved",
                self._m(f"{where}：{who} 从未选择协议 {name}", f"{where}: {who} never picked protocol {name}"),
                time_seconds=seconds,
            ))
            return
        if seconds is not None and min(abs(p.seconds - seconds) for p in matches) > PROTOCOL_TOLERANCE_SECONDS:
            actual = ", ".join(format_time(p.seconds) for p in matches)
            issues.append(ValidationIssue(
                Severity.WARNING, "ProtocolTimeMismatch",
                self._m(f"{where}：协议 {name} 的选择时间是 {actual}，不是 {format_time(seconds)}",
                        f"{where}: protocol {name} was picked at {actual}, not {format_time(seconds)}"),
                time_seconds=matches[0].seconds,
            ))

    # ------------------------------------------------------------------ event claims (§7.2, §7.3)

    def _event_claim(self, claim: dict[str, Any], n: int, issues: list[ValidationIssue]) -> None:
        where = self._m(f"事件声明 {n}", f"event claim {n}")
        kind = str(claim.get("kind", "")).strip().lower()
        seconds = parse_time(str(claim.get("time", ""))) if claim.get("time") is not None else None
        player = self._player(claim.get("player"), issues, where)
        uid = unit_id_of(claim.get("unitId", claim.get("caster")))
        if uid is not None and not self._exists(uid, issues, where):
            return
        name = str(claim.get("name", "")).strip()
        if kind == "protocol":
            self._protocol(player, name, seconds, where=where, issues=issues)
        elif kind in ("power", "ability", "skill") and uid is not None:
            self._caster(uid, player, where, issues)
        elif kind in ("build", "produce", "production", "place") and player is not None:
            type_name = self._type_name(name)
            if type_name and self.index.first_production(player, type_name) is None:
                issues.append(ValidationIssue(
                    Severity.CONTRADICTION, "EventNotObserved",
                    self._m(f"{where}：{self.index.player_name(player)} 从未生产/建造 {type_name}",
                            f"{where}: {self.index.player_name(player)} never produced or built {type_name}"),
                    time_seconds=seconds,
                ))

    def _caster(self, uid: int, player: int | None, where: str, issues: list[ValidationIssue]) -> None:
        casters = [e for e in self.index.evidence(uid) if e.role is Role.CASTER]
        if casters:
            if player is not None and all(e.player != player for e in casters):
                actual = self.index.player_name(casters[0].player)
                issues.append(ValidationIssue(
                    Severity.CONTRADICTION, "CasterContradiction",
                    self._m(f"{where}：#{uid} 施放技能的是 {actual}，不是 {self.index.player_name(player)}",
                            f"{where}: #{uid} cast powers for {actual}, not {self.index.player_name(player)}"),
                    time_seconds=casters[0].seconds, unit_id=uid,
                ))
            return
        as_target = [
            ev for ev in self.index.events_for_object(uid)
            if ev.command_id in (POWER_AT_OBJECT, POWER_TWO_POINTS) and ev.object_ids[:1] == (uid,)
        ]
        if as_target:
            t = as_target[0].seconds
            issues.append(ValidationIssue(
                Severity.CONTRADICTION, "CasterTargetConfusion",
                self._m(f"{where}：#{uid} 在 {format_time(t)} 是技能（0x{as_target[0].command_id:03X}）的目标，"
                        "不能据此认定它是施法者；施法者只能来自 0x1FE/0x200",
                        f"{where}: #{uid} is the target of a power (0x{as_target[0].command_id:03X}) at "
                        f"{format_time(t)}; that does not make it the caster (casters come only from 0x1FE/0x200)"),
                time_seconds=t, unit_id=uid,
            ))
        else:
            issues.append(ValidationIssue(
                Severity.WEAK_EVIDENCE, "CasterUnverified",
                self._m(f"{where}：没有 0x1FE/0x200 记录显示 #{uid} 施放过技能",
                        f"{where}: no 0x1FE/0x200 record shows #{uid} casting a power"),
                unit_id=uid,
            ))

    # ------------------------------------------------------------------ timeline claims (§7.6)

    def _timeline_claim(self, claim: dict[str, Any], n: int, issues: list[ValidationIssue]) -> None:
        where = self._m(f"时间线声明 {n}", f"timeline claim {n}")
        player = self._player(claim.get("player"), issues, where)
        type_name = self._type_name(claim.get("type"))
        raw_time = claim.get("firstTime", claim.get("time"))
        seconds = parse_time(str(raw_time)) if raw_time is not None else None
        if player is None or not type_name:
            return
        first = self.index.first_production(player, type_name)
        who = self.index.player_name(player)
        if first is None:
            issues.append(ValidationIssue(
                Severity.CONTRADICTION, "TimelineNotObserved",
                self._m(f"{where}：{who} 从未生产 {type_name}", f"{where}: {who} never produced {type_name}"),
                time_seconds=seconds,
            ))
        elif seconds is not None and abs(first.seconds - seconds) > TIMELINE_TOLERANCE_SECONDS:
            issues.append(ValidationIssue(
                Severity.WARNING, "TimelineMismatch",
                self._m(f"{where}：{who} 首次生产 {type_name} 是在 {format_time(first.seconds)}，不是 "
                        f"{format_time(seconds)}",
                        f"{where}: {who} first produced {type_name} at {format_time(first.seconds)}, not "
                        f"{format_time(seconds)}"),
                time_seconds=first.seconds,
            ))

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
                lines.append(self._m(f"#{uid}：录像中不存在", f"#{uid}: not in the replay"))
                continue
            ev = self.index.evidence(uid)
            strong = sorted({self.index.player_name(e.player) for e in ev if e.strength.value == "strong"})
            weak = sorted({self.index.player_name(e.player) for e in ev if e.strength.value == "weak"})
            first = self.index.first_seen(uid)
            lines.append(self._m(
                f"#{uid}：首次出现 {format_time(first or 0)}；强证据 {', '.join(strong) or '无'}；弱证据 "
                f"{', '.join(weak) or '无'}",
                f"#{uid}: first seen {format_time(first or 0)}; strong evidence {', '.join(strong) or 'none'}; "
                f"weak evidence {', '.join(weak) or 'none'}",
            ))
        if any(i.code.startswith("Protocol") for i in issues):
            for p in self.index.protocols:
                lines.append(self._m(f"协议：{self.index.player_name(p.player)} 在 {format_time(p.seconds)} 选择 "
                                     f"{p.name}", f"protocol: {self.index.player_name(p.player)} picked {p.name} at "
                                     f"{format_time(p.seconds)}"))
        if any(i.code.startswith("Timeline") or i.code == "OperatedBeforeProduced" for i in issues):
            for f in self.index.first_productions()[:limit]:
                lines.append(self._m(f"首次生产：{self.index.player_name(f.player)} {f.name} "
                                     f"{format_time(f.seconds)}", f"first production: "
                                     f"{self.index.player_name(f.player)} {f.name} {format_time(f.seconds)}"))
        return "\n".join(lines[:limit])
