"""One replay reduced to what a player profile needs: per playing slot its lineup, opening and timings.

Everything comes from the replay's fact index (:mod:`app.facts`) and the bundled knowledge's tags, so the
profile of a player states nothing the facts do not show:

* opening: the first :data:`OPENING_STRUCTURES` structures of ``build_order`` (structures placed, Empire cores
  queued at a yard; the first structure orders when a player placed none; wall segments left out) and the first
  :data:`OPENING_UNITS` unit types of ``first_productions(UNIT)``;
* faction: the faction played (a Random slot's resolved faction where the facts resolve it);
* ``first_refinery``: the first kept order of a structure tagged ``economy`` whose internal name is a
  ``…Refinery`` (all three games name it so; silos and Tiberium towers share the tag and are left out);
* ``second_harvester``: when the player's queued harvester-tagged units reach two (a shift-click queues five);
  harvesters that come free with a refinery are not in the command stream and do not count;
* ``first_tier2``: the first kept order of a structure tagged ``tech`` or ``tier2`` (KW/TW tech structures,
  RA3 tech structures) or the first ``tech_level`` upgrade (RA3's tier upgrades), whichever is earlier;
* ``first_power``: the first protocol pick (RA3) or use of a power tagged ``player_power``, whichever is earlier;
* ``apm``: actions per minute of :func:`app.replay.stats.player_stats` (heartbeats excluded);
* ``left_first``: the player of the first "player left" message, where the replay has one.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.facts.index import ReplayFactIndex
    from app.facts.model import PlayerInfo
    from app.knowledge.model import Knowledge

OPENING_STRUCTURES = 4
OPENING_UNITS = 3
TIMINGS: tuple[str, ...] = ("first_refinery", "second_harvester", "first_tier2", "first_power")
"""The timing benchmarks, in the order the profile shows them (seconds of game time; None: never in this game)."""
GAMES_VERSION = 1
"""Bumped whenever what :func:`games_of_replay` derives changes (cached rows of older versions are recomputed)."""


@dataclass(frozen=True, slots=True)
class PlayerGame:
    """One player's side of one replay."""

    replay_path: str
    replay_sha256: str
    played_at: float
    map_name: str
    mod: str
    duration: float
    name: str
    faction: str
    team: int
    opponents: tuple[tuple[str, str], ...]
    allies: tuple[tuple[str, str], ...]
    left_first: str
    opening: tuple[str, ...]
    first_units: tuple[str, ...]
    timings: dict[str, float | None] = field(default_factory=dict)
    apm: float = 0.0

    @property
    def matchup(self) -> str:
        """``Faction vs OpponentFaction[,…]`` (opponents sorted), the grouping key of openings."""
        return f"{self.faction} vs {','.join(sorted(f for _, f in self.opponents)) or '-'}"

    def to_json(self) -> dict[str, Any]:
        """JSON form (stable keys; tuples become lists)."""
        d = asdict(self)
        d["opponents"] = [list(o) for o in self.opponents]
        d["allies"] = [list(a) for a in self.allies]
        d["opening"] = list(self.opening)
        d["first_units"] = list(self.first_units)
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> PlayerGame:
        """The inverse of :meth:`to_json`."""
        return cls(
            replay_path=str(d["replay_path"]),
            replay_sha256=str(d["replay_sha256"]),
            played_at=float(d["played_at"]),
            map_name=str(d["map_name"]),
            mod=str(d["mod"]),
            duration=float(d["duration"]),
            name=str(d["name"]),
            faction=str(d["faction"]),
            team=int(d["team"]),
            opponents=tuple((str(n), str(f)) for n, f in d["opponents"]),
            allies=tuple((str(n), str(f)) for n, f in d["allies"]),
            left_first=str(d["left_first"]),
            opening=tuple(str(x) for x in d["opening"]),
            first_units=tuple(str(x) for x in d["first_units"]),
            timings={str(k): (None if v is None else float(v)) for k, v in dict(d["timings"]).items()},
            apm=float(d["apm"]),
        )


def games_of_replay(path: str | Path, sha256: str = "") -> list[PlayerGame]:
    """Every playing slot's :class:`PlayerGame` of one replay file (observers and empty slots left out).

    Raises:
        ReplayFormatError: when the file is not a readable replay (a KnownError naming the problem).
    """
    from app.facts.index import build_fact_index
    from app.pipeline.prepare import file_sha256
    from app.replay.reader import gc_paused, parse_replay, read_replay_bytes
    from app.replay.stats import player_stats

    p = Path(path)
    with gc_paused():  # no full collection holding the GIL in the middle (the Players view's worker thread)
        replay = parse_replay(read_replay_bytes(p), str(p))
        index = build_fact_index(replay)
        apm = {st.slot.index: st.apm for st in player_stats(replay)}
        return games_of_index(index, str(p), sha256 or file_sha256(p), apm)


def games_of_index(index: ReplayFactIndex, path: str, sha256: str, apm: dict[int, float]) -> list[PlayerGame]:
    """The per-player reduction of an already built fact index (see the module docstring for each value)."""
    header = index.replay.header
    playing = index.playing
    left = index.departures[0].player if index.departures else None
    left_name = next((p.name for p in playing if p.slot == left), "")
    out: list[PlayerGame] = []
    for p in playing:
        opponents = tuple(
            (o.name, _faction(o)) for o in playing if o.slot != p.slot and (p.team < 0 or o.team != p.team)
        )
        allies = tuple((o.name, _faction(o)) for o in playing if o.slot != p.slot and p.team >= 0 and o.team == p.team)
        out.append(
            PlayerGame(
                replay_path=path,
                replay_sha256=sha256,
                played_at=float(header.timestamp),
                map_name=header.map_name or header.map_path,
                mod=header.mod_name,
                duration=round(index.duration_seconds, 1),
                name=p.name,
                faction=_faction(p),
                team=p.team,
                opponents=opponents,
                allies=allies,
                left_first=left_name,
                opening=_opening(index, p.slot),
                first_units=_first_units(index, p.slot),
                timings=_timings(index, p.slot),
                apm=float(apm.get(p.slot, 0.0)),
            )
        )
    return out


def _faction(p: PlayerInfo) -> str:
    """The faction played: a Random slot's resolved faction when the facts tell it."""
    return p.played_faction or p.faction


def _opening(index: ReplayFactIndex, slot: int) -> tuple[str, ...]:
    from app.facts.model import ProductionKind

    k = index.knowledge
    steps = [(s.type_hash, s.name or index.name_of(s.type_hash)) for s in index.build_order(slot)]
    if not steps:
        steps = [
            (f.type_hash, f.name or index.name_of(f.type_hash))
            for f in index.first_productions(slot, ProductionKind.STRUCTURE)
        ]
    # wall segments are placed by the dozen and say nothing about a plan
    return tuple(name for h, name in steps if not _has_any_tag(k, h, ("wall",)))[:OPENING_STRUCTURES]


def _first_units(index: ReplayFactIndex, slot: int) -> tuple[str, ...]:
    from app.facts.model import ProductionKind

    firsts = index.first_productions(slot, ProductionKind.UNIT)
    return tuple(f.name or index.name_of(f.type_hash) for f in firsts[:OPENING_UNITS])


def _seconds(time_code: int | None) -> float | None:
    from app.facts.model import TICKS_PER_SECOND

    return None if time_code is None else round(time_code / TICKS_PER_SECOND, 1)


def _earliest(*codes: int | None) -> int | None:
    known = [c for c in codes if c is not None]
    return min(known) if known else None


def _timings(index: ReplayFactIndex, slot: int) -> dict[str, float | None]:
    from app.facts.index import command_queue_id
    from app.facts.model import ProductionKind

    k = index.knowledge
    refinery: int | None = None
    tier2_structure: int | None = None
    for f in index.first_productions(slot, ProductionKind.STRUCTURE):
        if refinery is None and _is_refinery(k, f.type_hash, f.name):
            refinery = f.time_code
        if tier2_structure is None and _has_any_tag(k, f.type_hash, ("tech", "tier2")):
            tier2_structure = f.time_code
    queue_id = command_queue_id(index.replay.game)
    harvesters = 0
    second_harvester: int | None = None
    tier2_upgrade: int | None = None
    power: int | None = None
    for ev in index.events:
        if ev.player != slot or ev.automatic or ev.type_hash is None:
            continue
        if (
            second_harvester is None
            and ev.command_id == queue_id
            and _has_any_tag(k, ev.type_hash, ("harvester",))
            and not index.is_cancelled(ev.command_index)
        ):
            harvesters += index.batch(ev.command_index)
            if harvesters >= 2:
                second_harvester = ev.time_code
        if (
            tier2_upgrade is None
            and _is_kind(k, ev.type_hash, "upgrade")
            and _has_any_tag(k, ev.type_hash, ("tech_level",))
        ):
            tier2_upgrade = ev.time_code
        if power is None and _is_kind(k, ev.type_hash, "power") and _has_any_tag(k, ev.type_hash, ("player_power",)):
            power = ev.time_code
    protocols = index.protocols_of(slot)
    return {
        "first_refinery": _seconds(refinery),
        "second_harvester": _seconds(second_harvester),
        "first_tier2": _seconds(_earliest(tier2_structure, tier2_upgrade)),
        "first_power": _seconds(_earliest(protocols[0].time_code if protocols else None, power)),
    }


def _has_any_tag(k: Knowledge | None, type_hash: int, tags: tuple[str, ...]) -> bool:
    e = k.lookup(type_hash) if k is not None else None
    return e is not None and any(t in e.tags for t in tags)


def _is_kind(k: Knowledge | None, type_hash: int, kind: str) -> bool:
    e = k.lookup(type_hash) if k is not None else None
    return e is not None and e.kind == kind


def _is_refinery(k: Knowledge | None, type_hash: int, name: str) -> bool:
    e = k.lookup(type_hash) if k is not None else None
    return e is not None and e.kind == "structure" and "economy" in e.tags and e.id.endswith("Refinery")
