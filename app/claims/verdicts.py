"""Each claim's verdict, for storage, the report's appendix table and the revision request's quotes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.claims.issues import ValidationIssue
from app.claims.parse import ParsedClaims
from app.claims.revision import KINDS
from app.i18n import Lang, tr

PASSED = "passed"


def _flagged_by_claim(issues: Sequence[ValidationIssue]) -> dict[str, list[ValidationIssue]]:
    """The issues above Info of each claim ref, in order: one pass, so callers stay linear in claims + issues."""
    out: dict[str, list[ValidationIssue]] = {}
    for i in issues:
        if i.claim is not None and i.needs_revision:
            out.setdefault(i.claim, []).append(i)
    return out


def _verdict(mine: Sequence[ValidationIssue]) -> str:
    if not mine:
        return PASSED
    worst = max(mine, key=lambda i: i.severity)
    return f"{worst.severity.label} {worst.code}"


def verdict_of(ref: str, issues: Sequence[ValidationIssue]) -> str:
    """``passed``, or the worst issue above Info as ``Severity Code`` (Info-only notes still pass)."""
    return _verdict(_flagged_by_claim(issues).get(ref, []))


def annotated_claims(parsed: ParsedClaims, issues: Sequence[ValidationIssue]) -> dict[str, Any]:
    """The claims as stored: each claim with a ``verdict`` key (the model's own keys are untouched)."""
    flagged = _flagged_by_claim(issues)
    out: dict[str, Any] = {}
    for kind, attr in KINDS:
        out[f"{kind}Claims"] = [
            {**c, "verdict": _verdict(flagged.get(f"{kind}:{n}", []))} for n, c in enumerate(getattr(parsed, attr))
        ]
    return out


def claim_summary(kind: str, claim: dict[str, Any]) -> str:
    """One line naming a claim: its ids, type or name, time and player."""
    parts: list[str] = []
    for key in ("time", "firstTime"):
        if claim.get(key):
            parts.append(str(claim[key]))
    if claim.get("player"):
        parts.append(str(claim["player"]))
    if kind == "event" and claim.get("kind"):
        parts.append(str(claim["kind"]))
    for key in ("type", "name"):
        if claim.get(key):
            parts.append(str(claim[key]))
    for key, label in (("unitId", ""), ("actorId", "actor "), ("targetId", "target ")):
        if claim.get(key) not in (None, ""):
            parts.append(f"{label}#{str(claim[key]).lstrip('#')}")
    if claim.get("confidence"):
        parts.append(f"({claim['confidence']})")
    return " ".join(parts)


def quote_flagged(parsed: ParsedClaims, issues: Sequence[ValidationIssue], lang: Lang) -> str:
    """One block per flagged claim: the claim quoted (ids, type, time) and each fact against it."""
    lines: list[str] = []
    flagged = _flagged_by_claim(issues)
    for kind, attr in KINDS:
        for n, claim in enumerate(getattr(parsed, attr)):
            mine = flagged.get(f"{kind}:{n}", [])
            if not mine:
                continue
            label = {
                "unit": tr(lang, "unit claim"),
                "event": tr(lang, "event claim"),
                "timeline": tr(lang, "timeline claim"),
            }[kind]
            lines.append(f"- {label} {n + 1}: {claim_summary(kind, claim)}")
            for i in mine:  # the message as stored and shown in the report: it names the fact (issue 28 §2)
                lines.append(f"  [{i.severity.label}] {i.code} — {i.message}")
    loose = [i for i in issues if i.claim is None and i.needs_revision]
    for i in loose:
        lines.append(f"- [{i.severity.label}] {i.code}: {i.message}")
    return "\n".join(lines)
