"""The deterministic match summary (plan §5.3): what happened, in 2–5K tokens, from the fact index alone.

It sits in the cached prompt prefix of every analysis request (system + summary + overview), so the same replay
must give byte-identical text: everything is sorted by explicit keys, samples are picked by index arithmetic, and
floats are formatted with fixed precision. The segment section takes its time ranges as a parameter because the
budget layer decides the segments (``app.budget.segment``); without them the match is split into
:data:`DEFAULT_SEGMENT_SECONDS` windows.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress

from app.facts.eventlog import counted_in, counts_as_event, format_time, power_role_parts
from app.facts.index import POWER_LAYOUT_ROLES, ReplayFactIndex, command_queue_id
from app.facts.model import TICKS_PER_SECOND, BuildStep, FactEvent, OwnerChange, PackAction, ProductionKind, Strength
from app.facts.roles import role_of
from app.i18n import N_, NC_, Lang, Msg, tr
from app.knowledge.faction_names import faction_display
from app.knowledge.terms import GameTerms, game_terms
from app.replay.commands import CATEGORY_WORDS, Category, command_info
from app.safetext import markdown_fence, name_label, one_line

DEFAULT_SEGMENT_SECONDS = 240.0
BUILD_ORDER_STEPS = 14
SAMPLES_PER_SEGMENT = 8
MAX_FACTORIES = 8
MAX_GROUPS = 6
MAX_DEPLOYS = 8
MAP_LABEL_MAX = 80

_SAMPLE_CATEGORIES = frozenset(
    {Category.BUILD, Category.PLACE, Category.SELL, Category.POWER, Category.PROTOCOL, Category.UPGRADE}
)
_COUNT_CATEGORIES = (
    Category.PLACE,
    Category.PRODUCTION,
    Category.SELL,
    Category.REPAIR,
    Category.POWER,
    Category.UPGRADE,
    Category.PROTOCOL,
)

_T: dict[str, Msg] = {
    "title": N_("# Match summary (deterministic, from the replay's commands)"),
    "map": N_("Map"),
    "mod": N_("Mod"),
    "duration": N_("Duration"),
    "players": N_("## Players"),
    "team": N_("team"),
    "no_team": N_("none"),
    "observers": N_("Observers"),
    "ai_note": N_("computer player: its actions are not recorded as orders, so no orders does not mean no activity"),
    "build": N_(
        "## Build order (structures placed and Empire cores, first {n}; repeats in a row as ×n, walls counted apart)"
    ),
    "build_plain": N_("## Build order (structures placed, first {n}; repeats in a row as ×n, walls counted apart)"),
    "walls": N_("walls"),
    "deployers": N_("deployable units this player ordered"),
    "cancelled": N_("cancelled, never produced"),
    "deploys": N_("other deploys (not MCVs)"),
    "deploy_kinds": N_("this faction's deploying units"),
    "cores": N_("Empire cores"),
    "vehicle": N_("became #{n}"),
    "captured": N_("took over"),
    "from": N_("was {p}'s"),
    "first": N_("## First-production timeline (first order of each type)"),
    "units": N_("units"),
    "ordered": N_('units ordered (cancelled ones included; one shift-click "Queue unit ×5" orders five)'),
    "units_n": N_("{n} units queued"),
    "structures": N_("structures"),
    "chains": N_("## MCV pack/unpack chains (MCV-class entities only)"),
    "no_chains": N_("No MCV packs or unpacks."),
    "produce": N_("MCV queued at"),
    "pack": N_("pack"),
    "unpack": N_("unpack"),
    "captured_step": NC_("app.facts.summary", "captured"),
    "new_yard": N_("new yard"),
    "ownership": N_("## Builders, producers and ownership evidence"),
    "builders": N_("builders"),
    "factories": N_("factories"),
    "strong": N_("objects with strong evidence"),
    "weak": N_("objects with weak evidence only"),
    "groups": N_("groups"),
    "conflicts": N_("Objects with strong evidence from several players (undecidable)"),
    "no_conflicts": N_("No conflicting strong evidence."),
    "changes": N_(
        "Objects that changed hands (engineer capture, hijack, re-crew after a pilot snipe; the window it happened in)"
    ),
    "entered": N_("enter order"),
    "rules": N_(
        "Note: strong = group member, builder/factory, upgrade, rally point, repair, sell, "
        "harvester order, the single source of a power; weak = selection (may be a click on an "
        "enemy unit), membership of a selected group that used an ability (not necessarily a "
        'caster). Power lines read "on #target by #source"; a source with a very low id (such as '
        "#1…#{n}) is the player's own object (a protocol power), not a unit."
    ),
    "rules_plain": N_(
        "Note: strong = group member, builder/factory, upgrade, rally point, repair, sell, "
        "harvester order, the single source of a power; weak = selection (may be a click on an "
        "enemy unit), membership of a selected group that used an ability (not necessarily a "
        "caster)."
    ),
    "support_powers": N_("## Support powers (times used, first use)"),
    "protocols": N_("## Protocol picks"),
    "none": N_("none"),
    "segments": N_("## Segments (time range, event counts, sampled key events)"),
    "segment": N_("Segment"),
    "events": N_("events"),
    "samples": N_("samples"),
    "more": N_("{n} more"),
}


_KIND = {"human": NC_("player kind", "human"), "ai": NC_("player kind", "ai")}


def _category(lang: Lang, c: Category) -> str:
    return CATEGORY_WORDS[c](lang)


def _t(lang: Lang, key: str) -> str:
    return _T[key](lang)


def default_segments(duration_seconds: float, size: float = DEFAULT_SEGMENT_SECONDS) -> list[tuple[float, float]]:
    """Windows of ``size`` seconds covering the match (one at least); a tail under a quarter window joins the last."""
    n = max(1, math.ceil(duration_seconds / size))
    if n > 1 and duration_seconds - (n - 1) * size < size / 4:
        n -= 1
    return [(i * size, duration_seconds if i == n - 1 else (i + 1) * size) for i in range(n)]


@dataclass(frozen=True, slots=True)
class _Ctx:
    index: ReplayFactIndex
    lang: Lang
    terms: GameTerms

    def t(self, key: str) -> str:
        return _t(self.lang, key)

    def say(self, key: str, **values: object) -> str:
        """A text with the game's words filled in (``{w_harvester}``: 矿车 in RA3, 采集车 in KW/TW)."""
        return self.t(key).format(**self.terms.fill(self.lang), **values)

    def label(self, command_id: int) -> str:
        return command_info(self.index.replay.game, command_id).name(self.lang.value)


def build_summary(
    index: ReplayFactIndex,
    lang: Lang = Lang.EN,
    segments: Sequence[tuple[float, float]] | None = None,
) -> str:
    """Render the match summary.

    Args:
        index: The replay's fact index.
        lang: Output language.
        segments: ``(start_seconds, end_seconds)`` per analysis segment; ``None`` = :func:`default_segments`.

    Returns:
        Markdown text ending with a newline; identical for identical inputs.
    """
    ctx = _Ctx(index, lang, game_terms(index.knowledge))
    segs = list(segments) if segments is not None else default_segments(index.duration_seconds)
    parts = [
        _header(ctx),
        _build_order(ctx),
        _first_production(ctx),
        _chains(ctx),
        _ownership(ctx),
        _protocols(ctx) if ctx.terms.protocols or not ctx.terms.support_powers else _support_powers(ctx),
        _segments(ctx, segs),
    ]
    return "\n\n".join(p.rstrip("\n") for p in parts) + "\n"


def _header(ctx: _Ctx) -> str:
    ix = ctx.index
    h = ix.replay.header
    mod = one_line(h.mod_name + (f" {h.mod_version}" if h.mod_version else ""))
    where = f"{name_label(h.map_name, MAP_LABEL_MAX)} ({name_label(h.map_path, MAP_LABEL_MAX)})"
    lines = [
        ctx.t("title"),
        f"{ctx.t('map')}: {where}  |  {ctx.t('mod')}: {mod} ({h.version_text})  |  "
        f"{ctx.t('duration')}: {format_time(ix.duration_seconds)}",
        "",
        ctx.t("players"),
    ]
    table = []  # fenced: names are data, and no name can start a line or close the fence
    for p in ix.playing:
        team = str(p.team + 1) if p.team >= 0 else ctx.t("no_team")
        kind = _KIND[p.kind](ctx.lang) if p.kind in _KIND else p.kind
        faction = faction_display(p.faction, ctx.lang) if p.faction else "?"  # 中文: the knowledge's names
        if p.played_faction and p.played_faction != p.faction:
            faction += f" → {faction_display(p.played_faction, ctx.lang)}"
        note = f" ({ctx.t('ai_note')})" if p.kind == "ai" else ""
        table.append(f"- P{p.slot} {p.label}: {faction}, {ctx.t('team')} {team}, {kind}{note}")
    observers = [
        p.label for p in ix.players if p.kind in ("observer", "commentator") and p.slot != h.post_commentator_slot
    ]
    if observers:
        table.append(f"- {ctx.t('observers')}: {', '.join(observers)}")
    lines.append(markdown_fence("\n".join(table)))
    lines.extend(_departures_and_knowledge(ctx))
    return "\n".join(lines)


def _departures_and_knowledge(ctx: _Ctx) -> list[str]:
    """Who left first (KW/TW "player left" message) and a plain statement when the mod has no knowledge."""
    from app.knowledge.names import knowledge_mod

    ix = ctx.index
    out = [
        tr(ctx.lang, "- Left: {player} at {time}", player=ix.player_name(d.player), time=format_time(d.seconds))
        for d in ix.departures
    ]
    if not knowledge_mod(ix.replay.header.mod_name):
        out.append(tr(ctx.lang, "- Note: no game knowledge for this game/mod; types can only be shown as hashes."))
    return out


def _build_order(ctx: _Ctx) -> str:
    ix = ctx.index
    lines = [ctx.t("build" if ctx.terms.cores else "build_plain").format(n=BUILD_ORDER_STEPS)]
    for p in ix.playing:
        steps, walls = collapse_build_order(ix, p.slot)
        shown = "; ".join(
            f"{format_time(s.seconds)} {s.name}" + (f" ×{n}" if n > 1 else "") for s, n in steps[:BUILD_ORDER_STEPS]
        )
        if len(steps) > BUILD_ORDER_STEPS:
            shown += f"; ({ctx.t('more').format(n=len(steps) - BUILD_ORDER_STEPS)})"
        if walls:
            span = f"{format_time(walls[0].seconds)}–{format_time(walls[-1].seconds)}"
            shown += f"; {ctx.t('walls')} ×{len(walls)} ({span})"
        lines.append(f"- {p.label}: {shown or ctx.t('none')}")
    return "\n".join(lines)


def collapse_build_order(index: ReplayFactIndex, player: int) -> tuple[list[tuple[BuildStep, int]], list[BuildStep]]:
    """A player's build order as ``(first step, repeats)`` runs of the same type in a row, and the walls apart.

    Walls are a third of some build orders and hide the structures that matter, so they are counted separately
    (knowledge tag ``wall``; names with ``Wall`` when there is no knowledge).
    """
    k = index.knowledge
    runs: list[tuple[BuildStep, int]] = []
    walls: list[BuildStep] = []
    for step in index.build_order(player):
        if k.has_tag(step.type_hash, "wall") if k is not None else "Wall" in step.name:
            walls.append(step)
        elif runs and runs[-1][0].type_hash == step.type_hash:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((step, 1))
    return runs, walls


def _first_production(ctx: _Ctx) -> str:
    ix = ctx.index
    lines = [ctx.t("first")]
    for p in ix.playing:
        for kind, key in ((ProductionKind.STRUCTURE, "structures"), (ProductionKind.UNIT, "units")):
            firsts = ix.first_productions(p.slot, kind, include_cancelled=True)
            shown = "; ".join(
                f"{format_time(f.seconds)} {f.name}" + (f" ({ctx.t('cancelled')})" if f.cancelled else "")
                for f in firsts
            ) or ctx.t("none")
            lines.append(f"- {p.label} {ctx.t(key)}: {shown}")
        ordered = ix.units_ordered(p.slot)
        if ordered:
            counts = ", ".join(f"{name} {n}" for name, n in sorted(ordered.items(), key=lambda kv: (-kv[1], kv[0])))
            lines.append(f"- {p.label} {ctx.t('ordered')}: {counts}")
    return "\n".join(lines)


def _chains(ctx: _Ctx) -> str:
    ix = ctx.index
    lines = [ctx.t("chains")]
    if not ix.pack_chains:
        lines.append(ctx.t("no_chains"))
    for chain in ix.pack_chains:
        steps = []
        for s in chain.steps:
            word = ctx.t("captured_step" if s.action is PackAction.CAPTURED else s.action.value)
            pos = f" ({round(s.position[0])},{round(s.position[1])})" if s.position else ""
            became = ""
            if s.action in (PackAction.PACK, PackAction.PRODUCE) and s.produced_id is not None:
                became = f" ({ctx.t('vehicle').format(n=s.produced_id)})"
            elif s.action is PackAction.CAPTURED and s.from_player is not None:
                became = f" ({ctx.t('from').format(p=ix.player_name(s.from_player))})"
            steps.append(f"{format_time(s.seconds)} {word} #{s.object_id}{pos}{became}")
        lines.append(f"- {ix.player_name(chain.player)}: " + " → ".join(steps))
    for chain in ix.other_deploys:
        if any(s.command_id == 0x205 for s in ix.build_order(chain.player)):
            continue  # an Empire player's deploys are the cores its build order already lists
        shown = "; ".join(
            f"{format_time(s.seconds)} #{s.object_id}"
            + (f" ({round(s.position[0])},{round(s.position[1])})" if s.position else "")
            for s in chain.steps[:MAX_DEPLOYS]
        )
        if len(chain.steps) > MAX_DEPLOYS:
            shown += f"; ({ctx.t('more').format(n=len(chain.steps) - MAX_DEPLOYS)})"
        k = ix.knowledge
        deployers = [
            f.name
            for f in ix.first_productions(chain.player, ProductionKind.UNIT)
            if k is not None and k.has_tag(f.type_hash, "deploy")
        ]
        if deployers:
            shown += f" — {ctx.t('deployers')}: {', '.join(deployers)}"
        kinds = "" if deployers else _deploy_kinds(ctx, chain.player)
        label = ctx.t("deploys") + (f"; {ctx.t('deploy_kinds')}: {kinds}" if kinds else "")
        lines.append(f"- {ix.player_name(chain.player)} {label}: {shown}")
    return "\n".join(lines)


def _deploy_kinds(ctx: _Ctx, slot: int) -> str:
    """What a non-MCV deploy of this player can be, from the knowledge of the player's own faction.

    The hint follows the match: an Empire player's deploys are cores, a Celestial player's miners; a faction whose
    knowledge names no deploying unit gets no hint (a Soviet deploy is never called an Empire core).
    """
    ix = ctx.index
    k = ix.knowledge
    player = next((p for p in ix.players if p.slot == slot), None)
    if k is None or player is None:
        return ""
    factions = {f for f in (player.played_faction, player.faction) if f}
    found = [e for e in k if e.kind == "unit" and e.faction in factions and (e.has_tag("core") or e.has_tag("deploy"))]
    if any(e.has_tag("core") for e in found):
        return ctx.t("cores")
    return ", ".join(sorted(e.id for e in found)[:3])


def _ownership(ctx: _Ctx) -> str:
    ix = ctx.index
    rules = "rules" if ctx.terms.protocols else "rules_plain"  # the power-line note explains protocol powers
    lines = [ctx.t("ownership"), ctx.say(rules, n=len(ix.playing))]
    strong_count: Counter[int] = Counter()
    weak_count: Counter[int] = Counter()
    conflicts: list[tuple[int, tuple[int, ...]]] = []
    for oid in sorted(ix.evidence_ids()):
        o = ix.owner(oid)
        if o.conflict:
            conflicts.append((oid, o.strong_players))
        elif o.player is not None:
            (strong_count if o.strength is Strength.STRONG else weak_count)[o.player] += 1
    for p in ix.playing:
        builders = " ".join(f"#{i}" for i in ix.constructors(p.slot)) or ctx.t("none")
        facts = ix.factories(p.slot)
        fac_text = "; ".join(f"#{fid} {'/'.join(names[:3])}" for fid, names in facts[:MAX_FACTORIES])
        if len(facts) > MAX_FACTORIES:
            fac_text += f"; ({ctx.t('more').format(n=len(facts) - MAX_FACTORIES)})"
        groups = []
        for g in ix.groups_of(p.slot)[:MAX_GROUPS]:
            hist = ix.group_history(p.slot, g)
            groups.append(f"[{g}]×{len(hist)}")
        lines.append(
            f"- {p.label}: {ctx.t('builders')} {builders}; {ctx.t('factories')} {fac_text or ctx.t('none')}; "
            f"{ctx.t('strong')} {strong_count[p.slot]}, {ctx.t('weak')} {weak_count[p.slot]}; "
            f"{ctx.t('groups')} {' '.join(groups) or ctx.t('none')}"
        )
    changes = ix.all_ownership_changes()
    if changes:
        shown = "; ".join(_change_text(ctx, c) for c in changes[:10])
        more = f"; ({ctx.t('more').format(n=len(changes) - 10)})" if len(changes) > 10 else ""
        lines.append(f"{ctx.t('changes')}: {shown}{more}")
    if conflicts:
        shown = "; ".join(
            f"#{oid} ({', '.join(ix.player_name(p) for p in players)})" for oid, players in conflicts[:10]
        )
        more = f"; ({ctx.t('more').format(n=len(conflicts) - 10)})" if len(conflicts) > 10 else ""
        lines.append(f"{ctx.t('conflicts')}: {shown}{more}")
    else:
        lines.append(ctx.t("no_conflicts"))
    return "\n".join(lines)


def _change_text(ctx: _Ctx, c: OwnerChange) -> str:
    """``#439 H2O → LostLamb 9:08.07–9:14.27 (entered 9:08.07)``: who, and the window the change lies in."""
    ix = ctx.index
    since, by = format_time(c.since_time_code / TICKS_PER_SECOND), format_time(c.by_time_code / TICKS_PER_SECOND)
    how = f" ({ctx.t('entered')} {since})" if c.order_time_code is not None else ""
    return f"#{c.object_id} {ix.player_name(c.from_player)} → {ix.player_name(c.to_player)} {since}–{by}{how}"


def _protocols(ctx: _Ctx) -> str:
    ix = ctx.index
    lines = [ctx.t("protocols")]
    for p in ix.playing:
        picks = ix.protocols_of(p.slot)
        shown = "; ".join(f"{format_time(x.seconds)} {x.name}" for x in picks) or ctx.t("none")
        lines.append(f"- {p.label}: {shown}")
    return "\n".join(lines)


def _support_powers(ctx: _Ctx) -> str:
    """Each player's support powers (knowledge tag ``player_power``): how often, and when first (KW/TW)."""
    ix = ctx.index
    k = ix.knowledge
    lines = [ctx.t("support_powers")]
    for p in ix.playing:
        used: dict[str, list[float]] = {}
        for ev in ix.iter_events_between(0.0, math.inf, categories=[Category.POWER], player=p.slot):
            if ev.type_hash is not None and k is not None and k.has_tag(ev.type_hash, "player_power"):
                used.setdefault(ix.name_of(ev.type_hash), []).append(ev.seconds)
        shown = "; ".join(
            f"{name} ×{len(times)} ({format_time(times[0])})"
            for name, times in sorted(used.items(), key=lambda kv: (kv[1][0], kv[0]))
        )
        lines.append(f"- {p.label}: {shown or ctx.t('none')}")
    return "\n".join(lines)


def _is_repeat(ev: FactEvent, prev: FactEvent | None) -> bool:
    """A second click on the same structure button (0x207 ×n) adds nothing to a sample."""
    return (
        prev is not None
        and prev.player == ev.player
        and prev.command_id == ev.command_id
        and prev.type_hash == ev.type_hash
    )


def sample_key_events(
    index: ReplayFactIndex, start_seconds: float, end_seconds: float, k: int = SAMPLES_PER_SEGMENT
) -> list[FactEvent]:
    """Up to ``k`` build/place/sell/power/protocol/upgrade events of a range, evenly spread (deterministic).

    Every protocol pick is kept (even beyond ``k``); the rest are spread evenly over placements and sales when
    there are enough of them, else over all candidates.
    """
    players = {p.slot for p in index.playing}
    cands: list[FactEvent] = []
    last: dict[int, FactEvent] = {}
    for ev in index.iter_events_between(start_seconds, end_seconds, categories=_SAMPLE_CATEGORIES):
        if ev.player not in players:
            continue
        if not _is_repeat(ev, last.get(ev.player)):
            cands.append(ev)
        last[ev.player] = ev
    if len(cands) <= k:
        return cands
    chosen = {e.command_index for e in cands if e.category is Category.PROTOCOL}  # rare and decisive: all of them
    room = k - len(chosen)
    if room > 0:
        rest = [e for e in cands if e.command_index not in chosen]
        placed = [e for e in rest if e.category in (Category.PLACE, Category.SELL)]
        pool = placed if len(placed) >= room else rest
        if room == 1:
            chosen.add(pool[0].command_index)
        else:
            chosen.update(pool[round(i * (len(pool) - 1) / (room - 1))].command_index for i in range(room))
    return [e for e in cands if e.command_index in chosen]


def _segments(ctx: _Ctx, segs: Sequence[tuple[float, float]]) -> str:
    ix = ctx.index
    lines = [ctx.t("segments")]
    players = frozenset(p.slot for p in ix.playing)
    queue_id = command_queue_id(ix.replay.game)
    for n, (start, end) in enumerate(segs, 1):
        # the same events the log's blocks and the segment metadata count (the last segment runs to the end)
        span = ix.event_span(start, end if n < len(segs) else math.inf)
        cats = counted_in(ix, span, players)  # on the columns: no event is built
        units = sum(
            ix.batch(e.command_index)
            for e in ix.events.select(compress(span, map(queue_id.__eq__, ix.events.ids[span.start : span.stop])))
            if counts_as_event(e, players)
        )
        total = cats.total()
        counts = ", ".join(
            f"{_category(ctx.lang, c)} {cats[c]}"
            + (f" ({ctx.t('units_n').format(n=units)})" if c is Category.PRODUCTION and units != cats[c] else "")
            for c in _COUNT_CATEGORIES
            if cats[c]
        )
        lines.append(
            f"### {ctx.t('segment')} {n}: {format_time(start)}–{format_time(end)} — "
            f"{ctx.t('events')} {total}" + (f" ({counts})" if counts else "")
        )
        for ev in sample_key_events(ix, start, end, SAMPLES_PER_SEGMENT):
            what = ctx.label(ev.command_id)
            name = f" {ix.name_of(ev.type_hash)}" if ev.type_hash is not None else ""
            if role_of(ix.replay.game, ev.command_id)[0] in POWER_LAYOUT_ROLES[ix.replay.game]:
                ids = " ".join(power_role_parts(ev, ctx.lang))
            else:
                ids = " ".join(f"#{i}" for i in ev.object_ids[:3] if i)
            tail = f" {ids}" if ids else ""
            lines.append(f"- {format_time(ev.seconds)} {ix.player_name(ev.player)} {what}{name}{tail}")
    return "\n".join(lines)
