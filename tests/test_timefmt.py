"""One ``m:ss.cc`` formatter and one tolerant parser (``app.timefmt``) behind facts, budget, claims and replay."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.timefmt import format_clock, format_time, parse_time


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


def test_the_claims_names_are_the_same_functions() -> None:
    from app.claims import timeparse

    assert timeparse.format_time is format_time
    assert timeparse.parse_time is parse_time


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0.0, "0:00"), (59.99, "0:59"), (60.0, "1:00"), (861.73, "14:21"), (3600.0, "60:00"), (-2.0, "0:00")],
)
def test_format_clock_truncates_to_whole_seconds(seconds: float, text: str) -> None:
    assert format_clock(seconds) == text


@given(st.integers(min_value=0, max_value=15 * 3600 * 3))
def test_every_time_code_round_trips(time_code: int) -> None:
    """Every replay time code prints as ``m:ss.cc`` and parses back to within half a hundredth."""
    from app.facts.eventlog import parse_time as facts_parse_time

    seconds = time_code / 15
    text = format_time(seconds)
    parsed = parse_time(text)
    assert parsed is not None
    assert abs(parsed - seconds) <= 0.005 + 1e-9
    assert facts_parse_time(text) == parsed  # the command line's parser is the same one (plus plain seconds)
    minutes, rest = text.split(":")
    assert 0 <= float(rest) < 60
    assert abs(int(minutes) * 60 + float(rest) - seconds) <= 0.005 + 1e-9


def test_the_command_line_parser_adds_plain_seconds_only() -> None:
    from app.facts.eventlog import parse_time as facts_parse_time

    assert facts_parse_time("90") == 90.0
    assert facts_parse_time(" 1:30.5 ") == 90.5
    assert facts_parse_time("１：３０") == 90.0  # full-width, as the tolerant parser reads it
    for bad in ("", "1:75", "-1:00", "1:2:3:4", "abc"):
        with pytest.raises(ValueError, match="bad time"):
            facts_parse_time(bad)
