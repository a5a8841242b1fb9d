"""What a structure's orders prove it can do, which a claimed type must be able to do too (issue 28 §1, §4).

A factory is proven by what it makes. The knowledge says it in one of two ways, and only those are used (never the
look of a name: sub-factions build the same things in structures of other names):

* explicitly, per object: ``producedBy`` / ``alsoProducedBy`` (RA3, Uprising). That is
  :meth:`app.claims.type_proofs.TypeProofs.type_fits_object`'s rule (``TypeNotOfProducts``); nothing here repeats it;
* by class, for the mods whose units name no producer (Tiberium Wars, Kane's Wrath): in those games each production
  structure builds one class of unit, which the knowledge tags on both sides: a unit tagged ``infantry`` comes from
  an ``infantry_production`` structure, ``vehicle`` (the MCV and harvester included) from ``vehicle_production``,
  ``aircraft`` from ``aircraft_production``. An upgrade tagged ``power_plant_upgrade`` is researched at the power
  plant it improves (``power_plant``).

Two further facts hold in every game: only a harvester takes a harvest order alone (the engine turns a harvest click
into a move for anything else), and the object a Queue unit / Start upgrade order names is the factory.

Precision first: a structure type is held to a unit class only when the knowledge gives it a production tag of its
own (a factory of another class), and an upgrade only when the upgrade's tag names its structure; a unit or upgrade
without such a tag, or with explicit producers, proves nothing here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from app.claims.roles import roles_of
from app.claims.timeparse import format_time
from app.facts import ReplayFactIndex
from app.facts.model import FactEvent
from app.facts.roles import role_of
from app.knowledge.model import Entry, Knowledge
from app.replay.commands import HARVEST_FROM_NODE, HARVESTER_ORDER, QUEUE_UNIT, START_UPGRADE
from app.replay.model import Game

PRODUCED_AT: Mapping[str, str] = {
    "infantry": "infantry_production",
    "vehicle": "vehicle_production",
    "aircraft": "aircraft_production",
}
"""A unit's class tag → the tag of the structures that build that class (TW / KW, where units name no producer)."""

RESEARCHED_AT: Mapping[str, str] = {"power_plant_upgrade": "power_plant"}
"""An upgrade's tag → the tag of the structure it is researched at."""

HARVEST_ROLES = frozenset({HARVEST_FROM_NODE, HARVESTER_ORDER})
"""Harvest a node / field, and return to the refinery (RA3 role ids; :mod:`app.facts.roles` maps KW/TW's)."""


@dataclass(frozen=True, slots=True)
class Deed:
    """One order that proves what its object can do: the line, and what the claimed type needs to do it."""

    seconds: float
    needs: str  # the tag the claimed type must carry
    zh: str
    en: str


def _needed(entry: Entry, kind: str) -> str | None:
    """The tag a factory must carry to make ``entry`` (None when the knowledge does not say)."""
    if entry.producers:
        return None  # named explicitly: the producers rule decides
    table = PRODUCED_AT if kind == "unit" else RESEARCHED_AT
    found = {table[t] for t in entry.tags if t in table}
    return found.pop() if len(found) == 1 else None


def deeds(index: ReplayFactIndex, knowledge: Knowledge) -> dict[int, list[Deed]]:
    """Per object id, the first order of each need: what it queued or researched, and whether it harvested."""
    out: dict[int, list[Deed]] = {}
    game = index.replay.game
    who = index.player_name

    def add(oid: int, deed: Deed) -> None:
        known = out.setdefault(oid, [])
        if all(d.needs != deed.needs for d in known):
            known.append(deed)

    for ev in index.events:
        if ev.automatic:
            continue
        role = role_of(game, ev.command_id)[0]
        t = format_time(ev.seconds)
        if role in (QUEUE_UNIT, START_UPGRADE) and ev.type_hash is not None:
            factory = (ev.actor_ids or ev.object_ids)[:1]
            entry = knowledge.lookup(ev.type_hash)
            if not factory or entry is None or entry.kind != ("unit" if role == QUEUE_UNIT else "upgrade"):
                continue
            need = _needed(entry, entry.kind)
            if need is None:
                continue
            able = [e.id for e in knowledge if e.kind == "structure" and e.has_tag(need)]
            own = [m for m in able if knowledge.faction_of(m) == entry.faction]  # the maker's own faction first
            makers = ", ".join(own or able)
            verb = ("排队生产", "queues") if role == QUEUE_UNIT else ("开始研究", "starts the upgrade")
            add(
                factory[0],
                Deed(
                    ev.seconds,
                    need,
                    f"#{factory[0]} 在 {t} {verb[0]} {entry.id}（{who(ev.player)}）；只有 {makers} 能做到",
                    f"#{factory[0]} {verb[1]} {entry.id} at {t} ({who(ev.player)}); only {makers} can",
                ),
            )
        elif role in HARVEST_ROLES and _alone(ev, game):
            oid = ev.actor_ids[0]
            add(
                oid,
                Deed(
                    ev.seconds,
                    "harvester",
                    f"#{oid} 在 {t} 单独接受采矿指令（{who(ev.player)}）；只有矿车能采矿",
                    f"#{oid} alone takes a harvest order at {t} ({who(ev.player)}); only a harvester harvests",
                ),
            )
    return out


def _alone(ev: FactEvent, game: Game) -> bool:
    return len(ev.actor_ids) == 1 and roles_of(ev, game).actors == ev.actor_ids


def misfit(entry: Entry, proofs: Iterable[Deed]) -> Deed | None:
    """The first order the claimed type ``entry`` could not have carried out, or None when nothing decides."""
    producing = {t for t in entry.tags if t in PRODUCED_AT.values()}
    for d in proofs:
        if d.needs == "harvester":
            if entry.kind == "unit" and not entry.has_tag("harvester") and not entry.has_tag("mcv_class"):
                return d
        elif entry.kind != "structure" or entry.has_tag(d.needs):
            continue
        elif d.needs in RESEARCHED_AT.values() or producing:
            return d  # a factory of another class; or not the structure the upgrade belongs to
    return None
