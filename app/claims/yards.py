"""Construction yard, crane or MCV: what the pack chains and the orders prove an object was (issue 28 §1).

Why a module of its own: the three are easy to confuse in prose (a yard packs into an MCV with a new id, the MCV
deploys into a yard with a new id again, a crane builds like a yard), yet the game separates them sharply, and the
fact index already records the moves (``index.pack_chains``, :mod:`app.facts.chains`). Each rule below follows from
the game, and only what an order or a chain step shows is used:

* a yard's pack produces a new id, the vehicle; anything that casts the deploy power is a vehicle then. A vehicle is
  never a construction yard or a crane (those are built structures and cast no deploy);
* only a construction yard packs, so the id that packed is a yard, neither an MCV nor a crane;
* the id a deploy produced is the new yard, not an MCV;
* an object that starts or places a structure (0x207 / 0x209) is a yard or a crane: an MCV builds nothing.

A crane is a placed structure, but no order names the id a placement created, so nothing here proves an object is
a crane; a claimed crane is only held against the vehicle and pack facts above.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from app.claims.timeparse import format_time
from app.facts import ReplayFactIndex
from app.facts.chains import is_mcv_name
from app.facts.model import TICKS_PER_SECOND, PackAction
from app.facts.roles import role_of
from app.knowledge.model import Entry
from app.replay.commands import PLACE_STRUCTURE as _PLACE_STRUCTURE
from app.replay.commands import START_STRUCTURE as _START_STRUCTURE


class BaseKind(enum.StrEnum):
    """The base-building class a claimed type belongs to."""

    MCV = "mcv"
    YARD = "yard"
    CRANE = "crane"


class BaseFact(enum.StrEnum):
    """What an order or chain step proves about one object."""

    VEHICLE = "vehicle"  # produced by a pack, or cast the deploy power
    PACKED = "packed"  # cast the pack power: a construction yard
    DEPLOYED = "deployed"  # produced by a deploy: the new construction yard
    BUILDER = "builder"  # started or placed a structure: a yard or a crane


CONTRADICTS: dict[BaseKind, frozenset[BaseFact]] = {
    BaseKind.MCV: frozenset({BaseFact.PACKED, BaseFact.DEPLOYED, BaseFact.BUILDER}),
    BaseKind.YARD: frozenset({BaseFact.VEHICLE}),
    BaseKind.CRANE: frozenset({BaseFact.VEHICLE, BaseFact.PACKED}),
}
"""Which facts rule out a claimed class (a deploy's product is not held against a crane: in RA3 the chain finds
that yard as the first new constructor after the deploy, which a crane placed just before could also be)."""


@dataclass(frozen=True, slots=True)
class Proof:
    """One fact about an object, with the order that shows it in both languages."""

    fact: BaseFact
    seconds: float
    zh: str
    en: str


def base_kind(type_name: str, entry: Entry | None) -> BaseKind | None:
    """The base class of a claimed type: knowledge tags first, then the naming every mod shares."""
    if entry is not None and entry.has_tag("construction_yard"):
        return BaseKind.YARD
    if entry is not None and entry.has_tag("crane"):
        return BaseKind.CRANE
    if entry is not None and entry.kind == "unit" and entry.has_tag("mcv"):
        return BaseKind.MCV
    if "ConstructionYard" in type_name:
        return BaseKind.YARD
    if entry is not None and entry.kind == "unit" and is_mcv_name(type_name):
        return BaseKind.MCV  # Scrin drone ships (AlienMCV, Reaper17MCV) carry no mcv tag
    return None


def base_proofs(index: ReplayFactIndex) -> dict[int, list[Proof]]:
    """Per object id, what the pack chains and the build orders prove it was (first proof of each kind)."""
    out: dict[int, list[Proof]] = {}

    def add(oid: int | None, proof: Proof) -> None:
        if oid is None:
            return
        known = out.setdefault(oid, [])
        if all(p.fact is not proof.fact for p in known):
            known.append(proof)

    for chain in index.pack_chains:
        who = index.player_name(chain.player)
        for st in chain.steps:
            t = format_time(st.seconds)
            if st.action is PackAction.PACK:
                add(
                    st.object_id,
                    Proof(
                        BaseFact.PACKED,
                        st.seconds,
                        f"{who} 的 #{st.object_id} 在 {t} 打包（只有建筑工厂能打包）",
                        f"{who}'s #{st.object_id} packed up at {t} (only a construction yard packs)",
                    ),
                )
                if st.produced_id is not None:
                    add(
                        st.produced_id,
                        Proof(
                            BaseFact.VEHICLE,
                            st.seconds,
                            f"#{st.produced_id} 是 {who} 的建筑工厂 #{st.object_id} 在 {t} 打包后产生的基地车",
                            f"#{st.produced_id} is the vehicle {who}'s yard #{st.object_id} packed into at {t}",
                        ),
                    )
            elif st.action is PackAction.UNPACK:
                add(
                    st.object_id,
                    Proof(
                        BaseFact.VEHICLE,
                        st.seconds,
                        f"#{st.object_id} 在 {t} 使用了展开技能（展开的是车辆，不是已建成的建筑）",
                        f"#{st.object_id} cast the deploy power at {t} (a vehicle deploys, a built structure never)",
                    ),
                )
                if st.produced_id is not None:
                    add(
                        st.produced_id,
                        Proof(
                            BaseFact.DEPLOYED,
                            st.seconds,
                            f"#{st.produced_id} 是 {who} 的 #{st.object_id} 在 {t} 展开后产生的建筑工厂",
                            f"#{st.produced_id} is the construction yard {who}'s #{st.object_id} deployed into at {t}",
                        ),
                    )
    game = index.replay.game
    for ev in index.events:
        if (
            ev.automatic
            or not ev.actor_ids
            or role_of(game, ev.command_id)[0] not in (_START_STRUCTURE, _PLACE_STRUCTURE)
        ):
            continue
        oid = ev.actor_ids[0]
        if any(p.fact is BaseFact.BUILDER for p in out.get(oid, ())):
            continue
        t = format_time(ev.time_code / TICKS_PER_SECOND)
        name = index.name_of(ev.type_hash) if ev.type_hash is not None else "?"
        verb = ("开始建造", "started") if role_of(game, ev.command_id)[0] == _START_STRUCTURE else ("放置", "placed")
        add(
            oid,
            Proof(
                BaseFact.BUILDER,
                ev.time_code / TICKS_PER_SECOND,
                f"#{oid} 在 {t} {verb[0]} {name}（基地车不能建造，建造的是建筑工厂或起重机）",
                f"#{oid} {verb[1]} {name} at {t} (an MCV builds nothing; yards and cranes do)",
            ),
        )
    return out


def contradiction(kind: BaseKind, proofs: list[Proof]) -> Proof | None:
    """The first proof that rules out ``kind`` for the object, or None when the facts cannot decide."""
    return next((p for p in proofs if p.fact in CONTRADICTS[kind]), None)
