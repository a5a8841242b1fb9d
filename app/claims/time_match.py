"""When a claimed time matches a logged order (plan §7.2, §7.6): the tolerances and the frame arithmetic.

Times are compared in logic frames (15 per second): a claimed ``m:ss.cc`` is rounded to the nearest frame and
may be one frame off (the log prints hundredths of a frame time, e.g. time code 1082 = 1:12.13). Claims that
name a command (an event claim, an evidence line) match a command of that kind within
:data:`EVENT_TOLERANCE_SECONDS`; a first-production time must lie within :data:`TIMELINE_TOLERANCE_SECONDS`.
"""

from __future__ import annotations

from app.facts.model import TICKS_PER_SECOND

EVENT_TOLERANCE_SECONDS = 2.0
"""How far a claimed event time may lie from the command it names (the log prints every command's time)."""
TIMELINE_TOLERANCE_SECONDS = 2.0
"""How far a claimed first time may lie from the player's first order of that type."""
FRAME_SLACK = 1
"""A claimed time may be one frame off (rounding of ``m:ss.cc``)."""


def to_frames(seconds: float) -> int:
    """A claimed time as the nearest logic frame."""
    return round(seconds * TICKS_PER_SECOND)


def frames_apart(seconds: float, time_code: int) -> int:
    """How many frames a claimed time lies from a command's time code."""
    return abs(to_frames(seconds) - time_code)


def within(seconds: float, time_code: int, tolerance_seconds: float) -> bool:
    """True when a claimed time matches a time code within a tolerance (never less than one frame)."""
    return frames_apart(seconds, time_code) <= max(FRAME_SLACK, round(tolerance_seconds * TICKS_PER_SECOND))
