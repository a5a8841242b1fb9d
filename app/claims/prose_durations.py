"""A duration the text gives, against the times it names or the orders it compares (issue 28 §2).

"sixty-two seconds before Trebla (8:52.13)" is the difference of the two times the sentence gives, or of two players'
first orders of a type (第一次 … 比 X 早了一分钟); "只用了约 6 秒", "took about 40 seconds" is the time that passed
between the two times written just before it, read at the precision its number is written to.
"""

from __future__ import annotations

import re

from app.claims.issues import ValidationIssue
from app.claims.prose_findings import prose_issue
from app.claims.prose_lexicon import ProseLexicon
from app.claims.prose_orders import ProseOrders
from app.claims.prose_phrases import TIME_RE, en_number, zh_number
from app.claims.timeparse import parse_time
from app.i18n import Lang, tr
from app.replay.commands import QUEUE_UNIT, START_STRUCTURE

_DURATION_EN = re.compile(
    r"(?P<n>\d{1,3}|[a-z]+(?:-[a-z]+)?)\s+(?P<unit>seconds?|s|minutes?|mins?)\s+"
    r"(?P<dir>before|after|earlier|later|ahead of|behind|sooner)",
    re.I,
)
_ELAPSED_EN = re.compile(
    r"\b(?:takes?|took|taking|lasted|lasts|lasting|spent|spends)\s+"
    r"(?P<q>about|around|roughly|nearly|almost|under|less than|only|just)?\s*"
    r"(?P<n>\d{1,3}|half an?|an?|[a-z]+(?:-[a-z]+)?)\s+(?P<unit>seconds?|minutes?)\b",
    re.I,
)
_ELAPSED_ZH = re.compile(
    r"(?:只|仅)?(?:用了|用时|耗时|历时|持续了?|隔了|相隔|间隔|花了)\s*(?P<q>约|大约|将近|近|不到|只有)?\s*"
    r"(?P<n>\d{1,3}|[一二两三四五六七八九十半]{1,3})\s*(?P<unit>秒|分钟|分)"
)
_DURATION_ZH = re.compile(
    r"(?P<dir>早|晚|快|慢)了?\s*(?P<full>整整)?\s*(?P<n>\d{1,3}|[一二两三四五六七八九十半]{1,3})\s*(?P<unit>秒|分钟|分)"
)


class DurationChecks:
    """The durations of one part of a sentence (up to a semicolon)."""

    def __init__(self, lexicon: ProseLexicon, orders: ProseOrders, lang: Lang) -> None:
        self.lexicon = lexicon
        self.orders = orders
        self.lang = lang

    def elapsed(self, part: str, sentence: str) -> list[ValidationIssue]:
        """A time that passed between the two times written just before it ("从 a 打包到 b 展开只用了约 6 秒").

        A number said to be approximate is read at its own precision: "about 40 seconds" is 40 to the nearest ten
        (±5 s), "约 6 秒" to the second, "N minutes" to the minute; "nearly"/"将近" N is at most N and more than N less
        one step; "under"/"不到" N is below N. The times may each be rounded by a second. A part with fewer than two
        times before the words is left alone.
        """
        out: list[ValidationIssue] = []
        for rx in (_ELAPSED_EN, _ELAPSED_ZH):
            for m in rx.finditer(part):
                word = m.group("n").lower()
                number = zh_number(word) if rx is _ELAPSED_ZH else en_number(word)
                n = 0.5 if word in ("半", "half a", "half an") else 1.0 if word in ("a", "an") else number
                if n is None or n <= 0:
                    continue
                minutes = m.group("unit").lower().startswith(("m", "分"))
                said = n * 60.0 if minutes else float(n)
                times = [parse_time(t) for t in TIME_RE.findall(part[: m.start()])]
                if len(times) < 2 or times[-1] is None or times[-2] is None:
                    continue
                actual = abs(float(times[-1]) - float(times[-2]))
                step = 60.0 if minutes else 10.0 if said % 10 == 0 else 5.0 if said % 5 == 0 else 1.0
                q = (m.group("q") or "").lower()
                slack = 1.0  # each time may be rounded
                if q in ("nearly", "almost", "将近", "近"):
                    wrong = actual > said + slack or actual < said - step - slack
                elif q in ("under", "less than", "不到"):
                    wrong = actual >= said + slack
                elif q:
                    wrong = abs(actual - said) > step / 2 + slack
                else:
                    wrong = abs(actual - said) > (step / 2 if minutes else 0) + slack
                if wrong:
                    fact = tr(self.lang, "the two are {actual:.1f} s apart", actual=actual)
                    out.append(prose_issue(self.lang, "ProseDuration", sentence, m.group().strip(), fact))
        return out

    def check(self, part: str, sentence: str, who: list[int]) -> list[ValidationIssue]:
        """A duration in one part of a sentence (up to a semicolon) against the times or first orders it names."""
        m = _DURATION_EN.search(part)
        zh = _DURATION_ZH.search(part)
        if m is not None:
            n = en_number(m.group("n"))
            seconds = n * (60 if m.group("unit").lower().startswith("m") else 1) if n is not None else None
            full = False
        elif zh is not None:
            word = zh.group("n")
            n = 0 if word == "半" else zh_number(word)
            seconds = (30 if word == "半" else n * (60 if zh.group("unit") != "秒" else 1)) if n is not None else None
            full = bool(zh.group("full"))
        else:
            return []
        if seconds is None:
            return []
        times = [parse_time(t) for t in TIME_RE.findall(part)]
        actual: float | None = None
        if len(times) == 2 and all(t is not None for t in times) and len(who) == 2:
            actual = abs(float(times[1] or 0) - float(times[0] or 0))
        elif len(who) == 2 and re.search(r"第一次|首次|first", part, re.I):
            types = self.lexicon.types(part)
            kinds = {i for _t, i in types}
            if len(kinds) != 1:
                return []
            hashes = self.orders.hashes(next(iter(kinds)))
            firsts = []
            for p in who:
                orders = [e for e in self.orders.events if e.player == p and e.type_hash in hashes]
                orders = [e for e in orders if self.orders.roles[e.command_index] in (QUEUE_UNIT, START_STRUCTURE)]
                if not orders:
                    return []
                firsts.append(min(e.seconds for e in orders))
            actual = abs(firsts[1] - firsts[0])
        if actual is None:
            return []
        minutes = seconds >= 60 and seconds % 60 == 0
        if minutes and not full:
            wrong = round(actual / 60) != seconds // 60
        elif minutes:
            wrong = actual < seconds - 5
        else:
            wrong = abs(actual - seconds) > 3
        if not wrong:
            return []
        found = m or zh
        said = found.group() if found is not None else ""
        fact = tr(self.lang, "the two are {actual:.1f} s apart", actual=actual)
        return [prose_issue(self.lang, "ProseDuration", sentence, said, fact)]
