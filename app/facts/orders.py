"""Production and structure orders with their cancels matched to them (RA3 0x206 / 0x208), for the fact index.

Split out of :mod:`app.facts.index`, which feeds it every production, structure and cancel order in command order
(``ReplayFactIndex._note_order``) and reads the first productions and cancelled commands from it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from app.facts.model import TICKS_PER_SECOND, FactEvent, ProductionKind
from app.facts.roles import BATCH_SIZE
from app.replay.model import ArgKind, Command

CANCEL_WINDOW_SECONDS = 10.0
"""How far back a 0x206 "hold/cancel unit" is taken to reach [inferred]: a unit ordered less than this before cannot
have left the factory yet, so the cancel surely took it back; an older order may already have been produced (the
cancel then hit a later one in the queue, or nothing), so it is never marked cancelled."""


def cancel_count(cmd: Command) -> int:
    """Orders one RA3 0x206 takes back: its bool (argument 2, as in 0x205) is the shift-click of five."""
    return BATCH_SIZE if len(cmd.args) > 2 and cmd.kinds[2] is ArgKind.BOOL and cmd.args[2] else 1


@dataclass(slots=True)
class Order:
    """One production or structure order (a shift-click stands for five) and how many of it still stand."""

    player: int
    kind: ProductionKind
    type_hash: int
    time_code: int
    source: int
    command_index: int
    left: int  # orders of this command still standing (a shift-click stands for five)


@dataclass(slots=True)
class OrderBook:
    """Production and structure orders with their cancels (0x206 / 0x208) matched to them.

    A cancel takes back the latest standing order of the same player, factory (or constructor) and type: a unit
    order only while it can still be in the queue (:data:`CANCEL_WINDOW_SECONDS`), a started structure until it is
    placed (0x209 uses up the oldest start). The first click on the item in production only holds it; a held
    structure that is placed later was therefore not cancelled, and its start is restored [inferred from the corpus,
    e.g. the Corona replay's War Factory started at 2:27.07, held and cancelled at 2:28.20/2:28.40, started again
    at 2:43.80 and placed at 2:44.87]. A held unit that resumes shows as a new order.
    """

    all: list[Order] = field(default_factory=list)
    cancelled: set[int] = field(default_factory=set)
    _standing: dict[tuple[int, int, int], list[Order]] = field(default_factory=lambda: defaultdict(list))
    _taken_back: dict[tuple[int, int, int], list[Order]] = field(default_factory=lambda: defaultdict(list))

    @staticmethod
    def _key(ev: FactEvent) -> tuple[int, int, int]:
        return (ev.player, ev.object_ids[0], ev.type_hash or 0)

    def start(self, ev: FactEvent, kind: ProductionKind, count: int) -> None:
        """A unit queued or a structure started (``count`` orders: a shift-click queues five)."""
        order = Order(ev.player, kind, ev.type_hash or 0, ev.time_code, ev.object_ids[0], ev.command_index, count)
        self.all.append(order)
        self._standing[self._key(ev)].append(order)

    def place(self, ev: FactEvent) -> None:
        """A structure placed: it uses up the oldest standing start of its type (or restores a held one)."""
        key = self._key(ev)
        standing = self._standing[key]
        if standing:
            standing.pop(0)
        elif self._taken_back[key]:  # the start was only held: it is built after all
            self.cancelled.discard(self._taken_back[key].pop().command_index)
        else:  # placed without a start order of its own: the placement is the order
            self.all.append(
                Order(
                    ev.player,
                    ProductionKind.STRUCTURE,
                    ev.type_hash or 0,
                    ev.time_code,
                    ev.object_ids[0],
                    ev.command_index,
                    0,
                )
            )

    def cancel(self, ev: FactEvent, count: int, *, unit: bool) -> None:
        """Take back up to ``count`` standing orders (``unit``: a 0x206 role, limited to the cancel window)."""
        key = self._key(ev)
        standing = self._standing[key]
        for _ in range(count):
            if not standing:
                return
            order = standing[-1]
            if unit and ev.time_code - order.time_code > CANCEL_WINDOW_SECONDS * TICKS_PER_SECOND:
                return
            order.left -= 1
            if order.left <= 0:
                standing.pop()
                self.cancelled.add(order.command_index)
                self._taken_back[key].append(order)
