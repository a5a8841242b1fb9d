"""Parse the machine-readable claims a reply ends with (plan §7.4).

Every JSON block after the ``[机器可读声明]`` (or ``[claims]``) marker is parsed, not only the last one. Blocks
merge in order; a later block wins per ``unitId``. A block that does not parse becomes an Info issue and the
others still count. The display text is the reply with the claims section removed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from app.claims.issues import Severity, ValidationIssue
from app.safetext import storable_json

MARKERS = ("[机器可读声明]", "[claims]", "[Claims]", "[CLAIMS]")
CONFIDENCES = ("confirmed", "highly likely", "likely", "uncertain")
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


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


def parse_claims(text: str) -> ParsedClaims:
    """Parse and merge every claims block of ``text``."""
    result = ParsedClaims()
    pos = _marker_position(text)
    if pos is None:
        result.display_text = text.strip()
        return result
    result.marker_found = True
    result.display_text = text[: pos[0]].rstrip()
    section = text[pos[1] :]
    units: dict[object, dict[str, Any]] = {}
    for n, block in enumerate(_json_blocks(section), start=1):
        result.blocks_found += 1
        try:
            data = storable_json(block)  # the claims' strings go to both stores (issue 29)
        except json.JSONDecodeError as exc:
            result.issues.append(
                ValidationIssue(
                    Severity.INFO,
                    "ClaimsBlockUnparsable",
                    f"claims block {n} is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); ignored",
                )
            )
            continue
        if not isinstance(data, dict):
            result.issues.append(
                ValidationIssue(
                    Severity.INFO, "ClaimsBlockUnparsable", f"claims block {n} is not a JSON object; ignored"
                )
            )
            continue
        result.blocks_parsed += 1
        for claim in data.get("unitClaims") or []:
            if isinstance(claim, dict):
                units[_unit_key(claim)] = claim  # a later block wins per unitId
        result.event_claims.extend(c for c in data.get("eventClaims") or [] if isinstance(c, dict))
        result.timeline_claims.extend(c for c in data.get("timelineClaims") or [] if isinstance(c, dict))
    result.unit_claims = list(units.values())
    return result
