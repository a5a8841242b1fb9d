"""The found-facts digest a window passes on to the next ones (issue 28 §2).

Each window contributes one item: its label, its first sentences, then per player (the label stays) its validated
claims of every kind, then the claims its revision corrected. The run's found-facts reserve (the plan's
``found_facts_budget``, which ``replaysage plan`` shows) bounds how many items go with a request. A claim that a
later window contradicts (the same object typed another way) is never carried as validated again: both move to a
"contradicted" list, and the earlier item is rendered anew.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.claims.issues import ValidationIssue
from app.claims.parse import ParsedClaims, unit_id_of
from app.claims.revision import claim_key, passed_claims
from app.i18n import Lang, tr

TypeOf = Callable[[str], str | None]


@dataclass(slots=True)
class DigestClaim:
    """One carried claim: whose, its short text, and (unit claims) the object and its canonical type."""

    player: str
    text: str
    unit_id: int | None = None
    type: str | None = None
    corrected: bool = False
    contradicted: bool = False


@dataclass(slots=True)
class WindowDigest:
    """A window's found facts, kept structured so a later contradiction can withdraw a claim."""

    label: str
    summary: str
    claims: list[DigestClaim] = field(default_factory=list)

    def render(self, lang: Lang) -> str:
        """One line: label, summary, then per player its validated claims, corrections and withdrawn claims."""
        out = self.label + tr(lang, ": ") + self.summary
        players = list(dict.fromkeys(c.player for c in self.claims))
        for p in players:
            mine = [c for c in self.claims if c.player == p]
            parts = []
            for title, picked in (
                (tr(lang, "validated"), [c for c in mine if not c.corrected and not c.contradicted]),
                (
                    tr(lang, "corrected in revision"),
                    [c for c in mine if c.corrected and not c.contradicted],
                ),
                (
                    tr(lang, "contradicted later (not validated)"),
                    [c for c in mine if c.contradicted],
                ),
            ):
                if picked:
                    parts.append(title + tr(lang, ": ") + "; ".join(c.text for c in picked))
            out += f" [{p or tr(lang, 'no player')}] " + " | ".join(parts)
        return out


def _text(kind: str, c: dict[str, Any]) -> str:
    if kind == "unit":
        conf = f" ({c['confidence']})" if c.get("confidence") else ""
        return f"#{unit_id_of(c.get('unitId'))} {c.get('type', '') or '?'}{conf}"
    if kind == "timeline":
        return f"first {c.get('type', '')} {c.get('firstTime', c.get('time', ''))}"
    ids = " ".join(f"#{unit_id_of(c[k])}" for k in ("actorId", "targetId") if c.get(k) not in (None, ""))
    return " ".join(str(x) for x in (c.get("time", ""), c.get("kind", ""), c.get("name", ""), ids) if x)


def window_digest(  # noqa: PLR0917 - the draft and the final claims with their issues
    label: str,
    summary: str,
    draft: ParsedClaims,
    draft_issues: Sequence[ValidationIssue],
    final: ParsedClaims,
    final_issues: Sequence[ValidationIssue],
    type_of: TypeOf,
) -> WindowDigest:
    """A window's digest: every claim that passed in the end, those that came from its revision marked corrected."""
    before = {k: {claim_key(k, c) for c in v} for k, v in passed_claims(draft, draft_issues).items()}
    out = WindowDigest(label, summary)
    for kind, listed in passed_claims(final, final_issues).items():
        for c in listed:
            uid = unit_id_of(c.get("unitId")) if kind == "unit" else None
            raw = str(c.get("type") or "") if kind == "unit" else ""
            out.claims.append(
                DigestClaim(
                    str(c.get("player", "")),
                    _text(kind, c),
                    uid,
                    type_of(raw) if raw else None,
                    corrected=claim_key(kind, c) not in before[kind],
                )
            )
    return out


def withdraw_contradicted(digests: Sequence[WindowDigest]) -> set[int]:
    """Mark unit claims of different windows that type one object two ways; the indexes of digests changed."""
    seen: dict[int, list[tuple[int, DigestClaim]]] = {}
    for n, d in enumerate(digests):
        for c in d.claims:
            if c.unit_id is not None and c.type:
                seen.setdefault(c.unit_id, []).append((n, c))
    changed: set[int] = set()
    for said in seen.values():
        if len({c.type for _n, c in said}) < 2:
            continue
        for n, c in said:
            if not c.contradicted:
                c.contradicted = True
                changed.add(n)
    return changed
