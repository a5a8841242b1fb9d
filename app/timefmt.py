"""Game time: the one ``m:ss.cc`` formatter, the ``m:ss`` prose form, and the one tolerant parser.

Why one place: these strings sit inside cached prompt prefixes and in the texts the validator compares, so two
formatters that disagreed by a single character (padding, rounding, a negative value) would break prompt caching
or make a correct claim look wrong. ``app.facts.eventlog.format_time``, ``app.budget.prompt.format_game_time`` and
``app.replay.inspect.clock`` are this function under their historical names.

Parsing is tolerant because models write times in many shapes: ``1:20``, ``01:20.50``, ``１：２０``, ranges joined
by ``~``, ``～``, ``-``, ``–`` or ``至``. It never raises: it returns ``None`` and the caller decides (the claims
record an Info issue, the command line reports an error). ``app.claims.timeparse`` re-exports it.
"""

from __future__ import annotations

import re
import unicodedata


def format_time(seconds: float) -> str:
    """``m:ss.cc``: minutes unpadded (they may exceed 59), seconds and hundredths two digits each.

    Rounds to the nearest hundredth (``round``: halves to even), so 90.5 → ``1:30.50`` and 59.999 → ``1:00.00``.
    A negative time (never a game time; at most a window start before 0) is shown as ``0:00.00``.
    """
    cs = max(round(seconds * 100), 0)
    minutes, rest = divmod(cs, 6000)
    return f"{minutes}:{rest // 100:02d}.{rest % 100:02d}"


def format_clock(seconds: float) -> str:
    """``m:ss`` for prose: whole seconds, truncated (a 59.9 s event happened in the 0:59 second), never negative."""
    s = int(max(0.0, seconds))
    return f"{s // 60}:{s % 60:02d}"


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
