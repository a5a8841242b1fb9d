"""What the library and the replay card show about a replay, computed off the GUI thread.

:func:`load_info` parses a file (run it through ``asyncio.to_thread``); the dataclasses are plain values the
widgets read without touching the parser.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from app.i18n import Lang
from app.knowledge.faction_names import faction_display
from app.replay.files import REPLAY_SUFFIX_NAMES, is_replay_name
from app.replay.files import REPLAY_SUFFIXES as _SUFFIXES

if TYPE_CHECKING:
    from app.library import HeaderSummary

REPLAY_SUFFIXES = _SUFFIXES
"""The app's one list of replay suffixes (:data:`app.replay.files.REPLAY_SUFFIXES`), ``.kwr`` included."""

PLAYER_COLORS = ("#2f6fde", "#e8c31c", "#2faa3c", "#f07f1a", "#8e44ad", "#d62b2b", "#1ec8d8")
"""RA3 header colour indices 0–6: blue, yellow, green, orange, purple, red, cyan (format notes §slots)."""
RANDOM_COLOR = "#9e9e9e"
FACTION_COLORS = {
    "Allies": "#3a7bd5",
    "Soviets": "#c0392b",
    "Empire": "#e6a817",
    "Celestial": "#16a085",
    "GDI": "#c9a227",
    "Nod": "#b03a2e",
    "Scrin": "#7d3c98",
    "Random": "#9e9e9e",
}
TEAM_COLORS = ("#455a64", "#1565c0", "#c62828", "#2e7d32", "#6a1b9a", "#ef6c00")
"""Team badge colours: index 0 = no team (-1), then teams 1…"""


@dataclass(frozen=True, slots=True)
class PlayerInfo:
    """One player (or observer) as shown on the card."""

    name: str
    faction: str
    team: int
    color: str
    apm: float = 0.0
    cpm: float = 0.0  # all commands per minute (KWReplayAutoSaver's APM); ``apm`` leaves automatic messages out
    observer: bool = False
    apm_buckets: tuple[float, ...] = ()
    bucket_seconds: int = 60
    faction_resolved: bool = False


@dataclass(frozen=True, slots=True)
class ReplayInfo:
    """A parsed replay's summary; ``error`` is set (and the rest empty) when the file could not be read."""

    path: Path
    map_name: str = ""
    mod: str = ""
    game: str = ""
    date: datetime | None = None
    duration: float = 0.0
    players: tuple[PlayerInfo, ...] = field(default_factory=tuple)
    truncated: bool = False
    error: str = ""

    @property
    def players_text(self) -> str:
        """``Name (Faction), …`` of the players (observers left out), factions as the header spells them."""
        return self.players_text_in(Lang.EN)

    def players_text_in(self, lang: Lang) -> str:
        """``Name (Faction), …`` with the factions named in ``lang`` (``Alice (盟军)`` in Chinese)."""
        return ", ".join(f"{p.name} ({faction_display(p.faction, lang)})" for p in self.players if not p.observer)


def is_replay(path: Path) -> bool:
    """True for RA3 / Kane's Wrath / Tiberium Wars replay file names (``.kwr`` too)."""
    return is_replay_name(path.name)


def replay_name_filter() -> str:
    """The file dialog's pattern list of replay names: ``*.RA3Replay *.KWReplay *.CNC3Replay *.kwr``."""
    return " ".join(f"*{s}" for s in REPLAY_SUFFIX_NAMES)


def player_colors(slot_colors: list[int]) -> Callable[[int], str]:
    """The colour of each listed player given every slot's colour index, in slot order.

    A Random colour is assigned by the game at start and not recorded: each such player gets a palette colour
    nobody else in the game uses, so every curve stays distinguishable.
    """
    used = set(slot_colors)
    free = iter([c for i, c in enumerate(PLAYER_COLORS) if i not in used])
    return lambda index: PLAYER_COLORS[index] if 0 <= index < len(PLAYER_COLORS) else next(free, RANDOM_COLOR)


def info_from_summary(h: HeaderSummary) -> ReplayInfo:
    """A library row from the cached header summary (no APM: the card reads the whole file when opened)."""
    if h.error:
        return ReplayInfo(path=Path(h.path), error=h.error)
    colors = player_colors([p.color for p in h.players])
    players = tuple(PlayerInfo(p.name, p.faction, p.team, colors(p.color), observer=p.observer) for p in h.players)
    return ReplayInfo(
        path=Path(h.path),
        map_name=h.map_name,
        mod=h.mod,
        game=h.game,
        date=h.played_utc,
        duration=h.duration,
        players=players,
        truncated=h.truncated,
    )


def load_info(path: Path, *, stats: bool = True) -> ReplayInfo:
    """Parse ``path`` and summarise it (blocking: call from a worker thread).

    Args:
        path: the replay file.
        stats: compute per-player APM (the card needs it; the library only needs the header).
    """
    from app.errors import KnownError
    from app.knowledge.names import ensure_registered
    from app.replay import read_replay
    from app.replay.model import SlotKind

    ensure_registered()  # unit names in the stats come from the knowledge
    try:
        replay = read_replay(path)
    except KnownError as exc:
        return ReplayInfo(path=path, error=str(exc))
    except OSError as exc:
        return ReplayInfo(path=path, error=f"{path}: {exc.strerror or exc}")
    header = replay.header
    players: list[PlayerInfo] = []
    by_slot: dict[int, object] = {}
    if stats:
        from app.replay.stats import player_stats

        by_slot = {st.slot.index: st for st in player_stats(replay)}
    colors = player_colors([s.color for s in header.slots])
    placeholder = header.post_commentator_slot  # ``PC=``: a slot that never acts, not a person
    for slot in header.slots:
        if slot.kind in (SlotKind.CLOSED, SlotKind.OPEN) or slot.index == placeholder:
            continue
        st = by_slot.get(slot.index)
        faction = getattr(st, "faction", "") or slot.faction or "?"
        color = colors(slot.color)
        players.append(
            PlayerInfo(
                name=slot.display_name,
                faction=faction,
                team=slot.team,
                color=color,
                apm=float(getattr(st, "apm", 0.0)),
                cpm=float(getattr(st, "cpm", 0.0)),
                observer=not slot.is_player,
                apm_buckets=tuple(getattr(st, "apm_buckets", ())),
                bucket_seconds=int(getattr(st, "bucket_seconds", 60)),
                faction_resolved=bool(getattr(st, "faction_resolved", False)),
            )
        )
    try:
        date: datetime | None = header.utc_time
    except (ValueError, OverflowError, OSError):
        date = None
    return ReplayInfo(
        path=path,
        map_name=header.map_name,
        mod=header.mod_name,
        game=str(replay.game.value),
        date=date,
        duration=replay.duration_seconds,
        players=tuple(players),
        truncated=replay.truncated,
    )
