"""Tolerant game-time parsing shared by lookback markers, claims and segment boundaries (plan §7.4).

Models write times in many shapes: ``1:20``, ``01:20.50``, ``１：２０``, ranges joined by ``~``, ``～``, ``-``,
``–`` or ``至``. Parsing never raises: it returns ``None`` and the caller records an Info issue.
"""

from __future__ import annotations

import re
import unicodedata

from app.timefmt import format_time

__all__ = ["format_time", "normalize", "parse_range", "parse_time"]

_TIME = re.compile(
    r"^\s*(?:(\d{1,2}):)?(\d{1,3}):(\d{1,2}(?:\.\d{1,3})?)\s*$"
    r"|^\s*(\d{1,4}):(\d{1,2}(?:\.\d{1,3})?)\s*$"
)
_RANGE_SPLIT = re.compile(r"\s*(?:~|-|–|—|至|到|to)\s*")


def normalize(text: str) -> str:
    """Fold full-width digits and punctuation (NFKC) and unify the range separators."""
    return unicodedata.normalize("NFKC", text).replace("〜", "~").replace("～", "~")


def parse_time(text: str) -> float | None:
    """Parse ``m:ss``, ``mm:ss.cc`` or ``h:mm:ss`` into seconds; ``None`` when it is not a time."""
    t = normalize(text).strip()
    m = _TIME.match(t)
    if not m:
        return None
    if m.group(4) is not None:
        minutes, seconds = int(m.group(4)), float(m.group(5))
        hours = 0
    else:
        hours = int(m.group(1) or 0)
        minutes, seconds = int(m.group(2)), float(m.group(3))
    if seconds >= 60 or (m.group(1) is not None and minutes >= 60):
        return None
    return hours * 3600 + minutes * 60 + seconds


def parse_range(text: str) -> tuple[float, float] | None:
    """Parse ``a~b`` (any supported separator) into ``(start, end)`` seconds with start < end."""
    t = normalize(text).strip()
    parts = _RANGE_SPLIT.split(t, maxsplit=1)
    if len(parts) != 2:
        return None
    start, end = parse_time(parts[0]), parse_time(parts[1])
    if start is None or end is None or end <= start:
        return None
    return start, end
