"""The found-facts digest a window passes on to the next ones (issue 28 §2).

Each window contributes one item: its label, its first sentences, then per player (the label stays) its validated
claims of every kind, then the claims its revision corrected. The run's found-facts reserve (the plan's
``found_facts_budget``, which ``replaysage plan`` shows) bounds how many items go with a request. A claim that a
later window contradicts (the same object typed another way) is never carried as validated again: both move to a
"contradicted" list, and the earlier item is rendered anew.

When the reserve is short (2K at 32K), :func:`fit_digests` compresses instead of dropping: every window stays with
its label, player headings and corrections, the oldest summarised hardest.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.claims.issues import ValidationIssue
from app.claims.parse import ParsedClaims, unit_id_of
from app.claims.revision import claim_key, passed_claims
from app.i18n import Lang, tr
from app.tokens import TokenEstimator

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


# -- fitting every window into the found-facts budget ------------------------------------------------------------

FIT_LEVELS = 5
"""Compression levels of one window's item, 0 (whole) to 5 (label and counts): see :func:`render_level`."""
_SUMMARY_CHARS = {1: 160, 2: 70}
_VALIDATED_SHOWN = {1: 4, 2: 2}
_CORRECTED_SHOWN_AT_4 = 2
_TEXT_CHARS = {1: 400, 2: 220, 3: 140, 4: 80}
_SENTENCE_END = re.compile(r"[。！？!?；]|[.;](?=\s|$)")


def _shorten(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters: after its last sentence that fits, else cut with an ellipsis."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    ends = [m.end() for m in _SENTENCE_END.finditer(head)]
    if ends and ends[-1] >= limit // 3:
        return head[: ends[-1]].rstrip()
    return head[: max(limit - 1, 1)].rstrip() + "…"


def _some(texts: list[str], shown: int, lang: Lang) -> str:
    """The first ``shown`` texts, then how many more there are."""
    out = "; ".join(texts[:shown])
    more = len(texts) - shown
    if more > 0:
        out += tr(lang, "; +{more} more", more=more)
    return out


def render_level(d: WindowDigest, lang: Lang, level: int) -> str:
    """A window's item at a compression level; every level keeps the label and every player's heading.

    * 0: the whole item (:meth:`WindowDigest.render`);
    * 1: the summary cut to its first sentence or so, at most 4 validated claims per player, every correction;
    * 2: a one-phrase summary, 2 validated claims per player, every correction;
    * 3: no summary, the number of validated claims, every correction and every withdrawn claim;
    * 4: as 3, at most 2 corrections per player listed (the rest counted);
    * 5: the label and, per player, the numbers only.

    A withdrawn (contradicted) claim is never shown as validated at any level.
    """
    if level <= 0:
        return d.render(lang)
    sep = tr(lang, ": ")
    out = d.label + sep
    if level in _SUMMARY_CHARS and d.summary:
        out += _shorten(d.summary, _SUMMARY_CHARS[level])
    for p in dict.fromkeys(c.player for c in d.claims):
        mine = [c for c in d.claims if c.player == p]
        valid = [c.text for c in mine if not c.corrected and not c.contradicted]
        fixed = [c.text for c in mine if c.corrected and not c.contradicted]
        withdrawn = [c.text for c in mine if c.contradicted]
        parts: list[str] = []
        if level >= 5:
            counts = [
                (len(valid), tr(lang, "validated")),
                (len(fixed), tr(lang, "corrected")),
                (len(withdrawn), tr(lang, "contradicted later")),
            ]
            parts = [f"{title} {n}" for n, title in counts if n]
        else:
            if valid:
                shown = _VALIDATED_SHOWN.get(level, 0)
                body = _some(valid, shown, lang) if shown else tr(lang, "{count} claims", count=len(valid))
                parts.append(tr(lang, "validated") + sep + body)
            if fixed:
                shown = _CORRECTED_SHOWN_AT_4 if level >= 4 else len(fixed)
                parts.append(tr(lang, "corrected in revision") + sep + _some(fixed, shown, lang))
            if withdrawn:
                title = tr(lang, "contradicted later (not validated)")
                parts.append(
                    title + sep + _some(withdrawn, _CORRECTED_SHOWN_AT_4 if level >= 4 else len(withdrawn), lang)
                )
        out += f" [{p or tr(lang, 'no player')}] " + " | ".join(parts)
    return out


def _text_level(text: str, lang: Lang, level: int) -> str:
    """A stored item without its structure (a resumed run's earlier windows): shortened as text, label kept."""
    if level <= 0:
        return text
    if level in _TEXT_CHARS:
        return _shorten(text, _TEXT_CHARS[level])
    label = re.split(r"：|: ", text, maxsplit=1)[0]
    return _shorten(label, _TEXT_CHARS[4])


def fit_digests(items: Sequence[WindowDigest | str], budget: int, estimator: TokenEstimator, lang: Lang) -> list[str]:
    """Every window's found facts within ``budget`` budget tokens (the plan's found-facts reserve).

    Nothing is dropped while compressing can make room: the oldest items are compressed first, one level at a time
    (:func:`render_level`), then the next oldest, and a newer item is compressed further only when every older one
    already is. So the newest windows keep the most, every window keeps its label, its players and its corrections,
    and the summary round sees every window. Only when even the shortest form of every item does not fit are the
    oldest items left out (the newest that fit are kept, as before).
    """
    if budget <= 0 or not items:
        return []
    from app.tokens import count_tokens_batch

    n = len(items)
    renders: list[list[str]] = []
    for it in items:
        if isinstance(it, WindowDigest):
            renders.append([render_level(it, lang, lv) for lv in range(FIT_LEVELS + 1)])
        else:
            renders.append([_text_level(it, lang, lv) for lv in range(FIT_LEVELS + 1)])
    flat = [f"- {r}\n" for rs in renders for r in rs]
    raw = count_tokens_batch(flat)
    cost = [[estimator.from_raw(raw[i * (FIT_LEVELS + 1) + lv]) for lv in range(FIT_LEVELS + 1)] for i in range(n)]
    level = [0] * n
    total = sum(c[0] for c in cost)
    for target in range(1, FIT_LEVELS + 1):
        for i in range(n):
            if total <= budget:
                return [renders[k][level[k]] for k in range(n)]
            if level[i] < target:
                total += cost[i][target] - cost[i][level[i]]
                level[i] = target
    if total <= budget:
        return [renders[k][level[k]] for k in range(n)]
    kept: list[str] = []  # even the shortest forms do not fit: the newest that do
    used = 0
    for k in reversed(range(n)):
        if used + cost[k][FIT_LEVELS] > budget:
            break
        used += cost[k][FIT_LEVELS]
        kept.append(renders[k][FIT_LEVELS])
    return kept[::-1]
