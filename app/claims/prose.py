"""Numbers in the prose checked where the facts can check them (issue 28 §2), precision first.

Claims blocks are checked claim by claim; the sentences around them are read here, clause by clause (a clause ends at
``,`` ``;`` ``，`` ``；`` outside brackets). A clause's parts are found by what they look like: times (``5:46``,
``5:46.20``, ranges ``a–b`` / ``between a and b`` / ``a 至 b``, and lists of times in one bracket as one span), counts
(numerals and number words in English and Chinese, ``N 次`` for orders), type names (the knowledge's names in both
languages, a name without its faction's word, "Nod Flame Tank" → "flame tank", a few generic words of the games such
as 起重机 = crane), object ids (``#123``) and order verbs (queue, cancel, place, start, sell, repair, pack, unpack,
transform, cast, pick). Each number is then compared with the orders of the player the sentence (or its heading, or
the bold name that opens its paragraph) names, in the window the reply analyses:

* a count with a time span counts that player's orders of the verb and type in the span ("eight militant squads
  between 0:14.87 and 0:17.33"); a count at one time counts the burst of clicks that starts there (orders of one type
  less than a second apart: a player queues a batch in one burst). A queue order is one order and, when it carries
  the shift-click flag, five units: either number is right;
* a count followed by a list of ids ("group of nine Tengus (#947 #974 …)") counts the ids of the order at that time
  that names them;
* a count with no time is bounded by what was ordered by the end of the window (the whole match for "in total",
  "全场": then it must be equal);
* a time of an order ("placed at 2:14.80", "在 1:02 放下战车工厂") must lie within the tolerance of an order of that
  verb by the object or of the type the clause names: a time written with hundredths is copied from a log line (1 s),
  a time in ``m:ss`` may be rounded (3 s);
* a duration between two times ("sixty-two seconds before Trebla (8:52.13)") is the difference of the times the
  sentence gives, or of two players' first orders of a type (第一次 … 比 X 早了一分钟).

A number whose clause does not parse that way (no verb the facts know, no type, several players for one count, an
ordinal "第三辆", "two more" without a type, a span with no order of that kind at all) is left alone: it is never
guessed at. Each finding quotes the sentence and the fact. :class:`app.claims.validate.ClaimValidator` runs this on
the reply's text (its ``validate``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from app.claims.issues import Severity, ValidationIssue
from app.claims.timeparse import format_time, parse_time
from app.facts import ReplayFactIndex
from app.facts.model import FactEvent
from app.facts.roles import role_of
from app.i18n import Lang, tr
from app.knowledge.model import Entry, Knowledge
from app.replay.commands import (  # RA3 ids (app.facts.roles maps KW/TW's onto them)
    CANCEL_STRUCTURE,
    CANCEL_UNIT,
    CREATE_GROUP,
    PLACE_STRUCTURE,
    POWER,
    POWER_AT_LOCATION,
    POWER_ON_OBJECT,
    POWER_TWO_TARGETS,
    POWER_WITH_FACING,
    QUEUE_UNIT,
    SELECT_PROTOCOL,
    SELL,
    START_REPAIR,
    START_STRUCTURE,
    START_UPGRADE,
)

MAX_SENTENCES = 400
"""Sentences checked per text (a reply is model output of any size; the first ones are the analysis)."""
TIME_TOLERANCE_SECONDS = 3.0
"""A time written ``m:ss`` in prose may be 2 s off its line (the claims rule) plus the second it was rounded to."""
EXACT_TIME_TOLERANCE_SECONDS = 1.0
"""A time written with hundredths (``m:ss.cc``) is copied from a log line, which prints each order at its frame:
a copy is exact; one second covers a neighbouring line of the same burst."""
BURST_GAP_SECONDS = 1.0
"""Clicks of one burst (a player queueing or cancelling several of a type) are frames apart; a longer pause ends it."""
BATCH = 5
"""Units a shift-click queue order asks for (RA3, Kane's Wrath and Tiberium Wars alike)."""

QUEUE, START, PLACE = QUEUE_UNIT, START_STRUCTURE, PLACE_STRUCTURE
REPAIR, PROTOCOL = START_REPAIR, SELECT_PROTOCOL
POWERS = frozenset({POWER, POWER_AT_LOCATION, POWER_WITH_FACING, POWER_ON_OBJECT, POWER_TWO_TARGETS})

_EN_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen"
)
EN_NUMBERS = {w: n for n, w in enumerate(_EN_WORDS.split())}
EN_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
ZH_MEASURES = "个辆架艘名只台座支次批"
ZH_ORDER_MEASURES = "次批"
ZH_AMOUNT_OF = r"\s*(?:多达|达到|达|共有|共|总共|一共|合计|有)?\s*"
"""What may stand between a noun and its count written after it ("道场核心多达 22 个", "帝国武士 226 个")."""
"""Measure words that count orders, not units: 次 (times), 批 (batches: "三批 ×5" is three orders of five)."""
BATCH_NOUNS = r"(?:shift-?clicks?|shift-?queues?|batch(?:es)?|rounds?|lots?)"
"""English nouns for one queue order of several units ("two shift-clicks of five attack bikes": two orders)."""
ZH_NOT_COUNTS = (
    "第",
    "前",
    "后",
    "每",
    "最后",
    "各",
    "约",
    "近",
    "超过",
    "至少",
    "大约",
    "~",
    "编队",
    "队伍",
    "段",
    "窗口",
    "编号",
)
EN_NOT_COUNTS = (
    "first",
    "last",
    "the",
    "every",
    "each",
    "per",
    "top",
    "#",
    "~",
    "about",
    "around",
    "roughly",
    "over",
    "than",
    "least",
    "nearly",
    "almost",
    "some",
    "approximately",
    "up to",
    "group",
    "team",
    "period",
    "window",
    "segment",
    "tier",
    "rank",
    "level",
    "wave",
    "slot",
    "player",
)

VERBS: dict[str, tuple[str, str]] = {
    "cancel": (r"cancel\w*|hold\w*|held", r"取消|暂停"),
    "queue": (
        r"re-?queue[sd]|queued|queues|queueing|queuing|produced|produces|trained|trains|ordered|made|makes",
        r"下单|下了|连下|生产|训练|出了|连点|造了|改产|改为|改成|改(?=\s*\d)|下(?=\s*[\d一二两三四五六七八九十])",
    ),
    "place": (
        r"placed|places|planted|plants|dropped|drops|put down",
        r"放下|放置|摆放|摆下|摆在|摆了|连放|放了|放在|落地|放(?![弃大])",
    ),
    "start": (r"started|starts|begins|began", r"开始建造|开始造|开工|开始(?!维修|修理|升级|研究|选)"),
    "build": (r"built|builds|constructed|constructs", r"建造|建了|造"),
    "sell": (r"sold|sells|selling", r"出售|卖掉|卖了|连卖|卖"),
    "repair": (r"repairs|repaired|repairing", r"维修|修理"),
    "unpack": (r"unpack\w*|redeploy\w*|deploy\w*", r"展开|部署"),
    "pack": (r"pack\w*", r"打包|收起"),
    "transform": (r"transform\w*", r"变形"),
    "power": (r"cast|casts|fired|fires|activated|activates|used|uses", r"施放|释放|发动|使用"),
    "protocol": (r"picks|picked|chose|chooses", r"选了|点了|选择了|选择|选(?![手项])"),
    "upgrade": (r"upgrades|upgraded|upgrading|researched|research\w*", r"升级|研究"),
    "other": (
        r"attack\w*|force-fires?|moved?|moves|enter\w*|captur\w*|garrison\w*|kill\w*|destroy\w*|gets|got|goes|went|"
        r"tries|tried|hits?|guards?|lost|loses",
        r"攻击|集火|进入|占领|移动|摧毁|击杀|击毁|打掉|被",
    ),
}
"""Verbs that say a player gave an order of that kind (the English ones whole words; 建造场 is a yard, not a verb)."""
ROLE_SETS: dict[str, frozenset[int]] = {
    "cancel": frozenset({CANCEL_UNIT, CANCEL_STRUCTURE, 0x204}),
    "queue": frozenset({QUEUE}),
    "place": frozenset({PLACE}),
    "start": frozenset({START}),
    "build": frozenset({START, PLACE, QUEUE}),
    "sell": frozenset({SELL}),
    "repair": frozenset({REPAIR}),
    "unpack": POWERS,
    "pack": POWERS,
    "transform": POWERS,
    "power": POWERS,
    "protocol": frozenset({PROTOCOL}),
    "upgrade": frozenset({START_UPGRADE}),
    "other": frozenset(),
}
POWER_WORDS = {"unpack": ("unpack",), "pack": ("pack",), "transform": ("transform",)}
"""Powers a verb means, by a word of their internal name (pack excludes unpack: see :func:`_power_matches`)."""
TYPED_VERBS = frozenset({"cancel", "queue", "place", "start", "build", "power", "protocol", "upgrade"})
"""Verbs whose orders carry a type (sell, repair, pack and the like name an object, not a type)."""
FACTION_WORDS_ZH: dict[str, tuple[str, ...]] = {
    "Allies": ("盟军",),
    "Soviets": ("苏军", "苏联"),
    "Empire": ("帝国", "旭日帝国"),
    "Scrin": ("外星人",),
}
"""How a Chinese text names a faction (a player's, when only one player plays it)."""
GENERIC_NOUNS: dict[str, str] = {
    "起重机": "crane",
    "吊车": "crane",
    "战车工厂": "factory",
    "兵营": "barracks",
    "精炼厂": "refinery",
    "矿场": "refinery",
    "电厂": "power plant",
    "发电厂": "power plant",
    "六足": "hexapod",
    "三脚机甲": "tripod",
    "三足": "tripod",
    "采矿车": "harvester",
    "矿车": "harvester",
}
"""Chinese words players use for a type of every faction, as the English head noun of the knowledge's names."""
GENERIC_ROLES: dict[str, str] = {
    "兵营": "infantry_production",
    "战车工厂": "vehicle_production",
    "车厂": "vehicle_production",
    "电厂": "power_plant",
    "发电厂": "power_plant",
}
"""Chinese words for a structure by what it does, whatever its faction calls it (the Allied boot camp and the Empire's
dojo are 兵营 as much as the Soviet barracks): every structure the knowledge tags with that role."""
TOTAL_WORDS = re.compile(
    r"总共|一共|全场|全局|整局|累计|over the (?:whole )?(?:game|match)|in total|in all|all game", re.I
)
_TIME = r"\d{1,2}:\d{2}(?:\.\d{1,2})?"
_TIME_RE = re.compile(rf"(?<![\d:.])({_TIME})(?![\d:])")
_RANGE_JOIN = re.compile(r"^\s*(?:–|—|-|~|～|to|and|至|到|和|与|/|、|,|，)\s*$", re.I)
_BETWEEN = re.compile(r"between\s*$", re.I)
_TIME_ONLY = re.compile(rf"\s*(?:at|around|about)\s+{_TIME}\s*[.。]?\s*", re.I)
_SENTENCE = re.compile(r"[^。！？!?\n]+?(?:[。！？!?]|\.(?=\s|$)|(?=\n)|$)")
_HEADING = re.compile(r"^\s*(?:#{1,6}\s|\*\*[^*]+\*\*\s*$)")
_LEAD = re.compile(r"^\s*(?:[-*]\s+)?\*\*([^*]{1,40})\*\*\s*[:：]?")
_ID = re.compile(r"#(\d{1,6})\b")
_IDENT = re.compile(r"\b[A-Za-z]+(?:_[A-Za-z0-9]+|[a-z][A-Z][A-Za-z0-9]*)[A-Za-z0-9_]*\b")
_QUOTED = re.compile(r"“[^”]{15,}”|\"[^\"]{15,}\"")
_BOUND_BEFORE = re.compile(r"(?:by|until|till|before|after|up to|截至|截止|到|直到)\s*$", re.I)
_CONJ = re.compile(r"^\W*(?:and|then|while|so|but|which|after|before|when|同时|然后|随后|但|而|之后)", re.I)
_BOUND_AFTER = re.compile(r"^\s*(?:起|前|后|以后|之后|之前|以前|以来|为止)")
_ID_LIST = re.compile(r"^\s*[(（]\s*#\d+(?:\s*[,，、]?\s*#\d+)+")
_AROUND = re.compile(r"^\s*(?:左右|前后|上下)|^\s*$|about|around|~", re.I)
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


@dataclass(frozen=True, slots=True)
class _Span:
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
        return self.a == self.b


@dataclass(frozen=True, slots=True)
class _Mention:
    start: int
    end: int
    value: str


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


def _en_number(text: str) -> int | None:
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


def _clauses(sentence: str) -> list[tuple[int, int]]:
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


def _is_cjk(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


class ProseChecker:
    """Counts, times and durations in an analysis text, against the fact index (see the module docstring)."""

    def __init__(self, index: ReplayFactIndex, knowledge: Knowledge | None, lang: Lang) -> None:
        self.index = index
        self.lang = lang
        self.entries: dict[str, Entry] = {e.id: e for e in knowledge or ()}
        names: dict[str, set[str]] = {}

        def add(text: str, entry_id: str) -> None:
            t = text.strip().lower()
            if len(t) >= 2 and not t.isdigit():
                names.setdefault(t, set()).add(entry_id)

        heads: dict[str, set[str]] = {}
        for e in knowledge or ():
            for n in {e.id, e.name_en, e.name_zh, *e.aliases}:
                if not n:
                    continue
                add(n, e.id)
                if e.faction and n.lower().startswith(e.faction.lower() + " "):
                    add(n[len(e.faction) + 1 :], e.id)  # "Nod Flame Tank" is a flame tank in prose
            if e.name_en:
                heads.setdefault(e.name_en.lower().split()[-1], set()).add(e.id)
        for word, head in GENERIC_NOUNS.items():
            ids = {i for h, s in heads.items() if h == head.split()[-1] for i in s}
            ids = {i for i in ids if self.entries[i].name_en.lower().endswith(head)}
            if ids:
                names.setdefault(word, set()).update(ids)
        for word, tag in GENERIC_ROLES.items():
            by_role = {e.id for e in knowledge or () if e.kind == "structure" and e.has_tag(tag)}
            if by_role:
                names.setdefault(word, set()).update(by_role)
        for n in index.names.values():  # internal names the log prints (KW/TW maps, MG_ types)
            if n and not n.startswith("0x"):
                names.setdefault(n.lower(), set()).add(n)
        verb_words = [re.compile(rf"(?:{en})(?:e?s)?|(?:{zh})", re.I) for en, zh in VERBS.values()]
        for word in [w for w in names if any(rx.fullmatch(w) for rx in verb_words)]:
            del names[word]  # an alias that is a verb ("Unpack", 打包) is read as the verb in prose
        self.names = names
        alternatives = "|".join(re.escape(n) for n in sorted(names, key=lambda n: -len(n)))
        self._names_re = (
            re.compile(rf"(?<![A-Za-z0-9_])(?:{alternatives})(?:e?s)?(?![A-Za-z0-9_])", re.IGNORECASE)
            if alternatives
            else None
        )
        self._verbs = [
            (kind, re.compile(rf"(?<![A-Za-z-])(?:{en})(?![A-Za-z])|(?:{zh})(?![场厂])", re.IGNORECASE))
            for kind, (en, zh) in VERBS.items()
        ]
        en_num = r"\d{1,3}|(?:" + "|".join(EN_TENS) + r")(?:-[a-z]+)?|" + "|".join(EN_NUMBERS)
        self._en_count = re.compile(rf"(?<![\w#:.×x-])(?P<n>{en_num})(?![\w:.])", re.IGNORECASE)
        units = r"(?:units|members|vehicles|tanks|soldiers|squads)"
        self._group_sizes = (
            re.compile(  # "the group grows to eight units by 4:25.73"
                rf"\bgroup\b(?:\s+\d)?[^.;]{{0,40}}?(?<![\w#:.])(?P<n>{en_num})\s+{units}\b\s*(?:by|at)\s+(?P<t>{_TIME})",
                re.I,
            ),
            re.compile(  # "4:25.73 编队 1 扩到 8 个单位"
                rf"(?P<t>{_TIME})[^，。；]{{0,12}}?编队\s*\d?[^，。；\d]{{0,8}}?"
                r"(?P<n>\d{1,3}|[一二两三四五六七八九十]{1,3})\s*[个名辆]?(?:单位|成员)"
            ),
        )
        # a digit glued to Latin letters is part of a word (a player name such as H2O, a tier such as T2), not a count
        self._zh_count = re.compile(r"(?<![\d.:#×A-Za-z])(?P<n>\d{1,3}|[一二两三四五六七八九十]{1,3})(?![\d:.A-Za-z])")
        playing = [p for p in index.players if p.is_player]
        factions: dict[str, list[int]] = {}
        for p in playing:
            for f in {p.played_faction, p.faction} - {"", "Random", "random"}:
                for word in (f, *FACTION_WORDS_ZH.get(f, ())):
                    factions.setdefault(word.lower(), []).append(p.slot)
        prefixes: dict[str, list[int]] = {}
        for p in playing:
            head = re.split(r"[-_ .|]", p.name, maxsplit=1)[0]
            if len(head) >= 3 and head != p.name:
                prefixes.setdefault(head.lower(), []).append(p.slot)
        self._players: list[tuple[int, list[str]]] = []
        for p in playing:
            words = {n.lower() for n in (p.name, p.label) if n and len(n) >= 2}
            words |= {f for f, slots in factions.items() if slots == [p.slot]}
            words |= {h for h, slots in prefixes.items() if slots == [p.slot]}
            self._players.append((p.slot, sorted(words)))
        self._events = [e for e in index.events if not e.automatic]
        game = index.replay.game
        self._roles = {e.command_index: role_of(game, e.command_id)[0] for e in self._events}
        self._counted: dict[str, tuple[_Mention, frozenset[str]]] = {}
        """The type each Chinese measure word last counted in the sentence being read (see :meth:`_counts`)."""

    # ------------------------------------------------------------------ entry point

    def check(self, text: str, span: tuple[float, float] | None = None) -> list[ValidationIssue]:
        """The issues of ``text`` (sentences of one window when ``span`` is given, else of the whole match)."""
        end = span[1] if span is not None else float("inf")
        out: list[ValidationIssue] = []
        heading_player: int | None = None
        n = 0
        for raw in text.splitlines():
            if _HEADING.match(raw):
                who = self._players_in(raw)
                heading_player = who[0] if len(who) == 1 else None
                continue
            # a correction "what it said → what is right": only the right side is asserted; a quotation is not.
            # One arrow outside brackets makes a correction; a chain "兵营→电厂→双精炼厂" is a sequence, and
            # "(#242 → #964)" maps ids: neither drops what stands before it
            line = _QUOTED.sub(lambda q: " " * len(q.group()), _correction_side(raw))
            lead = _LEAD.match(line)
            line_player = heading_player
            if lead:
                who = self._players_in(lead.group(1))
                line_player = who[0] if len(who) == 1 else heading_player
            for m in _SENTENCE.finditer(line):
                sentence = m.group().strip()
                if not sentence:
                    continue
                n += 1
                if n > MAX_SENTENCES:
                    return out
                out += self._sentence(sentence, line_player, end)
        return out

    # ------------------------------------------------------------------ parsing

    def _players_in(self, text: str) -> list[int]:
        low = self._names_re.sub(" ", text).lower() if self._names_re is not None else text.lower()
        return [slot for slot, names in self._players if any(_has_word(low, n) for n in names)]

    def _types(self, text: str, offset: int = 0) -> list[tuple[_Mention, frozenset[str]]]:
        if self._names_re is None:
            return []
        out = []
        for m in self._names_re.finditer(text):
            word = m.group().lower()
            ids = self.names.get(word) or self.names.get(re.sub(r"e?s$", "", word)) or self.names.get(word[:-1])
            if ids:
                out.append((_Mention(offset + m.start(), offset + m.end(), m.group()), frozenset(ids)))
        return out

    def _spans(self, text: str) -> list[_Span]:
        """Times and spans of a clause; consecutive times joined by a dash, "and", 至 or a list are one span."""
        times = [(m.start(), m.end(), m.group(1)) for m in _TIME_RE.finditer(text)]
        out: list[_Span] = []
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
                out.append(_Span(s, e, min(vs), max(vs), "." in times[i][2], around, listed=listed))
            i = j + 1
        return out

    def _verbs_in(self, text: str) -> list[_Mention]:
        bare = self._names_re.sub(lambda m: " " * len(m.group()), text) if self._names_re is not None else text
        out = [_Mention(m.start(), m.end(), kind) for kind, rx in self._verbs for m in rx.finditer(bare)]
        out.sort(key=lambda v: (v.start, -(v.end - v.start)))
        kept: list[_Mention] = []
        for v in out:  # the longest verb at a place (开始建造 over 建造)
            if not kept or v.start >= kept[-1].end:
                kept.append(v)
        return kept

    @staticmethod
    def _pick(items: Sequence[_Mention], span: _Span, *, cjk: bool, lo: int, hi: int, clause: str) -> _Mention | None:
        """The verb or id a time belongs to.

        In Chinese the one after it ("在 1:02 放下"), else the one before; in English the one before ("placed at
        2:14.80"), else one right after it ("from 5:56.93 starts").
        """

        def outside(x: _Mention) -> bool:  # "(cancelled)" says nothing of the time after the bracket; "(#888)" does
            return x.value.isdigit() or all(a <= span.start < b for a, b in _brackets(clause) if a <= x.start < b)

        before = [x for x in items if lo <= x.start and x.end <= span.start and outside(x)]
        after = [x for x in items if span.end <= x.start < hi and outside(x)]
        if cjk and items and items[0].value.isdigit():  # ids: the nearest ("#647（编队 2，0:44.13 施放…）和 #650")
            if after and re.fullmatch(r"\s*(?:[^\W\d_]{1,3})?\s*", clause[span.end : after[0].start]):
                return after[0]  # "7:01.07 出售 #445": the verb's own object ("#241（0:06.47）、#244": no verb)
            near = [(span.start - x.end, x) for x in before[-1:]] + [(x.start - span.end, x) for x in after[:1]]
            return min(near, key=lambda d: d[0])[1] if near else None
        if cjk:
            return after[0] if after else (before[-1] if before else None)
        if before and span.start - before[-1].end <= 40:
            return before[-1]
        if after and not clause[span.end : after[0].start].strip():
            return after[0]
        return before[-1] if before else None

    # ------------------------------------------------------------------ one sentence

    def _merged_clauses(self, sentence: str) -> list[tuple[int, int]]:
        """:func:`_clauses`, a clause that is only a time joined to the clause of its verb.

        "…sells #241, his construction yard, at 5:48": the time says when that verb's order was given (an apposition
        stands between).
        """
        out: list[tuple[int, int]] = []
        for lo, hi in _clauses(sentence):
            if out and _TIME_ONLY.fullmatch(sentence[lo:hi]):
                k = len(out) - 1
                if k > 0 and not self._verbs_in(sentence[out[k][0] : out[k][1]]):
                    k -= 1  # the apposition
                out[k:] = [(out[k][0], hi)]
            else:
                out.append((lo, hi))
        return out

    def _sentence(self, sentence: str, line_player: int | None, end: float) -> list[ValidationIssue]:
        self._counted = {}
        who = self._players_in(sentence)
        # the player the sentence names, unless its heading names another (then "attacks Trebla's Tengu" under
        # SFT's heading is no sentence about Trebla's orders); a heading alone decides nothing
        player = who[0] if len(who) == 1 and line_player in (None, who[0]) else None
        out: list[ValidationIssue] = []
        carried: str | None = None
        last_span: _Span | None = None
        topic: tuple[_Mention, frozenset[str]] | None = None
        for lo, hi in self._merged_clauses(sentence):
            clause = sentence[lo:hi]
            spans = self._spans(clause)
            verbs = self._verbs_in(clause)
            types = self._types(clause)
            ids = [_Mention(m.start(), m.end(), m.group(1)) for m in _ID.finditer(clause)]
            clause_who = self._players_in(clause)
            here = (  # "…；맥주 总共下单了 3 台六足；…": the clause's own player
                clause_who[0] if len(clause_who) == 1 and line_player in (None, clause_who[0]) else player
            )
            units = any(self._kind_of(i) == "unit" for _t, i in types)
            # a clause without a verb continues the last one ("sells #1840 at 7:13.20, the gateway #1377 at 7:35.00")
            # when it names no type; a count of a unit type without a verb is of its orders ("seven attack bikes at
            # 8:49.53–8:50.40"); a list of structures continues "built" loosely (started or placed)
            inherit = (
                None
                if verbs or types or not ids or _CONJ.match(clause)
                else ("build" if carried in ("start", "place") else carried)
            )
            out += self._counts(
                sentence=sentence,
                clause=clause,
                spans=spans,
                verbs=verbs,
                types=types,
                ids=ids,
                player=here,
                carried="queue" if units and not verbs else inherit,
                end=end,
                clause_who=clause_who,
                prev_span=last_span,
            )
            out += self._times(
                sentence=sentence,
                clause=clause,
                spans=spans,
                verbs=verbs,
                types=types,
                ids=ids,
                player=here,
                carried=inherit,
                topic=topic if not types and not ids and not clause_who else None,
            )
            if verbs:
                carried = verbs[-1].value
            if spans:
                last_span = spans[-1]
            # a Chinese clause that opens with its type is about it ("装甲工厂 7:22.20 开工，7:48.20 放下"): the
            # clauses after it with no subject of their own continue that topic
            if types or ids or clause_who:
                lead = types[0] if types and not clause[: types[0][0].start].strip(" *") else None
                topic = lead if lead is not None and _is_cjk(clause) else None
        for part in re.split(r"[;；]", sentence):
            out += self._durations(part, sentence, self._players_in(part))
            out += self._elapsed(part, sentence)
        out += self._group_size(sentence, player)
        return out

    def _group_size(self, sentence: str, player: int | None) -> list[ValidationIssue]:
        """The size of a control group the text gives at the time it was made: the ids its create-group order names.

        Only a time copied from a log line (``m:ss.cc``) is read: the order is the one at that frame.
        """
        out: list[ValidationIssue] = []
        for rx in self._group_sizes:
            for m in rx.finditer(sentence):
                t = parse_time(m.group("t"))
                word = m.group("n")
                n = _zh_number(word) if _is_cjk(word) else _en_number(word)
                if t is None or n is None or "." not in m.group("t"):
                    continue
                made = [
                    e
                    for e in self._events
                    if self._roles[e.command_index] == CREATE_GROUP
                    and abs(e.seconds - t) <= 0.05
                    and (player is None or e.player == player)
                ]
                sizes = {len([i for i in e.object_ids if i]) for e in made}
                if not made or n in sizes:
                    continue
                e = made[0]
                members = " ".join(f"#{i}" for i in e.object_ids if i)
                fact = tr(
                    self.lang,
                    "the create-group order at {seconds} names {count} objects: {members}",
                    seconds=format_time(e.seconds),
                    count=len(members.split()),
                    members=members,
                )
                out.append(self._issue("ProseCount", sentence, m.group("n"), fact, t))
        return out

    # ------------------------------------------------------------------ counts

    def _counts(
        self,
        *,
        sentence: str,
        clause: str,
        spans: list[_Span],
        verbs: list[_Mention],
        types: list[tuple[_Mention, frozenset[str]]],
        ids: list[_Mention],
        player: int | None,
        carried: str | None,
        end: float,
        clause_who: list[int],
        prev_span: _Span | None = None,
    ) -> list[ValidationIssue]:
        out: list[ValidationIssue] = []
        cjk = _is_cjk(clause)
        taken = [(s.start, s.end) for s in spans] + [(i.start, i.end) for i in ids]
        found = self._zh_count.finditer(clause) if cjk else self._en_count.finditer(clause)
        for m in found:
            if any(a <= m.start() < b for a, b in taken):
                continue
            n = _zh_number(m.group("n")) if cjk else _en_number(m.group("n"))
            if n is None or n < 2:
                continue
            before = clause[: m.start()].rstrip()
            if cjk and before.endswith(ZH_NOT_COUNTS):
                continue  # 第 6 个 (an ordinal), 前两辆 (the first two of more), 每 3 个 (each)
            if not cjk and before.lower().endswith(EN_NOT_COUNTS):
                continue
            if not cjk and re.search(rf"{BATCH_NOUNS}\s+of\s*$", before, re.I):
                continue  # "two shift-clicks of five": five per order, the orders are counted by "two"
            rest = clause[m.end() :]
            orders = False
            name_before: tuple[_Mention, frozenset[str]] | None = None
            if cjk:
                tail = re.match(rf"\s*([{ZH_MEASURES}])?", rest)
                measure = tail.group(1) if tail else None
                orders = measure is not None and measure in ZH_ORDER_MEASURES
                if not measure and re.match(r"\s*[A-Za-z]", rest) is None:
                    continue  # a bare numeral (a time unit, an id, a coordinate) is no count
                after = m.end() + (tail.end() if tail else 0)
                rest2 = clause[after:]
                skip = re.match(r"\s*(?:[“\"]?×\s*5[”\"]?\s*)?(?:下单|下了|取消|暂停|生产|训练)?\s*", rest2)
                name_at = after + (skip.end() if skip else 0)
                # "帝国武士 226 个、坦克杀手 106 个": a count after its noun, closed by a list mark or the clause end
                if measure and re.match(r"\s*(?:[、，,；;。)）]|$)", rest2):
                    name_before = next(
                        (
                            (t, i)
                            for t, i in types
                            if t.end <= m.start() and re.fullmatch(ZH_AMOUNT_OF, clause[t.end : m.start()])
                        ),
                        None,
                    )
            else:
                more = re.match(r"\s+(?:more\s+|different\s+|new\s+|extra\s+|further\s+)*", rest)
                name_at = m.end() + (more.end() if more else 0)
                batches = re.match(rf"\s*{BATCH_NOUNS}\s+of\s+\S+\s+", rest, re.I)
                times = re.match(r"\s*times\b", rest, re.I)
                if batches:  # "two shift-clicks of five attack bikes": two orders of attack bikes
                    orders, name_at = True, m.end() + batches.end()
                elif times:  # "queues harvesters six times", "packed his yard three times": orders
                    orders = True
                    name_before = next(
                        ((t, i) for t, i in types if t.end <= m.start() and not clause[t.end : m.start()].strip()), None
                    )
                    name_at = m.end() + times.end()
                elif re.match(r"\s*(?:of|seconds?|minutes?|s\b|min\b|%|x|×)", rest, re.I):
                    continue
            name = name_before or next(((t, i) for t, i in types if t.start == name_at), None)
            if cjk and name is None and not orders:
                name = next(((t, i) for t, i in types if 0 <= t.start - name_at <= 3), None)
            if cjk and measure and not orders:
                # "10 架天狗，5:51.40 再下 15 架": a count whose measure word ends it leaves its noun out, which is
                # the noun the same measure word last counted in the sentence
                no_noun = not any(t.start < m.start() for t, _i in types)
                if name is None and no_noun and re.match(r"\s*(?:[、，,；;。)）]|$)", clause[after:]):
                    name = self._counted.get(measure)
                elif name is not None:
                    self._counted[measure] = name
            id_list = _ID_LIST.match(clause[(name[0].end if name else name_at) :]) or _ID_LIST.match(
                re.sub(r"^[\w -]{0,40}?(?=\s*[(（])", "", clause[name_at:])
            )
            noun_end = max(name[0].end, m.end()) if name else m.end()
            if not cjk and orders and name is None:
                noun_end = name_at  # "three times": the words that follow are no noun of the count
            if cjk:
                verb = next((v for v in verbs if v.start >= m.start()), None) or next(
                    (v for v in reversed(verbs) if v.end <= m.start()), None
                )
                span = next((x for x in reversed(spans) if x.end <= m.start()), None) or next(
                    (x for x in spans if x.start >= m.start()), None
                )
                # 共 sums what came before: every span before the count ("a–b 与 c–d 共取消八批"), or the span of
                # the clause before when this one has none ("a–b 两个兵营各三批 ×5，共 35 个标枪兵")
                if re.search(r"(?:共|合计)[^\d，,；;。]{0,4}$", clause[: m.start()]):
                    earlier = [x for x in spans if x.end <= m.start()]
                    if len(earlier) >= 2 and all(x.exact for x in earlier):
                        span = _Span(
                            earlier[0].start,
                            earlier[-1].end,
                            min(x.a for x in earlier),
                            max(x.b for x in earlier),
                            True,
                            parts=tuple((x.a, x.b) for x in earlier),
                        )
                    elif not spans and prev_span is not None and not prev_span.point:
                        span = prev_span
            else:
                # the verb right after the noun ("four seeker cancels at"), else the one before it with no time
                # between them ("it cancels eight disintegrators")
                verb = next(
                    (v for v in verbs if v.start >= noun_end and not clause[noun_end : v.start].strip()), None
                ) or next(
                    (
                        v
                        for v in reversed(verbs)
                        if v.end <= m.start() and not any(v.end <= x.start < m.start() for x in spans)
                    ),
                    None,
                )
                later = next((x for x in spans if x.start >= noun_end), None)
                between = re.sub(r"[(（][^)）]*[)）]", "", clause[noun_end : later.start]) if later else ""
                # a time after the count is its time when "at" it ("four more Tengus at 4:40.67"), not "by" it or
                # after a colon ("nine Tengu orders: 5:11.60 (×4), …"); no other object or verb stands between
                linked = later is not None and (
                    re.fullmatch(r"\s*(?:[\w-]+\s+){0,2}(?:at|around|about)\s*", between) is not None
                    or (
                        not later.point
                        and len(between.split()) <= 3
                        and not set(between.lower().split()) & {"by", "until", "till", "before", "after", "since"}
                    )
                )
                if (
                    linked
                    and later is not None
                    and not _ID.search(between)
                    and not any(noun_end < v.start < later.start and v is not verb for v in verbs)
                ):
                    span = later
                else:
                    span = next((x for x in reversed(spans) if x.end <= m.start()), None)
                if id_list is not None and later is not None and (linked or span is None):
                    span = later  # the ids of one order: the order at that time names them (or not)
            kind = verb.value if verb else carried
            if name is not None and kind in (None, "protocol") and self._kind_of(name[1]) == "unit":
                # "seven attack bikes at 8:49.53–8:50.40": a count of a unit type is of its orders;
                # "点了十二个帝国武士": a unit is clicked into a queue, only a protocol is picked
                kind = "queue"
            said = clause[min(m.start(), name_before[0].start) if name_before else m.start() : noun_end].strip()
            listed = _listed_ids(clause[noun_end:])
            if (
                cjk
                and span is not None
                and span.point
                and re.match(r"\s*起", clause[span.end :])
                and "连" not in clause
            ):
                continue  # "4:28.53 起下单 3 辆": from then on, not one burst ("4:45.87 起连下" is)
            if id_list is not None and span is not None and span.point:
                issue = self._id_list_count(sentence=sentence, said=said, n=n, span=span, clause=clause, player=player)
            elif listed and span is not None and kind in ("sell", "repair", "pack", "unpack", "upgrade"):
                issue = self._listed_count(sentence=sentence, said=said, n=n, kind=kind, listed=listed, span=span)
            elif kind is None or kind == "other":
                continue
            elif span is not None:
                issue = self._span_count(
                    sentence=sentence,
                    said=said,
                    n=n,
                    kind=kind,
                    name=name,
                    span=span,
                    player=player,
                    ids=ids,
                    at=m.start(),
                    orders_only=orders,
                )
            elif orders and kind in ("pack", "unpack", "sell") and player is not None and player in clause_who:
                issue = self._total_orders(
                    sentence=sentence,
                    said=said,
                    n=n,
                    kind=kind,
                    player=player,
                    end=end,
                    whole=bool(TOTAL_WORDS.search(clause)),
                )
            elif name is not None and kind in ("queue", "build") and not orders and not re.match(r"\s+more\b", rest):
                # "ten more Cryocopters (than …)" without a time may be a difference: only a total is checked
                whole = bool(TOTAL_WORDS.search(sentence))
                issue = self._total_count(
                    sentence=sentence,
                    said=said,
                    n=n,
                    ids=name[1],
                    player=player,
                    end=end,
                    whole=whole,
                    clause_who=clause_who,
                )
            else:
                continue
            if issue is not None:
                out.append(issue)
        return out

    def _total_orders(
        self, *, sentence: str, said: str, n: int, kind: str, player: int, end: float, whole: bool
    ) -> ValidationIssue | None:
        """A player's orders of one kind, not of a type ("Kimi 整局打包了两次", "he packed his yard three times").

        With a word of the whole match the count must equal them; else it is bounded by those given by the window's
        end (the text may count a part of them).
        """
        until = float("inf") if whole else end
        orders = [e for e in self._orders(kind, player, None) if e.seconds < until]
        if (n == len(orders)) if whole else (n <= len(orders)):
            return None
        stamps = ", ".join(format_time(e.seconds) for e in orders[:8]) or "-"
        who = self.index.player_name(player)
        count = len(orders)
        by = format_time(until) if until != float("inf") else tr(self.lang, "the whole match")
        fact = tr(
            self.lang,
            "{who} gave {count} {kind} orders by {by}: {stamps}",
            who=who,
            count=count,
            kind=kind,
            by=by,
            stamps=stamps,
        )
        return self._issue("ProseCount", sentence, said, fact)

    def _listed_count(
        self, *, sentence: str, said: str, n: int, kind: str, listed: set[int], span: _Span
    ) -> ValidationIssue | None:
        """Sold six wall pieces (#890–#896) between …": the orders of the kind on the ids the text lists."""
        window = self._window(
            [e for e in self._orders(kind, None, None) if listed & set(e.object_ids)], span, bursts=False
        )
        objects = {i for e in window for i in e.object_ids if i in listed}
        if not window or n in (len(window), len(objects)):
            return None
        stamps = ", ".join(format_time(e.seconds) for e in window[:8])
        fact = tr(
            self.lang,
            "{count} {kind} orders on the listed objects ({count_2} objects) in that span: {stamps}",
            count=len(window),
            kind=kind,
            count_2=len(objects),
            stamps=stamps,
        )
        return self._issue("ProseCount", sentence, said, fact, span.a)

    def _kind_of(self, ids: frozenset[str]) -> str:
        kinds = {self.entries[i].kind if i in self.entries else _kind_of_name(i) for i in ids}
        kinds.discard("")
        return kinds.pop() if len(kinds) == 1 else ""

    def _hashes(self, ids: frozenset[str]) -> set[int]:
        """The hashes of the types and of their variants the replay names (``…_Ground``: an amphibious unit on land)."""
        out = {self.index.hash_of(i) for i in ids} | {self.entries[i].hash for i in ids if i in self.entries}
        prefixes = tuple(f"{i.lower()}_" for i in ids)
        out |= {h for h, n in self.index.names.items() if n.lower().startswith(prefixes)}
        return {h for h in out if h is not None}

    def _orders(self, kind: str, player: int | None, hashes: set[int] | None) -> list[FactEvent]:
        roles = ROLE_SETS[kind]
        words = POWER_WORDS.get(kind)
        out = []
        for e in self._events:
            if self._roles[e.command_index] not in roles or (player is not None and e.player != player):
                continue
            if hashes is not None and e.type_hash not in hashes:
                continue
            if words is not None and not _power_matches(self.index.name_of(e.type_hash or 0), kind):
                continue
            out.append(e)
        return out

    def _window(self, orders: list[FactEvent], span: _Span, bursts: bool) -> list[FactEvent]:
        """The orders a span means: all in a span of two times; at one time, the burst that starts there."""
        slack = 0.05 if span.exact else 0.0
        if not span.point:
            hi = span.b + (slack if span.exact else 1.0)
            inside = [e for e in orders if span.a - slack <= e.seconds <= hi]
            if span.parts:
                pad = slack if span.exact else 1.0
                inside = [e for e in inside if any(a - slack <= e.seconds <= b + pad for a, b in span.parts)]
            return inside
        if not bursts:
            return []
        lo, hi = (span.a - slack, span.a + slack) if span.exact else (span.a, span.a + 1.0)
        if span.around:
            lo, hi = span.a - TIME_TOLERANCE_SECONDS, span.a + TIME_TOLERANCE_SECONDS
        ordered = sorted(orders, key=lambda e: e.time_code)
        start = next((k for k, e in enumerate(ordered) if lo <= e.seconds <= hi), None)
        if start is None:
            return []
        burst = [ordered[start]]
        for e in ordered[start + 1 :]:
            if e.seconds - burst[-1].seconds > BURST_GAP_SECONDS and e.seconds > hi:
                break
            burst.append(e)
        return burst

    def _span_count(
        self,
        *,
        sentence: str,
        said: str,
        n: int,
        kind: str,
        name: tuple[_Mention, frozenset[str]] | None,
        span: _Span,
        player: int | None,
        ids: list[_Mention],
        at: int,
        orders_only: bool,
    ) -> ValidationIssue | None:
        one_type = kind == "cancel" and name is None and span.exact and not orders_only
        if kind in TYPED_VERBS and name is None and not orders_only and not one_type:
            return None  # "three factories queue seven …": a count needs its type
        untyped = kind in ("pack", "unpack") and orders_only  # "packed his yard three times (2:50.80, 4:11.13)"
        if name is None and not untyped and (kind not in ("cancel", "sell") or not (span.exact or orders_only)):
            return None  # "三次施放" of no named power, "连取消 5 次" in a heading's period: not one order kind
        hashes = self._hashes(name[1]) if name is not None and kind in TYPED_VERBS else None
        if kind in ("place", "start", "build") and span.point:
            return None  # structures are placed as they finish: no burst
        actor = next((int(i.value) for i in reversed(ids) if i.end <= at), None)
        players = [player] if player is not None else [p for p, _w in self._players]
        accepted: set[int] = set()
        seen = 0
        facts: list[str] = []
        for p in players:
            for restrict in ((actor,) if actor is not None else ()) + (None,):
                window = self._window(
                    [e for e in self._orders(kind, p, hashes) if restrict is None or restrict in e.object_ids],
                    span,
                    bursts=kind in ("queue", "cancel", "sell"),
                )
                if not window:
                    continue
                if one_type and len({e.type_hash for e in window}) > 1:
                    return None  # "取消五辆三级装甲" among cancels of several types: which ones it counts is unknown
                seen += len(window)
                lines = len(window)
                units = sum(self.index.batch(e.command_index) for e in window) if kind == "queue" else lines
                accepted |= {lines} if orders_only else {lines, units}
                if not span.exact and not span.point:
                    # "6:54–6:55": times rounded to the second bound the period within a second either way; every
                    # count between the orders surely inside (a + 0.5 … b) and those possibly inside is right
                    inner = [e for e in window if span.a + 0.5 <= e.seconds <= span.b]
                    outer = self._window(
                        [e for e in self._orders(kind, p, hashes) if restrict is None or restrict in e.object_ids],
                        _Span(span.start, span.end, span.a - 1.0, span.b, False),
                        bursts=False,
                    )
                    for part in (inner, outer):
                        accepted.add(len(part))
                        if kind == "queue" and not orders_only:
                            accepted.add(sum(self.index.batch(e.command_index) for e in part))
                    accepted |= set(range(len(inner), len(outer) + 1))
                if kind == "cancel":
                    accepted.add(lines * BATCH)
                tolerance = EXACT_TIME_TOLERANCE_SECONDS if span.exact else TIME_TOLERANCE_SECONDS
                if orders_only and all(any(abs(e.seconds - t) <= tolerance for e in window) for t in span.listed):
                    accepted.add(len(span.listed))  # "9:32.60 与 10:11.47 两次取消": the occasions the list names
                if kind == "sell" and name is not None:
                    accepted |= set(range(1, lines + 1))  # "two refineries" among more sells
                if restrict is None:
                    facts.append(self._burst_fact(p, kind, window, units))
        if not seen or n in accepted:
            return None
        return self._issue("ProseCount", sentence, said, "; ".join(facts), span.a)

    def _burst_fact(self, player: int, kind: str, window: list[FactEvent], units: int) -> str:
        times = [format_time(e.seconds) for e in window]
        stamps = ", ".join(times) if len(times) <= 6 else f"{times[0]} … {times[-1]}"
        types = sorted({self.index.name_of(e.type_hash) for e in window if e.type_hash is not None})
        what = "/".join(types[:3])
        who = self.index.player_name(player)
        extra = tr(self.lang, " ({units} units, a batch counting five)", units=units)
        return tr(
            self.lang,
            "{who} has {count} {kind} orders {what}: {stamps}",
            who=who,
            count=len(window),
            kind=kind,
            what=what,
            stamps=stamps,
        ) + (extra if units != len(window) else "")

    def _id_list_count(
        self, *, sentence: str, said: str, n: int, span: _Span, clause: str, player: int | None
    ) -> ValidationIssue | None:
        listed = [int(x) for x in _ID.findall(clause)]
        if not listed:
            return None
        first = listed[0]
        lines = [
            e
            for e in self._events
            if abs(e.seconds - span.a) <= (0.05 if span.exact else 1.0)
            and (player is None or e.player == player)
            and first in (*e.object_ids, *e.affected_ids, *e.actor_ids)
        ]
        if not lines:
            return None
        sizes = {
            size
            for e in lines
            for size in (
                len(e.actor_ids),
                len(e.affected_ids),
                len([i for i in e.object_ids if i and i not in e.target_ids]),
            )
        } - {0}
        if n in sizes:
            return None
        e = lines[0]
        counted = "/".join(map(str, sorted(sizes)))
        fact = tr(
            self.lang,
            "the order at {seconds} names {counted} acting objects (#{first}…)",
            seconds=format_time(e.seconds),
            counted=counted,
            first=first,
        )
        return self._issue("ProseCount", sentence, said, fact, span.a)

    def _total_count(
        self,
        *,
        sentence: str,
        said: str,
        n: int,
        ids: frozenset[str],
        player: int | None,
        end: float,
        whole: bool,
        clause_who: list[int],
    ) -> ValidationIssue | None:
        if self._kind_of(ids) != "unit" or any(self._starts_with(i) for i in ids):
            return None  # one of a type says nothing checkable; start units are nobody's order
        names = {self.index.name_of(h) for h in self._hashes(ids)}
        until = float("inf") if whole else end
        ordered = {p: sum(self.index.units_ordered(p, 0.0, until)[x] for x in names) for p, _w in self._players}
        lines = {p: len([e for e in self._orders("queue", p, self._hashes(ids)) if e.seconds < until]) for p in ordered}
        total = sum(ordered.values())
        mine = ordered.get(player, 0) if player is not None else 0
        named = player is not None and player in clause_who  # "Trebla queued two …": the subject's own orders
        wrong = n > total or (player is not None and 0 < mine < n and (total == mine or named))
        if whole and player is not None and mine and n not in (mine, lines[player]):
            wrong = True
        if not wrong:
            return None
        return self._issue("ProseCount", sentence, said, self._count_fact(ids, ordered, until))

    # ------------------------------------------------------------------ times

    def _times(
        self,
        *,
        sentence: str,
        clause: str,
        spans: list[_Span],
        verbs: list[_Mention],
        types: list[tuple[_Mention, frozenset[str]]],
        ids: list[_Mention],
        player: int | None,
        carried: str | None,
        topic: tuple[_Mention, frozenset[str]] | None = None,
    ) -> list[ValidationIssue]:
        out: list[ValidationIssue] = []
        cjk = _is_cjk(clause)
        bounds = [0] + [s.end for s in spans]
        for k, span in enumerate(spans):
            lo = bounds[k]
            hi = spans[k + 1].start if k + 1 < len(spans) else len(clause)
            if _BOUND_BEFORE.search(clause[lo : span.start]) or _BOUND_AFTER.match(clause[span.end : hi]):
                continue  # "from 5:56.93", "by 8:32.73", "4:45.87 起": a bound, not the time of an order
            if not span.exact and not span.point:
                continue  # "7:00–8:10", "(2:30–8:30)": a period of the match
            verb = self._pick(verbs, span, cjk=cjk, lo=lo, hi=hi, clause=clause)
            kind = verb.value if verb else carried
            if kind is None or kind == "other":
                continue
            if (
                cjk
                and verb is not None
                and verb.start >= span.end
                and re.search(r"被|后", clause[span.end : verb.start])
            ):
                continue  # "12:17.80–12:19.40 被…集火后卖掉": the time is of what came before the verb
            if (
                cjk
                and verb is not None
                and verb.end <= span.start
                and any(verb.end <= t[0].start and t[0].end <= span.start for t in types)
            ):
                continue  # "取消防空部队、12:57.27 改…": the verb before has its own object
            oid = self._pick(ids, span, cjk=cjk, lo=lo, hi=hi, clause=clause)
            # a list of times for a list of ids ("#2911、#3252、#3277 三座建筑（1:42.93、1:56.73、2:06.00）")
            uids = {int(i.value) for i in ids if lo <= i.start < hi} if not span.point else set()
            if oid is not None:
                uids.add(int(oid.value))
            typed: list[tuple[_Mention, frozenset[str]]] = []
            if kind in TYPED_VERBS:
                before = [t for t in types if lo <= t[0].start and t[0].end <= span.start]
                after = [t for t in types if span.end <= t[0].start < hi]
                if cjk and verb is not None and verb.start >= span.end:  # "在 1:02 放下战车工厂", "（0:16.80 放置）"
                    after = [t for t in after if 0 <= t[0].start - verb.end <= 3]
                    if not after and re.match(r"\s*[\w\u4e00-\u9fff]", clause[verb.end :]):
                        continue  # "下单激流 ACV…": the object right after the verb is no type the knowledge names
                typed = (after or before) if cjk else before
                if not typed and cjk and topic is not None:
                    typed = [topic]  # "装甲工厂 7:22.20 开工，7:48.20 放下": the topic of the clause before
                if (
                    not typed
                    and not cjk
                    and re.fullmatch(
                        r"\W*(?:and\s+|then\s+)?(?:is\s+|was\s+)?\w+\s+(?:at\s+)?", clause[lo : span.start]
                    )
                ):
                    subject = [t for t in types if t[0].end <= lo][-1:]  # "the factory (X) is started at 1:29.47 and
                    # placed at …": the clause's subject, when nothing named in capitals stands between
                    if subject and not re.search(r"\b[A-Z][a-z]", clause[subject[0][0].end : span.start]):
                        typed = subject
                unknown = [
                    w
                    for w in _IDENT.findall(clause[lo:hi])
                    if w.lower() not in self.names
                    and not any(w.lower() in words for _p, words in self._players)
                    and not any(t[0].start <= clause.find(w, lo) < t[0].end for t in types)
                ]
                if unknown:
                    continue  # an internal name neither the knowledge nor the replay knows: not checkable
                if (
                    kind in ("start", "build")
                    and verb is not None
                    and any(v.value == "upgrade" and v.start > verb.start for v in verbs)
                ):
                    # "开始机甲工厂三级升级（Upgrade_…）", "starts the Tech3 upgrade": the start of an upgrade
                    upgrades = [t for t in types if lo <= t[0].start < hi and self._kind_of(t[1]) == "upgrade"]
                    if upgrades:
                        kind, typed = "upgrade", upgrades
                kinds = {self._kind_of(i) for _t, i in typed}
                if kinds == {"unit"} and kind == "protocol":
                    kind = "queue"  # a unit is clicked into a queue ("点了"), only a protocol is picked
                if kinds == {"upgrade"} and kind in ("start", "build", "place"):
                    kind = "upgrade"  # "开始 ScrinPowerPlantUpgrade", "starts Upgrade_…"
                elif kinds == {"power"} and kind in ("start", "build", "place"):
                    kind = "power"
            if not uids and not typed and kind not in ("pack", "unpack", "sell", "transform"):
                continue
            if player is None and (not span.exact or (not uids and not typed)):
                continue  # "at 9:59" of one of two players: which one? (a copied m:ss.cc line time is anyone's)
            hashes = {h for _t, i in typed for h in self._hashes(i)} or None
            orders = self._orders(kind, None if uids else player, hashes)
            if uids:
                orders = [e for e in orders if uids & set(e.object_ids) or uids & set(e.actor_ids)]
            if not orders:
                continue  # nothing of that kind at all: the clause may mean something else
            tolerance = EXACT_TIME_TOLERANCE_SECONDS if span.exact else TIME_TOLERANCE_SECONDS
            if not span.point and any(span.a - tolerance <= e.seconds <= span.b + tolerance for e in orders):
                continue  # a span of orders: some order of the kind within it
            for t in {span.a, span.b}:
                if any(abs(e.seconds - t) <= tolerance + 1e-6 for e in orders):
                    continue
                near = sorted(orders, key=lambda e: abs(e.seconds - t))[:3]
                stamps = ", ".join(format_time(e.seconds) for e in sorted(near, key=lambda e: e.time_code))
                what = (
                    " ".join(f"#{u}" for u in sorted(uids))
                    if uids
                    else "/".join(sorted({self.index.name_of(e.type_hash) for e in near if e.type_hash is not None}))
                )
                who = self.index.player_name(near[0].player)
                fact = tr(
                    self.lang,
                    "{who}'s {kind} orders of {what} are at {stamps}; none within {tolerance:g} s of {t}",
                    who=who,
                    kind=kind,
                    what=what,
                    stamps=stamps,
                    tolerance=tolerance,
                    t=format_time(t),
                )
                out.append(self._issue("ProseTime", sentence, clause[span.start : span.end], fact, t))
                break
        return out

    # ------------------------------------------------------------------ durations

    def _elapsed(self, part: str, sentence: str) -> list[ValidationIssue]:
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
                number = _zh_number(word) if rx is _ELAPSED_ZH else _en_number(word)
                n = 0.5 if word in ("半", "half a", "half an") else 1.0 if word in ("a", "an") else number
                if n is None or n <= 0:
                    continue
                minutes = m.group("unit").lower().startswith(("m", "分"))
                said = n * 60.0 if minutes else float(n)
                times = [parse_time(t) for t in _TIME_RE.findall(part[: m.start()])]
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
                    out.append(self._issue("ProseDuration", sentence, m.group().strip(), fact))
        return out

    def _durations(self, part: str, sentence: str, who: list[int]) -> list[ValidationIssue]:
        """A duration in one part of a sentence (up to a semicolon) against the times or first orders it names."""
        m = _DURATION_EN.search(part)
        zh = _DURATION_ZH.search(part)
        if m is not None:
            n = _en_number(m.group("n"))
            seconds = n * (60 if m.group("unit").lower().startswith("m") else 1) if n is not None else None
            full = False
        elif zh is not None:
            word = zh.group("n")
            n = 0 if word == "半" else _zh_number(word)
            seconds = (30 if word == "半" else n * (60 if zh.group("unit") != "秒" else 1)) if n is not None else None
            full = bool(zh.group("full"))
        else:
            return []
        if seconds is None:
            return []
        times = [parse_time(t) for t in _TIME_RE.findall(part)]
        actual: float | None = None
        if len(times) == 2 and all(t is not None for t in times) and len(who) == 2:
            actual = abs(float(times[1] or 0) - float(times[0] or 0))
        elif len(who) == 2 and re.search(r"第一次|首次|first", part, re.I):
            types = self._types(part)
            kinds = {i for _t, i in types}
            if len(kinds) != 1:
                return []
            hashes = self._hashes(next(iter(kinds)))
            firsts = []
            for p in who:
                orders = [e for e in self._events if e.player == p and e.type_hash in hashes]
                orders = [e for e in orders if self._roles[e.command_index] in (QUEUE, START)]
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
        return [self._issue("ProseDuration", sentence, said, fact)]

    # ------------------------------------------------------------------ helpers

    def _starts_with(self, entry_id: str) -> bool:
        e = self.entries.get(entry_id)
        if e is None or e.has_tag("core"):  # an Empire core is MCV-class but always ordered
            return False
        return any(e.has_tag(t) for t in ("mcv", "mcv_class", "construction_yard"))

    def _count_fact(self, ids: frozenset[str], ordered: dict[int, int], end: float) -> str:
        names = "/".join(sorted({self.index.name_of(h) for h in self._hashes(ids)}))
        until = format_time(end) if end != float("inf") else tr(self.lang, "the whole match")
        parts = ", ".join(f"{self.index.player_name(p)} {n}" for p, n in ordered.items())
        return tr(
            self.lang,
            "{names} ordered by {until} (a batch counting five): {parts}",
            names=names,
            until=until,
            parts=parts,
        )

    def _issue(self, code: str, sentence: str, said: str, fact: str, t: float | None = None) -> ValidationIssue:
        message = tr(
            self.lang,
            "a number in the text disagrees with the facts: '{said}' in \"{sentence}\"; fact: {fact}",
            said=said,
            sentence=sentence,
            fact=fact,
        )
        return ValidationIssue(Severity.WARNING, code, message, time_seconds=t, fact=fact, quote=sentence)


def _correction_side(line: str) -> str:
    """What a line asserts: the right side of a correction "said → right" (one arrow outside brackets), else all."""
    inside = _brackets(line)
    arrows = [i for i, ch in enumerate(line) if ch == "→" and not any(a <= i < b for a, b in inside)]
    return line[arrows[0] + 1 :] if len(arrows) == 1 else line


def _brackets(text: str) -> list[tuple[int, int]]:
    """(start, end) of each bracketed part of ``text``, outermost and nested alike."""
    out, stack = [], []
    for i, ch in enumerate(text):
        if ch in "(（":
            stack.append(i)
        elif ch in ")）" and stack:
            out.append((stack.pop(), i + 1))
    return out


def _kind_of_name(name: str) -> str:
    """The kind an internal name the knowledge lacks says of itself (``…Upgrade…``, ``SpecialPower…``)."""
    low = name.lower()
    return "upgrade" if "upgrade" in low else "power" if low.startswith("specialpower") else ""


def _listed_ids(text: str) -> set[int]:
    """The ids a bracket right after a count lists: ``(#890–#896)`` (a range of ids) or ``(#1, #2, #3)``."""
    m = re.match(r"^[\w -]{0,30}?[(（]\s*#(\d+)\s*[–—-]\s*#?(\d+)\s*[)）]", text)
    if m:
        a, b = int(m.group(1)), int(m.group(2))
        return set(range(a, b + 1)) if 0 < b - a <= 50 else set()
    item = rf"\s*#\d+(?:\s+(?:at\s+)?{_TIME})?\s*[,，、]?"  # "(#1243 at 5:46.07, #956 at 5:55.33)"
    m = re.match(rf"^[\w :.–-]{{0,40}}?[(（]((?:{item})+)[)）]", text)
    return {int(x) for x in re.findall(r"#(\d+)", m.group(1))} if m else set()


def _power_matches(name: str, kind: str) -> bool:
    low = name.lower()
    if kind == "pack":
        return "pack" in low and "unpack" not in low
    return any(w in low for w in POWER_WORDS.get(kind, ()))


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
