"""Tolerant game-time parsing for lookback markers, claims and segment boundaries (plan §7.4).

The functions live in :mod:`app.timefmt` (one formatter, one parser for the whole app); this module keeps the
claims package's import path.
"""

from __future__ import annotations

from app.timefmt import format_time, normalize, parse_range, parse_time

__all__ = ["format_time", "normalize", "parse_range", "parse_time"]
