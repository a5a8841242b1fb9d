"""A player's profile across the library: games, openings per matchup, timing benchmarks, memory facts, reviews.

The library here is every replay the store knows: the analysed ones (``analyses``) and the ones a library folder
scan listed (``library_files``). Each replay is reduced once to its players' :class:`~app.players.games.PlayerGame`
rows and cached by path, size and modification time (``player_games``), so a profile of a large library reads
rows, not replays. Benchmarks compare the player's median with the median of every other player's games of the
same mod ("the rest of the library"). Memory facts and review items are the memory's, about ``player:NAME`` for
every name of the player (:mod:`app.players.names`).
"""

from __future__ import annotations

import logging
import os
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, insert, select

from app.players.games import GAMES_VERSION, TIMINGS, PlayerGame, games_of_replay
from app.players.names import PlayerNames
from app.players.tables import PlayerGamesRow, PlayerSideRow
from app.store import Database

log = logging.getLogger("replaysage.players")

WRITE_BATCH = 200
BENCHMARKS: tuple[str, ...] = (*TIMINGS, "apm")
"""The benchmarks in the order the profile shows them."""


@dataclass(frozen=True, slots=True)
class LibrarySides:
    """The player sides a profile needs, and the library they were read from.

    ``mine`` are the player's own sides (decoded into :class:`PlayerGame`, in the library's order: by path, then
    place in the replay); ``rest`` are the other players' sides of the same mods as ``(apm, timings…)`` tuples in
    :data:`BENCHMARKS` order (never decoded from JSON); ``replays`` counts the readable replays with at least one
    side, ``unreadable`` the ones that could not be read.
    """

    mine: list[PlayerGame]
    rest: list[tuple[float | None, ...]]
    replays: int
    unreadable: int


def library_paths(db: Database) -> dict[str, str]:
    """``path → sha256`` ("" when not known) of every replay the store knows (analysed or listed)."""
    from app.library.tables import LibraryFileRow
    from app.pipeline.records import AnalysisRecord

    out: dict[str, str] = {}
    with db.read() as s:
        for (path,) in s.execute(select(LibraryFileRow.path)):
            out[str(path)] = ""
        for path, sha in s.execute(select(AnalysisRecord.replay_path, AnalysisRecord.replay_sha256)):
            if path:
                out[str(path)] = str(sha or "")
    return out


def side_row(path: str, seq: int, game: dict[str, Any]) -> dict[str, Any]:
    """The ``player_sides`` row of one side (``game``: :meth:`PlayerGame.to_json`)."""
    timings = game["timings"]
    return {
        "path": path,
        "seq": seq,
        "name": game["name"],
        "mod": game["mod"],
        "apm": game["apm"],
        **{t: timings.get(t) for t in TIMINGS},
        "game": game,
    }


def refresh_library(db: Database) -> tuple[set[str], int]:
    """Bring the cache up to date: the paths whose cached sides hold now, and how many replays could not be read.

    Only sizes, times and versions are compared (no side is read); new or changed files are reduced now and
    their sides replace the old ones.
    """
    paths = library_paths(db)
    with db.read() as s:  # plain rows, not ORM objects: a large library has thousands
        cached = {
            path: (size, mtime, version)
            for path, size, mtime, version in s.execute(
                select(PlayerGamesRow.path, PlayerGamesRow.size, PlayerGamesRow.mtime_ns, PlayerGamesRow.version)
            )
            if path in paths
        }
    valid: set[str] = set()
    fresh: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    unreadable = 0
    for path, sha in sorted(paths.items()):
        try:
            st = os.stat(path)
        except OSError:
            unreadable += 1  # moved or deleted since it was analysed
            continue
        if cached.get(path) == (st.st_size, st.st_mtime_ns, GAMES_VERSION):
            valid.add(path)
            continue
        try:
            found = games_of_replay(path, sha)
        except Exception as exc:  # a damaged file in the library must not cost the whole profile
            log.warning("player profile: %s left out (%s)", path, exc)
            unreadable += 1
            continue
        valid.add(path)
        file_row = {"path": path, "size": st.st_size, "mtime_ns": st.st_mtime_ns, "version": GAMES_VERSION}
        fresh.append((file_row, [side_row(path, seq, g.to_json()) for seq, g in enumerate(found)]))
    for start in range(0, len(fresh), WRITE_BATCH):
        chunk = fresh[start : start + WRITE_BATCH]
        done = [f["path"] for f, _ in chunk]
        sides = [side for _, rows in chunk for side in rows]
        with db.session() as s:
            s.execute(delete(PlayerSideRow).where(PlayerSideRow.path.in_(done)))
            s.execute(delete(PlayerGamesRow).where(PlayerGamesRow.path.in_(done)))
            s.execute(insert(PlayerGamesRow), [f for f, _ in chunk])
            if sides:
                s.execute(insert(PlayerSideRow), sides)
    return valid, unreadable


def library_sides(db: Database, names: Iterable[str]) -> LibrarySides:
    """The sides of the player whose names are ``names`` and the rest's benchmark values (see :class:`LibrarySides`).

    The store filters by name (``player_sides.name`` is indexed): only the player's own sides are decoded.
    """
    wanted = sorted(set(names))
    valid, unreadable = refresh_library(db)
    side = PlayerSideRow
    with db.read() as s:
        own = sorted(
            (str(path), int(seq), game)
            for path, seq, game in s.execute(select(side.path, side.seq, side.game).where(side.name.in_(wanted)))
            if path in valid
        )
        mine = [PlayerGame.from_json(game) for _, _, game in own]
        mods = sorted({g.mod for g in mine})
        rest: list[tuple[float | None, ...]] = []
        if mods:
            columns = [side.apm, *(getattr(side, t) for t in TIMINGS)]
            rest = [
                tuple(values)
                for path, *values in s.execute(
                    select(side.path, *columns).where(side.mod.in_(mods), side.name.not_in(wanted))
                )
                if path in valid
            ]
        with_sides = {str(path) for (path,) in s.execute(select(side.path).distinct())}
    return LibrarySides(mine, rest, len(with_sides & valid), unreadable)


def _median(values: Iterable[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return round(statistics.median(known), 1) if known else None


def _frequencies(seqs: list[tuple[str, ...]], games: int) -> list[dict[str, Any]]:
    counts = Counter(seq for seq in seqs if seq)
    return [
        {"sequence": list(seq), "count": n, "games": games, "share": round(n / games, 3)}
        for seq, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    ]


def _openings(games: list[PlayerGame], key: str) -> dict[str, Any]:
    """Each distinct sequence with how many games it opened: per matchup, and over all the player's games."""

    def seq(g: PlayerGame) -> tuple[str, ...]:
        return g.opening if key == "structures" else g.first_units

    by_matchup: dict[str, list[PlayerGame]] = defaultdict(list)
    for g in games:
        by_matchup[g.matchup].append(g)
    return {
        "by_matchup": {m: _frequencies([seq(g) for g in gs], len(gs)) for m, gs in sorted(by_matchup.items())},
        "overall": _frequencies([seq(g) for g in games], len(games)),
    }


def _benchmarks(mine: list[PlayerGame], rest: list[tuple[float | None, ...]]) -> dict[str, dict[str, Any]]:
    """Per benchmark: the player's median and count, the rest of the same mods' median and count.

    ``rest``: the other players' sides of the player's mods as ``(apm, *timings)`` (:func:`library_sides`).
    """
    out: dict[str, dict[str, Any]] = {}
    for name in BENCHMARKS:
        own = [g.apm if name == "apm" else g.timings.get(name) for g in mine]
        column = 0 if name == "apm" else 1 + TIMINGS.index(name)
        theirs = [values[column] for values in rest]
        out[name] = {
            "player_median": _median(own),
            "player_games": sum(v is not None for v in own),
            "library_median": _median(theirs),
            "library_games": sum(v is not None for v in theirs),
        }
    return out


def _facts(db: Database, names: tuple[str, ...]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The memory's active facts about the player (with supporting replays) and its open review items."""
    from app.memory.model import FactStatus
    from app.memory.store import MemoryStore

    store = MemoryStore(db)
    subjects = {f"player:{n}" for n in names}
    facts: list[dict[str, Any]] = []
    for subject in sorted(subjects):
        for f in store.facts(status=FactStatus.ACTIVE, subject=subject):
            full = store.fact(f.id)
            episodes = store.episodes(s.episode_id for s in full.sources if s.episode_id is not None and s.polarity > 0)
            replays = sorted({e.replay_path for e in episodes.values() if e.replay_path})
            facts.append(
                {
                    "id": f.id,
                    "type": f.type,
                    "subject": f.subject,
                    "attribute": f.attribute,
                    "value": f.value,
                    "content_zh": f.content_zh,
                    "content_en": f.content_en,
                    "confidence": f.confidence,
                    "evidence_count": f.evidence_count,
                    "scope": dict(f.scope),
                    "replays": replays,
                }
            )
    facts.sort(key=lambda d: (-float(d["confidence"]), int(d["id"])))
    reviews = [
        {
            "id": q.id,
            "kind": q.kind,
            "reason": q.reason,
            "fact_id": q.fact.id,
            "subject": q.fact.subject,
            "content_zh": q.fact.content_zh,
            "content_en": q.fact.content_en,
        }
        for q in store.queue(open_only=True)
        if q.fact.subject in subjects or (q.other is not None and q.other.subject in subjects)
    ]
    return facts, reviews


def build_profile(db: Database, name: str) -> dict[str, Any]:
    """The profile of the player ``name`` belongs to, as stable JSON (the CLI's ``--json`` and the reports' data).

    Raises:
        PlayerNameError: for an empty or over-long name, or a player the library and the memory do not know.
    """
    from app.i18n import tr
    from app.players.names import PlayerNameError, _clean

    names_repo = PlayerNames(db)
    _clean(name, names_repo.lang)
    player = names_repo.player_of(name)
    names = names_repo.names_of(player)
    lib = library_sides(db, names)
    mine = sorted(lib.mine, key=lambda g: (g.played_at, g.replay_path))
    rest = lib.rest
    replays = lib.replays
    facts, reviews = _facts(db, names)
    if not mine and not facts and not reviews:
        raise PlayerNameError(
            tr(
                names_repo.lang,
                "no games of {player} among the library's {replays} replays, and no memory facts about "
                "the player (names are case-sensitive)",
                player=player,
                replays=replays,
            )
        )
    return {
        "player": player,
        "names": list(names),
        "library_replays": replays,
        "unreadable_replays": lib.unreadable,
        "games": [
            {
                "replay_path": g.replay_path,
                "replay_sha256": g.replay_sha256,
                "played_at": g.played_at,
                "map": g.map_name,
                "mod": g.mod,
                "name": g.name,
                "faction": g.faction,
                "opponents": [{"name": n, "faction": f} for n, f in g.opponents],
                "allies": [{"name": n, "faction": f} for n, f in g.allies],
                "duration": g.duration,
                "left_first": g.left_first,
                "opening": list(g.opening),
                "first_units": list(g.first_units),
                "timings": dict(g.timings),
                "apm": g.apm,
            }
            for g in mine
        ],
        "openings": {"structures": _openings(mine, "structures"), "units": _openings(mine, "units")},
        "benchmarks": _benchmarks(mine, rest),
        "facts": facts,
        "reviews": reviews,
    }
