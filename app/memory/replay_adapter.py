"""Build a :class:`RunEpisodeInput` from a replay's fact index (or straight from a replay file).

Why: distillation must work for the offline analyst and for end-to-end tests over the corpus even when no
model ran, and the pipeline already holds a :class:`~app.facts.index.ReplayFactIndex` for the replay it analysed.
Reading command ids and argument positions here would duplicate (and, for Kane's Wrath / Tiberium Wars, get
wrong) what the fact index already knows, so the episode is built only from the index's public API:

* openings: ``build_order(player)`` (structures placed, Empire cores queued at a yard), the first
  :data:`OPENING_ITEMS`; a player with no build step falls back to its first structure productions
  (``first_productions(player, STRUCTURE)``: 0x207 starts);
* protocols: ``protocols_of(player)`` (0x24E), the first :data:`FIRST_ITEMS`;
* first units: ``first_productions(player, UNIT)`` (each unit type's first queue, in time order, with the
  game's own queue command), the first :data:`FIRST_ITEMS`;
* players: ``index.players`` that play; type names through ``index.name_of`` (``0x%08X`` when the name table
  lacks a hash, so the same hash still compares equal across replays).

``replay_hash`` is :func:`replay_hash_of` of the file's bytes (``sha256[:16]``): the memory's dedupe key, so
every caller must use the same convention.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from app.memory.model import ClaimInput, IssueInput, PlayerInput, RunEpisodeInput, TimedItem

if TYPE_CHECKING:
    from app.facts.index import ReplayFactIndex

OPENING_ITEMS = 6
FIRST_ITEMS = 4
TICKS_PER_SECOND = 15.0
"""Replay time codes per second (notes §2), as ``Command.seconds`` uses."""


def replay_hash_of(data: bytes) -> str:
    """The memory's id of a replay: the first 16 hex digits of the SHA-256 of the file's bytes."""
    return hashlib.sha256(data).hexdigest()[:16]


def _items(pairs: Iterable[tuple[str, int]], limit: int) -> tuple[TimedItem, ...]:
    out: list[TimedItem] = []
    for name, time_code in pairs:
        if len(out) >= limit:
            break
        out.append(TimedItem(name, round(time_code / TICKS_PER_SECOND, 1)))
    return tuple(out)


def episode_from_index(
    index: ReplayFactIndex,
    replay_hash: str,
    replay_path: str,
    *,
    model: str = "",
    analyst: str = "",
    analysis_id: int | None = None,
    claims: tuple[ClaimInput, ...] = (),
    issues: tuple[IssueInput, ...] = (),
    analysed_at: float | None = None,
) -> RunEpisodeInput:
    """Reduce a replay's fact index to an episode (players, openings, protocols, first unit productions).

    Args:
        index: The replay's fact index (``app.facts.build_fact_index``), e.g. the one the pipeline analysed.
        replay_hash: :func:`replay_hash_of` the replay file's bytes (``sha256[:16]``).
        replay_path: Where the replay was read from (the ``source_file`` of extracted facts).
        model: The model id that wrote the analysis ("" for the offline analyst).
        analyst: Who ran it.
        analysis_id: The analysis row, to tie back injections.
        claims: Validated claims of the analysis.
        issues: Validation issues of the analysis.
        analysed_at: When the analysis ran (Unix seconds; None means now).
    """
    from app.facts.model import ProductionKind

    header = index.replay.header
    playing = index.playing
    openings: dict[str, tuple[TimedItem, ...]] = {}
    protocols: dict[str, tuple[TimedItem, ...]] = {}
    units: dict[str, tuple[TimedItem, ...]] = {}
    for p in playing:
        steps = [(s.name or index.name_of(s.type_hash), s.time_code) for s in index.build_order(p.slot)]
        if not steps:
            steps = [
                (f.name or index.name_of(f.type_hash), f.time_code)
                for f in index.first_productions(p.slot, ProductionKind.STRUCTURE)
            ]
        opening = _items(steps, OPENING_ITEMS)
        if opening:
            openings[p.name] = opening
        picked = _items(
            ((pick.name or index.name_of(pick.science_hash), pick.time_code) for pick in index.protocols_of(p.slot)),
            FIRST_ITEMS,
        )
        if picked:
            protocols[p.name] = picked
        first = _items(
            (
                (f.name or index.name_of(f.type_hash), f.time_code)
                for f in index.first_productions(p.slot, ProductionKind.UNIT)
            ),
            FIRST_ITEMS,
        )
        if first:
            units[p.name] = first
    players = tuple(PlayerInput(name=p.name, faction=p.faction, team=p.team, human=p.kind == "human") for p in playing)
    return RunEpisodeInput(
        replay_hash=replay_hash,
        replay_path=replay_path,
        map_name=header.map_name or header.map_path,
        mod=header.mod_name,
        mod_version=header.mod_version,
        players=players,
        openings=openings,
        protocols=protocols,
        first_productions=units,
        claims=claims,
        issues=issues,
        model=model,
        played_at=float(header.timestamp),
        analysed_at=analysed_at,
        analysis_id=analysis_id,
        analyst=analyst,
    )


def episode_from_replay(
    path: str | Path,
    *,
    model: str = "",
    analyst: str = "",
    analysis_id: int | None = None,
    claims: tuple[ClaimInput, ...] = (),
    issues: tuple[IssueInput, ...] = (),
    analysed_at: float | None = None,
) -> RunEpisodeInput:
    """Read a replay once, index it and reduce it to an episode (see :func:`episode_from_index`).

    Raises:
        ReplayFormatError: when the file is not a readable replay (a KnownError naming the problem).
    """
    from app.facts.index import build_fact_index
    from app.replay.reader import parse_replay, read_replay_bytes

    p = Path(path)
    data = read_replay_bytes(p)
    index = build_fact_index(parse_replay(data, str(p)))
    return episode_from_index(
        index,
        replay_hash_of(data),
        str(p),
        model=model,
        analyst=analyst,
        analysis_id=analysis_id,
        claims=claims,
        issues=issues,
        analysed_at=analysed_at,
    )
