"""Build a :class:`RunEpisodeInput` straight from a replay file, without the analysis pipeline.

Why: distillation must work for the offline analyst and for end-to-end tests over the corpus even when no
model ran. It scans only the commands the memory needs (notes §4.3): 0x209 place structure (0x207 start
structure when a player never places, e.g. Empire cores), 0x205 queue unit, 0x24E select protocol. Type hashes
are named through ``app.knowledge.names.hash_names(mod)`` when that table knows them, else shown as
``0x%08X`` so the same hash still compares equal across replays.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from pathlib import Path

from app.memory.model import ClaimInput, IssueInput, PlayerInput, RunEpisodeInput, TimedItem

PLACE, START, QUEUE_UNIT, PROTOCOL = 0x209, 0x207, 0x205, 0x24E
OPENING_ITEMS = 6
FIRST_ITEMS = 4


def _namer(mod: str) -> Callable[[int], str]:
    names: Mapping[int, str] = {}
    try:
        from app.knowledge.names import hash_names

        names = hash_names(mod)
    except ImportError:  # the knowledge package is optional for the memory
        names = {}

    def name(h: int) -> str:
        return names.get(h) or f"0x{h:08X}"

    return name


def _hash_arg(args: tuple[object, ...], index: int) -> int | None:
    if len(args) > index:
        v = args[index]
        if isinstance(v, int):
            return v
    return None


def episode_from_replay(path: str | Path, *, model: str = "", analyst: str = "", analysis_id: int | None = None,
                        claims: tuple[ClaimInput, ...] = (), issues: tuple[IssueInput, ...] = (),
                        analysed_at: float | None = None) -> RunEpisodeInput:
    """Read a replay and reduce it to an episode (players, openings, protocols, first productions).

    Raises:
        ReplayFormatError: when the file is not a readable replay (a KnownError naming the problem).
    """
    from app.replay import read_replay

    p = Path(path)
    replay = read_replay(p)
    header = replay.header
    digest = hashlib.sha256(p.read_bytes()).hexdigest()[:16]
    name = _namer(header.mod_name)
    slots = {s.index: s for s in header.slots if s.is_player}
    placed: dict[int, list[TimedItem]] = {}
    started: dict[int, list[TimedItem]] = {}
    units: dict[int, list[TimedItem]] = {}
    protocols: dict[int, list[TimedItem]] = {}
    for cmd in replay.commands:
        if cmd.player not in slots:
            continue
        cid = cmd.command_id
        if cid == PLACE:
            target, h, limit = placed, _hash_arg(cmd.args, 1), OPENING_ITEMS
        elif cid == START:
            target, h, limit = started, _hash_arg(cmd.args, 1), OPENING_ITEMS
        elif cid == QUEUE_UNIT:
            target, h, limit = units, _hash_arg(cmd.args, 1), FIRST_ITEMS
        elif cid == PROTOCOL:
            target, h, limit = protocols, _hash_arg(cmd.args, 0), FIRST_ITEMS
        else:
            continue
        items = target.setdefault(cmd.player, [])
        if h is not None and len(items) < limit:
            items.append(TimedItem(name(h), round(cmd.seconds, 1)))
    players = tuple(PlayerInput(name=s.name if s.name else s.display_name, faction=s.faction, team=s.team,
                                human=s.kind.value == "human") for s in slots.values())
    by_name = {idx: (s.name if s.name else s.display_name) for idx, s in slots.items()}
    openings = {by_name[i]: tuple(placed.get(i) or started.get(i) or ()) for i in slots}
    return RunEpisodeInput(
        replay_hash=digest, replay_path=str(p), map_name=header.map_name or header.map_path, mod=header.mod_name,
        mod_version=header.mod_version, players=players,
        openings={k: v for k, v in openings.items() if v},
        protocols={by_name[i]: tuple(v) for i, v in protocols.items()},
        first_productions={by_name[i]: tuple(v) for i, v in units.items()},
        claims=claims, issues=issues, model=model, played_at=float(header.timestamp), analysed_at=analysed_at,
        analysis_id=analysis_id, analyst=analyst,
    )
