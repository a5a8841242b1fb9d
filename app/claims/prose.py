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

This module reads the text: lines, headings, sentences and clauses, and who each is about. The pieces it hands them to:

* :mod:`app.claims.prose_phrases`: the shapes of times, spans, numbers and ids (pure text);
* :mod:`app.claims.prose_lexicon`: the names of this replay's types and players, and the order verbs;
* :mod:`app.claims.prose_orders`: the orders a verb, a type and a time or span mean;
* :mod:`app.claims.prose_counts` reads the counts of a clause, :mod:`app.claims.prose_order_counts` checks each
  against the orders it counts;
* :mod:`app.claims.prose_times`: the time of an order; :mod:`app.claims.prose_durations`: a time between two;
* :mod:`app.claims.prose_findings`: how a finding reads.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from app.claims.issues import ValidationIssue
from app.claims.prose_counts import CountChecks
from app.claims.prose_durations import DurationChecks
from app.claims.prose_lexicon import ProseLexicon
from app.claims.prose_order_counts import OrderCounts
from app.claims.prose_orders import ProseOrders
from app.claims.prose_phrases import ID, TIME, Mention, Span, brackets, clauses, is_cjk, spans_in
from app.claims.prose_times import TimeChecks
from app.facts import ReplayFactIndex
from app.i18n import Lang
from app.knowledge.model import Knowledge

MAX_SENTENCES = 400
"""Sentences checked per text (a reply is model output of any size; the first ones are the analysis)."""
_TIME_ONLY = re.compile(rf"\s*(?:at|around|about)\s+{TIME}\s*[.。]?\s*", re.I)
_SENTENCE = re.compile(r"[^。！？!?\n]+?(?:[。！？!?]|\.(?=\s|$)|(?=\n)|$)")
_HEADING = re.compile(r"^\s*(?:#{1,6}\s|\*\*[^*]+\*\*\s*$)")
_LEAD = re.compile(r"^\s*(?:[-*]\s+)?\*\*([^*]{1,40})\*\*\s*[:：]?")
_QUOTED = re.compile(r"“[^”]{15,}”|\"[^\"]{15,}\"")
_CONJ = re.compile(r"^\W*(?:and|then|while|so|but|which|after|before|when|同时|然后|随后|但|而|之后)", re.I)


class ProseChecker:
    """Counts, times and durations in an analysis text, against the fact index (see the module docstring)."""

    def __init__(self, index: ReplayFactIndex, knowledge: Knowledge | None, lang: Lang) -> None:
        self.index = index
        self.lang = lang
        self.lexicon = ProseLexicon(index, knowledge)
        self.orders = ProseOrders(index, self.lexicon.entries)
        self.counts = CountChecks(self.lexicon, self.orders, OrderCounts(index, self.lexicon, self.orders, lang), lang)
        self.times = TimeChecks(index, self.lexicon, self.orders, lang)
        self.durations = DurationChecks(self.lexicon, self.orders, lang)

    # ------------------------------------------------------------------ entry point

    def check(self, text: str, span: tuple[float, float] | None = None) -> list[ValidationIssue]:
        """The issues of ``text`` (sentences of one window when ``span`` is given, else of the whole match)."""
        end = span[1] if span is not None else float("inf")
        out: list[ValidationIssue] = []
        heading_player: int | None = None
        n = 0
        for raw in text.splitlines():
            if _HEADING.match(raw):
                who = self.lexicon.players_in(raw)
                heading_player = who[0] if len(who) == 1 else None
                continue
            # a correction "what it said → what is right": only the right side is asserted; a quotation is not.
            # One arrow outside brackets makes a correction; a chain "兵营→电厂→双精炼厂" is a sequence, and
            # "(#242 → #964)" maps ids: neither drops what stands before it
            line = _QUOTED.sub(lambda q: " " * len(q.group()), _correction_side(raw))
            lead = _LEAD.match(line)
            line_player = heading_player
            if lead:
                who = self.lexicon.players_in(lead.group(1))
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

    # ------------------------------------------------------------------ one sentence

    def _merged_clauses(self, sentence: str) -> list[tuple[int, int]]:
        """:func:`~app.claims.prose_phrases.clauses`, a clause that is only a time joined to the clause of its verb.

        "…sells #241, his construction yard, at 5:48": the time says when that verb's order was given (an apposition
        stands between).
        """
        out: list[tuple[int, int]] = []
        for lo, hi in clauses(sentence):
            if out and _TIME_ONLY.fullmatch(sentence[lo:hi]):
                k = len(out) - 1
                if k > 0 and not self.lexicon.verbs_in(sentence[out[k][0] : out[k][1]]):
                    k -= 1  # the apposition
                out[k:] = [(out[k][0], hi)]
            else:
                out.append((lo, hi))
        return out

    def _sentence(self, sentence: str, line_player: int | None, end: float) -> list[ValidationIssue]:
        counted: dict[str, tuple[Mention, frozenset[str]]] = {}
        who = self.lexicon.players_in(sentence)
        # the player the sentence names, unless its heading names another (then "attacks Trebla's Tengu" under
        # SFT's heading is no sentence about Trebla's orders); a heading alone decides nothing
        player = who[0] if len(who) == 1 and line_player in (None, who[0]) else None
        out: list[ValidationIssue] = []
        carried: str | None = None
        last_span: Span | None = None
        topic: tuple[Mention, frozenset[str]] | None = None
        for lo, hi in self._merged_clauses(sentence):
            clause = sentence[lo:hi]
            spans = spans_in(clause)
            verbs = self.lexicon.verbs_in(clause)
            types = self.lexicon.types(clause)
            ids = [Mention(m.start(), m.end(), m.group(1)) for m in ID.finditer(clause)]
            clause_who = self.lexicon.players_in(clause)
            here = (  # "…；맥주 总共下单了 3 台六足；…": the clause's own player
                clause_who[0] if len(clause_who) == 1 and line_player in (None, clause_who[0]) else player
            )
            units = any(self.orders.kind_of(i) == "unit" for _t, i in types)
            # a clause without a verb continues the last one ("sells #1840 at 7:13.20, the gateway #1377 at 7:35.00")
            # when it names no type; a count of a unit type without a verb is of its orders ("seven attack bikes at
            # 8:49.53–8:50.40"); a list of structures continues "built" loosely (started or placed)
            inherit = (
                None
                if verbs or types or not ids or _CONJ.match(clause)
                else ("build" if carried in ("start", "place") else carried)
            )
            out += self.counts.check(
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
                counted=counted,
            )
            out += self.times.check(
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
                topic = lead if lead is not None and is_cjk(clause) else None
        for part in re.split(r"[;；]", sentence):
            out += self.durations.check(part, sentence, self.lexicon.players_in(part))
            out += self.durations.elapsed(part, sentence)
        out += self.counts.group_size(sentence, player)
        return out


def _correction_side(line: str) -> str:
    """What a line asserts: the right side of a correction "said → right" (one arrow outside brackets), else all."""
    inside = brackets(line)
    arrows = [i for i, ch in enumerate(line) if ch == "→" and not any(a <= i < b for a, b in inside)]
    return line[arrows[0] + 1 :] if len(arrows) == 1 else line


def check_prose(
    index: ReplayFactIndex, knowledge: Knowledge | None, lang: Lang, texts: Iterable[str], span: Sequence[float] | None
) -> list[ValidationIssue]:
    """:meth:`ProseChecker.check` over several texts (one checker)."""
    checker = ProseChecker(index, knowledge, lang)
    s = (float(span[0]), float(span[1])) if span is not None else None
    return [i for t in texts for i in checker.check(t, s)]
