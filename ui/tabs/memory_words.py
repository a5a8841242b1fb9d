"""Words the memory tabs share: facts, statuses, scopes and sources as people read them, in zh and en.

Why a module: the facts, chains and review tabs all show facts; one wording keeps them saying the same thing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime

from PySide6.QtWidgets import (
    QLabel,
)

from app.i18n import NC_, Lang, Msg, pick, system_lang, table_word, tr, trc
from app.knowledge.display import display_names
from app.knowledge.faction_names import faction_display
from app.memory import FactView
from ui.tabs.loading import Actions, Loader, error_text

TYPES = ("preference", "project_fact", "domain", "lesson")
STATUSES = ("active", "hypothesis", "superseded", "conflict", "observation")


def day_words(ts: float) -> str:
    """A Unix time as its UTC day (YYYY-MM-DD)."""
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%d")


def fact_text(f: FactView, lang: Lang) -> str:
    """A fact with its ledger and every source, as the facts tab's detail pane shows it."""
    lines = [
        f"#{f.id}  {words(TYPE_WORDS, f.type, lang)}  {words(STATUS_LABELS, f.status, lang)}  "
        f"{tr(lang, 'confidence')} {f.confidence:.3f}  {evidence_words(f.evidence_count, lang)}",
        shown_content(f, lang),
        f"{tr(lang, 'scope')}: {scope_words(f.scope, lang)}",
        f"{tr(lang, 'method')}: {words(METHOD_WORDS, f.method, lang)}  "
        f"{tr(lang, 'made by')}: {pipeline_words(f.produced_by, lang)}"
        + (f"  {tr(lang, 'approved by')}: {f.approved_by}" if f.approved_by else ""),
    ]
    if f.mechanism:
        lines.append(f"{tr(lang, 'mechanism')}: {mechanism_words(f.mechanism, lang)}")
    for s in f.sources:
        sign = "+" if s.polarity > 0 else "−"
        kind, quote = words(METHOD_WORDS, s.kind, lang), quote_words(s.quote, lang)
        lines.append(f"  {sign} {day_words(s.ts)} {tr(lang, 'episode')} {s.episode_id} [{kind}] {quote}")
    return "\n".join(lines)


def evidence_words(count: int, lang: Lang) -> str:
    """How many pieces of evidence a fact rests on, as a sentence says it ("3 pieces of evidence", not "n=3")."""
    if count == 1:
        return tr(lang, "1 piece of evidence")
    return tr(lang, "{count} pieces of evidence", count=count)


_SLOT_QUOTE = re.compile(r"^S= slot: (?P<name>.+) (?P<faction>\S+)$")
_HEADER_QUOTE = re.compile(r"^header: (?P<lineup>.*) @ (?P<map_name>.*)$")
_LINEUP_PLAYER = re.compile(r"^(?P<name>.*)\((?P<faction>[^()]*)\)$")
_OPENING_QUOTE = re.compile(r"^(?P<steps>.+) \(by (?P<seconds>\d+)s\)$")
_REUSE_QUOTE = re.compile(r"^(?P<code>\S+) did not recur with the lesson injected$")


def quote_words(quote: str, lang: Lang) -> str:
    """An evidence quote as people read it, in ``lang``.

    The shapes the memory's rules write (app/memory/candidates.py, intake, review, audits) are put in words; a quote
    of a person or a model is shown as it was written.
    """
    if m := _SLOT_QUOTE.match(quote):  # "S= slot: Kirov Soviets"
        name, faction = m.group("name"), faction_display(m.group("faction"), lang)
        return tr(lang, "the replay header's player slot: {name}, {faction}", name=name, faction=faction)
    if m := _HEADER_QUOTE.match(quote):  # "header: Kirov(Soviets) vs Rival(Allies) @ Infinity Isle"
        lineup = tr(lang, " vs ").join(_lineup_player(p, lang) for p in m.group("lineup").split(" vs "))
        map_name = m.group("map_name")
        return tr(lang, "the replay header: {lineup}, map {map_name}", lineup=lineup, map_name=map_name)
    if m := _OPENING_QUOTE.match(quote):  # "Barracks@5s, Refinery@10s (by 10s)"
        steps, seconds = m.group("steps"), m.group("seconds")
        return tr(lang, "{steps} (done by {seconds} s)", steps=steps, seconds=seconds)
    if m := _REUSE_QUOTE.match(quote):
        code = m.group("code")
        return tr(lang, "{code} did not recur with the lesson injected", code=code)
    if quote == "confirmation: no longer holds":
        return tr(lang, "confirmation: no longer holds")
    if quote == "false alarm":
        return tr(lang, "false alarm")
    return quote


def _lineup_player(player: str, lang: Lang) -> str:
    """One side of a header's lineup, ``Kirov(Soviets)``, with its faction named in ``lang``."""
    m = _LINEUP_PLAYER.match(player.strip())
    if m is None:
        return player
    name, faction = m.group("name"), faction_display(m.group("faction"), lang)
    return tr(lang, "{name} ({faction})", name=name, faction=faction)


def shown_content(f: FactView, lang: Lang) -> str:
    """What a fact says, with unit and power names as the knowledge names them in ``lang`` (not AlliedWallPiece)."""
    return display_names(f.content(lang.value), f.scope.get("mod", ""), lang)[0]


def internal_names_hover(lang: Lang, *facts: FactView | None) -> str:
    """The hover of a fact's text: the internal names behind the display names shown ("" when there are none)."""
    names: list[str] = []
    for f in facts:
        if f is not None:
            names += [
                n for n in display_names(f.content(lang.value), f.scope.get("mod", ""), lang)[1] if n not in names
            ]
    return tr(lang, "Internal names: ") + ", ".join(names) if names else ""


def pipeline_words(produced_by: str, lang: Lang) -> str:
    """Which pipeline made a fact: the rules over replays or a language model ("memory-rules/1" showed as is)."""
    if produced_by.startswith("memory-rules"):
        return tr(lang, "rules over the replays")
    if produced_by.startswith("memory-llm"):
        model = produced_by.split(":", 1)[1] if ":" in produced_by else ""
        return tr(lang, "a language model") + (f" ({model})" if model else "")
    return produced_by


TYPE_WORDS: dict[str, Msg] = {
    "preference": NC_("memory fact type", "preference"),
    "project_fact": NC_("memory fact type", "project fact"),
    "domain": NC_("memory fact type", "domain knowledge"),
    "lesson": NC_("memory fact type", "lesson"),
}
STATUS_LABELS: dict[str, Msg] = {
    "active": NC_("memory fact status", "active"),
    "hypothesis": NC_("memory fact status", "hypothesis"),
    "superseded": NC_("memory fact status", "superseded"),
    "conflict": NC_("memory fact status", "conflict"),
    "observation": NC_("memory fact status", "observation"),
}
"""Short status names for the table and the filter (:data:`STATUS_WORDS` are the reviewer's longer ones)."""


def words(table: Mapping[str, Msg], key: str, lang: Lang) -> str:
    """``key`` as ``table`` words it in ``lang``; a key the table lacks is shown as stored."""
    return table_word(table, key, lang)


SCOPE_KEY_WORDS: dict[str, Msg] = {
    "player": NC_("memory scope key", "player"),
    "faction": NC_("memory scope key", "faction"),
    "mod": NC_("memory scope key", "mod"),
    "map": NC_("memory scope key", "map"),
    "opponents": NC_("memory scope key", "opponents"),
    "section": NC_("memory scope key", "section"),
    "model": NC_("memory scope key", "model"),
    "analyst": NC_("memory scope key", "analyst"),
}


def mechanism_words(mechanism: str, lang: Lang) -> str:
    """The rules write a mechanism as ``中文 / English``: show the interface language's half."""
    zh, sep, en = mechanism.partition(" / ")
    return (zh if lang is Lang.ZH else en) if sep and zh and en else mechanism


METHOD_WORDS: dict[str, Msg] = {
    "explicit_statement": NC_("memory fact method", "stated by a user"),
    "behavior_inference": NC_("memory fact method", "inferred from how games were played"),
    "doc_extraction": NC_("memory fact method", "read from a file"),
    "reuse_validated": NC_("memory fact method", "confirmed when reused"),
}
STATUS_WORDS: dict[str, Msg] = {
    "active": NC_("memory fact status, long", "in use"),
    "hypothesis": NC_("memory fact status, long", "hypothesis (not enough evidence)"),
    "superseded": NC_("memory fact status, long", "superseded"),
    "conflict": NC_("memory fact status, long", "conflicts, awaiting review"),
    "observation": NC_("memory fact status, long", "kept as an observation only"),
}


def scope_words(scope: dict[str, str], lang: Lang) -> str:
    """Where a fact applies, in words (no scope: everywhere)."""
    if not scope:
        return tr(lang, "everywhere (no limits)")
    return trc(lang, "ui.tabs.memory_words", ", ").join(
        f"{words(SCOPE_KEY_WORDS, k, lang)} = {_scope_value(k, v, lang)}" for k, v in scope.items()
    )


def _scope_value(key: str, value: str, lang: Lang) -> str:
    if key == "faction":
        return faction_display(value, lang)
    if key == "opponents":
        return tr(lang, ",").join(faction_display(v, lang) for v in value.split(","))
    if key == "section":
        return section_words(value, lang)
    return value


def section_words(section: str, lang: Lang) -> str:
    """What part of an analysis a piece of feedback was about (app/pipeline/feedback.py: report, stage or claim)."""
    if section == "report":
        return tr(lang, "the whole report")
    if section == "stage":
        return tr(lang, "one stage")
    if section == "claim":
        return tr(lang, "one claim")
    return section


class MessageBar(QLabel):
    """A one-line message area for known errors (never a traceback)."""

    def show_error(self, exc: Exception, lang: Lang | None = None) -> None:
        """Show ``exc``'s message (an unexpected exception as an internal error)."""
        self.setText(error_text(exc, lambda zh, en: pick(lang or system_lang(), zh, en)))
        self.setStyleSheet("color: #b00020;")

    def clear_message(self) -> None:
        """Remove the message."""
        self.setText("")


async def settle_all(*loaders: Loader, actions: Actions | None = None) -> None:
    """Wait until no loader is busy and no action is running (actions start loads when they finish)."""
    while any(ld.busy() for ld in loaders) or (actions is not None and actions.tasks):
        for ld in loaders:
            await ld.wait()
        if actions is not None:
            await actions.wait()


def cancel_all(*loaders: Loader, actions: Actions | None = None) -> None:
    """Cancel a tab's loaders and its pending actions (the tab is closing or the language changed)."""
    for ld in loaders:
        ld.cancel()
    if actions is not None:
        actions.cancel()
