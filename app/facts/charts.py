"""What the analysis view's charts show, computed from a replay's fact index (no Qt; the widgets only draw).

Three pictures of one replay, each with its text alternative (:func:`charts_markdown`, used by the reports):

* **Build order** per player: every structure placed (``build_order``: placements and Empire cores; wall segments
  left out) and the first order of each unit type (``first_productions(UNIT)``) on a time axis, each with its tier
  where the knowledge tags one (``tier2``/``tier3`` structures and units, ``tech_level`` upgrades), and the moment
  each tier was first reached (:attr:`PlayerBuild.tiers`).
* **Production by category** per player: units queued per minute (0x205 "queue unit" orders that were not taken
  back, counting a shift-click's batch) by the knowledge's tags: infantry, vehicles, aircraft, naval, other; and
  structures placed per minute.
* **Where orders were given**: every order with a target position (moves, attacks, placements, powers, rally
  points) counted on a :data:`HEAT_CELLS` × :data:`HEAT_CELLS` grid over the map's bounds. A replay does not carry
  the map's size, so the bounds are the rectangle every player's positioned orders span (one rectangle for all
  players, so their maps compare).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from app.facts.model import ProductionKind
from app.i18n import NC_, Lang, Msg, pick, tr, trc
from app.timefmt import format_clock

if TYPE_CHECKING:
    from app.facts.index import ReplayFactIndex
    from app.knowledge.model import Entry, Knowledge

BUCKET_SECONDS = 60.0
"""The production chart's bar width: one minute of game time."""
HEAT_CELLS = 32
"""Cells per side of the order heat map."""
CATEGORIES: tuple[str, ...] = ("infantry", "vehicle", "aircraft", "naval", "other", "structure")
"""Production categories, in the order the chart stacks them (structures are placements, the rest units)."""
CATEGORY_LABELS: dict[str, Msg] = {
    "infantry": NC_("production category", "infantry"),
    "vehicle": NC_("production category", "vehicles"),
    "aircraft": NC_("production category", "aircraft"),
    "naval": NC_("production category", "naval"),
    "other": NC_("production category", "other units"),
    "structure": NC_("production category", "structures"),
}
MAP_NINTHS: tuple[tuple[Msg, Msg, Msg], ...] = (
    (NC_("map ninth", "bottom left"), NC_("map ninth", "bottom centre"), NC_("map ninth", "bottom right")),
    (NC_("map ninth", "middle left"), NC_("map ninth", "middle centre"), NC_("map ninth", "middle right")),
    (NC_("map ninth", "top left"), NC_("map ninth", "top centre"), NC_("map ninth", "top right")),
)
"""The map's ninths by row (bottom to top) and column (left to right), as the heat map's sentence names them."""
MAX_TEXT_ITEMS = 8
"""Structures per player in the build order's text alternative (the chart shows them all, and the units)."""


@dataclass(frozen=True, slots=True)
class BuildItem:
    """One mark of the build-order timeline.

    Attributes:
        seconds: game time of the order.
        kind: ``structure`` (placed) or ``unit`` (first order of the type).
        internal: the type's internal name (``SovietBarracks``).
        name_zh: its display name in Chinese (the internal name when the knowledge has none).
        name_en: its display name in English.
        tier: 1, 2 or 3 as the knowledge tags it (1 when it tags none).
    """

    seconds: float
    kind: str
    internal: str
    name_zh: str
    name_en: str
    tier: int = 1

    def name(self, lang: Lang) -> str:
        """The display name in ``lang``."""
        return pick(lang, self.name_zh, self.name_en)


@dataclass(frozen=True, slots=True)
class PlayerBuild:
    """One player's lane of the build-order timeline.

    Attributes:
        slot: the player's slot index.
        name: the player's name as the facts label it.
        faction: the faction played.
        items: structures and key units in time order.
        tiers: ``(tier, seconds)`` of the first order of each tier above 1 (a tier-2/3 structure, unit or tech-level
            upgrade), in time order.
    """

    slot: int
    name: str
    faction: str
    items: tuple[BuildItem, ...]
    tiers: tuple[tuple[int, float], ...] = ()


@dataclass(frozen=True, slots=True)
class PlayerProduction:
    """One player's production per :data:`BUCKET_SECONDS` by category (``counts[category][bucket]``)."""

    slot: int
    name: str
    counts: dict[str, tuple[int, ...]]

    def total(self, category: str) -> int:
        """Everything of ``category`` over the match."""
        return sum(self.counts.get(category, ()))


@dataclass(frozen=True, slots=True)
class PlayerHeat:
    """One player's positioned orders on the heat grid (``grid[row][col]``, row 0 at the bounds' low y)."""

    slot: int
    name: str
    grid: tuple[tuple[int, ...], ...]
    orders: int

    def busiest(self) -> tuple[int, int, int]:
        """``(row, col, count)`` of the cell with the most orders (the first one in row order on a tie)."""
        best = (0, 0, 0)
        for r, row in enumerate(self.grid):
            for c, n in enumerate(row):
                if n > best[2]:
                    best = (r, c, n)
        return best


@dataclass(frozen=True, slots=True)
class ReplayCharts:
    """The three charts' data of one replay.

    Attributes:
        duration: the match length in seconds.
        builds: one build-order lane per playing slot.
        production: production per playing slot.
        heat: positioned orders per playing slot.
        bounds: ``(min_x, min_y, max_x, max_y)`` of the heat grid in world units (None without positioned orders).
    """

    duration: float
    builds: tuple[PlayerBuild, ...]
    production: tuple[PlayerProduction, ...]
    heat: tuple[PlayerHeat, ...]
    bounds: tuple[float, float, float, float] | None = None
    buckets: int = field(default=0)


def charts_to_json(charts: ReplayCharts) -> dict[str, Any]:
    """The charts' data as JSON (the JSON report's ``charts``; :func:`charts_from_json` reads it back)."""
    return asdict(charts)


def charts_from_json(d: dict[str, Any]) -> ReplayCharts:
    """The inverse of :func:`charts_to_json`."""
    bounds = d.get("bounds")
    return ReplayCharts(
        duration=float(d["duration"]),
        builds=tuple(
            PlayerBuild(
                int(b["slot"]),
                str(b["name"]),
                str(b["faction"]),
                tuple(
                    BuildItem(
                        float(i["seconds"]),
                        str(i["kind"]),
                        str(i["internal"]),
                        str(i["name_zh"]),
                        str(i["name_en"]),
                        int(i["tier"]),
                    )
                    for i in b["items"]
                ),
                tuple((int(t), float(sec)) for t, sec in b["tiers"]),
            )
            for b in d["builds"]
        ),
        production=tuple(
            PlayerProduction(
                int(p["slot"]), str(p["name"]), {str(c): tuple(int(v) for v in vs) for c, vs in p["counts"].items()}
            )
            for p in d["production"]
        ),
        heat=tuple(
            PlayerHeat(
                int(h["slot"]), str(h["name"]), tuple(tuple(int(v) for v in row) for row in h["grid"]), int(h["orders"])
            )
            for h in d["heat"]
        ),
        bounds=(float(bounds[0]), float(bounds[1]), float(bounds[2]), float(bounds[3])) if bounds else None,
        buckets=int(d.get("buckets", 0)),
    )


def _entry(k: Knowledge | None, type_hash: int) -> Entry | None:
    return k.lookup(type_hash) if k is not None else None


def _tier(e: Entry | None) -> int:
    if e is None:
        return 1
    if "tier3" in e.tags:
        return 3
    if "tier2" in e.tags:
        return 2
    return 1


def _names(e: Entry | None, internal: str) -> tuple[str, str]:
    if e is None:
        return internal, internal
    return e.name_zh or e.name_en or internal, e.name_en or internal


def _category(e: Entry | None) -> str:
    tags = e.tags if e is not None else ()
    if "aircraft" in tags:
        return "aircraft"
    if "ship" in tags or "submarine" in tags:
        return "naval"
    if "infantry" in tags:
        return "infantry"
    if "vehicle" in tags:
        return "vehicle"
    return "other"


def _builds(index: ReplayFactIndex) -> tuple[PlayerBuild, ...]:
    from app.facts.roles import RoleIds
    from app.replay.commands import START_UPGRADE

    roles = RoleIds(index.replay.game)  # KW 0x22B / TW 0x221 start an upgrade as RA3's 0x203 does
    k = index.knowledge
    out: list[PlayerBuild] = []
    for p in index.playing:
        items: list[BuildItem] = []
        for s in index.build_order(p.slot):
            e = _entry(k, s.type_hash)
            if e is not None and "wall" in e.tags:
                continue
            internal = s.name or index.name_of(s.type_hash)
            items.append(BuildItem(round(s.seconds, 2), "structure", internal, *_names(e, internal), tier=_tier(e)))
        for f in index.first_productions(p.slot, ProductionKind.UNIT):
            e = _entry(k, f.type_hash)
            internal = f.name or index.name_of(f.type_hash)
            items.append(BuildItem(round(f.seconds, 2), "unit", internal, *_names(e, internal), tier=_tier(e)))
        items.sort(key=lambda i: (i.seconds, i.kind, i.internal))
        reached: dict[int, float] = {}
        for it in items:
            if it.tier > 1 and it.tier not in reached:
                reached[it.tier] = it.seconds
        for ev in index.events:
            if ev.player != p.slot or roles[ev.command_id] != START_UPGRADE or ev.type_hash is None:
                continue
            e = _entry(k, ev.type_hash)
            if e is None or "tech_level" not in e.tags:
                continue
            tier = _tier(e)
            if tier > 1 and (tier not in reached or ev.seconds < reached[tier]):
                reached[tier] = round(ev.seconds, 2)
        tiers = tuple(sorted(reached.items(), key=lambda kv: kv[1]))
        out.append(PlayerBuild(p.slot, p.label or p.name, p.played_faction or p.faction, tuple(items), tiers))
    return tuple(out)


def _production(index: ReplayFactIndex, buckets: int) -> tuple[PlayerProduction, ...]:
    from app.facts.index import command_queue_id

    k = index.knowledge
    queue_id = command_queue_id(index.replay.game)
    slots = {p.slot: p for p in index.playing}
    counts: dict[int, dict[str, list[int]]] = {s: {c: [0] * buckets for c in CATEGORIES} for s in slots}

    def bucket(seconds: float) -> int:
        return min(max(int(seconds // BUCKET_SECONDS), 0), buckets - 1)

    for ev in index.events:
        if ev.player not in slots or ev.automatic or ev.type_hash is None or ev.command_id != queue_id:
            continue
        if index.is_cancelled(ev.command_index):
            continue
        e = _entry(k, ev.type_hash)
        if e is not None and e.kind == "structure":
            continue  # an Empire core queued at a yard is a structure: counted with the placements below
        counts[ev.player][_category(e)][bucket(ev.seconds)] += index.batch(ev.command_index)
    for slot in slots:
        for s in index.build_order(slot):
            e = _entry(k, s.type_hash)
            if e is not None and "wall" in e.tags:
                continue
            counts[slot]["structure"][bucket(s.seconds)] += 1
    return tuple(
        PlayerProduction(s, p.label or p.name, {c: tuple(v) for c, v in counts[s].items()}) for s, p in slots.items()
    )


def _heat(
    index: ReplayFactIndex,
) -> tuple[tuple[PlayerHeat, ...], tuple[float, float, float, float] | None]:
    slots = {p.slot: p for p in index.playing}
    points: dict[int, list[tuple[float, float]]] = {s: [] for s in slots}
    for ev in index.events:
        if ev.player in slots and not ev.automatic and ev.position is not None:
            points[ev.player].append(ev.position)
    every = [pt for pts in points.values() for pt in pts]
    if not every:
        empty = tuple(tuple(0 for _ in range(HEAT_CELLS)) for _ in range(HEAT_CELLS))
        return tuple(PlayerHeat(s, p.label or p.name, empty, 0) for s, p in slots.items()), None
    min_x, max_x = min(x for x, _ in every), max(x for x, _ in every)
    min_y, max_y = min(y for _, y in every), max(y for _, y in every)
    span_x, span_y = max(max_x - min_x, 1.0), max(max_y - min_y, 1.0)

    def cell(v: float, low: float, span: float) -> int:
        return min(int((v - low) / span * HEAT_CELLS), HEAT_CELLS - 1)

    out: list[PlayerHeat] = []
    for s, p in slots.items():
        grid = [[0] * HEAT_CELLS for _ in range(HEAT_CELLS)]
        for x, y in points[s]:
            grid[cell(y, min_y, span_y)][cell(x, min_x, span_x)] += 1
        out.append(PlayerHeat(s, p.label or p.name, tuple(tuple(r) for r in grid), len(points[s])))
    return tuple(out), (min_x, min_y, max_x, max_y)


def replay_charts(index: ReplayFactIndex) -> ReplayCharts:
    """The charts' data of the replay ``index`` describes (a few ms over a built index: one pass over its events)."""
    duration = max(float(index.duration_seconds), 1.0)
    buckets = max(1, int(-(-duration // BUCKET_SECONDS)))
    heat, bounds = _heat(index)
    return ReplayCharts(duration, _builds(index), _production(index, buckets), heat, bounds, buckets)


def charts_of_file(path: str) -> ReplayCharts:
    """Parse the replay at ``path`` and compute its charts (the GUI's worker thread and the reports call it)."""
    from pathlib import Path

    from app.facts.index import build_fact_index
    from app.replay.reader import gc_paused, parse_replay, read_replay_bytes

    p = Path(path)
    with gc_paused():  # no full collection holding the GIL in the middle (the analysis view's worker thread)
        return replay_charts(build_fact_index(parse_replay(read_replay_bytes(p), str(p))))


# -- text alternatives ------------------------------------------------------------------------------------------


def build_text(b: PlayerBuild, lang: Lang, limit: int = MAX_TEXT_ITEMS) -> str:
    """One player's build-order lane as a sentence: the first ``limit`` structures and the tier moments."""
    shown = [
        f"{format_clock(i.seconds)} {i.name(lang)}" + (f" (T{i.tier})" if i.tier > 1 else "")
        for i in b.items
        if i.kind == "structure"  # the first units are in the report's openings already
    ]
    more = len(shown) - limit
    text = "; ".join(shown[:limit]) or tr(lang, "none")
    if more > 0:
        text += tr(lang, "; {more} more", more=more)
    if b.tiers:
        reached = ", ".join(f"T{t} {format_clock(s)}" for t, s in b.tiers)
        text += tr(lang, ". Tiers reached: {reached}", reached=reached)
    return text


def production_rows(charts: ReplayCharts, lang: Lang) -> list[list[str]]:
    """Production as a short table: per player the match's total per category and the busiest minute."""
    rows: list[list[str]] = []
    for p in charts.production:
        per_minute = [sum(p.counts[c][b] for c in CATEGORIES) for b in range(charts.buckets)]
        peak = max(range(len(per_minute)), key=lambda b: per_minute[b], default=0)
        busiest = (
            f"{format_clock(peak * BUCKET_SECONDS)} ({per_minute[peak]})" if per_minute and per_minute[peak] else "—"
        )
        rows.append([p.name, *(str(p.total(c)) for c in CATEGORIES), busiest])
    return rows


def heat_text(h: PlayerHeat, bounds: tuple[float, float, float, float] | None, lang: Lang) -> str:
    """Where one player's orders went, as a sentence: how many, and the busiest ninth of the map."""
    if h.orders == 0 or bounds is None:
        return tr(lang, "{name}: no orders with a position", name=h.name)
    thirds = [[0] * 3 for _ in range(3)]
    for r, row in enumerate(h.grid):
        for c, n in enumerate(row):
            thirds[min(r * 3 // HEAT_CELLS, 2)][min(c * 3 // HEAT_CELLS, 2)] += n
    r, c, n = max(((r, c, thirds[r][c]) for r in range(3) for c in range(3)), key=lambda t: (t[2], -t[0], -t[1]))
    return tr(
        lang,
        "{name}: {orders} orders with a position, most in the {ninth} ninth ({share}%)",
        name=h.name,
        orders=h.orders,
        ninth=MAP_NINTHS[r][c](lang),
        share=round(100 * n / h.orders),
    )


def chart_sections(
    charts: ReplayCharts, lang: Lang
) -> list[tuple[str, list[str], list[tuple[list[str], list[list[str]]]]]]:
    """The charts' text alternatives: ``(heading, sentences, tables)`` per chart, for Markdown and HTML alike."""
    out: list[tuple[str, list[str], list[tuple[list[str], list[list[str]]]]]] = []
    out.append(
        (
            tr(lang, "Chart: build-order timeline"),
            [f"{b.name}: {build_text(b, lang)}" for b in charts.builds],
            [],
        )
    )
    header = [
        trc(lang, "app.facts.charts", "Player"),
        *(CATEGORY_LABELS[c](lang) for c in CATEGORIES),
        tr(lang, "Busiest minute"),
    ]
    out.append(
        (
            tr(lang, "Chart: production by category"),
            [tr(lang, "Match totals (units queued and kept)")],
            [(header, production_rows(charts, lang))],
        )
    )
    out.append(
        (
            tr(lang, "Chart: where orders were given"),
            [heat_text(h, charts.bounds, lang) for h in charts.heat],
            [],
        )
    )
    return out


def charts_markdown(charts: ReplayCharts, lang: Lang) -> list[str]:
    """The text alternatives as Markdown lines (names escaped with :func:`app.safetext.markdown_escape`)."""
    from app.safetext import markdown_escape

    lines: list[str] = []
    for heading, sentences, tables in chart_sections(charts, lang):
        lines += ["", f"## {heading}", ""]
        lines += [f"- {markdown_escape(s)}" for s in sentences]
        for head, rows in tables:
            lines.append("")
            if not rows:
                lines.append(markdown_escape(f"{head[0]}: ") + tr(lang, "(none)"))
                continue
            lines.append("| " + " | ".join(markdown_escape(h) for h in head) + " |")
            lines.append("|" + " --- |" * len(head))
            lines += ["| " + " | ".join(markdown_escape(c) for c in row) + " |" for row in rows]
    return lines


def charts_html(charts: ReplayCharts, lang: Lang) -> list[str]:
    """The text alternatives as HTML fragments (every text escaped)."""
    import html

    parts: list[str] = []
    for heading, sentences, tables in chart_sections(charts, lang):
        parts.append(f"<h2>{html.escape(heading)}</h2>")
        if sentences:
            parts.append("<ul>" + "".join(f"<li>{html.escape(s)}</li>" for s in sentences) + "</ul>")
        for head, rows in tables:
            if not rows:
                parts.append(f"<p>{html.escape(head[0])}: {html.escape(tr(lang, '(none)'))}</p>")
                continue
            parts.append(
                "<table><thead><tr>"
                + "".join(f"<th>{html.escape(h)}</th>" for h in head)
                + "</tr></thead><tbody>"
                + "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows)
                + "</tbody></table>"
            )
    return parts
