"""The ``inspect`` report: one dict for ``--json`` (stable keys) and a text rendering in 中文 or English.

The JSON shape is a contract (other tools and tests read it): ``game``, ``mod`` {name, version},
``map`` {name, path}, ``duration_seconds``, ``truncated``, ``commands`` (total) and ``players`` with
``slot``, ``name``, ``faction``, ``team``, ``kind``, ``apm``, ``commands``. Keys are only ever added.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from app.i18n import NC_, Lang, tr, trc
from app.mods import faction_names
from app.replay.commands import CATEGORY_WORDS, Category, command_info
from app.replay.model import ArgKind, Command, Replay, SlotKind, StringArg
from app.replay.names import NameResolver, hash_arg
from app.replay.reader import SEAT_NAMES_ZH
from app.replay.stats import PlayerStats, player_stats
from app.safetext import one_line
from app.timefmt import format_clock, format_time

COLORS = {
    -1: NC_("player colour", "random"),
    0: NC_("player colour", "blue"),
    1: NC_("player colour", "yellow"),
    2: NC_("player colour", "green"),
    3: NC_("player colour", "orange"),
    4: NC_("player colour", "purple"),
    5: NC_("player colour", "red"),
    6: NC_("player colour", "cyan"),
}
"""RA3's player colours by index (KW/TW number theirs differently)."""
clock = format_time  # ``m:ss.cc`` (minutes may exceed 59), under its historical name
KINDS = {
    "human": NC_("slot kind", "human"),
    "ai": NC_("slot kind", "ai"),
    "observer": NC_("slot kind", "observer"),
    "commentator": NC_("slot kind", "commentator"),
}
"""A slot's kind as the player table shows it."""


def faction_zh(faction: str) -> str:
    """A header faction's Chinese name: the mod registry's (every knowledge folder's factions), or a seat's."""
    return {**faction_names("zh"), **SEAT_NAMES_ZH}.get(faction, faction)


def _player_dict(st: PlayerStats) -> dict[str, Any]:
    s = st.slot
    return {
        "slot": s.index,
        "name": s.display_name,
        "kind": s.kind.value,
        "faction": st.faction,
        "faction_header": s.faction,
        "faction_resolved": st.faction_resolved,
        "faction_evidence": [
            {"seconds": round(e.seconds, 2), "command": e.command, "name": e.name, "faction": e.faction}
            for e in st.faction_evidence
        ],
        "team": s.team,
        "color": s.color,
        "start_position": s.start_position,
        "handicap": s.handicap,
        "clan": s.clan,
        "ai_difficulty": s.ai_difficulty or None,
        "apm": st.apm,
        "actions": st.actions,
        "commands": st.commands,
        "first_action": None if st.first_action is None else round(st.first_action, 2),
        "last_action": None if st.last_action is None else round(st.last_action, 2),
        "apm_bucket_seconds": st.bucket_seconds,
        "apm_buckets": st.apm_buckets,
        "by_category": st.by_category,
        "by_command": st.by_command,
    }


def report(replay: Replay, stats: list[PlayerStats] | None = None) -> dict[str, Any]:
    """The machine-readable inspection of a replay (see the module docstring for the stable keys)."""
    h = replay.header
    stats = stats if stats is not None else player_stats(replay)
    return {
        "file": replay.path,
        "game": h.game.value,
        "version": h.version_text,
        "mod": {"name": h.mod_name, "version": h.mod_version},
        "map": {"name": h.map_name, "path": h.map_path, "crc": h.map_crc},
        "title": h.title,
        "start_utc": h.utc_time.isoformat(),
        "start_local": h.local_time.isoformat() if h.local_time else None,
        "seed": h.seed,
        "replay_saver": h.replay_saver,
        "duration_seconds": round(replay.duration_seconds, 2),
        "footer_seconds": replay.footer.seconds if replay.footer else None,
        "truncated": replay.truncated,
        "truncation_reason": replay.truncation_reason or None,
        "chunks": replay.chunk_count,
        "commands": len(replay.commands),
        "players": [_player_dict(st) for st in stats],
    }


def format_args(replay: Replay, cmd: Command, names: NameResolver) -> str:
    """Arguments for the timeline: type hashes as names, objects as ``#id``, positions as ``(x, y)``."""
    spec = hash_arg(replay.game, cmd.command_id)
    hash_index = spec[0] if spec is not None else -1
    parts: list[str] = []
    for i, (arg, kind) in enumerate(zip(cmd.args, cmd.kinds, strict=True)):
        if i == hash_index and isinstance(arg, int):
            parts.append(names.name(arg))
        elif kind is ArgKind.POSITION and isinstance(arg, tuple):
            parts.append(f"({arg[0]:.0f}, {arg[1]:.0f})")
        elif kind in (ArgKind.OBJECT, ArgKind.DRAWABLE):
            parts.append(f"#{arg}")
        elif kind is ArgKind.FLOAT and isinstance(arg, float):
            parts.append(f"{arg:.2f}")
        elif kind is ArgKind.BOOL:
            parts.append("true" if arg else "false")
        elif isinstance(arg, StringArg):
            parts.append(repr(str(arg)) if isinstance(arg.value, str) else str(arg))
        elif kind is ArgKind.INT and isinstance(arg, int) and arg >= 0x80000000:
            parts.append(str(arg - 0x100000000))  # ints are stored unsigned; -1 reads better than 4294967295
        else:
            parts.append(str(arg))
    return " ".join(parts)


def timeline(replay: Replay, *, include_automatic: bool = False, lang: Lang = Lang.EN) -> list[dict[str, Any]]:
    """Every command as a row (automatic ones only when asked)."""
    names = NameResolver.for_mod(replay.header.mod_name)
    slots = {s.index: s for s in replay.header.slots}
    rows: list[dict[str, Any]] = []
    for cmd in replay.commands:
        info = command_info(replay.game, cmd.command_id)
        if info.automatic and not include_automatic:
            continue
        slot = slots.get(cmd.player)
        rows.append(
            {
                "time": clock(cmd.seconds),
                "time_code": cmd.time_code,
                "slot": cmd.player,
                "player": slot.display_name if slot else f"#{cmd.player_field}",
                "command_id": f"0x{cmd.command_id:03X}",
                "command": info.name(lang),
                "category": info.category.value,
                "args": format_args(replay, cmd, names),
            }
        )
    return rows


def render_text(rep: dict[str, Any], lang: Lang) -> str:
    """Human-readable inspection (text from the file, such as names, is shown on one line each)."""
    dur = rep["duration_seconds"]
    lines = [
        f"{tr(lang, 'File')}: {rep['file']}",
        f"{tr(lang, 'Game')}: {rep['game'].upper()} {rep['version']}   "
        f"{tr(lang, 'Mod')}: {rep['mod']['name']} {rep['mod']['version']}".rstrip(),
        f"{tr(lang, 'Map')}: {one_line(rep['map']['name'])} ({one_line(rep['map']['path'])})",
        f"{tr(lang, 'Duration')}: {format_clock(dur)}   "
        f"{tr(lang, 'Commands')}: {rep['commands']}   {tr(lang, 'Started')}: {rep['start_utc']}",
    ]
    if rep["truncated"]:
        lines.append(
            tr(
                lang,
                "Truncated replay (complete part kept): {truncation_reason}",
                truncation_reason=rep["truncation_reason"],
            )
        )
    lines.append("")
    factions = [_faction_cell(p, lang) for p in rep["players"]]
    fw = max([12, *(_width(f) for f in factions)])  # the column fits every faction ("Marked of Kane (rnd)")
    name, kind = trc(lang, "app.replay.inspect", "Name"), trc(lang, "app.replay.inspect", "Kind")
    head = (
        f"{_rjust(tr(lang, 'Slot'), 4)}  {_ljust(name, 20)} {_ljust(tr(lang, 'Faction'), fw)} "
        f"{_rjust(tr(lang, 'Team'), 4)} {_ljust(tr(lang, 'Colour'), 7)} {_ljust(kind, 11)} "
        f"{'APM':>6} {_rjust(tr(lang, 'Actions'), 7)} {_rjust(tr(lang, 'Cmds'), 6)}"
    )
    lines.append(head)
    for p, faction in zip(rep["players"], factions, strict=True):
        team = "-" if p["team"] < 0 else str(p["team"] + 1)
        colours = COLORS if rep["game"] == "ra3" else {}  # KW/TW differ
        colour = colours[p["color"]](lang) if p["color"] in colours else str(p["color"])
        kind = KINDS[p["kind"]](lang) if p["kind"] in KINDS else p["kind"]
        lines.append(
            f"{p['slot']:>4}  {_ljust(one_line(p['name']), 20)} {_ljust(faction, fw)} {team:>4} "
            f"{_ljust(colour, 7)} {_ljust(kind, 11)} "
            f"{p['apm']:>6.1f} {p['actions']:>7} {p['commands']:>6}"
        )
    for p in rep["players"]:
        if p["kind"] not in (SlotKind.HUMAN.value, SlotKind.AI.value) or not p["actions"]:
            continue
        cats = ", ".join(f"{_category(k, lang)} {v}" for k, v in p["by_category"].items() if k != "automatic")
        lines.append(f"  {one_line(p['name'])}: {cats}")
        if p["faction_resolved"] and p["faction_evidence"]:
            ev = "; ".join(f"{clock(e['seconds'])} {e['name']}" for e in p["faction_evidence"][:3])
            lines.append(f"    {tr(lang, 'Random faction evidence')}: {ev}")
    return "\n".join(lines)


def _category(code: str, lang: Lang) -> str:
    """A command category's code ("order_other") as people read it; an unknown code as it is."""
    try:
        return CATEGORY_WORDS[Category(code)](lang)
    except ValueError:
        return code


def _faction_cell(p: dict[str, Any], lang: Lang) -> str:
    """A player's faction as the table shows it: the display name, marked when resolved from a Random seat."""
    faction = str(p["faction"])
    if lang is Lang.ZH:
        faction = faction_zh(faction)
    if p["faction_resolved"]:
        faction += "(随机)" if lang is Lang.ZH else " (rnd)"
    return faction


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _ljust(text: str, width: int) -> str:
    """Pad to a display width (CJK characters take two columns), cutting what does not fit."""
    while _width(text) > width:
        text = text[:-1]
    return text + " " * (width - _width(text))


def _rjust(text: str, width: int) -> str:
    return " " * max(0, width - _width(text)) + text


def render_timeline(rows: list[dict[str, Any]]) -> str:
    """``m:ss.cc  Player  Command  args`` lines."""
    names = {r["player"]: one_line(r["player"]) for r in rows}
    width = max((len(n) for n in names.values()), default=6)
    return "\n".join(
        f"{r['time']:>9}  {names[r['player']]:<{width}}  {r['command']}  {one_line(r['args'])}".rstrip() for r in rows
    )
