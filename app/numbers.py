"""Numbers as people type them: "128k", "1M", "128,000", "12万", "$0.27", "80%" — or a message saying why not.

Qt's spin boxes changed what was typed without a word (issue 30, item 5): "-5000" became 5,000 and was accepted,
letters vanished, "12k" reverted when the field lost focus and an 11-digit number was cut to the maximum. Every
number field of the desktop app parses its text with :func:`parse_number` instead: what it understands becomes a
value, anything else raises :class:`NumberInputError` with a message naming the problem, and the field keeps the
text. ``replaysage plan``'s token counts go through the same parser (:func:`app.budget.profile.parse_token_count`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from app.errors import KnownError
from app.i18n import Lang, pick

MULTIPLIERS: dict[str, int] = {"k": 1_000, "m": 1_000_000, "万": 10_000}
"""Suffixes of a count (case-insensitive; decimal, like the context tiers: 128K = 128,000)."""

CURRENCY = "$¥€£"
"""Signs a price may start with (full-width ones are folded to these first)."""

MINUS = "-−–"
"""Minus signs: ASCII, the Unicode minus and the en dash a keyboard layout or a paste may produce."""

_PLAIN = re.compile(r"^(?:\d+(?:\.\d*)?|\.\d+)$")
_GROUPED = re.compile(r"^\d{1,3}(?:[,_ ]\d{3})+(?:\.\d*)?$")
_DIGITS_AND_SEPARATORS = re.compile(r"^[\d,_ ]+(?:\.\d*)?$")


@dataclass(frozen=True, slots=True)
class NumberSpec:
    """What one field accepts.

    Attributes:
        minimum: Smallest allowed value (after suffixes are applied).
        maximum: Largest allowed value.
        integer: Whether the value must be whole (a count) or may have decimals (a price, a share).
        multipliers: Whether K, M and 万 are understood ("128K" = 128,000).
        percent: Whether "80%" is understood as 0.8.
        currency: Whether a leading currency sign is allowed ("$0.27").
        example: What the refusal suggests writing instead (in both languages it reads the same).
    """

    minimum: float
    maximum: float
    integer: bool = True
    multipliers: bool = False
    percent: bool = False
    currency: bool = False
    example: str = ""

    def examples(self) -> str:
        """The forms to suggest in a refusal."""
        if self.example:
            return self.example
        if self.multipliers:
            return "128000, 128,000, 128K, 1M"
        if self.percent:
            return "0.8, 80%"
        return "0.27" if not self.integer else "6"


TOKEN_COUNT = NumberSpec(minimum=0, maximum=10**12, multipliers=True)
"""A token count with no bounds of its own (the budget rules check it): ``replaysage plan`` arguments."""


class NumberInputError(KnownError):
    """A field's text is not a number it accepts; the message says why and what to write.

    Attributes:
        kind: ``empty``, ``not_number``, ``grouping``, ``no_suffix``, ``negative``, ``not_whole``, ``too_small``
            or ``too_large`` (tests and views tell the cases apart without reading the words).
    """

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _fmt(value: Decimal | float | int) -> str:
    """``10,000,000`` / ``0.27``: grouped, without trailing zeros."""
    number = Decimal(str(value))
    if number == number.to_integral_value():
        return f"{int(number):,}"
    text = f"{number:,f}"
    return text.rstrip("0").rstrip(".")


def format_number(value: float, spec: NumberSpec) -> str:
    """The text a field shows for a value it was given (grouped digits, no trailing zeros)."""
    return _fmt(int(value) if spec.integer else value)


def parse_number(text: str, spec: NumberSpec, lang: Lang = Lang.EN) -> int | float:
    """Read ``text`` as a value of ``spec``: ``int`` for integer specs, else ``float``.

    Full-width digits and commas (a Chinese input method's ``１２８，０００``) are folded to ASCII first. Commas,
    underscores or spaces may group thousands (``128,000``, ``1 000 000``); a comma elsewhere (``1,5``) is refused
    rather than guessed to be a decimal comma.

    Raises:
        NumberInputError: The text is empty, not a number, or outside the spec; the message is in ``lang``.
    """
    shown = text.strip()
    t = unicodedata.normalize("NFKC", text).strip()

    def fail(kind: str, zh: str, en: str) -> NumberInputError:
        return NumberInputError(kind, pick(lang, zh, en))

    examples = spec.examples()
    not_number = fail(
        "not_number", f"不是数字：“{shown}”（可写 {examples}）", f"not a number: “{shown}” (write e.g. {examples})"
    )
    if not t:
        raise fail("empty", f"请填一个数（例如 {examples}）", f"enter a number (e.g. {examples})")
    negative = t[0] in MINUS
    if t[0] in MINUS or t[0] == "+":
        t = t[1:].lstrip()
    if t and t[0] in CURRENCY:
        if not spec.currency:
            raise not_number
        t = t[1:].lstrip()
    scale = Decimal(1)
    unit = t[-1:].lower()
    if unit in MULTIPLIERS:
        if not spec.multipliers:
            raise fail(
                "no_suffix",
                f"这里不能用 {t[-1]}：请直接写数值（例如 {examples}）",
                f"no {t[-1]} here: write the number itself (e.g. {examples})",
            )
        scale = Decimal(MULTIPLIERS[unit])
        t = t[:-1].rstrip()
    elif unit == "%":
        if not spec.percent:
            raise not_number
        scale = Decimal(1) / 100
        t = t[:-1].rstrip()
    if _GROUPED.match(t):
        t = re.sub(r"[,_ ]", "", t)
    elif not _PLAIN.match(t):
        if _DIGITS_AND_SEPARATORS.match(t) and "," in t:
            raise fail(
                "grouping",
                f"“{shown}”中的逗号位置不对：逗号只用来每三位分隔（128,000）；小数请用点（1.5）",
                f"the commas in “{shown}” are misplaced: they group thousands (128,000); write a decimal with a "
                "point (1.5)",
            )
        raise not_number
    try:
        value = Decimal(t) * scale
    except InvalidOperation:
        raise not_number from None
    if negative and value != 0:
        if spec.minimum >= 0:
            raise fail("negative", f"不能为负数：“{shown}”", f"must not be negative: “{shown}”")
        value = -value
    if spec.integer and value != value.to_integral_value():
        raise fail(
            "not_whole",
            f"必须是整数：“{shown}” = {_fmt(value)}",
            f"must be a whole number: “{shown}” = {_fmt(value)}",
        )
    if value > Decimal(str(spec.maximum)):
        raise fail(
            "too_large",
            f"太大：“{shown}” = {_fmt(value)}，最多 {_fmt(spec.maximum)}",
            f"too large: “{shown}” = {_fmt(value)}; at most {_fmt(spec.maximum)}",
        )
    if value < Decimal(str(spec.minimum)):
        raise fail(
            "too_small",
            f"太小：“{shown}” = {_fmt(value)}，至少 {_fmt(spec.minimum)}",
            f"too small: “{shown}” = {_fmt(value)}; at least {_fmt(spec.minimum)}",
        )
    return int(value) if spec.integer else float(value)


def reading(text: str, value: float, spec: NumberSpec) -> str:
    """``= 128,000`` when the text is a short form of the value (so the user sees what was understood), else ""."""
    plain = format_number(value, spec)
    if unicodedata.normalize("NFKC", text).strip().replace(",", "") in (plain.replace(",", ""), ""):
        return ""
    return f"= {plain}"
