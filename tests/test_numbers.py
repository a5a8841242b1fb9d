"""Number fields read what people type (issue 30, item 5): the Qt-free parser, good and bad inputs."""

from __future__ import annotations

import pytest

from app.budget.errors import BudgetConfigError
from app.budget.profile import parse_token_count
from app.i18n import Lang
from app.numbers import NumberInputError, NumberSpec, format_number, parse_number, reading

TOKENS = NumberSpec(minimum=1_000, maximum=10_000_000, multipliers=True)
PRICE = NumberSpec(minimum=0, maximum=1_000, integer=False, currency=True)
SHARE = NumberSpec(minimum=0, maximum=1, integer=False, percent=True)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("128000", 128_000),
        ("128,000", 128_000),
        ("128k", 128_000),
        ("128K", 128_000),
        (" 128 K ", 128_000),
        ("1M", 1_000_000),
        ("1m", 1_000_000),
        ("1.5M", 1_500_000),
        ("12万", 120_000),
        ("１２８，０００", 128_000),  # a Chinese input method's full-width digits and comma
        ("1 000 000", 1_000_000),
        ("1_000_000", 1_000_000),
        ("+2000", 2_000),
        ("10,000,000", 10_000_000),  # the maximum itself
        ("1000", 1_000),  # the minimum itself
    ],
)
def test_counts_people_type_are_read(text: str, value: int) -> None:
    got = parse_number(text, TOKENS)
    assert got == value
    assert isinstance(got, int)


@pytest.mark.parametrize(
    ("text", "kind", "words"),
    [
        ("-5000", "negative", "must not be negative"),
        ("−5000", "negative", "must not be negative"),  # the Unicode minus
        ("abc", "not_number", "not a number"),
        ("12x", "not_number", "not a number"),
        ("1e6", "not_number", "not a number"),
        ("k", "not_number", "not a number"),
        ("", "empty", "enter a number"),
        ("   ", "empty", "enter a number"),
        ("12345678901", "too_large", "at most 10,000,000"),
        ("10,000,001", "too_large", "at most 10,000,000"),
        ("999", "too_small", "at least 1,000"),
        ("1,5", "grouping", "commas"),
        ("12,34,567", "grouping", "commas"),
        ("1.2345k", "not_whole", "1,234.5"),
        ("128.5", "not_whole", "whole number"),
        ("80%", "not_number", "not a number"),  # a count is no share
        ("$5", "not_number", "not a number"),  # nor a price
    ],
)
def test_other_texts_are_refused_with_the_reason(text: str, kind: str, words: str) -> None:
    with pytest.raises(NumberInputError) as caught:
        parse_number(text, TOKENS)
    assert caught.value.kind == kind
    assert words in str(caught.value)


def test_the_refusal_quotes_the_text_and_speaks_the_language() -> None:
    with pytest.raises(NumberInputError, match="不能为负数：“-5000”"):
        parse_number("-5000", TOKENS, Lang.ZH)
    with pytest.raises(NumberInputError, match="最多 10,000,000"):
        parse_number("12345678901", TOKENS, Lang.ZH)
    with pytest.raises(NumberInputError, match="128K"):  # it says what to write instead
        parse_number("lots", TOKENS)


@pytest.mark.parametrize(("text", "value"), [("0.27", 0.27), ("$0.27", 0.27), ("￥2", 2.0), (".5", 0.5), ("0", 0.0)])
def test_prices(text: str, value: float) -> None:
    got = parse_number(text, PRICE)
    assert got == value
    assert isinstance(got, float)


@pytest.mark.parametrize(("text", "kind"), [("12k", "no_suffix"), ("-1", "negative"), ("1001", "too_large")])
def test_bad_prices(text: str, kind: str) -> None:
    with pytest.raises(NumberInputError) as caught:
        parse_number(text, PRICE)
    assert caught.value.kind == kind


def test_shares_take_a_percent() -> None:
    assert parse_number("80%", SHARE) == 0.8
    assert parse_number("0.8", SHARE) == 0.8
    with pytest.raises(NumberInputError) as caught:
        parse_number("120%", SHARE)
    assert caught.value.kind == "too_large"


def test_negative_numbers_where_they_are_allowed() -> None:
    assert parse_number("-3", NumberSpec(minimum=-10, maximum=10)) == -3


def test_format_and_reading() -> None:
    assert format_number(128_000, TOKENS) == "128,000"
    assert format_number(0.27, PRICE) == "0.27"
    assert format_number(0, PRICE) == "0"
    assert reading("128k", 128_000, TOKENS) == "= 128,000"
    assert reading("128,000", 128_000, TOKENS) == ""  # nothing to explain
    assert reading("128000", 128_000, TOKENS) == ""


def test_plan_token_counts_use_the_same_reader() -> None:
    assert parse_token_count("12万") == 120_000
    with pytest.raises(BudgetConfigError, match="must not be negative"):
        parse_token_count("-5000")
