"""One ``m:ss.cc`` formatter (``app.timefmt``) behind the facts, budget and replay names."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.timefmt import format_time


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0.0, "0:00.00"),
        (1.4, "0:01.40"),  # 21 time codes at 15 per second
        (90.5, "1:30.50"),  # the plan's instruction example
        (59.999, "1:00.00"),  # rounds up into the next minute, never "0:60.00"
        (599.99, "9:59.99"),
        (3600.0, "60:00.00"),  # minutes are not wrapped into hours
        (4321.0 / 15, "4:48.07"),  # 288.0666… s
        (-3.0, "0:00.00"),  # negative (a window start before 0) shows as the start of the game
    ],
)
def test_format_time(seconds: float, text: str) -> None:
    assert format_time(seconds) == text


def test_the_historical_names_are_the_same_function() -> None:
    from app.budget.prompt import format_game_time
    from app.facts import format_time as facts_format_time
    from app.facts.eventlog import format_time as eventlog_format_time
    from app.replay.inspect import clock

    assert facts_format_time is format_time
    assert eventlog_format_time is format_time
    assert format_game_time is format_time
    assert clock is format_time


@given(st.integers(min_value=0, max_value=15 * 3600 * 3))
def test_every_time_code_agrees_with_the_claims_formatter(time_code: int) -> None:
    """Until ``app.claims.timeparse`` re-exports it too, both must print every replay time code identically."""
    from app.claims.timeparse import format_time as claims_format_time

    seconds = time_code / 15
    text = format_time(seconds)
    assert text == claims_format_time(seconds)
    minutes, rest = text.split(":")
    assert 0 <= float(rest) < 60
    assert abs(int(minutes) * 60 + float(rest) - seconds) <= 0.005 + 1e-9
