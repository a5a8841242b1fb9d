"""Semantic-memory side tabs: Facts, Supersede chains, Review queue, Scorecard.

Thin views: every decision (filters, rulings, flip back, metrics) is made by :class:`app.memory.MemoryStore`;
these widgets only show its views and forward clicks. Every store call runs in a worker thread through
:mod:`ui.tabs.loading`: a query function per view returns plain data (frozen view dataclasses), and the view fills
itself from it on the GUI thread; the newest refresh wins and errors show in the tab's message label.
"""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPaintEvent, QPen, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.i18n import Lang, pick, system_lang, tr, trc
from app.knowledge.display import display_names
from app.knowledge.faction_names import faction_display
from app.memory import HEALTHY, METRICS, EpisodeView, FactView, MemoryStore, QueueView, Scorecard, SourceView
from app.memory.diff import Span, changed_spans, differing_fields
from app.memory.scorecard import LABELS
from app.numbers import NumberSpec
from ui.number_field import NumberField
from ui.tabs.loading import Actions, Loader, batches, error_text
from ui.tabs.paging import PagedTableModel, PageQuery, PageRow, Sort, paged_table
from ui.tabs.staged import StagedTabs
from ui.theme import styled
from ui.widgets import EmptyHint, FlowLayout

CONFIDENCE_SPEC = NumberSpec(minimum=0, maximum=1, integer=False, percent=True)
"""The facts filter's lowest confidence: 0.8 or 80%."""
MONTHS_SPEC = NumberSpec(minimum=1, maximum=24)
"""How many months the scorecard trend shows."""

TYPES = ("preference", "project_fact", "domain", "lesson")
STATUSES = ("active", "hypothesis", "superseded", "conflict", "observation")
METRIC_COLORS = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd")


def _date(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%d")


def _fact_text(f: FactView, lang: Lang) -> str:
    lines = [
        f"#{f.id}  {words(TYPE_WORDS, f.type, lang)}  {words(STATUS_LABELS, f.status, lang)}  "
        f"{tr(lang, 'confidence')} {f.confidence:.3f}  n={f.evidence_count}",
        shown_content(f, lang),
        f"{tr(lang, 'scope')}: {_scope_words(f.scope, lang)}",
        f"{tr(lang, 'method')}: {words(METHOD_WORDS, f.method, lang)}  "
        f"{tr(lang, 'made by')}: {pipeline_words(f.produced_by, lang)}"
        + (f"  {tr(lang, 'approved by')}: {f.approved_by}" if f.approved_by else ""),
    ]
    if f.mechanism:
        lines.append(f"{tr(lang, 'mechanism')}: {mechanism_words(f.mechanism, lang)}")
    for s in f.sources:
        sign = "+" if s.polarity > 0 else "−"
        kind, quote = words(METHOD_WORDS, s.kind, lang), quote_words(s.quote, lang)
        lines.append(f"  {sign} {_date(s.ts)} {tr(lang, 'episode')} {s.episode_id} [{kind}] {quote}")
    return "\n".join(lines)


_SLOT_QUOTE = re.compile(r"^S= slot: (?P<name>.+) (?P<faction>\S+)$")


def quote_words(quote: str, lang: Lang) -> str:
    """An evidence quote as people read it: the replay header's player slot ("S= slot: Kirov Soviets") in words."""
    m = _SLOT_QUOTE.match(quote)
    if m is None:
        return quote
    name, faction = m.group("name"), faction_display(m.group("faction"), lang)
    return tr(lang, "the replay header's player slot: {name}, {faction}", name=name, faction=faction)


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


TYPE_WORDS = {
    "preference": ("偏好", "preference"),
    "project_fact": ("项目事实", "project fact"),
    "domain": ("领域知识", "domain knowledge"),
    "lesson": ("经验教训", "lesson"),
}
STATUS_LABELS = {
    "active": ("使用中", "active"),
    "hypothesis": ("假设", "hypothesis"),
    "superseded": ("已替代", "superseded"),
    "conflict": ("冲突", "conflict"),
    "observation": ("观察", "observation"),
}
"""Short status names for the table and the filter (:data:`STATUS_WORDS` are the reviewer's longer ones)."""


def words(table: Mapping[str, tuple[str, str]], key: str, lang: Lang) -> str:
    """``key`` as ``table`` words it (中文, English) in ``lang``; a key the table lacks is shown as stored."""
    zh, en = table.get(key, (key, key))
    return pick(lang, zh, en)


FACT_COLUMN_WIDTHS = (56, 110, 90, 80)
"""Starting widths of the facts table's id, type, status and confidence columns (pixels); content stretches."""
FACT_SORT_KEYS = {0: "id", 1: "type", 2: "status", 3: "confidence"}
"""Facts-table column → the store's sort key (the content column does not sort)."""


def query_facts(
    store: MemoryStore, type_: str | None, status: str | None, min_confidence: float | None, lang: Lang
) -> PageQuery:
    """The facts table's query: filtered and sorted in SQL, read a page at a time (in worker threads)."""

    def rows(offset: int, limit: int, total: int, sort: Sort | None) -> list[PageRow]:
        facts = store.facts(
            type_, status, min_confidence=min_confidence, limit=limit, offset=offset, sort=sort, total=total
        )
        return [
            (
                str(f.id),
                (
                    str(f.id),
                    words(TYPE_WORDS, f.type, lang),
                    words(STATUS_LABELS, f.status, lang),
                    f"{f.confidence:.3f}",
                    shown_content(f, lang),
                ),
            )
            for f in facts
        ]

    return PageQuery(lambda: store.count_facts(type_, status, min_confidence=min_confidence), rows)


def query_chains(store: MemoryStore, lang: Lang) -> tuple[list[list[FactView]], list[str]]:
    """The chains list (worker thread): every supersede chain and its line of text."""
    chains = store.chains()
    lines = []
    for chain in chains:
        current = tr(lang, "current")
        text = " → ".join(f"【{current} #{f.id}】" if f.status == "active" else f"#{f.id}" for f in chain)
        if len(chain) >= 3:
            text += tr(lang, "  (unstable)")
        lines.append(f"{text}  {shown_content(chain[-1], lang)}")
    return chains, lines


def query_queue(store: MemoryStore, lang: Lang, decided: bool = False) -> tuple[list[QueueView], list[str]]:
    """The review list (worker thread): the open items (with ``decided``, the decided ones after them) as text."""
    items = store.queue(open_only=not decided)
    items = [q for q in items if q.resolved_at is None] + [q for q in items if q.resolved_at is not None]
    lines = []
    for q in items:
        kind, reason = words(QUEUE_KIND_WORDS, q.kind, lang), reason_words(q.reason, lang)
        line = f"[{q.id}] {kind}: {shown_content(q.fact, lang)} — {reason}"
        if q.resolved_at is not None:
            line = f"{resolution_words(q.resolution, lang)} · {q.reviewer or '—'}  {line}"
        lines.append(line)
    return items, lines


RESOLUTION_WORDS = {
    "approved": ("已采纳", "approved"),
    "rejected": ("已驳回", "rejected"),
    "split": ("已按范围拆分", "split by scope"),
    "auto_superseded": ("已自动替代", "superseded automatically"),
}
"""How a decided review item was decided (``memory_queue.resolution``), in words."""


def resolution_words(resolution: str, lang: Lang) -> str:
    """A decided item's resolution in words (``closed with #N``: closed together with item N's ruling)."""
    closed = re.fullmatch(r"closed with #(\d+)", resolution)
    if closed:
        return tr(lang, "closed with #{value}", value=closed.group(1))
    return words(RESOLUTION_WORDS, resolution, lang)


QUEUE_KIND_WORDS = {
    "conflict": ("冲突", "conflict"),
    "review": ("待复核", "review"),
    "counterexample": ("反例", "counterexample"),
    "team_proposal": ("提交团队库", "team proposal"),
}
"""Review-item kinds (``mem_queue.kind``) in words."""

_REASONS_ZH: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"no ruling applies: a human decides"), "没有可用的裁决规则：由人来决定"),
    (
        re.compile(r"authority gap (\S+) vs (\S+): review the weaker \(new\) side"),
        r"权威度差距 \1 对 \2：请复核较弱的（新）一方",
    ),
    (
        re.compile(r"authority gap (\S+) vs (\S+): review the weaker \(old\) side"),
        r"权威度差距 \1 对 \2：请复核较弱的（旧）一方",
    ),
    (re.compile(r"episode (\d+) shows (\S+) = (.*)"), r"对局记录 \1 显示 \2 = \3"),
    (
        re.compile(r"confidence (\S+) with (\d+) pieces of evidence: propose for the team library"),
        r"置信度 \1，证据 \2 条：建议提交团队库",
    ),
)
"""The store writes a review item's reason in fixed English templates; these give their Chinese wording."""


def reason_words(reason: str, lang: Lang) -> str:
    """A review item's stored reason in the interface language (an unknown reason is shown as stored)."""
    if lang is Lang.ZH:
        for pattern, zh in _REASONS_ZH:
            if pattern.fullmatch(reason):
                return pattern.sub(zh, reason)
    return reason


SCOPE_KEY_WORDS = {
    "player": ("玩家", "player"),
    "faction": ("阵营", "faction"),
    "mod": ("模组", "mod"),
    "map": ("地图", "map"),
    "opponents": ("对手阵营", "opponents"),
    "section": ("报告章节", "section"),
    "model": ("模型", "model"),
}


def mechanism_words(mechanism: str, lang: Lang) -> str:
    """The rules write a mechanism as ``中文 / English``: show the interface language's half."""
    zh, sep, en = mechanism.partition(" / ")
    return (zh if lang is Lang.ZH else en) if sep and zh and en else mechanism


@dataclass(frozen=True)
class QueuePair:
    """One review item's two sides in words, as the reviewer sees them.

    Attributes:
        current: the fact in use now (the item's ``other``), "" when the proposal is new.
        proposed: the questioned fact (the item's ``fact``): what Approve makes current.
        split_key: the scope attribute the two sides differ in (their evidence contexts), else ``map``.
        split_proposed: the proposed side's value of it.
        split_current: the current side's value of it.
        current_marks: the ranges of ``current`` whose words the proposed side lacks (shown highlighted).
        proposed_marks: the ranges of ``proposed`` whose words the current side lacks.
        differs: the fields (:data:`app.memory.diff.FIELDS`) whose values differ between the two facts.
    """

    current: str
    proposed: str
    split_key: str
    split_proposed: str
    split_current: str
    current_marks: tuple[Span, ...] = ()
    proposed_marks: tuple[Span, ...] = ()
    differs: tuple[str, ...] = ()


FIELD_WORDS = {
    "value": ("内容", "what it says"),
    "scope": ("适用范围", "where it applies"),
    "status": ("状态", "status"),
    "confidence": ("置信度", "confidence"),
    "evidence": ("证据数", "amount of evidence"),
    "method": ("得出方式", "how it was learnt"),
    "mechanism": ("为什么成立", "why it holds"),
    "approved_by": ("审阅人", "reviewer"),
}
"""The compared fields of two facts (:data:`app.memory.diff.FIELDS`) in words."""

QUEUE_LIST_WIDTH = 340
"""The review list's share of the width in review mode (pixels at 1366 px; it scales with the window)."""

CURRENT_MARK = ("#ffd0d0", "#5c0000")
"""Background and text colour of what only the current side says (Picard's removed tag: red)."""
PROPOSED_MARK = ("#c8f0c8", "#003d00")
"""Background and text colour of what only the proposed side says (Picard's new tag: green)."""


def differs_words(differs: tuple[str, ...], lang: Lang) -> str:
    """The line over the two sides that names what differs (empty when the item has no current side)."""
    if not differs:
        return ""
    names = tr(lang, ", ").join(words(FIELD_WORDS, d, lang) for d in differs)
    return tr(lang, "What differs (marked on both sides): {names}", names=names)


METHOD_WORDS = {
    "explicit_statement": ("用户明确说明", "stated by a user"),
    "behavior_inference": ("从对局行为推断", "inferred from how games were played"),
    "doc_extraction": ("从文件中读取", "read from a file"),
    "reuse_validated": ("复用时得到验证", "confirmed when reused"),
}
STATUS_WORDS = {
    "active": ("正在使用", "in use"),
    "hypothesis": ("假设（证据不足）", "hypothesis (not enough evidence)"),
    "superseded": ("已被替代", "superseded"),
    "conflict": ("与现有事实冲突，待审阅", "conflicts, awaiting review"),
    "observation": ("仅作观察记录", "kept as an observation only"),
}


def _scope_words(scope: dict[str, str], lang: Lang) -> str:
    if not scope:
        return tr(lang, "everywhere (no limits)")
    return trc(lang, "ui.tabs.memory_tabs", ", ").join(
        f"{words(SCOPE_KEY_WORDS, k, lang)} = {_scope_value(k, v, lang)}" for k, v in scope.items()
    )


def _scope_value(key: str, value: str, lang: Lang) -> str:
    if key == "faction":
        return faction_display(value, lang)
    if key == "opponents":
        return tr(lang, ",").join(faction_display(v, lang) for v in value.split(","))
    return value


def _episode_words(ep: EpisodeView | None, episode_id: int | None, lang: Lang) -> str:
    if ep is None:
        return tr(lang, "(source record not available)") if episode_id else tr(lang, "(no game behind it)")
    if ep.kind == "feedback":
        who = ep.analyst or tr(lang, "a user")
        return tr(lang, "feedback from {who} ({ts})", who=who, ts=_date(ep.ts))
    name = Path(ep.replay_path).name if ep.replay_path else tr(lang, "a replay")
    played = _date(ep.played_at) if ep.played_at else "?"
    vs = tr(lang, " vs ")
    players = vs.join(f"{n} ({faction_display(f, lang)})" for n, f in ep.players)
    model = tr(lang, ", analysed by {model}", model=ep.model) if ep.model else ""
    return tr(
        lang,
        "{name}, played {played} on {map_name}, {players}{model}",
        name=name,
        played=played,
        map_name=ep.map_name,
        players=players,
        model=model,
    )


def _fact_words(f: FactView, episodes: dict[int, EpisodeView], lang: Lang) -> str:
    """A fact for a reviewer: what it says, where it applies, how sure, and each piece of evidence in words."""
    status = words(STATUS_WORDS, f.status, lang)
    method = words(METHOD_WORDS, f.method, lang)
    lines = [
        shown_content(f, lang),
        "",
        tr(
            lang,
            "Status: {status} · confidence {confidence:.2f} · {evidence_count} piece(s) of evidence",
            status=status,
            confidence=f.confidence,
            evidence_count=f.evidence_count,
        ),
        tr(lang, "Applies to: {scope_words}", scope_words=_scope_words(f.scope, lang)),
        tr(
            lang,
            "How it was learnt: {method} ({pipeline_words})",
            method=method,
            pipeline_words=pipeline_words(f.produced_by, lang),
        ),
    ]
    if f.approved_by:
        lines.append(tr(lang, "Approved by: {approved_by}", approved_by=f.approved_by))
    if f.mechanism:
        why = mechanism_words(f.mechanism, lang)
        lines.append(tr(lang, "Why it holds: {why}", why=why))
    if f.sources:
        lines.append(tr(lang, "Evidence:"))
    for src in f.sources:
        sign = tr(lang, "supports") if src.polarity > 0 else tr(lang, "counterexample")
        lines.append(f"  • {sign}: {_episode_words(episodes.get(src.episode_id or -1), src.episode_id, lang)}")
        if src.quote:
            lines.append(f"    “{quote_words(src.quote, lang)}”")
    return "\n".join(lines)


def _split_default(proposed: FactView, current: FactView | None) -> tuple[str, str, str]:
    """The scope attribute whose evidence contexts differ between the sides (map when none do)."""
    p_ctx = proposed.sources[0].context if proposed.sources else {}
    c_ctx = current.sources[0].context if current is not None and current.sources else {}
    for key in sorted(set(p_ctx) | set(c_ctx)):
        if p_ctx.get(key) != c_ctx.get(key):
            return key, p_ctx.get(key, ""), c_ctx.get(key, "")
    return "map", p_ctx.get("map", ""), c_ctx.get("map", "")


def query_queue_pair(store: MemoryStore, q: QueueView, key: str, lang: Lang) -> QueuePair:
    """Both facts of a review item in words with their provenance (worker thread)."""
    proposed = store.fact(q.fact.id)
    current = store.fact(q.other.id) if q.other else None
    facts = [proposed, *([current] if current else [])]
    episodes = store.episodes(s.episode_id for f in facts for s in f.sources if s.episode_id is not None)
    split_key, split_p, split_c = _split_default(proposed, current)
    current_text = _fact_words(current, episodes, lang) if current else ""
    proposed_text = _fact_words(proposed, episodes, lang)
    if current is None:  # a new fact: every word would be marked, which tells nothing
        return QueuePair(current_text, proposed_text, split_key, split_p, split_c)
    current_marks, proposed_marks = changed_spans(current_text, proposed_text)
    return QueuePair(
        current_text,
        proposed_text,
        split_key,
        split_p,
        split_c,
        tuple(current_marks),
        tuple(proposed_marks),
        differing_fields(current, proposed),
    )


def mark_spans(view: QPlainTextEdit, spans: tuple[Span, ...], colours: tuple[str, str]) -> None:
    """Highlight the character ranges ``spans`` of ``view``'s text (one edit block; the text stays as it is)."""
    if not spans:
        return
    fmt = QTextCharFormat()
    fmt.setBackground(QColor(colours[0]))
    fmt.setForeground(QColor(colours[1]))
    cursor = QTextCursor(view.document())
    cursor.beginEditBlock()
    for start, end in spans:
        cursor.setPosition(start)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        cursor.mergeCharFormat(fmt)
    cursor.endEditBlock()


class MessageBar(QLabel):
    """A one-line message area for known errors (never a traceback)."""

    def show_error(self, exc: Exception, lang: Lang | None = None) -> None:
        """Show ``exc``'s message (an unexpected exception as an internal error)."""
        self.setText(error_text(exc, lambda zh, en: pick(lang or system_lang(), zh, en)))
        self.setStyleSheet("color: #b00020;")

    def clear_message(self) -> None:
        """Remove the message."""
        self.setText("")


class PolarityTimeline(QWidget):
    """The evidence of one fact on a time axis: supporting pieces above the line, counterexamples below.

    Signals:
        None.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._sources: tuple[SourceView, ...] = ()
        self.setMinimumHeight(70)

    def set_sources(self, sources: tuple[SourceView, ...]) -> None:
        """Show these sources (any order; drawn by time)."""
        self._sources = tuple(sorted(sources, key=lambda s: s.ts))
        self.update()

    def points(self) -> list[tuple[float, float, int]]:
        """The (x, y, polarity) of each drawn dot, in widget coordinates (exposed for tests)."""
        if not self._sources:
            return []
        w, h = max(self.width(), 40), max(self.height(), 40)
        t0, t1 = self._sources[0].ts, self._sources[-1].ts
        span = (t1 - t0) or 1.0
        mid = h / 2
        out = []
        for s in self._sources:
            x = 12 + (w - 24) * ((s.ts - t0) / span if t1 > t0 else 0.5)
            y = mid - h / 4 if s.polarity > 0 else mid + h / 4
            out.append((x, y, s.polarity))
        return out

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        """Draw the axis and the dots."""
        del event
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        mid = self.height() / 2
        p.setPen(QPen(QColor("#888888"), 1))
        p.drawLine(QPointF(8, mid), QPointF(self.width() - 8, mid))
        for x, y, pol in self.points():
            color = QColor("#2ca02c") if pol > 0 else QColor("#d62728")
            p.setPen(QPen(color, 1))
            p.drawLine(QPointF(x, mid), QPointF(x, y))
            p.setBrush(color)
            p.drawEllipse(QPointF(x, y), 4, 4)
        p.end()


class FactsTab(QWidget):
    """Facts filtered by type, status and minimum confidence; the detail shows sources and a polarity timeline.

    Signals:
        fact_selected(int): the id of the fact whose detail is shown.
        batch_finished(int): the number of candidates the on-demand batch committed.
    """

    fact_selected = Signal(int)
    batch_finished = Signal(int)

    def __init__(self, store: MemoryStore, lang: Lang | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.lang = lang or system_lang()
        self.detail_loader = Loader(self, self._show_error)
        self._actions = Actions(self, self._show_error)
        self.type_box = QComboBox()
        self.type_box.addItem(tr(self.lang, "all types"), "")
        for t in TYPES:
            self.type_box.addItem(words(TYPE_WORDS, t, self.lang), t)
        self.status_box = QComboBox()
        self.status_box.addItem(tr(self.lang, "all statuses"), "")
        for st in STATUSES:
            self.status_box.addItem(words(STATUS_LABELS, st, self.lang), st)
        self.min_conf = NumberField(CONFIDENCE_SPEC, self.lang, 0, step=0.05, prefix=tr(self.lang, "confidence ≥"))
        self.min_conf.edit.setMaximumWidth(64)
        self.batch_button = QPushButton(tr(self.lang, "Distil now"))
        self.message = MessageBar()
        filters = FlowLayout()  # reflows in a narrow side panel
        for w in (self.type_box, self.status_box, self.min_conf, self.batch_button, self.message):
            filters.addWidget(w)
        self.table = QTableView()
        self.model = PagedTableModel(
            self,
            [
                "#",
                tr(self.lang, "type"),
                tr(self.lang, "status"),
                tr(self.lang, "confidence"),
                tr(self.lang, "content"),
            ],
            FACT_SORT_KEYS,
            self._show_error,
        )
        paged_table(self.table, self.model)
        self.empty = EmptyHint(
            self.table,
            tr(
                self.lang,
                "No facts yet. Each finished analysis records what it learns from the replay (players' "
                "habits, for example), and your feedback is kept here too.",
            ),
        )
        self.detail = QPlainTextEdit()
        self.detail.setReadOnly(True)
        self.detail.setPlaceholderText(
            tr(self.lang, "Select a fact to see its scope, where it came from and each piece of evidence.")
        )
        self.timeline = PolarityTimeline()
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.addWidget(self.detail)
        rl.addWidget(self.timeline)
        header = self.table.horizontalHeader()
        for column, width in enumerate(FACT_COLUMN_WIDTHS):  # the content column (last) takes the rest
            header.resizeSection(column, width)
        # table above, detail below (as the wisdom entries): side by side in a 640 px side panel the content
        # column began off-screen
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(right)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addLayout(filters)
        layout.addWidget(split, 1)  # the rows get the height, not the (flowing) filter row
        self.type_box.currentIndexChanged.connect(self.refresh)
        self.status_box.currentIndexChanged.connect(self.refresh)
        self.min_conf.valueChanged.connect(self.refresh)
        self.table.selectionModel().selectionChanged.connect(self._on_select)
        self.batch_button.clicked.connect(self.run_batch)
        self.refresh()

    def _show_error(self, exc: Exception) -> None:
        self.message.show_error(exc, self.lang)

    async def refreshed(self) -> None:
        """Return once every load, page read and action started so far has finished (for tests and callers)."""
        while self.model.busy() or self.detail_loader.busy() or self._actions.tasks:
            await _settle(self.model.loader, self.detail_loader, actions=self._actions)
            await self.model.settled()

    def cancel_loading(self) -> None:
        """Stop applying pending loads (the tab is being replaced)."""
        self.model.cancel()
        _cancel(self.detail_loader, actions=self._actions)

    def run_batch(self) -> asyncio.Future[Any] | None:
        """The "Distil now" action: the batch track on demand (spec §2.2, issue 34), in a worker thread; then reload.

        The same path as the end of ``replaysage batch`` (:func:`app.pipeline.learning.run_memory_batch`), so on a
        team database one machine at a time runs it; -1 when another machine is running it right now.
        """
        from app.pipeline.learning import run_memory_batch

        def distil() -> int:
            done = run_memory_batch(self.store.db, self.store.clock(), quiet=False)
            return -1 if done is None else int(done["committed"])

        def done(committed: int) -> None:
            self.message.setStyleSheet("")
            self.message.setText(
                tr(self.lang, "another machine is distilling; refresh in a moment")
                if committed < 0
                else tr(self.lang, "batch: {committed} candidates committed", committed=committed)
            )
            self.refresh()
            self.batch_finished.emit(committed)

        return self._actions.run(distil, done)

    def refresh(self) -> asyncio.Future[None] | None:
        """Reload the list with the current filters (worker thread); returns the loading task."""
        conf = self.min_conf.value()
        type_, status, lang = self.type_box.currentData() or None, self.status_box.currentData() or None, self.lang
        return self.model.set_query(query_facts(self.store, type_, status, conf if conf > 0 else None, lang))

    def _on_select(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        fact_id = self.model.row_id(rows[0].row()) if rows else None
        if fact_id is not None:
            self.show_fact(int(fact_id))

    def show_fact(self, fact_id: int) -> asyncio.Future[None] | None:
        """Show one fact's provenance and its polarity timeline (loaded in a worker thread)."""

        def show(f: FactView) -> None:
            self.detail.setPlainText(_fact_text(f, self.lang))
            self.detail.setToolTip(internal_names_hover(self.lang, f))
            self.timeline.set_sources(f.sources)
            self.fact_selected.emit(fact_id)

        return self.detail_loader.start(lambda: self.store.fact(fact_id), show)


class ChainsTab(QWidget):
    """Supersede chains, newest change first; flip back the current fact of the selected chain.

    Signals:
        flipped_back(int): the id of the fact that is current again after a flip back.
    """

    flipped_back = Signal(int)

    def __init__(self, store: MemoryStore, lang: Lang | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.lang = lang or system_lang()
        self._chains: list[list[FactView]] = []
        self.loader = Loader(self, self._show_error)
        self._actions = Actions(self, self._show_error)
        self.list = QListWidget()
        self.detail = QPlainTextEdit()
        self.empty = EmptyHint(
            self.list,
            tr(
                self.lang,
                "No supersede chains yet. When new evidence replaces a fact, the old and the new one "
                "form a chain here, and you can flip back.",
            ),
        )
        self.detail.setReadOnly(True)
        self.flip_button = QPushButton(tr(self.lang, "Flip back"))
        self.message = MessageBar()
        layout = QVBoxLayout(self)
        split = QSplitter()
        split.addWidget(self.list)
        split.addWidget(self.detail)
        layout.addWidget(split)
        row = QHBoxLayout()
        row.addWidget(self.flip_button)
        row.addWidget(self.message, 1)
        layout.addLayout(row)
        self.list.currentRowChanged.connect(self._on_select)
        self.flip_button.clicked.connect(self.flip_back_selected)
        self.refresh()

    def _show_error(self, exc: Exception) -> None:
        self.message.show_error(exc, self.lang)

    async def refreshed(self) -> None:
        """Return once every load and action started so far has finished (for tests and callers)."""
        await _settle(self.loader, actions=self._actions)

    def cancel_loading(self) -> None:
        """Stop applying pending loads (the tab is being replaced)."""
        _cancel(self.loader, actions=self._actions)

    def refresh(self) -> asyncio.Future[None] | None:
        """Reload the chains (worker thread); returns the loading task."""
        lang = self.lang
        return self.loader.start(lambda: query_chains(self.store, lang), self._fill)

    def _fill(self, data: tuple[list[list[FactView]], list[str]]) -> Iterator[None]:
        chains, lines = data
        self._chains = []
        self.list.clear()
        self._chains = chains
        yield from batches(len(lines), lambda a, b: self.list.addItems(lines[a:b]))
        if self._chains:
            self.list.setCurrentRow(0)

    def _on_select(self, row: int) -> None:
        if 0 <= row < len(self._chains):
            self.detail.setPlainText("\n\n".join(_fact_text(f, self.lang) for f in self._chains[row]))

    def flip_back_selected(self) -> asyncio.Future[Any] | None:
        """Flip back the current (active) fact of the selected chain (worker thread)."""
        row = self.list.currentRow()
        if not 0 <= row < len(self._chains):
            return None
        current = [f for f in self._chains[row] if f.status == "active"]
        if not current:
            from app.memory import MemoryStateError

            self._show_error(MemoryStateError(tr(self.lang, "this chain has no current fact")))
            return None

        def done(restored: FactView) -> None:
            self.message.clear_message()
            self.refresh()
            self.flipped_back.emit(restored.id)

        fact_id = current[-1].id
        return self._actions.run(lambda: self.store.flip_back(fact_id), done)


class ReviewQueueTab(QWidget):
    """Open review items: the current fact and the proposed one side by side, in words, with what each action does.

    Approve makes the proposed fact current (the current one is kept as superseded); Reject keeps the proposed
    fact only as an observation; Split keeps both, each limited to its own value of a scope attribute. Undo takes
    back the rulings made here, newest first, one per press: the item (and the counterexample closed with it)
    returns to the queue and both facts are as before (:meth:`app.memory.MemoryStore.undo_ruling`). The reviewer's
    name comes from the settings; when it is empty the tab asks for it once.

    Signals:
        resolved(int, str): the queue item id and its resolution (``approved``, ``rejected``, ``split``).
        undone(int): the queue item whose ruling Undo took back.
        reviewer_named(str): the reviewer typed a name (the window keeps it in the settings).
        count_changed(int): the number of open items (the tab badge).
        wide_requested(): the reviewer asked for the review mode (the side panel's tab only).

    ``wide`` lays the queue out for the main window's review mode: the list on the left and the two sides next to
    it, each about as wide as the analysis text (the side panel stacks them). Either way the list wraps its
    items instead of cutting them, and what differs between the sides is marked on both (:mod:`app.memory.diff`).
    """

    resolved = Signal(int, str)
    undone = Signal(int)
    reviewer_named = Signal(str)
    wide_requested = Signal()
    count_changed = Signal(int)

    def __init__(
        self,
        store: MemoryStore,
        lang: Lang | None = None,
        reviewer: str = "",
        parent: QWidget | None = None,
        *,
        wide: bool = False,
    ) -> None:
        super().__init__(parent)
        self.store = store
        self.wide = wide
        self.lang = lang or system_lang()
        t = self._t
        self._items: list[QueueView] = []
        self.ruled: list[int] = []  # the items ruled on here, oldest first: Undo takes back the last one
        self.loader = Loader(self, self._show_error)
        self.detail_loader = Loader(self, self._show_error)
        self._actions = Actions(self, self._show_error)
        self.list = QListWidget()
        self.list.setWordWrap(True)  # an item is a sentence: wrapped whole, never cut at the list's edge
        self.list.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.list.setResizeMode(QListView.ResizeMode.Adjust)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.empty = QLabel(
            t(
                "没有待审阅的项目。当一次分析得出的事实与已有事实冲突、又无法自动裁决时，它会出现在这里。",
                "Nothing to review. An item appears here when an analysis learns a fact that "
                "contradicts a current one and no rule can decide between them.",
            )
        )
        self.empty.setWordWrap(True)
        styled(self.empty, "role", "empty")
        self.left = QPlainTextEdit()  # the current fact
        self.left.setReadOnly(True)
        self.right = QPlainTextEdit()  # the proposed fact
        self.right.setReadOnly(True)
        self.left_title = QLabel(t("当前（正在使用）", "Current (in use now)"))
        self.right_title = QLabel(t("提议（来自较新的对局）", "Proposed (from the newer game)"))
        for lab in (self.left_title, self.right_title):
            lab.setStyleSheet("font-weight: 600;")
        self.differs = QLabel()  # which fields differ; the words themselves are marked in the two texts
        self.differs.setWordWrap(True)
        self.differs.hide()
        self.reviewer = QLineEdit(reviewer)
        self.reviewer.setPlaceholderText(t("你的名字（只问一次）", "your name (asked once)"))
        self.approve_button = QPushButton(t("采纳提议", "Approve proposed"))
        styled(self.approve_button, "primary")
        self.approve_button.setToolTip(
            t(
                "提议的事实成为当前事实；原事实保留为“已替代”。可撤销。",
                "The proposed fact becomes current; the current one is kept as superseded. Undo takes it back.",
            )
        )
        self.reject_button = QPushButton(t("驳回提议", "Reject proposed"))
        self.reject_button.setToolTip(
            t(
                "提议的事实只保留为观察记录；当前事实不变。",
                "The proposed fact is kept only as an observation; the current one stays.",
            )
        )
        self.split_key = QLineEdit("map")
        self.split_left = QLineEdit()  # the proposed side's value
        self.split_right = QLineEdit()  # the current side's value
        self.split_button = QPushButton(t("按范围拆分", "Split by scope"))
        self.split_button.setToolTip(
            t(
                "两条都保留，各自只适用于下面填写的范围值。",
                "Both are kept, each valid only where the scope attribute has its value.",
            )
        )
        self.show_decided = QCheckBox(t("也显示已裁决的项目", "Show decided items too"))
        self.show_decided.setToolTip(
            t(
                "选中一个已裁决的项目，可以撤销对它的裁决（包括以前或在命令行里做的裁决）。",
                "Select a decided item to undo its ruling (also one made earlier or on the command line).",
            )
        )
        self.show_decided.toggled.connect(lambda _on: self.refresh())
        self.undo_selected_button = QPushButton(t("撤销此项的裁决", "Undo this item's ruling"))
        self.undo_selected_button.setEnabled(False)
        self.undo_selected_button.clicked.connect(self.undo_selected)
        self.undo_button = QPushButton(t("撤销上次裁决", "Undo last ruling"))
        self.undo_button.setEnabled(False)
        self.undo_button.setToolTip(
            t(
                "撤销在这里做的最近一次采纳、驳回或拆分：两条事实恢复原样，该项目回到待审队列。可连续撤销。",
                "Takes back the latest approve, reject or split made here: both facts are as before and the "
                "item is back in the queue. Press again for the one before.",
            )
        )
        self.explain = QLabel(
            t(
                "采纳：提议成为当前事实。驳回：提议只作观察记录。拆分：两条都保留，各管一个范围。每一项裁决都可撤销。",
                "Approve: the proposed fact becomes current. Reject: it is kept only as an observation. "
                "Split: both stay, each for its own scope value. Every ruling can be undone.",
            )
        )
        self.explain.setWordWrap(True)
        styled(self.explain, "role", "hint")
        self.message = MessageBar()
        self.message.setWordWrap(True)
        left_box, right_box = QWidget(), QWidget()
        for box, title, view in ((left_box, self.left_title, self.left), (right_box, self.right_title, self.right)):
            lay = QVBoxLayout(box)
            lay.setContentsMargins(0, 0, 0, 0)
            lay.addWidget(title)
            lay.addWidget(view, 1)
        sides = QSplitter()
        sides.setChildrenCollapsible(False)
        sides.addWidget(left_box)
        sides.addWidget(right_box)
        self.sides = sides
        form = QFormLayout()
        form.addRow(t("审阅人", "Reviewer"), self.reviewer)
        form.addRow(t("拆分依据的范围属性", "Scope attribute to split on"), self.split_key)
        form.addRow(t("提议适用于", "Proposed applies where it is"), self.split_left)
        form.addRow(t("当前适用于", "Current applies where it is"), self.split_right)
        actions = FlowLayout()
        for w in (self.approve_button, self.reject_button, self.split_button, self.undo_button):
            actions.addWidget(w)
        actions.addWidget(self.undo_selected_button)
        queue_box, detail = QWidget(), QWidget()
        queue_lay = QVBoxLayout(queue_box)
        queue_lay.setContentsMargins(0, 0, 0, 0)
        self.wide_button: QPushButton | None = None
        if not wide:  # the side panel is narrow: the way to the room the sides need
            self.wide_button = QPushButton(t("在审阅模式中打开（Ctrl+Shift+R）", "Open in review mode (Ctrl+Shift+R)"))
            self.wide_button.setToolTip(
                t(
                    "审阅队列占据主区域，两边并排、各有足够宽度，分析视图暂时让开。",
                    "The review queue takes the main area, its two sides next to each other; the analysis "
                    "comes back when you leave.",
                )
            )
            self.wide_button.clicked.connect(self.wide_requested)
            queue_lay.addWidget(self.wide_button)
        queue_lay.addWidget(self.show_decided)
        queue_lay.addWidget(self.list, 1)
        queue_lay.addWidget(self.empty)
        detail_lay = QVBoxLayout(detail)
        detail_lay.setContentsMargins(0, 0, 0, 0)
        detail_lay.addWidget(self.differs)
        detail_lay.addWidget(sides, 1)
        detail_lay.addWidget(self.explain)
        detail_lay.addLayout(form)
        detail_lay.addLayout(actions)
        detail_lay.addWidget(self.message)
        self.body = QSplitter(Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical)
        self.body.setChildrenCollapsible(False)
        self.body.addWidget(queue_box)
        self.body.addWidget(detail)
        self.body.setStretchFactor(0, 1)
        self.body.setStretchFactor(1, 3)
        if wide:  # a quarter for the list (its sentences wrap in about three lines), the rest for the two sides
            self.body.setSizes([QUEUE_LIST_WIDTH, 3 * QUEUE_LIST_WIDTH])
        layout = QVBoxLayout(self)
        if wide:  # the review page around it has its own margins
            layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.body)
        self.list.currentRowChanged.connect(self._on_select)
        self.approve_button.clicked.connect(lambda: self._decide("approve"))
        self.reject_button.clicked.connect(lambda: self._decide("reject"))
        self.split_button.clicked.connect(lambda: self._decide("split"))
        self.undo_button.clicked.connect(self.undo)
        self.refresh()

    def _t(self, zh: str, en: str) -> str:
        return pick(self.lang, zh, en)

    def _show_error(self, exc: Exception) -> None:
        self.message.show_error(exc, self.lang)

    async def refreshed(self) -> None:
        """Return once every load and action started so far has finished (for tests and callers)."""
        await _settle(self.loader, self.detail_loader, actions=self._actions)

    def cancel_loading(self) -> None:
        """Stop applying pending loads (the tab is being replaced)."""
        _cancel(self.loader, self.detail_loader, actions=self._actions)

    def refresh(self) -> asyncio.Future[None] | None:
        """Reload the open items (worker thread); returns the loading task."""
        lang, decided = self.lang, self.show_decided.isChecked()
        return self.loader.start(lambda: query_queue(self.store, lang, decided), self._fill)

    def _fill(self, data: tuple[list[QueueView], list[str]]) -> Iterator[None]:
        items, lines = data
        self._items = []
        self.list.clear()
        self.left.clear()
        self.right.clear()
        self.differs.hide()
        self._items = items
        self.empty.setVisible(not items)
        self.count_changed.emit(sum(1 for q in items if q.resolved_at is None))
        yield from batches(len(lines), lambda a, b: self.list.addItems(lines[a:b]))
        if self._items:
            self.list.setCurrentRow(0)

    def _on_select(self, row: int) -> None:
        if not 0 <= row < len(self._items):
            return
        q = self._items[row]
        decided = q.resolved_at is not None  # a decided item can only have its ruling undone
        for button in (self.approve_button, self.reject_button, self.split_button):
            button.setEnabled(not decided)
        self.undo_selected_button.setEnabled(decided)
        key = self.split_key.text() or "map"
        lang = self.lang

        def show(pair: QueuePair) -> None:
            self.left.setPlainText(pair.current or tr(self.lang, "(none: approving adds a new fact)"))
            self.right.setPlainText(pair.proposed)
            mark_spans(self.left, pair.current_marks, CURRENT_MARK)
            mark_spans(self.right, pair.proposed_marks, PROPOSED_MARK)
            self.differs.setText(differs_words(pair.differs, lang))
            self.differs.setVisible(bool(pair.differs))
            self.left.setToolTip(internal_names_hover(lang, q.other))
            self.right.setToolTip(internal_names_hover(lang, q.fact))
            self.split_key.setText(pair.split_key)
            self.split_left.setText(pair.split_proposed)
            self.split_right.setText(pair.split_current)

        self.detail_loader.start(lambda: query_queue_pair(self.store, q, key, lang), show)

    def _decide(self, action: str) -> asyncio.Future[Any] | None:
        row = self.list.currentRow()
        if not 0 <= row < len(self._items):
            return None
        who = self.reviewer.text().strip()
        if not who:  # asked once: the window keeps the name in the settings
            self.message.setText(tr(self.lang, "Enter your name as the reviewer first (it is remembered)."))
            styled(self.reviewer, "invalid", True)
            self.reviewer.setFocus()
            return None
        styled(self.reviewer, "invalid", False)
        self.reviewer_named.emit(who)
        item = self._items[row]
        key, left = self.split_key.text().strip(), self.split_left.text().strip()
        right = self.split_right.text().strip()

        def decide() -> tuple[int, str, int]:
            if action == "approve":
                out = self.store.approve(item.id, who)
            elif action == "reject":
                out = self.store.reject(item.id, who)
            else:
                out = self.store.split_scope(item.id, who, key=key, fact_value=left, other_value=right)
            return out.id, out.resolution, out.fact.id

        def done(out: tuple[int, str, int]) -> None:
            self.message.clear_message()
            self.ruled.append(out[0])
            self.undo_button.setEnabled(True)
            self.refresh()
            self.resolved.emit(out[0], out[1])

        return self._actions.run(decide, done)

    def undo(self) -> asyncio.Future[Any] | None:
        """Take back the latest ruling made here: its item returns to the queue with both facts as before."""
        if not self.ruled:
            return None
        item_id = self.ruled.pop()
        self.undo_button.setEnabled(bool(self.ruled))
        return self._undo(item_id)

    def undo_selected(self) -> asyncio.Future[Any] | None:
        """Undo the ruling on the selected decided item (listed with "Show decided items too")."""
        row = self.list.currentRow()
        if not 0 <= row < len(self._items) or self._items[row].resolved_at is None:
            return None
        item_id = self._items[row].id
        if item_id in self.ruled:
            self.ruled.remove(item_id)
            self.undo_button.setEnabled(bool(self.ruled))
        return self._undo(item_id)

    def _undo(self, item_id: int) -> asyncio.Future[Any] | None:
        who = self.reviewer.text().strip()

        def take_back() -> int:
            return self.store.undo_ruling(item_id, who).id

        def done(undone: int) -> None:
            self.message.setText(
                tr(
                    self.lang,
                    "The ruling on item #{undone} is undone: both facts are as before and it is back in the queue.",
                    undone=undone,
                )
            )
            self.refresh()
            self.undone.emit(undone)

        return self._actions.run(take_back, done)


def _short_month(month: str, lang: Lang) -> str:
    """``2026-03`` as the month alone: 3月 / Mar (the full month stays in the table above the chart)."""
    try:
        number = int(month.rsplit("-", 1)[1])
    except (IndexError, ValueError):
        return month
    if not 1 <= number <= 12:
        return month
    names = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
    return pick(lang, f"{number}月", names[number - 1])


class TrendChart(QWidget):
    """The five metrics month by month, each scaled to its healthy limit (1.0 = the limit; above is unhealthy).

    Upper-bounded metrics plot ``value / high``; evidence density, which must stay above 2.0, plots
    ``2.0 / value``, so every line means the same thing: under the dashed line is healthy.

    Signals:
        None.
    """

    def __init__(self, parent: QWidget | None = None, lang: Lang = Lang.EN) -> None:
        super().__init__(parent)
        self._cards: list[Scorecard] = []
        self.lang = lang
        self.setMinimumHeight(200)

    def set_cards(self, cards: list[Scorecard]) -> None:
        """Show these months (oldest first)."""
        self._cards = cards
        self.update()

    @staticmethod
    def scaled(metric: str, value: float | None) -> float | None:
        """A metric as a multiple of its healthy limit."""
        if value is None:
            return None
        lo, hi = HEALTHY[metric]
        if metric == "evidence_density":
            return lo / value if value > 0 else 2.0
        return value / hi if hi else 0.0

    def series(self) -> dict[str, list[float | None]]:
        """The plotted values per metric (exposed for tests)."""
        return {m: [self.scaled(m, c.metrics[m]) for c in self._cards] for m in METRICS}

    def axis_labels(self, left: float, width: float) -> list[tuple[float, str]]:
        """The month labels under the axis: ``(centre x, text)``, never overlapping.

        "2026-01" where every label fits; the month alone ("1月" / "Jan") where not; and where even those collide,
        every k-th of them counting back from the newest month. Twelve full labels overlapped at the side panel's
        width (issue 30, item 9).
        """
        n = len(self._cards)
        if not n:
            return []
        slot = width / n
        metrics = self.fontMetrics()
        gap = metrics.horizontalAdvance("  ")
        texts = [c.month for c in self._cards]
        if max(metrics.horizontalAdvance(t) for t in texts) + gap > slot:
            texts = [_short_month(m, self.lang) for m in texts]
        step = max(1, math.ceil((max(metrics.horizontalAdvance(t) for t in texts) + gap) / slot))
        return [(left + slot * (i + 0.5), texts[i]) for i in range(n - 1, -1, -step)][::-1]

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        """Draw the axes, the healthy-limit line and one polyline per metric."""
        del event
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        legend_h = 18 * ((len(METRICS) + 1) // 2)
        area = QRectF(44, 18, max(10, self.width() - 54), max(10, self.height() - 48 - legend_h))
        top = 2.0  # the chart shows up to twice the limit
        text_pen = QPen(self.palette().color(self.foregroundRole()), 1)
        # the healthy band (at or under the limit), the frame, the y axis in multiples of each metric's limit
        p.fillRect(
            QRectF(area.left(), area.bottom() - area.height() / top, area.width(), area.height() / top),
            QColor(46, 139, 87, 40),
        )
        p.setPen(QPen(QColor("#888888"), 1))
        p.drawRect(area)
        p.setPen(text_pen)
        for mult in (0.0, 1.0, 2.0):
            y = area.bottom() - area.height() * (mult / top)
            p.drawText(QPointF(4, y + 4), f"{mult:g}×")
        p.drawText(
            QPointF(area.left(), 12),
            tr(self.lang, "times the healthy limit (inside the green band is healthy)"),
        )
        limit_y = area.bottom() - area.height() * (1.0 / top)
        dash = QPen(QColor("#444444"), 1, Qt.PenStyle.DashLine)
        p.setPen(dash)
        p.drawLine(QPointF(area.left(), limit_y), QPointF(area.right(), limit_y))
        # the legend under the month axis
        for k, (color, metric) in enumerate(zip(METRIC_COLORS, METRICS, strict=True)):
            lx = area.left() + (k % 2) * (area.width() / 2)
            ly = area.bottom() + 26 + 18 * (k // 2)
            p.fillRect(QRectF(lx, ly - 9, 12, 10), QColor(color))
            p.setPen(text_pen)
            p.drawText(QPointF(lx + 16, ly), LABELS[metric][0] if self.lang is Lang.ZH else LABELS[metric][1])
        n = len(self._cards)
        p.setPen(QPen(QColor("#666666"), 1))
        for x, text in self.axis_labels(area.left(), area.width()):
            p.drawText(QPointF(x - self.fontMetrics().horizontalAdvance(text) / 2, area.bottom() + 15), text)
        for color, (_metric, values) in zip(METRIC_COLORS, self.series().items(), strict=True):
            path = QPainterPath()
            started = False
            for i, v in enumerate(values):
                if v is None:
                    started = False
                    continue
                x = area.left() + (area.width() * (i + 0.5) / max(n, 1))
                y = area.bottom() - area.height() * (min(v, top) / top)
                if started:
                    path.lineTo(x, y)
                else:
                    path.moveTo(x, y)
                    started = True
                p.setPen(QPen(QColor(color), 1))
                p.setBrush(QColor(color))
                p.drawEllipse(QPointF(x, y), 3, 3)
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.setPen(QPen(QColor(color), 2))
            p.drawPath(path)
        p.end()


class ScorecardTab(QWidget):
    """The five metrics per month against their healthy ranges, with a trend chart.

    Signals:
        month_selected(str): the ``YYYY-MM`` whose column was clicked.
    """

    month_selected = Signal(str)

    def __init__(
        self, store: MemoryStore, lang: Lang | None = None, months: int = 6, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.store = store
        self.lang = lang or system_lang()
        self.months = NumberField(MONTHS_SPEC, self.lang, months, prefix=tr(self.lang, "months"))
        self.months.edit.setMaximumWidth(64)
        self.table = QTableWidget(len(METRICS), 0)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.chart = TrendChart(lang=self.lang)
        self.cards: list[Scorecard] = []
        self.message = MessageBar()
        self.loader = Loader(self, lambda exc: self.message.show_error(exc, self.lang))
        layout = QVBoxLayout(self)
        layout.addWidget(self.months)
        layout.addWidget(self.table)
        layout.addWidget(self.chart)
        layout.addWidget(self.message)
        self.months.valueChanged.connect(self.refresh)
        self.table.horizontalHeader().sectionClicked.connect(self._on_column)
        self.refresh()

    async def refreshed(self) -> None:
        """Return once every load started so far has finished (for tests and callers)."""
        await _settle(self.loader)

    def cancel_loading(self) -> None:
        """Stop applying pending loads (the tab is being replaced)."""
        _cancel(self.loader)

    def refresh(self) -> asyncio.Future[None] | None:
        """Recompute the scorecards of the last N months (worker thread); returns the loading task."""
        months = self.months.count()
        return self.loader.start(lambda: self.store.scorecard_trend(months), self._fill)

    def _fill(self, cards: list[Scorecard]) -> None:
        self.message.clear_message()
        self.cards = cards
        self.table.setColumnCount(len(self.cards) + 1)
        shown = self.shown_cards()  # the current month first
        self.table.setHorizontalHeaderLabels([tr(self.lang, "healthy"), *(c.month for c in shown)])
        self.table.setVerticalHeaderLabels([LABELS[m][0] if self.lang is Lang.ZH else LABELS[m][1] for m in METRICS])
        for r, m in enumerate(METRICS):
            lo, hi = HEALTHY[m]
            self.table.setItem(r, 0, QTableWidgetItem(f"[{lo:g}, {hi:g}]"))
            for c, card in enumerate(shown, start=1):
                v = card.metrics[m]
                item = QTableWidgetItem("—" if v is None else f"{v:.3f}")
                ok = card.healthy(m)
                if ok is not None:
                    item.setBackground(QColor("#d8f0d8") if ok else QColor("#f6d0d0"))
                self.table.setItem(r, c, item)
        self.chart.set_cards(self.cards)

    def shown_cards(self) -> list[Scorecard]:
        """The months in table order: the current month first (past months, often empty, after it)."""
        return list(reversed(self.cards))

    def _on_column(self, col: int) -> None:
        shown = self.shown_cards()
        if 1 <= col <= len(shown):
            self.month_selected.emit(shown[col - 1].month)


class MemoryTabs(StagedTabs):
    """The four memory tabs together, for the main window's side tabs.

    The tab on screen is built at once and the others in later event-loop turns (:class:`StagedTabs`); the
    attributes :attr:`facts`, :attr:`chains`, :attr:`queue` and :attr:`scorecard` build theirs when asked.

    Signals:
        queue_count_changed(int): how many review items are open (once the queue has loaded).
        review_mode_requested(): the queue's "Open in review mode" was pressed.
    """

    queue_count_changed = Signal(int)
    review_mode_requested = Signal()

    def __init__(
        self,
        store: MemoryStore,
        lang: Lang | None = None,
        parent: QWidget | None = None,
        reviewer: str = "",
        on_reviewer: Callable[[str], object] | None = None,
    ) -> None:
        super().__init__(parent)
        lang = lang or system_lang()
        self.lang = lang
        self.add_page("facts", tr(lang, "Facts"), lambda: FactsTab(store, lang))
        self.add_page("chains", tr(lang, "Supersede chains"), lambda: self._made_chains(store))
        queue_index = self.add_page(
            "queue", tr(lang, "Review queue"), lambda: self._made_queue(store, reviewer, on_reviewer)
        )
        self.queue_count_changed.connect(
            lambda n: self.setTabText(queue_index, tr(lang, "Review queue") + (f" ({n})" if n else ""))
        )
        self.add_page("scorecard", tr(lang, "Scorecard"), lambda: ScorecardTab(store, lang))
        self.start()

    def _made_chains(self, store: MemoryStore) -> ChainsTab:
        chains = ChainsTab(store, self.lang)
        chains.flipped_back.connect(lambda _id: self._refresh_made("facts"))
        return chains

    def _made_queue(
        self, store: MemoryStore, reviewer: str, on_reviewer: Callable[[str], object] | None
    ) -> ReviewQueueTab:
        queue = ReviewQueueTab(store, self.lang, reviewer=reviewer)
        if on_reviewer is not None:
            queue.reviewer_named.connect(on_reviewer)
        queue.count_changed.connect(self.queue_count_changed)
        queue.wide_requested.connect(self.review_mode_requested)
        queue.resolved.connect(lambda _id, _r: self._refresh_made("facts", "chains"))
        queue.undone.connect(lambda _id: self._refresh_made("facts", "chains"))
        return queue

    def _refresh_made(self, *keys: str) -> None:
        """Refresh the pages among ``keys`` that exist (one made later loads fresh data anyway)."""
        made = self.made_pages()
        for key in keys:
            page = made.get(key)
            if isinstance(page, (FactsTab, ChainsTab)):
                page.refresh()

    @property
    def facts(self) -> FactsTab:
        """The facts list (built now if it was waiting)."""
        return self.typed_page("facts", FactsTab)

    @property
    def chains(self) -> ChainsTab:
        """The supersede chains (built now if it was waiting)."""
        return self.typed_page("chains", ChainsTab)

    @property
    def queue(self) -> ReviewQueueTab:
        """The review queue (built now if it was waiting)."""
        return self.typed_page("queue", ReviewQueueTab)

    @property
    def scorecard(self) -> ScorecardTab:
        """The scorecard (built now if it was waiting)."""
        return self.typed_page("scorecard", ScorecardTab)

    def views(self) -> tuple[FactsTab, ChainsTab, ReviewQueueTab, ScorecardTab]:
        """The four tabs (every one built)."""
        return self.facts, self.chains, self.queue, self.scorecard

    def _made_views(self) -> list[FactsTab | ChainsTab | ReviewQueueTab | ScorecardTab]:
        kinds = (FactsTab, ChainsTab, ReviewQueueTab, ScorecardTab)
        return [p for p in self.made_pages().values() if isinstance(p, kinds)]

    def refresh(self) -> None:
        """Reload every built tab (worker threads; :meth:`refreshed` waits for the result)."""
        for view in self._made_views():
            view.refresh()

    async def refreshed(self) -> None:
        """Return once every tab is built and has applied everything started so far."""
        await self.all_made()
        for view in self._made_views():
            await view.refreshed()

    def cancel_loading(self) -> None:
        """Stop applying pending loads (the tabs are being replaced)."""
        for view in self._made_views():
            view.cancel_loading()


async def _settle(*loaders: Loader, actions: Actions | None = None) -> None:
    """Wait until no loader is busy and no action is running (actions start loads when they finish)."""
    while any(ld.busy() for ld in loaders) or (actions is not None and actions.tasks):
        for ld in loaders:
            await ld.wait()
        if actions is not None:
            await actions.wait()


def _cancel(*loaders: Loader, actions: Actions | None = None) -> None:
    for ld in loaders:
        ld.cancel()
    if actions is not None:
        actions.cancel()
