"""What every part of :class:`app.facts.index.ReplayFactIndex` holds, and its name and player lookups."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import TYPE_CHECKING

from app.facts.model import (
    BuildStep,
    EventList,
    Evidence,
    FactEvent,
    FirstProduction,
    GroupState,
    OwnerChange,
    PackChain,
    PlayerInfo,
    ProductionKind,
    ProtocolPick,
)
from app.facts.roles import Departure
from app.replay.commands import (  # RA3 command ids with a meaning for the index (notes §4.3)
    DESELECT,
    Q_SELECT,
    Category,
)
from app.replay.model import Replay

if TYPE_CHECKING:
    from app.knowledge.model import Knowledge


_ORDER_CATEGORIES = frozenset(
    {Category.ORDER_MOVE, Category.ORDER_ATTACK, Category.ORDER_OTHER, Category.GARRISON, Category.HARVEST}
)


def _hex(value: int) -> str:
    return f"0x{value & 0xFFFFFFFF:08X}"


def _selection_after(ev: FactEvent, role: int) -> tuple[int, ...] | None:
    """The selection a selection/group event leaves (None = unknown, e.g. after a Q-select)."""
    if role == Q_SELECT:
        return None
    if role == DESELECT:
        return ()
    if role == 0x1FD:  # team-related, meaning unknown: look further back
        return None
    return ev.affected_ids


class IndexData:
    """The tables of one replay's facts (filled by :meth:`app.facts.index.ReplayFactIndex.build`), names, players."""

    def __init__(
        self,
        replay: Replay,
        names: Mapping[int, str],
        players: tuple[PlayerInfo, ...],
        events: EventList,
    ) -> None:
        self.replay = replay
        self.names = names
        self.players = players
        self.events = events
        self._times = events.time_codes  # in order: the time queries bisect it
        self._evidence: dict[int, list[Evidence]] = defaultdict(list)
        self._seen: dict[int, int] = {}
        self._group_history: dict[tuple[int, int], list[GroupState]] = defaultdict(list)
        self._protocols: list[ProtocolPick] = []
        self._first: dict[tuple[int, ProductionKind, int], FirstProduction] = {}
        self._build_steps: list[BuildStep] = []
        self._constructors: dict[int, list[int]] = defaultdict(list)
        self._factories: dict[int, list[tuple[int, int, int]]] = defaultdict(list)  # (factory, hash, command index)
        self._cancelled: frozenset[int] = frozenset()
        self._batches: dict[int, int] = {}  # command index -> units of a shift-click queue order
        self._queue_orders: list[tuple[int, int, int, int]] = []  # (player, time code, type hash, units)
        self._all_changes: tuple[OwnerChange, ...] | None = None
        self._chains: list[PackChain] = []
        self._deploys: list[PackChain] = []
        self.knowledge: Knowledge | None = None
        self._departures: list[Departure] = []
        self._by_object: dict[int, list[FactEvent]] | None = None
        self._created_by: tuple[list[int], list[int]] | None = None
        self.duration_seconds = replay.duration_seconds

    # ------------------------------------------------------------------ names and players

    def name_of(self, type_hash: int) -> str:
        """Internal name of a hash, or ``0x…`` when the name table lacks it."""
        return self.names.get(type_hash) or _hex(type_hash)

    def hash_of(self, name: str) -> int | None:
        """Hash of a type name (case-insensitive), or the value of a ``0x…`` text; None when unknown."""
        text = name.strip()
        if text.lower().startswith("0x"):
            try:
                return int(text, 16)
            except ValueError:
                return None
        for h, n in self.names.items():  # KW/TW knowledge names hashes directly (no internal SAGE name)
            if n.lower() == text.lower():
                return h
        from app.replay.asset_hash import asset_hash

        return asset_hash(text)

    def player_name(self, slot: int) -> str:
        """The label of a slot as prompts and messages show it (``P<n>`` when out of range); see ``PlayerInfo``."""
        if 0 <= slot < len(self.players):
            return self.players[slot].label
        return f"P{slot}"

    @property
    def playing(self) -> tuple[PlayerInfo, ...]:
        """Slots that play (humans and AIs), in slot order."""
        return tuple(p for p in self.players if p.is_player)

    def player_slot(self, name_or_slot: str | int) -> int | None:
        """Resolve a player given by slot number or (case-insensitive) name."""
        if isinstance(name_or_slot, int):
            return name_or_slot if 0 <= name_or_slot < len(self.players) else None
        text = name_or_slot.strip().lower()
        for p in self.players:
            if text in (p.name.lower(), p.label.lower()):
                return p.slot
        if text.isdigit():
            return self.player_slot(int(text))
        return None
