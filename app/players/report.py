"""A player profile as Markdown (terminal and ``.md``) or HTML: the same sections and tables in both.

Names, maps and paths come from replays and are data: Markdown cells pass :func:`app.safetext.markdown_escape`,
HTML cells :func:`html.escape` of the one-line text. Every table is text, so it is also the text alternative of
any chart drawn from the same profile.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.errors import KnownError
from app.i18n import Lang, pick, tr, trc
from app.knowledge.faction_names import faction_display
from app.players.charts import profile_charts
from app.safetext import markdown_escape, one_line
from app.timefmt import format_clock

Table = tuple[list[str], list[list[str]]]

BENCHMARK_LABELS: dict[str, tuple[str, str]] = {
    "first_refinery": ("首个矿场", "first refinery"),
    "second_harvester": ("第二台矿车", "second harvester"),
    "first_tier2": ("首个二级科技", "first tier-2 step"),
    "first_power": ("首个协议或支援技能", "first protocol or support power"),
    "apm": ("APM", "APM"),
}


def _clock(seconds: float | None) -> str:
    return "—" if seconds is None else format_clock(seconds)


def _date(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%d %H:%M") if ts > 0 else "—"


def _matchup_words(matchup: str, lang: Lang) -> str:
    """A matchup key (``Soviets vs Allies,Empire``, :attr:`app.players.games.PlayerGame.matchup`) in ``lang``."""
    faction, sep, opponents = matchup.partition(" vs ")
    if not sep:
        return matchup
    them = tr(lang, ",").join(faction_display(o, lang) if o != "-" else "—" for o in opponents.split(","))
    return faction_display(faction, lang) + tr(lang, " vs ") + them


def _sections(profile: dict[str, Any], lang: Lang) -> list[tuple[str, list[str], Table | None]]:
    """(heading, paragraphs, table) per section; cells are raw text (escaped by the renderer)."""

    def L(zh: str, en: str) -> str:  # noqa: N802 (the codebase's short name for pick)
        return pick(lang, zh, en)

    out: list[tuple[str, list[str], Table | None]] = []
    names = ", ".join(profile["names"])
    intro = [
        tr(lang, "Names: {names}", names=names),
        tr(
            lang,
            "{count} of the library's {library_replays} replays; {unreadable_replays} could not be read.",
            count=len(profile["games"]),
            library_replays=profile["library_replays"],
            unreadable_replays=profile["unreadable_replays"],
        ),
    ]
    out.append((trc(lang, "app.players.report", "Overview"), intro, None))
    games = [
        [
            _date(g["played_at"]),
            g["map"],
            g["name"],
            faction_display(g["faction"], lang),
            ", ".join(f"{o['name']} ({faction_display(o['faction'], lang)})" for o in g["opponents"]) or "—",
            _clock(g["duration"]),
            g["left_first"] or "—",
            Path(g["replay_path"]).name,
        ]
        for g in profile["games"]
    ]
    out.append(
        (
            tr(lang, "Games"),
            [],
            (
                [
                    tr(lang, "Date"),
                    tr(lang, "Map"),
                    tr(lang, "Name"),
                    tr(lang, "Faction"),
                    tr(lang, "Opponents"),
                    tr(lang, "Length"),
                    tr(lang, "Left first"),
                    tr(lang, "Replay"),
                ],
                games,
            ),
        )
    )
    for key, title in (("structures", tr(lang, "Opening structures")), ("units", tr(lang, "First units"))):
        groups = [
            *profile["openings"][key]["by_matchup"].items(),
            (tr(lang, "all"), profile["openings"][key]["overall"]),
        ]
        rows = [
            [_matchup_words(matchup, lang), " → ".join(o["sequence"]), f"{o['count']}/{o['games']}"]
            for matchup, ops in groups
            for o in ops
        ]
        out.append(
            (title, [], ([tr(lang, "Matchup"), tr(lang, "Sequence"), trc(lang, "app.players.report", "Games")], rows))
        )
    bench = [
        [
            L(*BENCHMARK_LABELS[name]),
            _fmt(name, b["player_median"]),
            str(b["player_games"]),
            _fmt(name, b["library_median"]),
            str(b["library_games"]),
        ]
        for name, b in profile["benchmarks"].items()
    ]
    out.append(
        (
            tr(lang, "Timing benchmarks (medians, against the rest of the library)"),
            [],
            (
                [
                    tr(lang, "Benchmark"),
                    tr(lang, "Player"),
                    L("局数", "Games"),
                    tr(lang, "Library"),
                    L("局数", "Games"),
                ],
                bench,
            ),
        )
    )
    spread = []
    for t in profile_charts(profile).timings:
        ordered = sorted(t.values)
        spread.append(
            [
                L(*BENCHMARK_LABELS[t.name]),
                str(len(ordered)),
                _clock(ordered[0] if ordered else None),
                _clock(t.player_median),
                _clock(ordered[-1] if ordered else None),
                _clock(t.library_median),
            ]
        )
    out.append(
        (
            tr(lang, "Timing spread (the player's games; the chart as text)"),
            [],
            (
                [
                    tr(lang, "Benchmark"),
                    L("局数", "Games"),
                    tr(lang, "Earliest"),
                    tr(lang, "Median"),
                    tr(lang, "Latest"),
                    tr(lang, "Library median"),
                ],
                spread,
            ),
        )
    )
    facts = [
        [
            f["content_zh"] if lang is Lang.ZH else f["content_en"],
            f"{f['confidence']:.2f}",
            str(f["evidence_count"]),
            ", ".join(Path(p).name for p in f["replays"]) or "—",
        ]
        for f in profile["facts"]
    ]
    out.append(
        (
            tr(lang, "Memory facts (active)"),
            [],
            ([tr(lang, "Fact"), tr(lang, "Confidence"), tr(lang, "Evidence"), tr(lang, "Replays")], facts),
        )
    )
    reviews = [
        [str(r["id"]), r["kind"], r["content_zh"] if lang is Lang.ZH else r["content_en"], r["reason"]]
        for r in profile["reviews"]
    ]
    out.append(
        (
            tr(lang, "Pending review items"),
            [],
            (["#", trc(lang, "app.players.report", "Kind"), tr(lang, "Fact"), tr(lang, "Reason")], reviews),
        )
    )
    return out


def _fmt(name: str, value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.1f}" if name == "apm" else format_clock(value)


def render_markdown(profile: dict[str, Any], lang: Lang) -> str:
    """The profile as Markdown; every replay-derived cell is escaped."""
    title = tr(lang, "Player profile")
    lines = [f"# {title}: {markdown_escape(profile['player'])}", ""]
    for heading, paragraphs, table in _sections(profile, lang):
        lines += [f"## {heading}", ""]
        lines += [markdown_escape(p) for p in paragraphs]
        if paragraphs:
            lines.append("")
        if table is not None:
            lines += _md_table(*table, lang)
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]], lang: Lang) -> list[str]:
    if not rows:
        return [tr(lang, "(none)")]

    cell = markdown_escape  # escapes "|" too, so a name cannot split a cell
    return [
        "| " + " | ".join(cell(h) for h in header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(cell(c) for c in row) + " |" for row in rows),
    ]


def render_html(profile: dict[str, Any], lang: Lang) -> str:
    """The profile as a standalone HTML page; every cell is HTML-escaped."""

    def esc(text: object) -> str:
        return html.escape(one_line(str(text)))

    title = f"{tr(lang, 'Player profile')}: {esc(profile['player'])}"
    parts = [
        "<!DOCTYPE html>",
        f'<html lang="{lang.value}"><head><meta charset="utf-8"><title>{title}</title></head><body>',
        f"<h1>{title}</h1>",
    ]
    for heading, paragraphs, table in _sections(profile, lang):
        parts.append(f"<h2>{esc(heading)}</h2>")
        parts += [f"<p>{esc(p)}</p>" for p in paragraphs]
        if table is None:
            continue
        header, rows = table
        if not rows:
            parts.append(f"<p>{esc(tr(lang, '(none)'))}</p>")
            continue
        parts.append("<table><thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in header) + "</tr></thead><tbody>")
        parts += ["<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in rows]
        parts.append("</tbody></table>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_profile(profile: dict[str, Any], path: Path, lang: Lang) -> None:
    """Write ``.md``, ``.html`` or ``.json`` by the suffix.

    Raises:
        KnownError: for another suffix, or when the file cannot be written.
    """
    suffix = path.suffix.lower()
    if suffix == ".md":
        text = render_markdown(profile, lang)
    elif suffix in (".html", ".htm"):
        text = render_html(profile, lang)
    elif suffix == ".json":
        from app.safetext import json_text

        text = json_text(profile) + "\n"
    else:
        raise KnownError(tr(lang, "unsupported profile format {suffix!r}: use .md, .html or .json", suffix=suffix))
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise KnownError(tr(lang, "cannot write {path}: {strerror}", path=path, strerror=exc.strerror)) from exc
