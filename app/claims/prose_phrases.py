"""How prose writes times, numbers and ids: the shapes a clause's parts are found by (issue 28 §2).

Pure text, no replay: a sentence splits into clauses at ``,`` ``;`` ``，`` ``；`` outside brackets; a time is ``5:46``
or ``5:46.20`` and consecutive times joined by a dash, "and", 至 or a list are one :class:`Span`; numerals and number
words in English and Chinese read as numbers. :mod:`app.claims.prose` and its checks read clauses with these.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.claims.timeparse import parse_time

_EN_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen"
)
EN_NUMBERS = {w: n for n, w in enumerate(_EN_WORDS.split())}
EN_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
TIME = r"\d{1,2}:\d{2}(?:\.\d{1,2})?"
TIME_RE = re.compile(rf"(?<![\d:.])({TIME})(?![\d:])")
_RANGE_JOIN = re.compile(r"^\s*(?:–|—|-|~|～|to|and|至|到|和|与|/|、|,|，)\s*$", re.I)
_BETWEEN = re.compile(r"between\s*$", re.I)
ID = re.compile(r"#(\d{1,6})\b")
_AROUND = re.compile(r"^\s*(?:左右|前后|上下)|^\s*$|about|around|~", re.I)


@dataclass(frozen=True, slots=True)
class Span:
    """A time or a span of times in a clause (``exact``: written with hundredths)."""

    start: int
    end: int
    a: float
    b: float
    exact: bool
    around: bool = False
    parts: tuple[tuple[float, float], ...] = ()
    """Several spans summed by 共/一共 ("a–b 与 c–d 共取消八批"): only the orders inside one of them count."""
    listed: tuple[float, ...] = ()
    """The times of a list ("9:32.60 与 10:11.47", "(2:50.80, 4:11.13)"): occasions, where a dash gives bounds."""

    @property
    def point(self) -> bool:
        """One time, not a span."""
        return self.a == self.b


@dataclass(frozen=True, slots=True)
class Mention:
    """A part of a clause (a verb, an id, a type name) at ``start:end``; ``value``: the verb's kind or the id."""

    start: int
    end: int
    value: str


def zh_number(text: str) -> int | None:
    """一 … 九十九 (and 两) as a number; None for anything else."""
    if text.isdigit():
        return int(text)
    if "十" in text:
        tens, _, ones = text.partition("十")
        t = ZH_DIGITS.get(tens, -1) if tens else 1
        o = ZH_DIGITS.get(ones, -1) if ones else 0
        return t * 10 + o if t >= 0 and o >= 0 else None
    return ZH_DIGITS.get(text) if len(text) == 1 else None


def en_number(text: str) -> int | None:
    """``7``, ``seven``, ``twenty``, ``twenty-four`` as a number; None for anything else."""
    w = text.lower()
    if w.isdigit():
        return int(w)
    if w in EN_NUMBERS:
        return EN_NUMBERS[w]
    if w in EN_TENS:
        return EN_TENS[w]
    tens, _, ones = w.partition("-")
    if tens in EN_TENS and ones in EN_NUMBERS and 0 < EN_NUMBERS[ones] < 10:
        return EN_TENS[tens] + EN_NUMBERS[ones]
    return None


def clauses(sentence: str) -> list[tuple[int, int]]:
    """(start, end) of each clause: split at , ; ， ； outside brackets."""
    out: list[tuple[int, int]] = []
    depth, start = 0, 0
    for i, ch in enumerate(sentence):
        if ch in "(（[【":
            depth += 1
        elif ch in ")）]】":
            depth = max(0, depth - 1)
        elif ch in ",;，；—" and depth == 0 and not (ch == "," and sentence[i + 1 : i + 2].isdigit()):
            out.append((start, i))
            start = i + 1
    out.append((start, len(sentence)))
    return out


def is_cjk(text: str) -> bool:
    """True when ``text`` holds a Chinese character (the clause is read by the Chinese rules)."""
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def spans_in(text: str) -> list[Span]:
    """Times and spans of a clause; consecutive times joined by a dash, "and", 至 or a list are one span."""
    times = [(m.start(), m.end(), m.group(1)) for m in TIME_RE.finditer(text)]
    out: list[Span] = []
    i = 0
    while i < len(times):
        j = i
        dashed = False
        while j + 1 < len(times) and _RANGE_JOIN.match(join := text[times[j][1] : times[j + 1][0]]):
            dash = bool(re.match(r"^\s*(?:–|—|-|~|～|to|至|到)\s*$", join))
            if dashed or (dash and j > i):
                break  # "a–b 与 c–d" are two spans
            dashed = dashed or dash
            j += 1
        values = [parse_time(t[2]) for t in times[i : j + 1]]
        if all(v is not None for v in values):
            vs = [float(v) for v in values if v is not None]
            s, e = times[i][0], times[j][1]
            between = bool(_BETWEEN.search(text[max(0, s - 9) : s]))
            if between:
                s = max(0, s - 9)
            around = bool(_AROUND.search(text[e : e + 3])) and "." not in times[i][2]
            listed = tuple(vs) if len(vs) > 1 and not dashed and not between else ()  # "between a and b": bounds
            out.append(Span(s, e, min(vs), max(vs), "." in times[i][2], around, listed=listed))
        i = j + 1
    return out


def brackets(text: str) -> list[tuple[int, int]]:
    """(start, end) of each bracketed part of ``text``, outermost and nested alike."""
    out, stack = [], []
    for i, ch in enumerate(text):
        if ch in "(（":
            stack.append(i)
        elif ch in ")）" and stack:
            out.append((stack.pop(), i + 1))
    return out


def has_word(text: str, word: str) -> bool:
    """``word`` in ``text`` not inside a longer word (CJK names have no word boundaries: any occurrence counts)."""
    i = text.find(word)
    while i >= 0:
        before = text[i - 1] if i else " "
        after = text[i + len(word)] if i + len(word) < len(text) else " "
        if not (before.isascii() and before.isalnum()) and not (after.isascii() and after.isalnum()):
            return True
        i = text.find(word, i + 1)
    return False
