"""How many of the type hashes that replays carry resolve to names, per mod (``replaysage knowledge coverage``).

Only the commands that name a type count: production, structures, upgrades, powers and protocols, with the
per-game ids and argument positions of ``app.replay.names.HASH_ARGS`` (RA3 notes §4.3; KW/TW
``docs/kw-tw-commands.md``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.knowledge.type_hashes import TYPE_COMMANDS


@dataclass(slots=True)
class ModHashes:
    """Type hashes seen in the replays of one mod."""

    mod: str
    files: int = 0
    counts: Counter[int] = field(default_factory=Counter)
    where: dict[int, set[str]] = field(default_factory=lambda: defaultdict(set))


def collect_hashes(replay_paths: Iterable[str | Path]) -> dict[str, ModHashes]:
    """Read each replay and gather the type hashes of its commands, keyed by the header's mod name (lower-cased).

    Unreadable files raise the reader's error (a :class:`~app.errors.KnownError`), naming the file.
    """
    from app.facts.roles import role_of
    from app.replay import read_replay
    from app.replay.names import command_hash

    out: dict[str, ModHashes] = {}
    for path in replay_paths:
        replay = read_replay(path)
        mod = replay.header.mod_name.lower()
        acc = out.setdefault(mod, ModHashes(mod))
        acc.files += 1
        for cmd in replay.commands:
            found = command_hash(replay.game, cmd)  # per-game ids and argument index (KW/TW too)
            if found is None:
                continue
            h = found[0] & 0xFFFFFFFF
            acc.counts[h] += 1
            acc.where[h].add(TYPE_COMMANDS.get(role_of(replay.game, cmd.command_id)[0], found[1].value))
    return out


def observed_roles(replay_paths: Iterable[str | Path], hashes: set[int]) -> dict[int, list[str]]:
    """What the replays show about each of ``hashes``: one line per distinct observation (RA3, KW and TW).

    Where the order went and what that object is known to be: an upgrade "at #600, which produced nothing (not a
    construction yard)" or "at #733, producer of CelestialAntiAirShip, … (CelestialWarFactory per the knowledge)";
    a power with its source(s) and target and their owners; production and structure orders with their
    factory or constructor. The replays carry no costs, so the cost class stays unknown. Each line's source says
    which faction the player played and the structure they placed last before it (KW: "ZOCOM, after
    ZOCOMSpaceCommandUplink"), which is how a KW player places an unnamed id.
    """
    from app.facts.index import POWER_IDS, build_fact_index
    from app.facts.roles import role_of
    from app.replay import read_replay
    from app.timefmt import format_time

    out: dict[int, list[str]] = defaultdict(list)
    for path in replay_paths:
        replay = read_replay(path)
        ix = build_fact_index(replay)
        k = ix.knowledge
        for ev in ix.events:
            role = role_of(replay.game, ev.command_id)[0]  # KW/TW ids mapped to the RA3 id of the same meaning
            if ev.type_hash is None or ev.type_hash & 0xFFFFFFFF not in hashes or role not in TYPE_COMMANDS:
                continue
            what = TYPE_COMMANDS[role]
            who = _context(ix, ev.player, ev.seconds)
            if role in POWER_IDS:
                sources = " ".join(f"#{o}" for o in ev.actor_ids) or "-"
                line = f"{what} by {sources}" + (" (a group of selected objects)" if len(ev.actor_ids) > 1 else "")
                if ev.target_ids:
                    owners = {ix.owner(t).player for t in ev.target_ids}
                    whose = (
                        "the caster's own"
                        if owners == {ev.player}
                        else "nobody's evidence"
                        if owners == {None}
                        else "another player's"
                    )
                    line += f" on {' '.join(f'#{t}' for t in ev.target_ids)} ({whose})"
            else:
                at = ev.actor_ids[0] if ev.actor_ids else None
                line = f"{what} at {_object_role(ix, k, ev.player, at)}"
            text = f"{line} [{Path(path).name} {format_time(ev.seconds)} {who}]"
            if not any(x.split(" [", 1)[0] == line for x in out[ev.type_hash & 0xFFFFFFFF]):
                out[ev.type_hash & 0xFFFFFFFF].append(text)
    return dict(out)


def _context(ix: Any, player: int, seconds: float) -> str:
    """``name (faction, after TheirLastStructure)``: who ordered it, what they play, what they had placed before."""
    p = next((q for q in ix.players if q.slot == player), None)
    faction = (p.played_faction or p.faction) if p is not None else ""
    before = [s.name for s in ix.build_order(player) if s.seconds < seconds]
    bits = [b for b in (faction, f"after {before[-1]}" if before else "") if b]
    return str(ix.player_name(player)) + (f" ({', '.join(bits)})" if bits else "")


def _object_role(ix: Any, k: Any, player: int, oid: int | None) -> str:
    """``#id`` with what the orders prove it is (construction yard, producer of …, nothing produced)."""
    if oid is None:
        return "an unnamed object"
    if oid in ix.constructors(player):
        return f"#{oid}, a construction yard (it builds structures)"
    products = dict(ix.factories(player)).get(oid)
    if not products:
        return f"#{oid}, which produced nothing (not a construction yard)"
    kinds = None
    if k is not None:
        sets = [set(e.producers) for e in (k.lookup(n) for n in products) if e is not None and e.producers]
        kinds = set.intersection(*sets) if sets else None
    guess = f" ({' / '.join(sorted(kinds))} per the knowledge)" if kinds else ""
    return f"#{oid}, producer of {', '.join(products)}{guess}"


def coverage_report(replay_paths: Iterable[str | Path]) -> dict[str, Any]:
    """Per mod: ``distinct``, ``resolved``, ``share`` and the ``unresolved`` hashes with counts and command kinds.

    The names come from :func:`app.knowledge.names.hash_names` of each replay's own mod, so a mod's coverage
    never borrows names from another mod. Each unresolved hash also lists what the replays show about it
    (``observed``: :func:`observed_roles`), so an id that stays unnamed is still described.
    """
    from app.knowledge.names import hash_names

    replay_paths = list(replay_paths)
    mods = collect_hashes(replay_paths)
    missing = {h for mod, acc in mods.items() for h in acc.counts if h not in hash_names(mod)}
    observed = observed_roles(replay_paths, missing) if missing else {}
    report: dict[str, Any] = {}
    for mod in sorted(mods):
        acc = mods[mod]
        names = hash_names(mod)
        distinct = len(acc.counts)
        unresolved = [h for h in acc.counts if h not in names]
        unresolved.sort(key=lambda h: (-acc.counts[h], h))
        report[mod] = {
            "files": acc.files,
            "distinct": distinct,
            "resolved": distinct - len(unresolved),
            "share": round((distinct - len(unresolved)) / distinct, 4) if distinct else 1.0,
            "unresolved": [
                {
                    "hash": f"0x{h:08X}",
                    "count": acc.counts[h],
                    "where": sorted(acc.where[h]),
                    "observed": observed.get(h, []),
                }
                for h in unresolved
            ],
        }
    return report


def default_corpus() -> list[Path]:
    """The RA3 corpus replays next to the project (``../shared/replays/ra3``), if present."""  # KW/TW: pass files
    from app import paths

    folder = paths.project_root().parent / "shared" / "replays" / "ra3"
    return sorted(p for p in folder.glob("*") if p.is_file()) if folder.is_dir() else []
