"""``replaysage knowledge check --corpus DIR``: knowledge entries that the replays contradict.

The knowledge says which structure produces a unit (``producedBy``/``alsoProducedBy``), where an upgrade happens
and which type uses a power (``usedBy``). The replays show it too, indirectly: a factory object is named by every
order it takes, so what one object produced, when, and what else happened to it can be read off the fact index.
Four findings, each with the replay evidence (file, time, object id):

* ``producer_missing``: a type was made by an object older than any structure the knowledge lists as its producer:
  ordered before the player had one (a placement, or an Empire core / Celestial placeholder that becomes one,
  counts from its order on; construction yards exist from the start), or by an object that existed before the
  first one was ordered (object ids are given out in creation order, so a newer id named at t proves the object
  existed at t). Examples: Corona's ``CelestialMiner`` queued at 0:53.47 although the first
  ``CelestialWarFactory_Fake`` was placed at 2:44.87; the Soviet ``SovietMiner`` of Snow Plow made by #686, which
  existed by 1:06.67 (#691 was named then), before the first ``SovietWarFactory`` placement at 1:31.00.
* ``no_shared_producer``: one object produced types that share no producer in the knowledge (one of the entries is
  wrong, or incomplete).
* ``upgrade_elsewhere``: an upgrade started at an object whose products show it is not the listed structure.
* ``user_not_structure``: a power that the knowledge says a unit uses was cast by an object the replays prove is a
  structure (it produced, built, was upgraded or sold).

Only RA3-engine replays are checked (the knowledge exists for RA3 and Corona only).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import field as dc_field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.timefmt import format_time

if TYPE_CHECKING:
    from app.facts.index import ReplayFactIndex
    from app.knowledge.model import Knowledge

REPLAY_SUFFIXES = (".ra3replay",)


@dataclass(slots=True)
class Finding:
    """One knowledge entry the replays contradict, with the observations behind it."""

    mod: str
    code: str
    entry: str
    field: str
    listed: tuple[str, ...]
    observed: str
    evidence: list[str] = dc_field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """JSON-compatible form (stable keys)."""
        return {
            "mod": self.mod,
            "code": self.code,
            "entry": self.entry,
            "field": self.field,
            "listed": list(self.listed),
            "observed": self.observed,
            "evidence": list(self.evidence),
        }

    def render(self) -> str:
        """Text lines for the CLI."""
        listed = ", ".join(self.listed) or "-"
        head = f"[{self.mod}] {self.code}: {self.entry}.{self.field} = {listed}; {self.observed}"
        return "\n".join([head, *(f"    {e}" for e in self.evidence[:6])])


def corpus_files(folder: str | Path) -> list[Path]:
    """RA3-engine replay files under ``folder`` (recursively), sorted."""
    root = Path(folder)
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in REPLAY_SUFFIXES)


def check_corpus(paths: Iterable[str | Path]) -> list[Finding]:
    """Read every replay and collect the findings, merged per (mod, code, entry)."""
    from app.facts.index import build_fact_index
    from app.replay import read_replay
    from app.replay.model import Game

    merged: dict[tuple[str, str, str], Finding] = {}
    for path in paths:
        replay = read_replay(path)
        if replay.game is not Game.RA3:
            continue
        index = build_fact_index(replay)
        if index.knowledge is None:
            continue
        for f in _check_replay(index, index.knowledge, Path(path).name):
            key = (f.mod, f.code, f.entry)
            if key in merged:
                merged[key].evidence.extend(f.evidence)
            else:
                merged[key] = f
    return sorted(merged.values(), key=lambda f: (f.mod, f.code, f.entry))


def _check_replay(index: ReplayFactIndex, k: Knowledge, file: str) -> list[Finding]:
    out: list[Finding] = []
    mod = k.mod
    for p in index.playing:
        available = _available_structures(index, k, p.slot)
        products: dict[int, list[str]] = defaultdict(list)
        for f in index.first_productions(p.slot):
            entry = k.lookup(f.type_hash)
            if entry is None or not entry.producers or f.kind.value != "unit":
                continue
            since = [available[s] for s in entry.producers if s in available]
            first = min(since) / 15 if since else None
            existed = index.existed_by(f.source_id)
            when = f"first at {format_time(first)}" if first is not None else "never built"
            if first is None or first > f.seconds:
                evidence = f"queued {entry.id} at {format_time(f.seconds)} at #{f.source_id}"
            elif existed is not None and existed < first:
                evidence = (
                    f"#{f.source_id}, which queued {entry.id} at {format_time(f.seconds)}, existed by "
                    f"{format_time(existed)} (a newer id was named then)"
                )
            else:
                continue
            out.append(
                Finding(
                    mod,
                    "producer_missing",
                    entry.id,
                    "producedBy",
                    entry.producers,
                    "made by an object older than any listed producer",
                    [f"{file}: {p.name}: {evidence}; listed producers {when}"],
                )
            )
        for fid, made in index.factories(p.slot):
            products[fid] = list(made)
        for fid, names in products.items():
            entries = [e for e in (k.lookup(n) for n in names) if e is not None and e.producers]
            if len(entries) < 2:
                continue
            shared = set(entries[0].producers).intersection(*(e.producers for e in entries[1:]))
            if not shared:
                out.append(
                    Finding(
                        mod,
                        "no_shared_producer",
                        entries[-1].id,
                        "producedBy",
                        entries[-1].producers,
                        f"made by the same object as {', '.join(e.id for e in entries[:-1])}",
                        [f"{file}: #{fid} of {p.name} produced {', '.join(names)}"],
                    )
                )
        out.extend(_upgrades(index, k, p.slot, products, file))
    out.extend(_users(index, k, file))
    return out


def _available_structures(index: ReplayFactIndex, k: Knowledge, player: int) -> dict[str, int]:
    """Structure name → the time code from which the player may have had one (its first order or placement)."""
    since: dict[str, int] = {e.id: 0 for e in k.select(kind="structure", tag="construction_yard")}
    for step in index.build_order(player):
        for name in _yields(k, step.name):
            since.setdefault(name, step.time_code)
    return since


def _yields(k: Knowledge, name: str) -> set[str]:
    """The structures an order of ``name`` ends as: itself, what a core unpacks to, what a placeholder becomes."""
    entry = k.lookup(name)
    if entry is None:
        return {name}
    out = {entry.id}
    if entry.unpacks_to:
        out.add(entry.unpacks_to)
    out.update(e.id for e in k if e.kind == "structure" and e.produced_by == entry.id)
    return out


def _candidates(k: Knowledge, names: Iterable[str]) -> set[str] | None:
    """Structures an object that produced ``names`` can be (None when its products tell nothing)."""
    sets = [set(e.producers) for e in (k.lookup(n) for n in names) if e is not None and e.producers]
    return set.intersection(*sets) if sets else None


def _upgrades(
    index: ReplayFactIndex, k: Knowledge, player: int, products: dict[int, list[str]], file: str
) -> list[Finding]:
    out: list[Finding] = []
    yards = set(index.constructors(player))
    for ev in index.events_between(0.0, index.duration_seconds + 1.0, player=player):
        if ev.command_id != 0x203 or ev.type_hash is None or not ev.actor_ids:
            continue
        entry = k.lookup(ev.type_hash)
        where = ev.actor_ids[0]
        if entry is None or not entry.producers:
            continue
        if where in yards:
            cands: set[str] | None = {e.id for e in k.select(kind="structure", tag="construction_yard")}
        else:
            cands = _candidates(k, products.get(where, ()))
        if cands is not None and not cands & set(entry.producers):
            seen = "a construction yard" if where in yards else f"producer of {', '.join(products[where])}"
            out.append(
                Finding(
                    k.mod,
                    "upgrade_elsewhere",
                    entry.id,
                    "producedBy",
                    entry.producers,
                    f"started at an object that is {seen}",
                    [
                        f"{file}: {index.player_name(player)} started {entry.id} "
                        f"at {format_time(ev.seconds)} at #{where}"
                    ],
                )
            )
    return out


def _users(index: ReplayFactIndex, k: Knowledge, file: str) -> list[Finding]:
    from app.facts.index import POWER_IDS
    from app.facts.model import Role

    structural = {Role.FACTORY, Role.BUILDER, Role.UPGRADE, Role.SELL, Role.RALLY}
    out: list[Finding] = []
    for ev in index.events:
        if ev.command_id not in POWER_IDS:
            continue
        entry = k.lookup(ev.type_hash) if ev.type_hash is not None else None
        if entry is None or not entry.used_by or len(ev.actor_ids) != 1:
            continue
        users = [k.lookup(u) for u in entry.producers]
        if not users or any(u is None or u.kind != "unit" for u in users):
            continue
        caster = ev.actor_ids[0]
        roles = {e.role for e in index.evidence(caster)}
        if roles & structural:
            out.append(
                Finding(
                    k.mod,
                    "user_not_structure",
                    entry.id,
                    "usedBy",
                    entry.producers,
                    "cast by an object the replays show is a structure",
                    [
                        f"{file}: {index.player_name(ev.player)} cast it at {format_time(ev.seconds)} by #{caster} "
                        f"({', '.join(sorted(r.value for r in roles & structural))})"
                    ],
                )
            )
    return out
