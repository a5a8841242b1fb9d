"""Numbers in the prose checked where the facts can check them (issue 28 §2), precision first.

Claims blocks are checked claim by claim; the sentences around them were not. Two kinds of numbers are checked:

* a count of a type ("three Twinblades", "两辆天启坦克"): nobody can have more of a type than were ordered by the end
  of the window (a shift-click batch counting five); a count above what every player ordered, or above what the
  one player the sentence names ordered when nobody else ordered that type, is wrong;
* a time of an order ("built a refinery at 5:46", "5:46 时放置了矿场"): the sentence names one player, one type and
  an order verb of that type's kind; when the player ordered that type but never within the tolerance of that time,
  it is wrong.

A sentence that does not parse that way (no player or two players, two times, an adjective between number and name,
"two more", an ordinal "第三辆") is left alone: it is never guessed at. Each finding quotes the sentence and the
fact. :class:`app.claims.validate.ClaimValidator` runs this on the reply's text (its ``validate``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from app.claims.issues import Severity, ValidationIssue
from app.claims.timeparse import format_time, parse_time
from app.facts import ReplayFactIndex
from app.facts.model import TICKS_PER_SECOND
from app.i18n import Lang, pick
from app.knowledge.model import Entry, Knowledge

MAX_SENTENCES = 400
"""Sentences checked per text (a reply is model output of any size; the first ones are the analysis)."""
TIME_TOLERANCE_SECONDS = 3.0
"""A time written ``m:ss`` in prose may be 2 s off its line (the claims rule) plus the second it was rounded to."""
EXACT_TIME_TOLERANCE_SECONDS = 2.0
"""A time written with hundredths (``m:ss.cc``) is a copied log time: the claims rule's 2 s."""

EN_NUMBERS = {
    w: n
    for n, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
}
ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
ZH_MEASURES = "个辆架艘名只台座支"
ZH_NOT_COUNTS = ("第", "前", "后", "每", "最后")
ORDER_VERBS = {
    "unit": (
        r"\b(?:built|builds|build|queued|queues|queue|produced|produces|produce|trained|trains|train|made|makes)\b",
        r"造|建造|生产|训练|出了|下达",
    ),
    "structure": (
        r"\b(?:built|builds|build|placed|places|place|started|starts|constructed|constructs)\b",
        r"造|建造|建了|放置|放下|开始建造|下达",
    ),
    "upgrade": (r"\b(?:upgraded|researched|started)\b", r"升级|研究"),
    "power": (r"\b(?:cast|casts|fired|fires|activated|activates)\b", r"施放|释放|发动"),
    "protocol": (r"\b(?:picked|picks|chose|chooses|selected|selects|took|takes)\b", r"选择|选了|点了"),
}
"""Verbs that say a player gave the order of that kind (not that a unit of the type did something)."""
_TIME = re.compile(r"(?<![\d:.])(\d{1,2}:\d{2}(?:\.\d{1,2})?)(?![\d:])")
_SENTENCE = re.compile(r"[^。！？!?\n]+?(?:[。！？!?]|\.(?=\s|$)|(?=\n)|$)")
_HEADING = re.compile(r"^\s*(?:#{1,6}\s|\*\*[^*]+\*\*\s*$)")


@dataclass(frozen=True, slots=True)
class _Name:
    """A display name or alias and the entries it may mean."""

    text: str
    ids: frozenset[str]
    kind: str


def _zh_number(text: str) -> int | None:
    """一 … 九十九 (and 两) as a number; None for anything else."""
    if text.isdigit():
        return int(text)
    if "十" in text:
        tens, _, ones = text.partition("十")
        t = ZH_DIGITS.get(tens, -1) if tens else 1
        o = ZH_DIGITS.get(ones, -1) if ones else 0
        return t * 10 + o if t >= 0 and o >= 0 else None
    return ZH_DIGITS.get(text) if len(text) == 1 else None


class ProseChecker:
    """Counts and times in an analysis text, against the fact index (see the module docstring)."""

    def __init__(self, index: ReplayFactIndex, knowledge: Knowledge | None, lang: Lang) -> None:
        self.index = index
        self.lang = lang
        names: dict[str, tuple[set[str], str]] = {}
        for e in knowledge or ():
            if e.kind not in ORDER_VERBS:
                continue
            for n in {e.id, e.name_en, e.name_zh, *e.aliases}:
                if n and len(n) >= 2:
                    ids, _kind = names.setdefault(n.lower(), (set(), e.kind))
                    ids.add(e.id)
        self.names = [_Name(n, frozenset(ids), kind) for n, (ids, kind) in names.items()]
        self.entries: dict[str, Entry] = {e.id: e for e in knowledge or ()}
        alternatives = "|".join(re.escape(n.text) for n in sorted(self.names, key=lambda n: -len(n.text)))
        self._by_text = {n.text: n for n in self.names}
        en_num = r"\d{1,3}|" + "|".join(EN_NUMBERS)
        self._en_count = (
            re.compile(rf"(?<![\w#:.-])(?P<n>{en_num})\s+(?P<name>{alternatives})(?:e?s)?\b", re.IGNORECASE)
            if alternatives
            else None
        )
        self._zh_count = (
            re.compile(
                rf"(?<![\d.:#-])(?P<n>\d{{1,3}}|[一二两三四五六七八九十]{{1,3}})\s*[{ZH_MEASURES}]?(?P<name>{alternatives})",
                re.IGNORECASE,
            )
            if alternatives
            else None
        )
        self._names_re = re.compile(alternatives, re.IGNORECASE) if alternatives else None
        self._players = [
            (p.slot, [n for n in {p.name, p.label} if n and len(n) >= 2]) for p in index.players if p.is_player
        ]

    # ------------------------------------------------------------------ entry point

    def check(self, text: str, span: tuple[float, float] | None = None) -> list[ValidationIssue]:
        """The issues of ``text`` (sentences of one window when ``span`` is given, else of the whole match)."""
        end = span[1] if span is not None else float("inf")
        out: list[ValidationIssue] = []
        heading_player: int | None = None
        for line in text.splitlines():
            if _HEADING.match(line):
                who = self._players_in(line)
                heading_player = who[0] if len(who) == 1 else None
                continue
            for m in list(_SENTENCE.finditer(line))[:MAX_SENTENCES]:
                sentence = m.group().strip()
                if not sentence:
                    continue
                who = self._players_in(sentence)
                player = who[0] if len(who) == 1 else (heading_player if not who else None)
                out += self._counts(sentence, player, end)
                out += self._times(sentence, player)
                if len(out) >= MAX_SENTENCES:
                    return out
        return out

    # ------------------------------------------------------------------ parts

    def _players_in(self, text: str) -> list[int]:
        low = text.lower()
        return [slot for slot, names in self._players if any(_has_word(low, n.lower()) for n in names)]

    def _name(self, text: str) -> _Name | None:
        return self._by_text.get(text.lower())

    def _counts(self, sentence: str, player: int | None, end: float) -> list[ValidationIssue]:
        found: dict[int, tuple[int, _Name, str]] = {}  # by where the name starts: both patterns may read it
        if self._en_count is not None:  # both languages: a reply may mix them
            for m in self._en_count.finditer(sentence):
                word = m.group("n").lower()
                n = int(word) if word.isdigit() else EN_NUMBERS.get(word)
                name = self._name(m.group("name"))
                if n is not None and name is not None:
                    found.setdefault(m.start("name"), (n, name, m.group()))
        if self._zh_count is not None:
            for m in self._zh_count.finditer(sentence):
                if sentence[: m.start("n")].rstrip().endswith(ZH_NOT_COUNTS):
                    continue  # 第 6 个 (an ordinal), 前两辆 (the first two of more), 每 3 个 (each)
                n = _zh_number(m.group("n"))
                name = self._name(m.group("name"))
                if n is not None and name is not None:
                    found.setdefault(m.start("name"), (n, name, m.group()))
        out: list[ValidationIssue] = []
        for n, name, said in found.values():
            if name.kind != "unit" or n < 2 or any(self._starts_with(i) for i in name.ids):
                continue  # one of a type says nothing checkable; start units are nobody's order
            ordered = {
                p.slot: sum(self.index.units_ordered(p.slot, 0.0, end)[i] for i in name.ids)
                for p in self.index.players
                if p.is_player
            }
            total = sum(ordered.values())
            mine = ordered.get(player, 0) if player is not None else 0
            others = total - mine
            if n > total or (player is not None and 0 < mine < n and others == 0):
                fact = self._count_fact(name, ordered, end)
                out.append(self._issue("ProseCount", sentence, said, fact))
        return out

    def _times(self, sentence: str, player: int | None) -> list[ValidationIssue]:
        times = _TIME.findall(sentence)
        if player is None or len(times) != 1 or self._names_re is None:
            return []
        names = {m.group().lower() for m in self._names_re.finditer(sentence)}
        meant = [n for n in (self._name(x) for x in names) if n is not None]
        if len({frozenset(n.ids) for n in meant}) != 1:
            return []
        name = meant[0]
        zh_verbs = ORDER_VERBS[name.kind][1]
        en_verbs = re.compile(ORDER_VERBS[name.kind][0], re.IGNORECASE)
        bare = self._names_re.sub(" ", sentence)  # a verb inside a name (建造场) is no verb
        if not en_verbs.search(bare) and not re.search(f"(?:{zh_verbs})(?![场厂])", bare):  # 建造场 is a yard
            return []
        seconds = parse_time(times[0])
        hashes = {self.index.hash_of(i) for i in name.ids} - {None}
        orders = [e for e in self.index.events if e.player == player and e.type_hash in hashes and not e.automatic]
        if seconds is None or not orders:
            return []  # the player never ordered it: the sentence may be about another's unit
        tolerance = EXACT_TIME_TOLERANCE_SECONDS if "." in times[0] else TIME_TOLERANCE_SECONDS
        if any(abs(e.time_code / TICKS_PER_SECOND - seconds) <= tolerance for e in orders):
            return []
        near = sorted(orders, key=lambda e: abs(e.time_code - seconds * TICKS_PER_SECOND))[:3]
        stamps = ", ".join(format_time(e.time_code / TICKS_PER_SECOND) for e in sorted(near, key=lambda e: e.time_code))
        who = self.index.player_name(player)
        ids = "/".join(sorted(name.ids))
        fact = pick(
            self.lang,
            f"{who} 的 {ids} 指令在 {stamps}，{times[0]} 前后 {tolerance:g} 秒内没有",
            f"{who}'s orders of {ids} are at {stamps}; none within {tolerance:g} s of {times[0]}",
        )
        return [self._issue("ProseTime", sentence, times[0], fact, seconds)]

    def _starts_with(self, entry_id: str) -> bool:
        e = self.entries.get(entry_id)
        return e is not None and any(e.has_tag(t) for t in ("mcv", "mcv_class", "construction_yard"))

    def _count_fact(self, name: _Name, ordered: dict[int, int], end: float) -> str:
        ids = "/".join(sorted(name.ids))
        until = format_time(end) if end != float("inf") else pick(self.lang, "整局", "the whole match")
        parts = ", ".join(f"{self.index.player_name(p)} {n}" for p, n in ordered.items())
        return pick(
            self.lang,
            f"截至 {until}，各玩家下达的 {ids} 数量（批量生产按 5 计）：{parts}",
            f"{ids} ordered by {until} (a batch counting five): {parts}",
        )

    def _issue(self, code: str, sentence: str, said: str, fact: str, t: float | None = None) -> ValidationIssue:
        message = pick(
            self.lang,
            f"正文数字与事实不符：“{sentence}”中的“{said}”；事实：{fact}",
            f"a number in the text disagrees with the facts: '{said}' in \"{sentence}\"; fact: {fact}",
        )
        return ValidationIssue(Severity.WARNING, code, message, time_seconds=t, fact=fact, quote=sentence)


def _has_word(text: str, word: str) -> bool:
    """``word`` in ``text`` not inside a longer word (CJK names have no word boundaries: any occurrence counts)."""
    i = text.find(word)
    while i >= 0:
        before = text[i - 1] if i else " "
        after = text[i + len(word)] if i + len(word) < len(text) else " "
        if not (before.isascii() and before.isalnum()) and not (after.isascii() and after.isalnum()):
            return True
        i = text.find(word, i + 1)
    return False


def check_prose(
    index: ReplayFactIndex, knowledge: Knowledge | None, lang: Lang, texts: Iterable[str], span: Sequence[float] | None
) -> list[ValidationIssue]:
    """:meth:`ProseChecker.check` over several texts (one checker)."""
    checker = ProseChecker(index, knowledge, lang)
    s = (float(span[0]), float(span[1])) if span is not None else None
    return [i for t in texts for i in checker.check(t, s)]
