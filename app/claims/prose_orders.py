"""Which orders of the replay a phrase means (issue 28 §2).

A verb means orders of some command roles (:data:`ROLE_SETS`), a type its hashes and those of its variants, a time or
a span the orders it takes in: all those inside a span of two times, at one time the burst of clicks that starts there
(orders less than :data:`BURST_GAP_SECONDS` apart). Only a player's own orders count, never the automatic ones.
"""

from __future__ import annotations

from app.claims.prose_phrases import Span
from app.claims.roles import POWER_COMMANDS
from app.facts import ReplayFactIndex
from app.facts.model import FactEvent
from app.facts.roles import role_of
from app.knowledge.model import Entry
from app.replay.commands import (  # RA3 ids (app.facts.roles maps KW/TW's onto them)
    CANCEL_STRUCTURE,
    CANCEL_UNIT,
    CANCEL_UPGRADE,
    GARRISON,
    PLACE_STRUCTURE,
    QUEUE_UNIT,
    SELECT_PROTOCOL,
    SELL,
    START_REPAIR,
    START_STRUCTURE,
    START_UPGRADE,
)

TIME_TOLERANCE_SECONDS = 3.0
"""A time written ``m:ss`` in prose may be 2 s off its line (the claims rule) plus the second it was rounded to."""
EXACT_TIME_TOLERANCE_SECONDS = 1.0
"""A time written with hundredths (``m:ss.cc``) is copied from a log line, which prints each order at its frame:
a copy is exact; one second covers a neighbouring line of the same burst."""
BURST_GAP_SECONDS = 1.0
"""Clicks of one burst (a player queueing or cancelling several of a type) are frames apart; a longer pause ends it."""
BATCH = 5
"""Units a shift-click queue order asks for (RA3, Kane's Wrath and Tiberium Wars alike)."""

ROLE_SETS: dict[str, frozenset[int]] = {
    "cancel": frozenset({CANCEL_UNIT, CANCEL_STRUCTURE, CANCEL_UPGRADE}),
    "queue": frozenset({QUEUE_UNIT}),
    "place": frozenset({PLACE_STRUCTURE}),
    "start": frozenset({START_STRUCTURE}),
    "build": frozenset({START_STRUCTURE, PLACE_STRUCTURE, QUEUE_UNIT}),
    "sell": frozenset({SELL}),
    "repair": frozenset({START_REPAIR}),
    "unpack": POWER_COMMANDS,
    "pack": POWER_COMMANDS,
    "transform": POWER_COMMANDS,
    "power": POWER_COMMANDS,
    "protocol": frozenset({SELECT_PROTOCOL}),
    "upgrade": frozenset({START_UPGRADE}),
    "enter": frozenset({GARRISON}),
    "capture": frozenset({GARRISON}),  # an engineer's capture is its order to enter the building (RA3's 0x210)
    "other": frozenset(),
}
POWER_WORDS = {"unpack": ("unpack",), "pack": ("pack",), "transform": ("transform",)}
"""Powers a verb means, by a word of their internal name (pack excludes unpack: see :func:`_power_matches`)."""
TYPED_VERBS = frozenset({"cancel", "queue", "place", "start", "build", "power", "protocol", "upgrade"})
"""Verbs whose orders carry a type (sell, repair, pack and the like name an object, not a type)."""


class ProseOrders:
    """The orders of one replay by verb, player and type, and the orders a time or span of the text takes in."""

    def __init__(self, index: ReplayFactIndex, entries: dict[str, Entry]) -> None:
        self.index = index
        self.entries = entries
        self.events = [e for e in index.events if not e.automatic]
        game = index.replay.game
        self.roles = {e.command_index: role_of(game, e.command_id)[0] for e in self.events}

    def kind_of(self, ids: frozenset[str]) -> str:
        """The one kind (``unit``, ``structure``, ``upgrade``, ``power``…) the ids share, else ``""``."""
        kinds = {self.entries[i].kind if i in self.entries else _kind_of_name(i) for i in ids}
        kinds.discard("")
        return kinds.pop() if len(kinds) == 1 else ""

    def hashes(self, ids: frozenset[str]) -> set[int]:
        """The hashes of the types and of their variants the replay names (``…_Ground``: an amphibious unit on land)."""
        out = {self.index.hash_of(i) for i in ids} | {self.entries[i].hash for i in ids if i in self.entries}
        prefixes = tuple(f"{i.lower()}_" for i in ids)
        out |= {h for h, n in self.index.names.items() if n.lower().startswith(prefixes)}
        return {h for h in out if h is not None}

    def matching(self, kind: str, player: int | None, hashes: set[int] | None) -> list[FactEvent]:
        """The orders a verb of ``kind`` means, by ``player`` (None: anyone) of the types ``hashes`` (None: any)."""
        roles = ROLE_SETS[kind]
        words = POWER_WORDS.get(kind)
        out = []
        for e in self.events:
            if self.roles[e.command_index] not in roles or (player is not None and e.player != player):
                continue
            if hashes is not None and e.type_hash not in hashes:
                continue
            if words is not None and not _power_matches(self.index.name_of(e.type_hash or 0), kind):
                continue
            out.append(e)
        return out

    def window(self, orders: list[FactEvent], span: Span, bursts: bool) -> list[FactEvent]:
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

    def starts_with(self, entry_id: str) -> bool:
        """True for a type a player starts with (an MCV or a yard): nobody's order."""
        e = self.entries.get(entry_id)
        if e is None or e.has_tag("core"):  # an Empire core is MCV-class but always ordered
            return False
        return any(e.has_tag(t) for t in ("mcv", "mcv_class", "construction_yard"))


def _kind_of_name(name: str) -> str:
    """The kind an internal name the knowledge lacks says of itself (``…Upgrade…``, ``SpecialPower…``)."""
    low = name.lower()
    return "upgrade" if "upgrade" in low else "power" if low.startswith("specialpower") else ""


def _power_matches(name: str, kind: str) -> bool:
    low = name.lower()
    if kind == "pack":
        return "pack" in low and "unpack" not in low
    return any(w in low for w in POWER_WORDS.get(kind, ()))
