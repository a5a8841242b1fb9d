"""Parse the machine-readable claims a reply ends with (plan §7.4).

Every JSON block after the ``[机器可读声明]`` (or ``[claims]``) marker is parsed, not only the last one. Blocks
merge in order; a later block wins per ``unitId``. A block that does not parse becomes an Info issue and the
others still count. The display text is the reply with the claims section removed.

A reply is model output, so what one reply may carry is capped before anything walks it (issue 29): the claims
section's size (:data:`MAX_SECTION_CHARS`), a block's nesting depth (:data:`MAX_DEPTH`, checked by a linear scan of
:mod:`app.jsonlimits` before ``json.loads``, which would recurse), the number of claims (:data:`MAX_CLAIMS`) and of
evidence items per claim (:data:`MAX_EVIDENCE`). Whatever is cut becomes an Info issue that says what was cut, so
the parse, the validation and everything recorded from them stay bounded whatever the reply holds.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from app import deadline
from app.claims.issues import Severity, ValidationIssue
from app.i18n import Lang
from app.jsonlimits import nesting_depth
from app.safetext import storable_json

MARKER = {Lang.ZH: "[机器可读声明]", Lang.EN: "[claims]"}
"""The marker a reply writes before its claims, per language. A token the parser looks for, not prose: it is not a
catalogue message, because a translated marker (a new language, the pseudo-locale) would not be found."""
MARKERS = (MARKER[Lang.ZH], MARKER[Lang.EN], "[Claims]", "[CLAIMS]")
CONFIDENCES = ("confirmed", "highly likely", "likely", "uncertain")
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)

MAX_SECTION_CHARS = 1_000_000
"""The claims section a reply may read (about 10,000 short claims: the claims cap cuts any sensible reply first)."""
MAX_DEPTH = 16
"""The nesting a claims block may have; real claims need 4 (object → list → claim → evidence list)."""
MAX_CLAIMS = 300
"""The claims one reply may carry, of all kinds together; the rest are cut (and said to be)."""
MAX_EVIDENCE = 12
"""The evidence items one claim may carry; the rest are cut (and said to be)."""


@dataclass(slots=True)
class ParsedClaims:
    """Claims merged from every block, plus what went wrong while parsing."""

    unit_claims: list[dict[str, Any]] = field(default_factory=list)
    event_claims: list[dict[str, Any]] = field(default_factory=list)
    timeline_claims: list[dict[str, Any]] = field(default_factory=list)
    blocks_found: int = 0
    blocks_parsed: int = 0
    issues: list[ValidationIssue] = field(default_factory=list)
    display_text: str = ""

    marker_found: bool = False

    def as_dict(self) -> dict[str, Any]:
        """JSON-compatible form (stored and shown)."""
        return {
            "unitClaims": self.unit_claims,
            "eventClaims": self.event_claims,
            "timelineClaims": self.timeline_claims,
        }

    @property
    def empty(self) -> bool:
        """True when no claim of any kind was parsed."""
        return not (self.unit_claims or self.event_claims or self.timeline_claims)


MAX_OBJECT_ID = 2**32 - 1  # object ids are 32-bit in the replay; anything larger is not an id


def unit_id_of(value: Any) -> int | None:
    """``1234``, ``"1234"`` or ``"#1234"`` → 1234; None when it is not a 32-bit object id."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        uid = value
    else:
        try:
            uid = int(str(value).strip().lstrip("#"))
        except (TypeError, ValueError):
            return None
    return uid if 0 <= uid <= MAX_OBJECT_ID else None


def _marker_position(text: str) -> tuple[int, int] | None:
    best: tuple[int, int] | None = None
    for marker in MARKERS:
        i = text.find(marker)
        if i >= 0 and (best is None or i < best[0]):
            best = (i, i + len(marker))
    return best


def _json_blocks(section: str) -> list[str]:
    """Fenced blocks first; otherwise every balanced top-level ``{…}`` in the section."""
    fenced = [m.group(1).strip() for m in _FENCE.finditer(section)]
    if fenced:
        return fenced
    blocks: list[str] = []
    depth = 0
    start = -1
    in_str = False
    escape = False
    for i, ch in enumerate(section):
        if in_str:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"' and depth > 0:
            in_str = True
        elif ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                blocks.append(section[start : i + 1])
    if depth > 0 and start >= 0:
        blocks.append(section[start:])  # an unterminated block: reported as unparsable
    return blocks


def _unit_key(claim: dict[str, Any]) -> object:
    uid = unit_id_of(claim.get("unitId"))
    return uid if uid is not None else repr(claim.get("unitId"))


def _info(code: str, message: str) -> ValidationIssue:
    return ValidationIssue(Severity.INFO, code, message)


class _Budget:
    """How many more claims this reply may carry, and what was cut (for the one issue that says so)."""

    def __init__(self) -> None:
        self.left = MAX_CLAIMS
        self.cut_claims: dict[str, int] = {}
        self.cut_evidence = 0

    def take(self, kind: str, items: Any) -> list[dict[str, Any]]:
        """The claims of one list that fit (objects only), each with at most :data:`MAX_EVIDENCE` evidence items."""
        if not isinstance(items, list):
            return []
        kept: list[dict[str, Any]] = []
        for item in items:
            if not isinstance(item, dict):
                continue
            if self.left <= 0:
                self.cut_claims[kind] = self.cut_claims.get(kind, 0) + 1
                continue
            deadline.check()
            evidence = item.get("evidence")
            if isinstance(evidence, list) and len(evidence) > MAX_EVIDENCE:
                self.cut_evidence += len(evidence) - MAX_EVIDENCE
                kept.append({**item, "evidence": evidence[:MAX_EVIDENCE]})
            else:
                kept.append(item)
            self.left -= 1
        return kept

    def issue(self) -> ValidationIssue | None:
        """The Info issue naming what was cut, if anything was."""
        parts = [f"{n} {kind} claim(s)" for kind, n in self.cut_claims.items()]
        if self.cut_evidence:
            parts.append(f"{self.cut_evidence} evidence item(s) beyond {MAX_EVIDENCE} per claim")
        if not parts:
            return None
        return _info(
            "ClaimsCapped",
            f"the reply carries more than one reply may: {', '.join(parts)} were cut (at most {MAX_CLAIMS} claims "
            "per reply); ignored",
        )


def parse_claims(text: str) -> ParsedClaims:
    """Parse and merge every claims block of ``text``, within the caps of one reply (see the module text)."""
    result = ParsedClaims()
    pos = _marker_position(text)
    if pos is None:
        result.display_text = text.strip()
        return result
    result.marker_found = True
    result.display_text = text[: pos[0]].rstrip()
    section = text[pos[1] :]
    if len(section) > MAX_SECTION_CHARS:
        result.issues.append(
            _info(
                "ClaimsSectionCut",
                f"the claims section has {len(section):,} characters; only the first {MAX_SECTION_CHARS:,} were "
                "read, the rest ignored",
            )
        )
        section = section[:MAX_SECTION_CHARS]
    units: dict[object, dict[str, Any]] = {}
    budget = _Budget()
    for n, block in enumerate(_json_blocks(section), start=1):
        deadline.check()
        result.blocks_found += 1
        depth = nesting_depth(block)
        if depth > MAX_DEPTH:
            result.issues.append(
                _info(
                    "ClaimsBlockTooDeep",
                    f"claims block {n} nests {depth} levels deep (at most {MAX_DEPTH}); ignored",
                )
            )
            continue
        try:
            data = storable_json(block)  # the claims' strings go to both stores (issue 29)
        except json.JSONDecodeError as exc:
            result.issues.append(
                _info(
                    "ClaimsBlockUnparsable",
                    f"claims block {n} is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); ignored",
                )
            )
            continue
        if not isinstance(data, dict):
            result.issues.append(_info("ClaimsBlockUnparsable", f"claims block {n} is not a JSON object; ignored"))
            continue
        result.blocks_parsed += 1
        for claim in budget.take("unit", data.get("unitClaims")):
            units[_unit_key(claim)] = claim  # a later block wins per unitId
        result.event_claims.extend(budget.take("event", data.get("eventClaims")))
        result.timeline_claims.extend(budget.take("timeline", data.get("timelineClaims")))
    cut = budget.issue()
    if cut is not None:
        result.issues.append(cut)
    result.unit_claims = list(units.values())
    return result
