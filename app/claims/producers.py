"""Where a unit could have come from, which a claimed type must agree with (issue 28 §1, §4).

Three facts of the game that the replay's orders decide, each used only where the orders leave no other way:

* **An object that deploys is a vehicle, never the finished building.** The unpack power
  (``SpecialPower_UnpackReplaceSelf``) replaces the vehicle that casts it (an MCV, an Empire core, an expansion
  vehicle) with a structure of a new id (:mod:`app.facts.chains`); a structure never casts it. So an id that alone
  cast the unpack is not of a structure type. Only casts whose source layout is read for the game count
  (``POWER_LAYOUT_ROLES``), and only casts with that one source (a group cast lists the whole selection).
* **A unit comes out of a producer its player held when it was made.** A unit whose knowledge names its producers
  (``producedBy`` / ``alsoProducedBy``) is made by one of them, so its player held one when the unit was created.
  The replay proves the player held none in a time when every producer it ever placed is accounted for: each
  producer structure comes into being by its own placement (0x209) of its player, so the player's placements of the
  producer types up to the time the unit existed count them all; when as many ids proven to be those producers (by
  what they queued, which only that type makes) were sold by the player or passed to another player before the
  unit was created, none was left. Held to this only: a unit that cannot ride in a transport (infantry that
  leaves one comes out with a new id), producers that a yard or crane places (not Empire structures,
  which unpack from cores), a unit and a player that gained nothing by capture before it existed (a captured
  factory is a producer no placement counts), and a unit type that is not a harvester or a starting type (a
  refinery's free miner, the starting MCV).
* **An MCV made during the game was ordered or packed.** A base vehicle exists at the start, comes out of a factory
  (a Queue unit order of its type), or is the vehicle a yard packed into (a pack chain), or was taken from another
  player; nothing else makes one. So an MCV created after an order of the game (a smaller id was made after an
  order, ids being given out in creation order), which no pack chain produced and which never changed hands, needs
  an order of its type by its player.

The creation lower bound of an id is the validator's (:meth:`app.claims.type_proofs.TypeProofs.created_after`): a
smaller id whose type its own orders prove was created after the first order of that type.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from app.claims.timeparse import format_time
from app.facts import ReplayFactIndex
from app.facts.chains import UNPACK_POWER_HASHES
from app.facts.model import TICKS_PER_SECOND, FactEvent, PackAction
from app.facts.roles import role_of
from app.knowledge.model import Entry, Knowledge
from app.replay.commands import PLACE_STRUCTURE, POWER, POWER_WITH_FACING, SELL

STARTING_OR_FREE = frozenset({"construction_yard", "mcv", "mcv_class", "harvester"})
"""Types a player may own without a producer's order: the starting yard and MCV, cores, a refinery's free miner."""

PASSENGER_TAG = "infantry"
"""Units that ride in transports and garrisons. One that leaves comes out as a new object with a new id (the 3v3
corpus replay: Rumi's Evacuate of #671 at 1:40.33 is followed 3.4 s later by #1043, a Peacekeeper that toggles its
riot shield, a minute after Rumi sold both barracks), so the producer rule says nothing about infantry."""

MCV_TAG = "mcv"
"""The knowledge tag of base vehicles (MCVs), the one class the third rule holds to an order or a pack."""


@dataclass(frozen=True, slots=True)
class Origin:
    """A fact about where an object came from, which the claimed type contradicts."""

    seconds: float | None
    zh: str
    en: str


def solo_unpack(index: ReplayFactIndex, uid: int, unread: Callable[[FactEvent], bool]) -> FactEvent | None:
    """The first unpack power ``uid`` alone cast (a source layout that is read), or None."""
    game = index.replay.game
    for ev in index.events_for_object(uid):
        if ev.automatic or ev.type_hash not in UNPACK_POWER_HASHES or unread(ev):
            continue
        if role_of(game, ev.command_id)[0] in (POWER, POWER_WITH_FACING) and tuple(ev.actor_ids) == (uid,):
            return ev
    return None


def deployed_not_building(
    index: ReplayFactIndex, uid: int, entry: Entry, unread: Callable[[FactEvent], bool]
) -> Origin | None:
    """Rule 1: ``uid`` alone cast the unpack power, so it is no structure type (``entry``)."""
    if entry.kind != "structure":
        return None
    ev = solo_unpack(index, uid, unread)
    if ev is None:
        return None
    t = format_time(ev.seconds)
    return Origin(
        ev.seconds,
        f"#{uid} 在 {t} 自己施放了展开（{index.name_of(ev.type_hash or 0)}），展开的是车辆或核心，建筑从不展开",
        f"#{uid} itself cast the unpack ({index.name_of(ev.type_hash or 0)}) at {t}; what unpacks is a vehicle or "
        "core, never the finished building",
    )


def _placed_by_yard(knowledge: Knowledge, name: str) -> bool:
    """A structure type that a yard or crane places (its makers are structures that do not unpack from a core)."""
    e = knowledge.lookup(name)
    if e is None or e.kind != "structure" or e.unpacks_to or e.has_tag("wall") or not e.producers:
        return False
    makers = [knowledge.lookup(p) for p in e.producers]
    return all(m is not None and m.kind == "structure" and not m.unpacks_to for m in makers)


def _frames(seconds: float) -> int:
    return round(seconds * TICKS_PER_SECOND)


def no_producer_held(
    index: ReplayFactIndex,
    knowledge: Knowledge,
    uid: int,
    player: int,
    entry: Entry,
    *,
    created_after: tuple[float, int, str] | None,
    proven: Mapping[int, str],
) -> Origin | None:
    """Rule 2: when ``uid`` was made, ``player`` held none of the structures that make ``entry``.

    ``created_after`` is (seconds, smaller id, its proven type) from id order; ``proven`` maps object ids to the type
    their own orders prove.
    """
    if entry.kind != "unit" or not entry.producers or any(entry.has_tag(t) for t in STARTING_OR_FREE):
        return None
    if entry.has_tag(PASSENGER_TAG):
        return None  # a passenger that leaves a transport comes out with a new id: no producer made that one
    if not all(_placed_by_yard(knowledge, p) for p in entry.producers):
        return None
    existed = index.existed_by(uid)
    if created_after is None or existed is None or index.ownership_changes(uid) != ():
        return None
    lo, hi = _frames(created_after[0]), _frames(existed)
    if any(c.to_player == player and c.after_time_code <= hi for c in index.all_ownership_changes()):
        return None  # it gained something by capture: a producer no placement counts
    producers = set(entry.producers)
    hashes = {h for h in (index.hash_of(p) for p in producers) if h is not None}
    game = index.replay.game
    placed: list[FactEvent] = []
    sold: dict[int, float] = {}
    for ev in index.events:
        if ev.automatic or ev.player != player:
            continue
        role = role_of(game, ev.command_id)[0]
        if role == PLACE_STRUCTURE and ev.type_hash in hashes and ev.time_code <= hi:
            placed.append(ev)
        elif role == SELL:
            for oid in ev.object_ids:
                sold.setdefault(oid, ev.seconds)
    if not placed:
        return None
    gone: dict[int, tuple[float, str, str]] = {}
    for oid, kind in proven.items():
        if kind not in producers:
            continue
        if oid in sold:
            t = format_time(sold[oid])
            gone[oid] = (sold[oid], f"#{oid}（{kind}）在 {t} 被卖掉", f"#{oid} ({kind}) sold at {t}")
            continue
        left = [c for c in index.ownership_changes(oid) or () if c.from_player == player]
        if left:
            by = left[0].by_time_code / TICKS_PER_SECOND
            other = index.player_name(left[0].to_player)
            t = format_time(by)
            gone[oid] = (by, f"#{oid}（{kind}）在 {t} 之前归了 {other}", f"#{oid} ({kind}) passed to {other} by {t}")
    early = {oid: g for oid, g in gone.items() if _frames(g[0]) + 1 < lo}
    if len(early) < len(placed):
        return None
    who = index.player_name(player)
    kinds = ", ".join(sorted(producers))
    when = ", ".join(f"{index.name_of(e.type_hash or 0)} {format_time(e.seconds)}" for e in placed[:4])
    ends_zh = "；".join(g[1] for _, g in sorted(early.items(), key=lambda kv: kv[1][0]))
    ends_en = "; ".join(g[2] for _, g in sorted(early.items(), key=lambda kv: kv[1][0]))
    after = format_time(created_after[0])
    return Origin(
        created_after[0],
        f"#{uid} 造于 {after} 之后（编号按创建顺序分配，更小的 #{created_after[1]} 是 {created_after[2]}，其类型最早在 "
        f"{after} 下令）；只有 {kinds} 能造 {entry.id}，{who} 共放置了 {len(placed)} 个（{when}），"
        f"在那之前都已不在：{ends_zh}",
        f"#{uid} was created after {after} (ids are given out in creation order; the smaller #{created_after[1]} is "
        f"a {created_after[2]}, first ordered then); only {kinds} makes {entry.id}, {who} placed {len(placed)} "
        f"({when}) and none was left by then: {ends_en}",
    )


def pack_vehicles(index: ReplayFactIndex) -> set[int]:
    """Every base vehicle a pack chain explains: packed from a yard, produced at a factory, or captured."""
    out: set[int] = set()
    for chain in index.pack_chains:
        for st in chain.steps:
            if st.action in (PackAction.PACK, PackAction.PRODUCE) and st.produced_id is not None:
                out.add(st.produced_id)
            elif st.action in (PackAction.CAPTURED, PackAction.UNPACK):
                out.add(st.object_id)
    return out


def unordered_mcv(
    index: ReplayFactIndex,
    uid: int,
    player: int,
    *,
    entry: Entry,
    created_after: tuple[float, int, str] | None,
    ordered: Callable[[int, str], bool],
    explained: Iterable[int],
    knowledge: Knowledge,
) -> Origin | None:
    """Rule 3: an MCV made during the game that no order of its player and no pack chain accounts for.

    Any MCV order counts, not only one of the claimed name: an MCV built at a naval yard has a name of its own
    (``SovietMCV_Naval``), and a claim that calls it by the land name still names an MCV.
    """
    if entry.kind != "unit" or not entry.has_tag(MCV_TAG) or entry.has_tag("harvester") or created_after is None:
        return None
    if uid in set(explained) or index.ownership_changes(uid) != ():
        return None
    if any(ordered(player, e.id) for e in knowledge if e.kind == "unit" and e.has_tag(MCV_TAG)):
        return None
    who = index.player_name(player)
    after = format_time(created_after[0])
    return Origin(
        None,
        f"#{uid} 造于 {after} 之后（编号按创建顺序分配，更小的 #{created_after[1]} 是 {created_after[2]}），"
        f"不是开局的基地车；{who} 从未下令生产基地车，也没有哪次打包产生 #{uid}",
        f"#{uid} was created after {after} (ids are given out in creation order; the smaller #{created_after[1]} is "
        f"a {created_after[2]}), so it is no starting vehicle; {who} never ordered an MCV and no pack made #{uid}",
    )
