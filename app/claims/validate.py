"""Check a reply's claims against the replay's fact index (plan §7.1–§7.7, issues 14 and 21).

Each rule names its code; the error-wisdom library maps codes to cognitive error classes (nonexistent unit →
hallucination, move-only certainty → reasoning jump…). Severity semantics (§7.7): anything above Info triggers
the one revision; Fatal only for an empty reply or no parsable claims after the revision.

:class:`ClaimValidator` is the one entry point (the pipeline, the offline analyst, the evaluation and the tests use
it): it answers for a whole reply and dispatches each claim to the checker of its kind, all behind one interface
(:class:`ClaimChecker`) and sharing one :class:`~app.claims.replay_lookup.ReplayLookup`:

* unit claims: :mod:`app.claims.unit_claims` (owner), :mod:`app.claims.evidence_lines`,
  :mod:`app.claims.unit_types` and :mod:`app.claims.type_proofs` (type);
* event claims: :mod:`app.claims.event_claims` (with :mod:`app.claims.protocol_picks`);
* timeline claims: :mod:`app.claims.timeline_claims`;
* the reply's text: :mod:`app.claims.prose`.

Why sibling modules of :mod:`app.claims` rather than a subpackage: the package is already a flat set of modules
that each answer one question for the validator (:mod:`~app.claims.yards`, :mod:`~app.claims.producers`,
:mod:`~app.claims.factories`, :mod:`~app.claims.prose`), and the checkers are more of the same; every caller keeps
importing :class:`ClaimValidator` from here. How claimed times match the log: :mod:`app.claims.time_match`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any, Protocol

from app import deadline
from app.claims.event_claims import EventClaimChecker
from app.claims.evidence_lines import EvidenceCheck
from app.claims.issues import Severity, ValidationIssue
from app.claims.parse import ParsedClaims
from app.claims.prose import ProseChecker
from app.claims.protocol_picks import ProtocolPickCheck
from app.claims.replay_lookup import ReplayLookup
from app.claims.timeline_claims import TimelineClaimChecker
from app.claims.timeparse import format_time
from app.claims.type_proofs import TypeProofs
from app.claims.unit_claims import UnitClaimChecker
from app.claims.unit_types import UnitTypeRules
from app.facts import ReplayFactIndex
from app.i18n import Lang, pick, tr
from app.knowledge.model import Knowledge


class ClaimChecker(Protocol):
    """The one interface of the unit, event and timeline checkers."""

    def check(self, claim: dict[str, Any], n: int, issues: list[ValidationIssue]) -> None:
        """Check claim ``n`` of the checker's kind, appending its issues to ``issues``."""


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
        self.lookup = ReplayLookup(index, lang, self.knowledge)
        self.type_proofs = TypeProofs(self.lookup)
        protocols = ProtocolPickCheck(self.lookup)
        self.units = UnitClaimChecker(
            self.lookup, EvidenceCheck(self.lookup, protocols), UnitTypeRules(self.lookup, self.type_proofs)
        )
        self.events = EventClaimChecker(self.lookup, self.type_proofs, protocols)
        self.timeline = TimelineClaimChecker(self.lookup)
        self._prose: ProseChecker | None = None

    def canonical_type(self, name: str) -> str | None:
        """The internal type a claimed name means, a core taken as the structure it unpacks to; None if unknown."""
        return self.lookup.canonical_type(name)

    def type_names_in(self, text: str) -> list[str]:
        """The internal type names a free text mentions (tokens the knowledge or the replay knows)."""
        return self.lookup.type_names_in(text)

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
        checks: tuple[tuple[list[dict[str, Any]], ClaimChecker], ...] = (
            (parsed.unit_claims, self.units),
            (parsed.event_claims, self.events),
            (parsed.timeline_claims, self.timeline),
        )
        for claims, checker in checks:
            for n, claim in enumerate(claims):
                deadline.check()  # the run's deadline stops this CPU-bound loop too (it never awaits)
                checker.check(claim, n, issues)
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
                pick(
                    self.lang,
                    f"#{uid}：首次出现 {format_time(first or 0)}；强证据 {', '.join(strong) or '无'}；弱证据 "
                    f"{', '.join(weak) or '无'}",
                    f"#{uid}: first seen {format_time(first or 0)}; strong evidence {', '.join(strong) or 'none'}; "
                    f"weak evidence {', '.join(weak) or 'none'}",
                )
            )
        return "\n".join(lines[:limit])
