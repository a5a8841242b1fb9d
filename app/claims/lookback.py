"""Find ``[回查] mm:ss~mm:ss`` (``[lookback]``) requests in a reply (plan §5.7).

A reply may ask for several ranges. Anything that does not parse becomes an Info issue; nothing raises. A reply is
model output: at most :data:`MAX_REQUESTS` requests of one reply are read, the rest become one Info issue.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from app.claims.issues import Severity, ValidationIssue
from app.claims.timeparse import normalize, parse_range

MAX_REQUESTS = 16
"""Lookback requests (ranges or malformed pieces) read from one reply; a segment serves only a few anyway."""
_MARKER = re.compile(r"\[(?:回查|lookback|Lookback|LOOKBACK)\]\s*([^\n\[]*)")


@dataclass(slots=True)
class LookbackRequests:
    """Ranges a reply asked for, in order, and the markers that could not be read."""

    ranges: list[tuple[float, float]] = field(default_factory=list)
    issues: list[ValidationIssue] = field(default_factory=list)


def find_lookbacks(text: str) -> LookbackRequests:
    """Every well-formed lookback range in ``text``; malformed ones become Info issues."""
    out = LookbackRequests()
    ignored = 0
    for m in _MARKER.finditer(normalize(text)):
        body = m.group(1).strip().rstrip("。.,，;；")
        pieces = [p for p in re.split(r"[,，;；、]\s*|\s{2,}", body) if p.strip()] or [body]
        for piece in pieces:
            if len(out.ranges) + len(out.issues) >= MAX_REQUESTS:
                ignored += 1
                continue
            rng = parse_range(piece)
            if rng is None:
                out.issues.append(
                    ValidationIssue(
                        Severity.INFO,
                        "LookbackMalformed",
                        f"lookback request {piece.strip()[:80]!r} is not a time range; ignored",
                    )
                )
            else:
                out.ranges.append(rng)
    if ignored:
        out.issues.append(
            ValidationIssue(
                Severity.INFO,
                "LookbackRequestsCut",
                f"{ignored} lookback request(s) beyond the first {MAX_REQUESTS} of this reply were ignored",
            )
        )
    return out


def strip_lookbacks(text: str) -> str:
    """The reply without its lookback marker lines (for display and found facts)."""
    return "\n".join(line for line in text.splitlines() if not _MARKER.search(normalize(line))).strip()
