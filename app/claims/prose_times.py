"""The time of an order the text gives, against the orders of that verb (issue 28 §2).

"placed at 2:14.80", "在 1:02 放下战车工厂": the time must lie within the tolerance of an order of that verb by the
object or of the type the clause names. A time written with hundredths is copied from a log line (1 s), a time in
``m:ss`` may be rounded (3 s). A bound ("by 8:32", "4:45.87 起"), a period of the match and a time whose verb, type
or player is not clear are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.claims.issues import ValidationIssue
from app.claims.prose_findings import prose_issue
from app.claims.prose_lexicon import ProseLexicon
from app.claims.prose_orders import EXACT_TIME_TOLERANCE_SECONDS, TIME_TOLERANCE_SECONDS, TYPED_VERBS, ProseOrders
from app.claims.prose_phrases import Mention, Span, brackets, is_cjk
from app.claims.timeparse import format_time
from app.facts import ReplayFactIndex
from app.facts.model import TICKS_PER_SECOND
from app.i18n import Lang, tr

_IDENT = re.compile(r"\b[A-Za-z]+(?:_[A-Za-z0-9]+|[a-z][A-Z][A-Za-z0-9]*)[A-Za-z0-9_]*\b")
_BOUND_BEFORE = re.compile(r"(?:by|until|till|before|after|up to|截至|截止|到|直到)\s*$", re.I)
_UNTYPED = ("pack", "unpack", "sell", "transform")
"""Order kinds whose time is checked even when the sentence names no type or id: each is an order of its own kind.
Not "enter" or "capture": without the building they name ("进入 2 级科技", "enters the late game"), they are no
entry at all."""
"""Verbs whose orders name an object, not a type: a time of one is checked with no type (by anyone, when the sentence
names no one player and the time is copied from a log line)."""
_BOUND_AFTER = re.compile(r"^\s*(?:起|前|后|以后|之后|之前|以前|以来|为止)")


def _pick(items: Sequence[Mention], span: Span, *, cjk: bool, lo: int, hi: int, clause: str) -> Mention | None:
    """The verb or id a time belongs to.

    In Chinese the one after it ("在 1:02 放下"), else the one before; in English the one before ("placed at
    2:14.80"), else one right after it ("from 5:56.93 starts").
    """

    def outside(x: Mention) -> bool:  # "(cancelled)" says nothing of the time after the bracket; "(#888)" does
        return x.value.isdigit() or all(a <= span.start < b for a, b in brackets(clause) if a <= x.start < b)

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


class TimeChecks:
    """The times of orders in a clause, each against the orders of its verb and type."""

    def __init__(self, index: ReplayFactIndex, lexicon: ProseLexicon, orders: ProseOrders, lang: Lang) -> None:
        self.index = index
        self.lexicon = lexicon
        self.orders = orders
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
        topic: tuple[Mention, frozenset[str]] | None = None,
    ) -> list[ValidationIssue]:
        """The times of one clause that lie off every order of their verb and type (or object) by the player."""
        out: list[ValidationIssue] = []
        cjk = is_cjk(clause)
        bounds = [0] + [s.end for s in spans]
        for k, span in enumerate(spans):
            lo = bounds[k]
            hi = spans[k + 1].start if k + 1 < len(spans) else len(clause)
            if _BOUND_BEFORE.search(clause[lo : span.start]) or _BOUND_AFTER.match(clause[span.end : hi]):
                continue  # "from 5:56.93", "by 8:32.73", "4:45.87 起": a bound, not the time of an order
            if not span.exact and not span.point:
                continue  # "7:00–8:10", "(2:30–8:30)": a period of the match
            verb = _pick(verbs, span, cjk=cjk, lo=lo, hi=hi, clause=clause)
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
            oid = _pick(ids, span, cjk=cjk, lo=lo, hi=hi, clause=clause)
            # a list of times for a list of ids ("#2911、#3252、#3277 三座建筑（1:42.93、1:56.73、2:06.00）")
            uids = {int(i.value) for i in ids if lo <= i.start < hi} if not span.point else set()
            if oid is not None:
                uids.add(int(oid.value))
            typed: list[tuple[Mention, frozenset[str]]] = []
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
                    if w.lower() not in self.lexicon.names
                    and not any(w.lower() in words for _p, words in self.lexicon.players)
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
                    upgrades = [t for t in types if lo <= t[0].start < hi and self.orders.kind_of(t[1]) == "upgrade"]
                    if upgrades:
                        kind, typed = "upgrade", upgrades
                kinds = {self.orders.kind_of(i) for _t, i in typed}
                if kinds == {"unit"} and kind == "protocol":
                    kind = "queue"  # a unit is clicked into a queue ("点了"), only a protocol is picked
                if kinds == {"upgrade"} and kind in ("start", "build", "place"):
                    kind = "upgrade"  # "开始 ScrinPowerPlantUpgrade", "starts Upgrade_…"
                elif kinds == {"power"} and kind in ("start", "build", "place"):
                    kind = "power"
            if not uids and not typed and kind not in _UNTYPED:
                continue
            if player is None and (not span.exact or (not uids and not typed and kind not in _UNTYPED)):
                continue  # "at 9:59" of one of two players: which one? (a copied m:ss.cc line time is anyone's)
            hashes = {h for _t, i in typed for h in self.orders.hashes(i)} or None
            # an object's own order is anyone's (its owner may change); so is an entry ("工兵进入盟军建造场": the
            # sentence may name the owner of the building, not of the engineer)
            orders = self.orders.matching(kind, None if uids or kind in ("enter", "capture") else player, hashes)
            if uids:
                orders = [e for e in orders if uids & set(e.object_ids) or uids & set(e.actor_ids)]
            if not orders:
                continue  # nothing of that kind at all: the clause may mean something else
            tolerance = EXACT_TIME_TOLERANCE_SECONDS if span.exact else TIME_TOLERANCE_SECONDS
            if not span.point and any(span.a - tolerance <= e.seconds <= span.b + tolerance for e in orders):
                continue  # a span of orders: some order of the kind within it
            # a capture ends when the new owner's first order shows it: any time from the entry to then is its time
            taken = [c for u in uids for c in (self.index.ownership_changes(u) or ())] if kind == "capture" else []
            for t in {span.a, span.b}:
                if any(abs(e.seconds - t) <= tolerance + 1e-6 for e in orders):
                    continue
                if any(
                    (c.order_time_code or c.after_time_code) / TICKS_PER_SECOND - tolerance
                    <= t
                    <= c.by_time_code / TICKS_PER_SECOND + tolerance
                    for c in taken
                ):
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
                out.append(prose_issue(self.lang, "ProseTime", sentence, clause[span.start : span.end], fact, t=t))
                break
        return out
