"""The claim-checking evaluation (issue 14): labelled real-model-style answers plus planted wrong claims.

Layout of ``tests/data/claims_eval/``:

* ``<case>/case.json`` ``{"replay", "sha256", "lang", ...}`` (``"blind": true`` for a case answered by a model
  that never read the validator: its first score goes to the blind history); ``NNN.request.json.gz`` (the request
  as sent), ``NNN.reply.md`` (the reply as sent) and ``labels.jsonl`` (one line per claim: ``exchange``, ``kind``,
  ``index``, ``claim``, ``truth``, ``why``); optionally ``prose.jsonl`` (wrong sentences planted in the prose,
  with ``exchange``, ``sentence``, ``truth``, ``why``, for the prose check);
* ``planted.jsonl``: one wrong (or control) claim per line with ``replay``, ``lang``, ``kind``, ``claim``,
  ``truth`` and ``why``, validated alone;
* ``blind_history.jsonl``: the first score of each blind case, appended once and never rewritten
  (:func:`append_first_scores`).

Labels: ``truth`` is ``true`` (the replay shows the claim holds), ``false`` (it shows the claim is wrong) or
``null`` = *undecidable* (nothing in the replay decides it, e.g. the type of a sold building whose type no order
shows). Undecidable claims are left out of precision and recall and counted on their own: a validator is neither
right nor wrong to flag them. ``null`` is the one spelling (no separate ``label`` field), so a reader of
``labels.jsonl`` sees the three values in one place.

A claim is *flagged* when the validator raises an issue above Info on it. Every true claim must pass and every
wrong one must be flagged. For a revision exchange (its request ends with the validation message), the draft it
revises is the request's last assistant message: a true draft claim that passed is *weakened* when the revision
drops it or lowers its confidence, measured before and after :func:`app.claims.revision.merge_revision`.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from app.claims.issues import ValidationIssue
from app.claims.parse import ParsedClaims, parse_claims
from app.claims.revision import KINDS, claim_key, confidence_rank, merge_revision
from app.claims.validate import ClaimValidator
from app.facts import ReplayFactIndex, build_fact_index
from app.i18n import Lang

REVISION_OPENERS = ("[验证结果]", "[Validation]")


@dataclass(slots=True)
class Verdict:
    """One labelled claim and what the validator said about it."""

    source: str  # case name or "planted"
    exchange: str
    kind: str
    index: int
    claim: dict[str, Any]
    truth: bool | None  # None = undecidable
    why: str
    issues: list[ValidationIssue] = field(default_factory=list)

    @property
    def flagged(self) -> bool:
        """True when an issue above Info names this claim."""
        return any(i.needs_revision for i in self.issues)

    @property
    def decidable(self) -> bool:
        """False for an undecidable label (left out of precision and recall)."""
        return self.truth is not None

    @property
    def correct(self) -> bool:
        """True when the verdict agrees with the label (an undecidable label agrees with either verdict)."""
        return self.truth is None or self.flagged != self.truth


@dataclass(slots=True)
class Weakening:
    """True draft claims that passed, and how many a revision dropped or weakened (raw and after the merge)."""

    passed_true: int = 0
    weakened_raw: int = 0
    weakened_merged: int = 0


@cache
def _index(path: str) -> ReplayFactIndex:
    from app.replay import read_replay

    return build_fact_index(read_replay(Path(path)))


def _validator(corpus: Path, replay: str, lang: str) -> ClaimValidator:
    found = next((p for sub in ("ra3", "kw", "tw") for p in [corpus / sub / replay] if p.exists()), None)
    if found is None:
        raise FileNotFoundError(f"corpus replay {replay} not found under {corpus}")
    return ClaimValidator(_index(str(found)), Lang.parse(lang))


def _issues_by_claim(issues: list[ValidationIssue]) -> dict[str, list[ValidationIssue]]:
    out: dict[str, list[ValidationIssue]] = {}
    for i in issues:
        if i.claim is not None:
            out.setdefault(i.claim, []).append(i)
    return out


def _truth(row: dict[str, Any]) -> bool | None:
    """The label's truth: True, False or None (undecidable)."""
    truth = row["truth"]
    return None if truth is None else bool(truth)


def _read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


def planted_verdicts(root: Path, corpus: Path) -> list[Verdict]:
    """Verdicts on ``planted.jsonl`` (each claim validated alone)."""
    path = root / "planted.jsonl"
    if not path.exists():
        return []
    out: list[Verdict] = []
    for row in _read_jsonl(path):
        attr = dict(KINDS)[row["kind"]]
        parsed = ParsedClaims(blocks_found=1, blocks_parsed=1, marker_found=True)
        getattr(parsed, attr).append(row["claim"])
        issues = _validator(corpus, row["replay"], row.get("lang", "en")).validate(parsed, "claims")
        out.append(
            Verdict(
                "planted",
                "",
                row["kind"],
                0,
                row["claim"],
                _truth(row),
                row.get("why", ""),
                _issues_by_claim(issues).get(f"{row['kind']}:0", []),
            )
        )
    return out


def case_dirs(root: Path) -> list[Path]:
    """Every case folder (one with a case.json), sorted."""
    return sorted(p.parent for p in root.glob("*/case.json"))


def request_of(case: Path, exchange: str) -> dict[str, Any]:
    """The request body of one exchange."""
    gz = case / f"{exchange}.request.json.gz"
    if gz.exists():
        return dict(json.loads(gzip.decompress(gz.read_bytes()).decode("utf-8")))
    return dict(json.loads((case / f"{exchange}.request.json").read_text(encoding="utf-8")))


def _reply(case: Path, exchange: str) -> str:
    return (case / f"{exchange}.reply.md").read_text(encoding="utf-8")


def case_verdicts(case: Path, corpus: Path) -> list[Verdict]:
    """Verdicts on every labelled claim of one case."""
    meta = json.loads((case / "case.json").read_text(encoding="utf-8"))
    validator = _validator(corpus, meta["replay"], meta.get("lang", "en"))
    per_exchange: dict[str, dict[str, list[ValidationIssue]]] = {}
    parsed_of: dict[str, ParsedClaims] = {}
    out: list[Verdict] = []
    for row in _read_jsonl(case / "labels.jsonl"):
        ex = str(row["exchange"]).zfill(3)
        if ex not in per_exchange:
            text = _reply(case, ex)
            parsed = parse_claims(text)
            parsed_of[ex] = parsed
            per_exchange[ex] = _issues_by_claim(validator.validate(parsed, text))
        kind, index = row["kind"], int(row["index"])
        key = _claim_key(parsed_of[ex], kind, index, row.get("claim", {}))
        out.append(
            Verdict(
                case.name,
                ex,
                kind,
                index,
                row.get("claim", {}),
                _truth(row),
                row.get("why", ""),
                per_exchange[ex].get(key, []) if key else [],
            )
        )
    return out


def _claim_key(parsed: ParsedClaims, kind: str, index: int, claim: dict[str, Any]) -> str | None:
    """The validator's reference of a labelled claim: where the parse put it.

    The parse merges claims blocks and a later claim wins per unitId, in the first one's place; so a reply that types
    one object twice moves the later claim up and drops the earlier one, which the validator then never saw (None).
    """
    claims: list[dict[str, Any]] = {
        "unit": parsed.unit_claims,
        "event": parsed.event_claims,
        "timeline": parsed.timeline_claims,
    }[kind]
    if index < len(claims) and claims[index] == claim:
        return f"{kind}:{index}"
    found = next((n for n, c in enumerate(claims) if c == claim), None)
    if found is not None:
        return f"{kind}:{found}"
    if kind == "unit" and any(c.get("unitId") == claim.get("unitId") for c in claims):
        return None  # replaced by a later claim on the same object
    return f"{kind}:{index}"


def case_weakening(case: Path, corpus: Path) -> Weakening:
    """How revisions of one case treated true draft claims that passed validation."""
    meta = json.loads((case / "case.json").read_text(encoding="utf-8"))
    validator = _validator(corpus, meta["replay"], meta.get("lang", "en"))
    # an undecidable draft claim (None) is not counted: nothing says whether weakening it was right
    labels: dict[tuple[str, str, int], bool | None] = (
        {
            (str(r["exchange"]).zfill(3), r["kind"], int(r["index"])): _truth(r)
            for r in _read_jsonl(case / "labels.jsonl")
        }
        if (case / "labels.jsonl").exists()
        else {}
    )
    w = Weakening()
    for reply in sorted(case.glob("*.reply.md")):
        ex = reply.name[:3]
        body = request_of(case, ex)
        messages = body.get("messages", [])
        if not messages or not str(messages[-1].get("content", "")).startswith(REVISION_OPENERS):
            continue
        drafts = [m for m in messages if m.get("role") == "assistant"]
        if not drafts:
            continue
        draft_text = str(drafts[-1].get("content", ""))
        draft = parse_claims(draft_text)
        draft_ex = _draft_exchange(case, draft_text)
        issues = validator.validate(draft, draft_text)
        bad = {i.claim for i in issues if i.needs_revision}
        revised = parse_claims(reply.read_text(encoding="utf-8"))
        merged = merge_revision(draft, issues, revised)
        for kind, attr in KINDS:
            for n, c in enumerate(getattr(draft, attr)):
                if f"{kind}:{n}" in bad or not labels.get((draft_ex, kind, n), True):
                    continue
                w.passed_true += 1
                w.weakened_raw += _weakened(kind, c, getattr(revised, attr))
                w.weakened_merged += _weakened(kind, c, getattr(merged, attr))
    return w


def _draft_exchange(case: Path, draft_text: str) -> str:
    for reply in sorted(case.glob("*.reply.md")):
        if reply.read_text(encoding="utf-8").strip() == draft_text.strip():
            return reply.name[:3]
    return ""


def _weakened(kind: str, claim: dict[str, Any], after: list[dict[str, Any]]) -> bool:
    key = claim_key(kind, claim)
    same = [c for c in after if claim_key(kind, c) == key]
    if not same:
        return True
    best = max(same, key=confidence_rank)
    if confidence_rank(best) < confidence_rank(claim):
        return True
    before_ev = {str(e) for e in claim.get("evidence") or []}
    after_ev = {str(e) for e in best.get("evidence") or []}
    return not before_ev <= after_ev


def all_verdicts(root: Path, corpus: Path) -> list[Verdict]:
    """Planted and case verdicts together."""
    out = planted_verdicts(root, corpus)
    for case in case_dirs(root):
        if (case / "labels.jsonl").exists():
            out += case_verdicts(case, corpus)
    return out
