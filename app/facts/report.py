"""Machine-readable and text views of the fact index for the CLI (and any caller that wants plain data).

The JSON keys are stable: scripts and the pipeline may rely on them.
"""

from __future__ import annotations

from typing import Any

from app.facts.eventlog import format_time
from app.facts.index import ReplayFactIndex
from app.facts.model import TICKS_PER_SECOND
from app.i18n import Lang, tr

MAX_OBJECT_EVENTS = 40


def facts_json(index: ReplayFactIndex, summary: str) -> dict[str, Any]:
    """The ``--json`` document: summary text, build order, protocols and first productions.

    Times are seconds rounded to hundredths; ``player`` is the label (see ``PlayerInfo``) and ``slot`` its ``S=``
    index; ``players[].name`` keeps the full name from the file. A first production with ``cancelled`` true was
    ordered and taken back every time (never produced); ``units_ordered`` counts the units each player queued per
    type (a shift-click order counts five, cancels included); ``other_deploys`` are the deploys no MCV chain
    explains (Empire cores, Corona miners). A pack-chain step's ``produced_id`` is the id it made (pack: the
    vehicle, unpack: the yard, produce: the vehicle; null when the replay does not show it); a ``captured`` step
    (another player's packed vehicle deployed by this one) names the packer in ``from_slot``.
    ``ownership_changes`` lists the objects that changed hands, with the window the change lies in.
    """
    return {
        "summary": summary,
        "players": [
            {
                "slot": p.slot,
                "name": p.name,
                "label": p.label,
                "faction": p.faction,
                "played_faction": p.played_faction,
                "team": p.team,
                "kind": p.kind,
            }
            for p in index.playing
        ],
        "duration_seconds": round(index.duration_seconds, 2),
        "build_order": [
            {
                "player": index.player_name(s.player),
                "slot": s.player,
                "time_seconds": round(s.seconds, 2),
                "name": s.name,
                "command": f"0x{s.command_id:03X}",
            }
            for s in index.build_order()
        ],
        "protocols": [
            {
                "player": index.player_name(x.player),
                "slot": x.player,
                "time_seconds": round(x.seconds, 2),
                "name": x.name,
            }
            for x in index.protocols
        ],
        "first_production": [
            {
                "player": index.player_name(f.player),
                "slot": f.player,
                "type": f.name,
                "kind": f.kind.value,
                "time_seconds": round(f.seconds, 2),
                "cancelled": f.cancelled,
            }
            for f in index.first_productions(include_cancelled=True)
        ],
        "units_ordered": [
            {"player": index.player_name(p.slot), "slot": p.slot, "type": name, "units": n}
            for p in index.playing
            for name, n in sorted(index.units_ordered(p.slot).items(), key=lambda kv: (-kv[1], kv[0]))
        ],
        "pack_chains": [
            {
                "player": index.player_name(c.player),
                "slot": c.player,
                "steps": [
                    {
                        "action": s.action.value,
                        "time_seconds": round(s.seconds, 2),
                        "object_id": s.object_id,
                        "produced_id": s.produced_id,
                        "from_slot": s.from_player,
                    }
                    for s in c.steps
                ],
            }
            for c in index.pack_chains
        ],
        "ownership_changes": [
            {
                "object_id": c.object_id,
                "from": index.player_name(c.from_player),
                "from_slot": c.from_player,
                "to": index.player_name(c.to_player),
                "to_slot": c.to_player,
                "since_seconds": round(c.since_time_code / TICKS_PER_SECOND, 2),
                "by_seconds": round(c.by_time_code / TICKS_PER_SECOND, 2),
                "enter_order_seconds": None
                if c.order_time_code is None
                else round(c.order_time_code / TICKS_PER_SECOND, 2),
            }
            for c in index.all_ownership_changes()
        ],
        "other_deploys": [
            {
                "player": index.player_name(c.player),
                "slot": c.player,
                "steps": [{"time_seconds": round(s.seconds, 2), "object_id": s.object_id} for s in c.steps],
            }
            for c in index.other_deploys
        ],
    }


def object_json(index: ReplayFactIndex, object_id: int) -> dict[str, Any]:
    """Everything known about one object id: existence, likely owner, evidence and the events naming it."""
    o = index.owner(object_id)
    events = index.events_for_object(object_id)
    return {
        "object_id": object_id,
        "exists": index.id_exists(object_id),
        "first_seen_seconds": None if (t := index.first_seen(object_id)) is None else round(t, 2),
        "owner": None if o.player is None else index.player_name(o.player),
        "owner_slot": o.player,
        "owner_strength": None if o.strength is None else o.strength.value,
        "conflict": o.conflict,
        "strong_players": [index.player_name(p) for p in o.strong_players],
        "weak_players": [index.player_name(p) for p in o.weak_players],
        "evidence": [
            {
                "player": index.player_name(e.player),
                "slot": e.player,
                "strength": e.strength.value,
                "role": e.role.value,
                "command": f"0x{e.command_id:03X}",
                "time_seconds": round(e.seconds, 2),
            }
            for e in index.evidence(object_id)
        ],
        "event_count": len(events),
    }


def render_object(index: ReplayFactIndex, object_id: int, lang: Lang) -> str:
    """Text report of one object id (``replaysage facts FILE --object ID``)."""
    from app.replay.commands import command_info

    z = lang is Lang.ZH
    if not index.id_exists(object_id):
        return tr(lang, "Object #{object_id} appears in no command.", object_id=object_id)
    o = index.owner(object_id)
    first = index.first_seen(object_id) or 0.0
    lines = [tr(lang, "Object #{object_id}, first seen {first}", object_id=object_id, first=format_time(first))]
    if o.conflict:
        who = ", ".join(index.player_name(p) for p in o.strong_players)
        lines.append(tr(lang, "Owner: conflict (strong evidence from {who})", who=who))
    elif o.player is not None and o.strength is not None:
        strength = {"strong": "强", "weak": "弱"}[o.strength.value] if z else o.strength.value
        lines.append(
            tr(lang, "Owner: {player} ({strength} evidence)", player=index.player_name(o.player), strength=strength)
        )
    else:
        lines.append(tr(lang, "Owner: no evidence"))
    ev = index.evidence(object_id)
    if ev:
        lines.append(tr(lang, "Evidence:"))
        for e in ev[:MAX_OBJECT_EVENTS]:
            name = command_info(index.replay.game, e.command_id).name(lang.value)
            lines.append(
                f"  {format_time(e.seconds)}  {index.player_name(e.player)}  {e.strength.value}  {e.role.value}  {name}"
            )
        if len(ev) > MAX_OBJECT_EVENTS:
            lines.append(tr(lang, "  … {value} more", value=len(ev) - MAX_OBJECT_EVENTS))
    events = index.events_for_object(object_id)
    lines.append(tr(lang, "Commands involving it: {count}", count=len(events)))
    for fe in events[:MAX_OBJECT_EVENTS]:
        name = command_info(index.replay.game, fe.command_id).name(lang.value)
        what = f" {index.name_of(fe.type_hash)}" if fe.type_hash is not None else ""
        lines.append(f"  {format_time(fe.seconds)}  {index.player_name(fe.player)}  {name}{what}")
    if len(events) > MAX_OBJECT_EVENTS:
        lines.append(tr(lang, "  … {value} more", value=len(events) - MAX_OBJECT_EVENTS))
    return "\n".join(lines)
