"""Shared helpers of the memory tests: a settable clock, a store on a real database, episode builders."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from app.memory import MemoryStore, Outcome, PlayerInput, RunEpisodeInput, TimedItem
from app.store import open_database


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, when: str = "2026-03-10T00:00:00") -> None:
        self.now = ts(when)

    def set(self, when: str) -> None:
        self.now = ts(when)

    def __call__(self) -> float:
        return self.now


def ts(when: str) -> float:
    return datetime.fromisoformat(when).replace(tzinfo=UTC).timestamp()


def make_store(where: Path | str, clock: Clock) -> MemoryStore:
    """A store in a folder (a SQLite file inside it) or at a ``store_url`` (SQLite file or PostgreSQL URL)."""
    return MemoryStore(open_database(where / "memory.sqlite3" if isinstance(where, Path) else where), clock=clock)


def run_ep(
    replay: str,
    player: str,
    opening: tuple[str, ...],
    *,
    map_name: str = "Infinity Isle",
    opponent: str = "rival",
    opp_faction: str = "Soviets",
    played: str = "2026-01-01T00:00:00",
    faction: str = "Allies",
) -> RunEpisodeInput:
    """A one-player-of-interest run episode with a given opening."""
    return RunEpisodeInput(
        replay_hash=replay,
        replay_path=f"/replays/{replay}.RA3Replay",
        map_name=map_name,
        mod="RA3",
        players=(PlayerInput(player, faction), PlayerInput(opponent, opp_faction)),
        openings={player: tuple(TimedItem(n, 5.0 * (i + 1)) for i, n in enumerate(opening))},
        played_at=ts(played),
    )


def analyse(store: MemoryStore, ep: RunEpisodeInput) -> list[Outcome]:
    """Record a run and run the batch (behavioural habits are committed by the batch track)."""
    res = store.record_run(ep)
    return [*res.outcomes, *store.run_batch().outcomes]
