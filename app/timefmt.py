"""Game time as ``m:ss.cc``: the one formatter behind the compact log, the summaries, prompts and reports.

Why one place: these strings sit inside cached prompt prefixes and in the texts the validator compares, so two
formatters that disagreed by a single character (padding, rounding, a negative value) would break prompt caching
or make a correct claim look wrong. ``app.facts.eventlog.format_time``, ``app.budget.prompt.format_game_time`` and
``app.replay.inspect.clock`` are this function under their historical names.
"""

from __future__ import annotations


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
