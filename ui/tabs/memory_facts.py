"""The memory's Facts tab: the fact list (filtered, sorted and paged in SQL) and one fact's provenance."""

from __future__ import annotations

import asyncio
from typing import Any

from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import (
    QComboBox,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.i18n import Lang, system_lang, tr
from app.memory import FactView, MemoryStore, SourceView
from app.numbers import NumberSpec
from ui.number_field import NumberField
from ui.tabs.loading import Actions, Loader
from ui.tabs.memory_words import (
    STATUS_LABELS,
    STATUSES,
    TYPE_WORDS,
    TYPES,
    MessageBar,
    cancel_all,
    fact_text,
    internal_names_hover,
    settle_all,
    shown_content,
    words,
)
from ui.tabs.paging import PagedTableModel, PageQuery, PageRow, Sort, paged_table
from ui.widgets import EmptyHint, FlowLayout

CONFIDENCE_SPEC = NumberSpec(minimum=0, maximum=1, integer=False, percent=True)
"""The facts filter's lowest confidence: 0.8 or 80%."""


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
            await settle_all(self.model.loader, self.detail_loader, actions=self._actions)
            await self.model.settled()

    def cancel_loading(self) -> None:
        """Stop applying pending loads (the tab is being replaced)."""
        self.model.cancel()
        cancel_all(self.detail_loader, actions=self._actions)

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
            self.detail.setPlainText(fact_text(f, self.lang))
            self.detail.setToolTip(internal_names_hover(self.lang, f))
            self.timeline.set_sources(f.sources)
            self.fact_selected.emit(fact_id)

        return self.detail_loader.start(lambda: self.store.fact(fact_id), show)
