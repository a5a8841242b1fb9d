"""The revision that repairs (plan §10, issue 14): keep what validated, take only corrections from the model.

A revision reply carries corrected claims and the sentences that change; it never gets to drop or weaken a claim
that passed. :func:`merge_revision` enforces that: every claim of the draft without an issue above Info is kept as
it was, and the revision's claims only replace flagged ones or add new ones. :func:`apply_corrections` puts the
corrected sentences in place of the original ones.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from app.claims.issues import ValidationIssue
from app.claims.kinds import CLAIM_LISTS
from app.claims.parse import ParsedClaims, unit_id_of
from app.claims.timeparse import parse_time

KINDS = tuple((c.kind, c.attr) for c in CLAIM_LISTS)
"""(kind, :class:`ParsedClaims` attribute) of each claim list (:data:`app.claims.kinds.CLAIM_LISTS`)."""
CONFIDENCE_RANK = {
    "uncertain": 0,
    "likely": 1,
    "highly likely": 2,
    "highly_likely": 2,
    "confirmed": 3,
    "高度可能": 2,
    "确定": 3,
}
_WAS = re.compile(r"[^\S\n]*+[-*]?[^\S\n]*+[`*]*+(?:原文|原句|was)[^\S\n]*+[:：]", re.IGNORECASE)
_NOW = re.compile(r"[^\S\n]*+[-*]?[^\S\n]*+[`*]*+(?:改为|now)[^\S\n]*+[:：]", re.IGNORECASE)
"""The two lines of a ``was: … / now: …`` pair (``原文：… / 改为：…``) up to their colon, the markers maybe in
backticks or bold as the prompt shows them. Only ``[^\\S\\n]`` (spaces and tabs, never a line break) may
pad the markers: an empty ``now:`` deletes its sentence and must not read the next line ("[claims]", or the next
pair's ``was:``) as the replacement (issue 30). Each line is matched on its own, with possessive runs, so a line
costs time in proportion to its length (a reply is model output: a 20,000-space line took 30 s as one pattern)."""
MAX_CORRECTIONS = 200
"""Corrections read from one revision reply: far more than a window's flagged sentences, and what keeps
:func:`apply_corrections` linear (each applied pair searches the text once)."""
_LIST_MARK = re.compile(r"[^\S\n]*(?:[-*+•]|\d+[.)、])?[^\S\n]*")
CORRECTIONS_MARKERS = ("[更正]", "[corrections]", "[Corrections]")
DISPUTES_MARKERS = ("[异议]", "[disputes]", "[Disputes]")
MAX_DISPUTES = 50
"""Disputes read from one revision (a reply is model output); a reason is cut at :data:`MAX_REASON_CHARS`."""
MAX_REASON_CHARS = 500
_DISPUTE = re.compile(
    r"^\s*(?:[-*•]|\d+[.)、])?\s*[`*]*(?P<kind>单位|事件|时间线|unit|event|timeline)\s*(?:声明|claim)\s*"
    r"(?P<n>\d+)[`*]*\s*[:：]\s*(?P<reason>\S.*?)\s*$",
    re.IGNORECASE,
)
_DISPUTE_KIND = {"单位": "unit", "事件": "event", "时间线": "timeline", "unit": "unit", "event": "event"}
_WINDOW_CORRECTION = re.compile(
    r"^\s*(?:[-*•]|\d+[.)、])?\s*(?:窗口|window)\s*(?P<n>\d+)\s*(?:[（(][^）)]*[）)])?\s*[:：]\s*(?P<text>\S.*?)\s*$",
    re.IGNORECASE,
)
_ID_MENTION = re.compile(r"#(\d+)")
_TIME_MENTION = re.compile(r"\d{1,3}:\d{2}(?:\.\d{1,2})?")


def flagged_refs(issues: Sequence[ValidationIssue]) -> set[str]:
    """Claim references (``event:2``…) with an issue above Info."""
    return {i.claim for i in issues if i.needs_revision and i.claim is not None}


def passed_claims(parsed: ParsedClaims, issues: Sequence[ValidationIssue]) -> dict[str, list[dict[str, Any]]]:
    """The claims of a reply without any issue above Info, by kind."""
    bad = flagged_refs(issues)
    return {kind: [c for n, c in enumerate(getattr(parsed, attr)) if f"{kind}:{n}" not in bad] for kind, attr in KINDS}


def claim_key(kind: str, claim: dict[str, Any]) -> str:
    """What makes two claims "the same claim" across a revision: the unit, or the event/timeline identity."""
    if kind == "unit":
        uid = unit_id_of(claim.get("unitId"))
        return f"unit:{uid if uid is not None else claim.get('unitId')!r}"
    if kind == "timeline":
        return f"timeline:{claim.get('player')}:{str(claim.get('type', '')).lower()}"
    fields = {k: v for k, v in claim.items() if k not in ("confidence", "note", "text")}
    return "event:" + json.dumps(fields, sort_keys=True, ensure_ascii=False)


def confidence_rank(claim: dict[str, Any]) -> int:
    """0 (uncertain) … 3 (confirmed); claims without a confidence rank as confirmed (they state a fact)."""
    return CONFIDENCE_RANK.get(str(claim.get("confidence", "confirmed")).strip().lower(), 3)


def merge_revision(draft: ParsedClaims, draft_issues: Sequence[ValidationIssue], revised: ParsedClaims) -> ParsedClaims:
    """The claims after a revision: the draft's passed claims as they were, plus the revision's other claims.

    A revised claim with the same key as a passed one is dropped (the passed one stays, with its evidence and
    confidence). The merged object keeps the revision's display text and parse issues.
    """
    kept = passed_claims(draft, draft_issues)
    out = ParsedClaims(
        blocks_found=max(draft.blocks_found, revised.blocks_found),
        blocks_parsed=max(draft.blocks_parsed, revised.blocks_parsed),
        issues=list(revised.issues),
        display_text=revised.display_text,
        marker_found=draft.marker_found or revised.marker_found,
    )
    for kind, attr in KINDS:
        mine = list(kept[kind])
        keys = {claim_key(kind, c) for c in mine}
        mine += [c for c in getattr(revised, attr) if claim_key(kind, c) not in keys]
        setattr(out, attr, mine)
    return out


@dataclass(frozen=True, slots=True)
class RevisionTally:
    """Issues of a window before and after its revision: "found N · fixed M · K left"."""

    found: int
    left: int

    @property
    def fixed(self) -> int:
        """Issues that the revision resolved."""
        return max(0, self.found - self.left)


def tally(before: Sequence[ValidationIssue], after: Sequence[ValidationIssue]) -> RevisionTally:
    """Count the issues above Info before and after."""
    return RevisionTally(sum(i.needs_revision for i in before), sum(i.needs_revision for i in after))


def corrections_section(text: str) -> str:
    """The ``[更正]`` / ``[corrections]`` part of a revision reply ("" when it has none)."""
    for marker in CORRECTIONS_MARKERS:
        i = text.find(marker)
        if i >= 0:
            return text[i + len(marker) :]
    return ""


def apply_corrections(draft_text: str, revision_text: str) -> tuple[str, list[str]]:
    """The draft with each ``was: … / now: …`` pair applied; corrections whose original is not found are returned.

    At most :data:`MAX_CORRECTIONS` pairs are read, line by line, so a hostile reply costs time in proportion to
    the draft and the reply.

    Returns:
        The corrected text and the corrected sentences that could not be placed (the caller shows them after
        the text).
    """
    text = draft_text
    unplaced: list[str] = []
    for raw_was, raw_now in itertools.islice(
        _pairs(corrections_section(revision_text) or revision_text), MAX_CORRECTIONS
    ):
        was, now = raw_was.strip().strip("“”\"'`"), raw_now.strip().strip("“”\"'`")
        if was and was in text:
            text = text.replace(was, now, 1) if now else delete_sentence(text, was)
        elif now:
            unplaced.append(now)
    return text, unplaced


def _pairs(section: str) -> Iterator[tuple[str, str]]:
    """Each ``was`` line with a non-empty sentence that the next line's ``now`` follows: (was, now), unstripped.

    After a marker's colon a run of backticks and asterisks (the prompt's markup) is dropped, then the blanks; the
    ``was`` sentence must then be non-empty (when only that markup followed, its last character is the sentence).
    """
    lines = section.split("\n")
    i = 0
    while i < len(lines) - 1:
        head = _WAS.match(lines[i])
        if head is not None:
            rest = lines[i][head.end() :]
            body = rest.lstrip("`*")
            was = body.strip() or rest[: len(rest) - len(body)][-1:]
            tail = _NOW.match(lines[i + 1]) if was else None
            if tail is not None:
                yield was, lines[i + 1][tail.end() :].lstrip("`*").strip()
                i += 2
                continue
        i += 1


def delete_sentence(text: str, sentence: str) -> str:
    """``text`` without the first ``sentence`` and the space that set it apart.

    What follows on the same line closes up; a sentence that was its line's whole content (after a list mark)
    takes the line with it, so no empty bullet or extra blank line is left behind.
    """
    i = text.find(sentence)
    if i < 0:
        return text
    before, after = text[:i], text[i + len(sentence) :]
    rest = after.lstrip(" \t")
    if rest and not rest.startswith("\n"):  # more of the line follows: it takes the sentence's place
        return before + rest
    line_start = before.rfind("\n") + 1
    if not _LIST_MARK.fullmatch(before[line_start:]):  # the line keeps what came before the sentence
        return before.rstrip(" \t") + rest
    before, rest = before[:line_start], rest[1:]  # the whole line goes, its line break too
    if before.endswith("\n\n") and (rest.startswith("\n") or not rest):
        before = before[:-1]  # the paragraph break before the line and the one after it become one
    if not rest:
        before = before.rstrip("\n")
    return before + rest


@dataclass(frozen=True, slots=True)
class WindowCorrection:
    """One correction the summary round made to an earlier window, with the first id and time it mentions."""

    window: int  # 1-based, counted over the match, as the summary-round request numbers them
    text: str
    unit_id: int | None
    time_seconds: float | None


def window_corrections(text: str) -> list[WindowCorrection]:
    """The summary round's corrections of earlier windows (plan §5.8).

    They are the ``Window N: …`` / ``窗口 N：…`` lines of the ``[corrections]`` section, up to the next marker or
    code fence.
    """
    out: list[WindowCorrection] = []
    for line in corrections_section(text).splitlines():
        if line.lstrip().startswith(("[", "```")):
            break
        m = _WINDOW_CORRECTION.match(line)
        if not m:
            continue
        said = m.group("text")
        ids = _ID_MENTION.findall(said)
        times = [t for t in (parse_time(x) for x in _TIME_MENTION.findall(said)) if t is not None]
        out.append(WindowCorrection(int(m.group("n")), said, int(ids[0]) if ids else None, times[0] if times else None))
    return out


def without_disputes(text: str) -> str:
    """``text`` without its ``[disputes]`` section (up to the next marker or code fence): it is no analysis text."""
    for marker in DISPUTES_MARKERS:
        i = text.find(marker)
        if i >= 0:
            lines = text[i + len(marker) :].splitlines(keepends=True)
            n = next((k for k, ln in enumerate(lines) if ln.lstrip().startswith(("[", "```"))), len(lines))
            return text[:i] + "".join(lines[n:])
    return text


def disputes(text: str) -> dict[str, str]:
    """The flagged claims the model disputes in its revision, with its reason: ``{"unit:0": "…"}``.

    They are the ``- unit claim N: reason`` / ``- 单位声明 N：理由`` lines of the ``[disputes]`` / ``[异议]``
    section (N as the revision request numbered the flagged claims, 1-based per kind), up to the next marker or
    code fence. A line without a reason disputes nothing.
    """
    out: dict[str, str] = {}
    for marker in DISPUTES_MARKERS:
        i = text.find(marker)
        if i >= 0:
            section = text[i + len(marker) :]
            break
    else:
        return out
    for line in section.splitlines():
        if line.lstrip().startswith(("[", "```")):
            break
        m = _DISPUTE.match(line)
        if m is None or int(m.group("n")) < 1:
            continue
        kind = _DISPUTE_KIND.get(m.group("kind").lower(), "timeline")
        out.setdefault(f"{kind}:{int(m.group('n')) - 1}", m.group("reason")[:MAX_REASON_CHARS])
        if len(out) >= MAX_DISPUTES:
            break
    return out


def _claim_at(parsed: ParsedClaims, ref: str) -> tuple[str, dict[str, Any]] | None:
    kind, _, n = ref.partition(":")
    attr = dict(KINDS).get(kind)
    if attr is None or not n.isdigit():
        return None
    listed = getattr(parsed, attr)
    return (kind, listed[int(n)]) if int(n) < len(listed) else None


def mark_disputed(
    draft: ParsedClaims,
    draft_issues: Sequence[ValidationIssue],
    reasons: dict[str, str],
    merged: ParsedClaims,
    final_issues: Sequence[ValidationIssue],
) -> list[ValidationIssue]:
    """The draft's issues, each one the model disputed and the revision's check no longer confirms marked so.

    The check confirms an issue when, after the revision, the same claim (same :func:`claim_key`) still has an
    issue with the same code and the same fact: the checker gave the same finding again, knowing the dispute. A
    claim the revision changed or left out, or a finding that changed (an ownership check that now names the
    other owner), is not confirmed, so the issue is disputed: it teaches nothing until a person rules on it.
    """
    if not reasons:
        return list(draft_issues)
    confirmed: set[tuple[str, str, str]] = set()
    for i in final_issues:
        if i.needs_revision and i.claim is not None:
            at = _claim_at(merged, i.claim)
            if at is not None:
                confirmed.add((claim_key(*at), i.code, i.fact or i.message))
    out: list[ValidationIssue] = []
    for i in draft_issues:
        reason = reasons.get(i.claim or "", "")
        at = _claim_at(draft, i.claim) if reason and i.needs_revision and i.claim is not None else None
        if at is not None and (claim_key(*at), i.code, i.fact or i.message) not in confirmed:
            out.append(replace(i, disputed=reason))
        else:
            out.append(i)
    return out
