"""A count the text gives against the orders it counts (issue 28 §2): is ``n`` the number the facts hold?

In a span, the orders of the verb and type inside it; at one time, the burst of clicks that starts there (a queue
order is one order and, shift-clicked, five units: either number is right); by the ids a bracket lists, their orders
of the kind; by the ids of one order, the ids it names; with no time, what was ordered by the end of the window (the
whole match for "in total", "全场": then it must be equal). Each answers with a finding or None.
"""

from __future__ import annotations

from app.claims.issues import ValidationIssue
from app.claims.prose_findings import prose_issue
from app.claims.prose_lexicon import ProseLexicon
from app.claims.prose_orders import (
    BATCH,
    EXACT_TIME_TOLERANCE_SECONDS,
    TIME_TOLERANCE_SECONDS,
    TYPED_VERBS,
    ProseOrders,
)
from app.claims.prose_phrases import ID, Mention, Span
from app.claims.timeparse import format_time
from app.facts import ReplayFactIndex
from app.facts.model import FactEvent
from app.i18n import Lang, tr


class OrderCounts:
    """The checks of one count against the orders of the replay it counts."""

    def __init__(self, index: ReplayFactIndex, lexicon: ProseLexicon, orders: ProseOrders, lang: Lang) -> None:
        self.index = index
        self.lexicon = lexicon
        self.orders = orders
        self.lang = lang

    def total_orders(
        self, *, sentence: str, said: str, n: int, kind: str, player: int, end: float, whole: bool
    ) -> ValidationIssue | None:
        """A player's orders of one kind, not of a type ("Kimi 整局打包了两次", "he packed his yard three times").

        With a word of the whole match the count must equal them; else it is bounded by those given by the window's
        end (the text may count a part of them).
        """
        until = float("inf") if whole else end
        orders = [e for e in self.orders.matching(kind, player, None) if e.seconds < until]
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
        return prose_issue(self.lang, "ProseCount", sentence, said, fact)

    def listed_count(
        self, *, sentence: str, said: str, n: int, kind: str, listed: set[int], span: Span
    ) -> ValidationIssue | None:
        """Sold six wall pieces (#890–#896) between …": the orders of the kind on the ids the text lists."""
        window = self.orders.window(
            [e for e in self.orders.matching(kind, None, None) if listed & set(e.object_ids)], span, bursts=False
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
        return prose_issue(self.lang, "ProseCount", sentence, said, fact, t=span.a)

    def span_count(
        self,
        *,
        sentence: str,
        said: str,
        n: int,
        kind: str,
        name: tuple[Mention, frozenset[str]] | None,
        span: Span,
        player: int | None,
        ids: list[Mention],
        at: int,
        orders_only: bool,
    ) -> ValidationIssue | None:
        """A count at a time or in a span: the orders of the verb (and type) the span takes in, by the player."""
        one_type = kind == "cancel" and name is None and span.exact and not orders_only
        if kind in TYPED_VERBS and name is None and not orders_only and not one_type:
            return None  # "three factories queue seven …": a count needs its type
        untyped = kind in ("pack", "unpack") and orders_only  # "packed his yard three times (2:50.80, 4:11.13)"
        if name is None and not untyped and (kind not in ("cancel", "sell") or not (span.exact or orders_only)):
            return None  # "三次施放" of no named power, "连取消 5 次" in a heading's period: not one order kind
        hashes = self.orders.hashes(name[1]) if name is not None and kind in TYPED_VERBS else None
        if kind in ("place", "start", "build") and span.point:
            return None  # structures are placed as they finish: no burst
        actor = next((int(i.value) for i in reversed(ids) if i.end <= at), None)
        players = [player] if player is not None else [p for p, _w in self.lexicon.players]
        accepted: set[int] = set()
        seen = 0
        facts: list[str] = []
        for p in players:
            for restrict in ((actor,) if actor is not None else ()) + (None,):
                window = self.orders.window(
                    [e for e in self.orders.matching(kind, p, hashes) if restrict is None or restrict in e.object_ids],
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
                    outer = self.orders.window(
                        [
                            e
                            for e in self.orders.matching(kind, p, hashes)
                            if restrict is None or restrict in e.object_ids
                        ],
                        Span(span.start, span.end, span.a - 1.0, span.b, False),
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
        return prose_issue(self.lang, "ProseCount", sentence, said, "; ".join(facts), t=span.a)

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

    def id_list_count(
        self, *, sentence: str, said: str, n: int, span: Span, clause: str, player: int | None
    ) -> ValidationIssue | None:
        """A count followed by a list of ids: the ids the order at that time names (acting, affected or its objects)."""
        listed = [int(x) for x in ID.findall(clause)]
        if not listed:
            return None
        first = listed[0]
        lines = [
            e
            for e in self.orders.events
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
        return prose_issue(self.lang, "ProseCount", sentence, said, fact, t=span.a)

    def total_count(
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
        """A count of a unit type with no time: bounded by what was ordered by ``end`` (equal for the whole match)."""
        if self.orders.kind_of(ids) != "unit" or any(self.orders.starts_with(i) for i in ids):
            return None  # one of a type says nothing checkable; start units are nobody's order
        names = {self.index.name_of(h) for h in self.orders.hashes(ids)}
        until = float("inf") if whole else end
        ordered = {p: sum(self.index.units_ordered(p, 0.0, until)[x] for x in names) for p, _w in self.lexicon.players}
        lines = {
            p: len([e for e in self.orders.matching("queue", p, self.orders.hashes(ids)) if e.seconds < until])
            for p in ordered
        }
        total = sum(ordered.values())
        mine = ordered.get(player, 0) if player is not None else 0
        named = player is not None and player in clause_who  # "Trebla queued two …": the subject's own orders
        wrong = n > total or (player is not None and 0 < mine < n and (total == mine or named))
        if whole and player is not None and mine and n not in (mine, lines[player]):
            wrong = True
        if not wrong:
            return None
        return prose_issue(self.lang, "ProseCount", sentence, said, self._count_fact(ids, ordered, until))

    def _count_fact(self, ids: frozenset[str], ordered: dict[int, int], end: float) -> str:
        names = "/".join(sorted({self.index.name_of(h) for h in self.orders.hashes(ids)}))
        until = format_time(end) if end != float("inf") else tr(self.lang, "the whole match")
        parts = ", ".join(f"{self.index.player_name(p)} {n}" for p, n in ordered.items())
        return tr(
            self.lang,
            "{names} ordered by {until} (a batch counting five): {parts}",
            names=names,
            until=until,
            parts=parts,
        )
