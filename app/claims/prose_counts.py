"""Which numbers of a clause are counts, of what, by which verb and at which time (issue 28 §2).

A count is a numeral or a number word ("eight", "二十", ``N 次`` for orders) that is no ordinal, no bound ("about",
"至少"), no id, time or coordinate; its noun is the type written after it (or before it in Chinese, "帝国武士 226 个"),
its verb the order verb next to it, its time the span linked to it ("eight militant squads between 0:14.87 and
0:17.33", "four more Tengus at 4:40.67"). Each count read that way goes to the check of
:mod:`app.claims.prose_order_counts` that fits it; a count whose clause does not parse that way is left alone. The
size of a control group at a log time is read here too.
"""

from __future__ import annotations

import re

from app.claims.issues import ValidationIssue
from app.claims.prose_findings import prose_issue
from app.claims.prose_lexicon import ProseLexicon
from app.claims.prose_order_counts import OrderCounts
from app.claims.prose_orders import ProseOrders
from app.claims.prose_phrases import EN_NUMBERS, EN_TENS, ID, TIME, Mention, Span, en_number, is_cjk, zh_number
from app.claims.timeparse import format_time, parse_time
from app.i18n import Lang, tr
from app.replay.commands import CREATE_GROUP

ZH_MEASURES = "个辆架艘名只台座支次批"
ZH_ORDER_MEASURES = "次批"
ZH_AMOUNT_OF = r"\s*(?:多达|达到|达|共有|共|总共|一共|合计|有)?\s*"
ZH_COUNT_AFTER_NOUN = rf"\s*[（(]?{ZH_AMOUNT_OF}"
"""Between a noun and its count written after it: "帝国武士 226 个", "帝国武士共 226 个", "帝国武士（226 个）"."""
_PHRASE_END = r"[)）、，,；;。]|和|与|及"
"""What ends a count's phrase: a closing bracket, a list mark, a conjunction ("（126 个）和 ScBuzzer")."""
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

TOTAL_WORDS = re.compile(
    r"总共|一共|全场|全局|整局|累计|over the (?:whole )?(?:game|match)|in total|in all|all game", re.I
)
_ID_LIST = re.compile(r"^\s*[(（]\s*#\d+(?:\s*[,，、]?\s*#\d+)+")
_EN_NUM = r"\d{1,3}|(?:" + "|".join(EN_TENS) + r")(?:-[a-z]+)?|" + "|".join(EN_NUMBERS)
EN_COUNT = re.compile(rf"(?<![\w#:.×x-])(?P<n>{_EN_NUM})(?![\w:.])", re.IGNORECASE)
_GROUP_UNITS = r"(?:units|members|vehicles|tanks|soldiers|squads)"
GROUP_SIZES = (
    re.compile(  # "the group grows to eight units by 4:25.73"
        rf"\bgroup\b(?:\s+\d)?[^.;]{{0,40}}?(?<![\w#:.])(?P<n>{_EN_NUM})\s+{_GROUP_UNITS}\b\s*(?:by|at)\s+(?P<t>{TIME})",
        re.I,
    ),
    re.compile(  # "4:25.73 编队 1 扩到 8 个单位"
        rf"(?P<t>{TIME})[^，。；]{{0,12}}?编队\s*\d?[^，。；\d]{{0,8}}?"
        r"(?P<n>\d{1,3}|[一二两三四五六七八九十]{1,3})\s*[个名辆]?(?:单位|成员)"
    ),
)
# a digit glued to Latin letters is part of a word (a player name such as H2O, a tier such as T2), not a count
ZH_COUNT = re.compile(r"(?<![\d.:#×A-Za-z])(?P<n>\d{1,3}|[一二两三四五六七八九十]{1,3})(?![\d:.A-Za-z])")


def _listed_ids(text: str) -> set[int]:
    """The ids a bracket right after a count lists: ``(#890–#896)`` (a range of ids) or ``(#1, #2, #3)``."""
    m = re.match(r"^[\w -]{0,30}?[(（]\s*#(\d+)\s*[–—-]\s*#?(\d+)\s*[)）]", text)
    if m:
        a, b = int(m.group(1)), int(m.group(2))
        return set(range(a, b + 1)) if 0 < b - a <= 50 else set()
    item = rf"\s*#\d+(?:\s+(?:at\s+)?{TIME})?\s*[,，、]?"  # "(#1243 at 5:46.07, #956 at 5:55.33)"
    m = re.match(rf"^[\w :.–-]{{0,40}}?[(（]((?:{item})+)[)）]", text)
    return {int(x) for x in re.findall(r"#(\d+)", m.group(1))} if m else set()


class CountChecks:
    """The counts of a clause, each checked against the orders it counts (:class:`OrderCounts`)."""

    def __init__(self, lexicon: ProseLexicon, orders: ProseOrders, tallies: OrderCounts, lang: Lang) -> None:
        self.lexicon = lexicon
        self.orders = orders
        self.tallies = tallies
        self.lang = lang

    def check(
        self,
        *,
        sentence: str,
        clause: str,
        spans: list[Span],
        verbs: list[Mention],
        types: list[tuple[Mention, frozenset[str]]],
        ids: list[Mention],
        player: int | None,
        carried: str | None,
        end: float,
        clause_who: list[int],
        prev_span: Span | None = None,
        counted: dict[str, tuple[Mention, frozenset[str]]],
    ) -> list[ValidationIssue]:
        """The counts of one clause that disagree with the orders they count.

        ``counted`` holds the type each Chinese measure word last counted in the sentence (a count whose measure word
        ends it counts that type: "10 架天狗，5:51.40 再下 15 架").
        """
        out: list[ValidationIssue] = []
        cjk = is_cjk(clause)
        taken = [(s.start, s.end) for s in spans] + [(i.start, i.end) for i in ids]
        found = ZH_COUNT.finditer(clause) if cjk else EN_COUNT.finditer(clause)
        for m in found:
            if any(a <= m.start() < b for a, b in taken):
                continue
            n = zh_number(m.group("n")) if cjk else en_number(m.group("n"))
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
            name_before: tuple[Mention, frozenset[str]] | None = None
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
                            if t.end <= m.start() and re.fullmatch(ZH_COUNT_AFTER_NOUN, clause[t.end : m.start()])
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
                # a noun a few characters on, unless a closing bracket, a list mark or 和 ends the count's phrase first
                name = next(
                    (
                        (t, i)
                        for t, i in types
                        if 0 <= t.start - name_at <= 3 and not re.search(_PHRASE_END, clause[name_at : t.start])
                    ),
                    None,
                )
            if cjk and measure and not orders:
                # "10 架天狗，5:51.40 再下 15 架": a count whose measure word ends it leaves its noun out, which is
                # the noun the same measure word last counted in the sentence
                no_noun = not any(t.start < m.start() for t, _i in types)
                if name is None and no_noun and re.match(r"\s*(?:[、，,；;。)）]|$)", clause[after:]):
                    name = counted.get(measure)
                elif name is not None:
                    counted[measure] = name
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
                        span = Span(
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
                    and not ID.search(between)
                    and not any(noun_end < v.start < later.start and v is not verb for v in verbs)
                ):
                    span = later
                else:
                    span = next((x for x in reversed(spans) if x.end <= m.start()), None)
                if id_list is not None and later is not None and (linked or span is None):
                    span = later  # the ids of one order: the order at that time names them (or not)
            kind = verb.value if verb else carried
            if name is not None and kind in (None, "protocol") and self.orders.kind_of(name[1]) == "unit":
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
                issue = self.tallies.id_list_count(
                    sentence=sentence, said=said, n=n, span=span, clause=clause, player=player
                )
            elif listed and span is not None and kind in ("sell", "repair", "pack", "unpack", "upgrade"):
                issue = self.tallies.listed_count(
                    sentence=sentence, said=said, n=n, kind=kind, listed=listed, span=span
                )
            elif kind is None or kind == "other":
                continue
            elif span is not None:
                issue = self.tallies.span_count(
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
                issue = self.tallies.total_orders(
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
                issue = self.tallies.total_count(
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

    def group_size(self, sentence: str, player: int | None) -> list[ValidationIssue]:
        """The size of a control group the text gives at the time it was made: the ids its create-group order names.

        Only a time copied from a log line (``m:ss.cc``) is read: the order is the one at that frame.
        """
        out: list[ValidationIssue] = []
        for rx in GROUP_SIZES:
            for m in rx.finditer(sentence):
                t = parse_time(m.group("t"))
                word = m.group("n")
                n = zh_number(word) if is_cjk(word) else en_number(word)
                if t is None or n is None or "." not in m.group("t"):
                    continue
                made = [
                    e
                    for e in self.orders.events
                    if self.orders.roles[e.command_index] == CREATE_GROUP
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
                out.append(prose_issue(self.lang, "ProseCount", sentence, m.group("n"), fact, t=t))
        return out
