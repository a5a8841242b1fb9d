"""A table model over a large SQL query: the count and the visible pages only, read in worker threads.

The side tabs list up to hundreds of thousands of rows. :class:`PagedTableModel` asks its :class:`PageQuery`
(plain functions over an ``app`` service: filtering and sorting run in SQL) for the number of matching rows and
the first page; after that it reads a page only when the view scrolls to a row of it, and keeps a few recent pages.
The row count is known from the start, so the scroll bar is true and scrolling to the end reads the last page
only (Qt's ``fetchMore`` protocol grows a model from the top, which would read every row on the way down).

Every query runs in a worker thread; the GUI thread only stores the plain rows that arrive. A new filter or
sort (a new generation) drops pages still in flight for the old one.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from app.errors import KnownError
from ui.tabs.loading import Loader, current_loop, read_in_worker

log = logging.getLogger(__name__)

PageRow = tuple[str, tuple[str, ...]]
"""A row's id (kept for selection) and its column texts."""
Sort = tuple[str, bool]
"""A sort key name of the service and whether it is descending."""
PAGE_ROWS = 200
KEPT_PAGES = 8
FILL_ROWS = 25
"""Rows turned into Qt items per event-loop turn (a bounded slice of GUI-thread work)."""


@dataclass(frozen=True)
class PageQuery:
    """What a paged view shows, as two functions called in worker threads.

    Attributes:
        count: how many rows match the view's filter.
        rows: ``rows(offset, limit, total, sort)``: one page of them in ``sort`` (None: the service's default).
    """

    count: Callable[[], int]
    rows: Callable[[int, int, int, Sort | None], list[PageRow]]


@dataclass
class _Fill:
    """Rows of one page still to turn into items from ``next`` on (``rows`` None: clear the items instead)."""

    generation: int
    base: int
    rows: list[PageRow] | None
    count: int = -1
    next: int = 0

    def __post_init__(self) -> None:
        if self.count < 0:
            self.count = len(self.rows or [])


class PagedTableModel(QStandardItemModel):
    """Rows of a :class:`PageQuery`, a page at a time; sorting by a header click re-queries in SQL.

    Signals:
        rows_reset(): a new count and first page replaced the rows (a refresh, filter or order).

    The rows read are stored as Qt items, so painting the table runs no Python at all (a Python ``data()`` is
    called for every cell and role of every paint, and each call waits for the GIL while a worker thread runs
    Python). Which pages are needed is learnt from the view's scroll position (:func:`paged_table`).

    Args:
        owner: the view (loads stop once its C++ object is gone).
        headers: the column titles.
        sort_keys: column → the service's sort key name (columns not listed do not sort).
        on_error: shows a failed query in the view.
    """

    rows_reset = Signal()

    def __init__(
        self,
        owner: QWidget,
        headers: Sequence[str],
        sort_keys: Mapping[int, str],
        on_error: Callable[[Exception], None],
    ) -> None:
        super().__init__(0, len(headers), owner)
        self.owner = owner
        self.setHorizontalHeaderLabels(list(headers))
        self.sort_keys = dict(sort_keys)
        self.on_error = on_error
        self.loader = Loader(owner, on_error)  # count + first page: the newest filter or sort wins
        self.query: PageQuery | None = None
        self.sort_order: Sort | None = None
        self.total = 0
        self._pages: OrderedDict[int, list[PageRow]] = OrderedDict()  # read pages, least recently wanted first
        self._generation = 0
        self._wanted: set[int] = set()
        self._fetching: asyncio.Future[Any] | None = None
        self._fills: list[_Fill] = []  # pages still to turn into items (or to clear), a slice per loop turn
        self._filling = False
        self.pages_read = 0  # pages read after the first (exposed for tests)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Order by the column's key in SQL (a column without one keeps the current order)."""
        key = self.sort_keys.get(column)
        if key is None:
            return
        self.sort_order = (key, order is Qt.SortOrder.DescendingOrder)
        self.reload()

    # ---- rows --------------------------------------------------------------------------------------------------
    def set_query(self, query: PageQuery) -> asyncio.Future[None] | None:
        """Show ``query``'s rows (count and first page read in a worker thread); returns the loading future."""
        self.query = query
        return self.reload()

    def reload(self) -> asyncio.Future[None] | None:
        """Read the count and the first page again (a refresh, a new filter or order)."""
        query, order = self.query, self.sort_order
        if query is None:
            return None

        def first() -> tuple[int, list[PageRow]]:
            total = query.count()
            return total, query.rows(0, PAGE_ROWS, total, order)

        return self.loader.start(first, self._reset)

    def _reset(self, data: tuple[int, list[PageRow]]) -> None:
        total, first = data
        self._generation += 1
        self._wanted.clear()
        self._fills.clear()
        self._pages = OrderedDict()  # before the rows change: the view asks for the rows it then shows
        self.total = 0
        self.setRowCount(0)  # drops every item (C++)
        if total:
            self._store_page(0, first)  # its items are made in the next loop turns, once the rows exist
        self.total = total
        self.setRowCount(total)  # empty rows: the scroll bar is true from the start
        self.rows_reset.emit()

    def want_rows(self, first: int, last: int) -> None:
        """Rows ``first … last`` are on screen: read the pages they are on unless they are in memory."""
        if self.total == 0 or last < 0:
            return
        first, last = max(0, first), min(self.total - 1, max(first, last))
        for page_no in range(first // PAGE_ROWS, last // PAGE_ROWS + 1):
            if page_no in self._pages:
                self._pages.move_to_end(page_no)
            else:
                self._want(page_no)

    def row_id(self, row: int) -> str | None:
        """The id of row ``row`` when its page was read."""
        page = self._pages.get(row // PAGE_ROWS)
        offset = row % PAGE_ROWS
        return page[offset][0] if page is not None and 0 <= row < self.total and offset < len(page) else None

    def text(self, row: int, column: int) -> str | None:
        """The text shown in a cell (None while its row is not filled in)."""
        item = self.item(row, column)
        return None if item is None else item.text()

    def loaded_rows(self) -> int:
        """Rows held in memory now (at most :data:`KEPT_PAGES` pages)."""
        return sum(len(p) for p in self._pages.values())

    def busy(self) -> bool:
        """A count or a page is being read, waits to be, or is being filled in."""
        return self.loader.busy() or self._fetching is not None or bool(self._wanted) or bool(self._fills)

    async def settled(self) -> None:
        """Return once the count and every requested page have arrived and are shown (for tests, benchmarks)."""
        while self.busy():
            await self.loader.wait()
            if self._fetching is not None:
                await asyncio.wait({self._fetching})
            else:
                await asyncio.sleep(0.001)

    def cancel(self) -> None:
        """Stop loading (the view is being replaced)."""
        self.loader.cancel()
        self._generation += 1
        self._wanted.clear()
        self._fills.clear()

    def _want(self, page_no: int) -> None:
        self._wanted.add(page_no)
        if self._fetching is None:
            loop = current_loop()
            if loop is not None:
                self._fetching = loop.create_future()  # "scheduled": the pages of this scroll join one read
                loop.call_soon(self._launch, loop)

    def _launch(self, loop: asyncio.AbstractEventLoop) -> None:
        marker = self._fetching
        query, order, total, generation = self.query, self.sort_order, self.total, self._generation
        wanted = sorted(self._wanted)
        self._wanted.clear()
        if query is None or not wanted or not shiboken6.isValid(self.owner):
            self._done_fetching(marker)
            return

        def read() -> list[tuple[int, list[PageRow]]]:
            return [(p, query.rows(p * PAGE_ROWS, PAGE_ROWS, total, order)) for p in wanted]

        fut = read_in_worker(loop, self.owner, read)
        fut.add_done_callback(lambda f: self._arrived(f, generation, marker, loop))

    def _arrived(
        self,
        fut: asyncio.Future[list[tuple[int, list[PageRow]]]],
        generation: int,
        marker: asyncio.Future[Any] | None,
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        if not shiboken6.isValid(self.owner) or not shiboken6.isValid(self):
            self._done_fetching(marker)
            return
        exc = fut.exception()
        if exc is not None:
            if not isinstance(exc, KnownError):
                log.error("page query failed", exc_info=exc)
            self._done_fetching(marker)
            if isinstance(exc, Exception):
                self.on_error(exc)
            return
        if generation == self._generation:  # rows of an older filter or order are dropped
            for page_no, rows in fut.result():
                self.pages_read += 1
                self._store_page(page_no, rows)
        if self._wanted:  # rows scrolled to meanwhile: read them next
            loop.call_soon(self._launch, loop)
        else:
            self._done_fetching(marker)

    def _store_page(self, page_no: int, rows: list[PageRow]) -> None:
        """Keep a read page and turn it into items a slice per loop turn; forget the least recent pages."""
        self._pages[page_no] = rows
        self._pages.move_to_end(page_no)
        self._fills.append(_Fill(self._generation, page_no * PAGE_ROWS, rows))
        while len(self._pages) > KEPT_PAGES:
            old, old_rows = self._pages.popitem(last=False)
            self._fills = [f for f in self._fills if f.base != old * PAGE_ROWS]
            self._fills.append(_Fill(self._generation, old * PAGE_ROWS, None, len(old_rows)))  # clear its items
        self._schedule_fill()

    def _schedule_fill(self) -> None:
        loop = current_loop()
        if self._fills and not self._filling and loop is not None:
            self._filling = True
            loop.call_soon(self._fill_step)

    def _fill_step(self) -> None:
        """Turn :data:`FILL_ROWS` read rows into items, or clear those of a forgotten page (one bounded step)."""
        self._filling = False
        if not self._fills or not shiboken6.isValid(self):
            return
        fill = self._fills[0]
        if fill.generation != self._generation:
            self._fills.pop(0)
        else:
            stop = min(fill.count, fill.next + FILL_ROWS)
            columns = self.columnCount()
            first = fill.base + fill.next
            # Each setItem() emits layoutAboutToBeChanged/layoutChanged, and the views answer those with work over
            # all 100K rows (60-80 ms per slice): the cells change silently, then one dataChanged repaints them.
            blocked = self.blockSignals(True)
            try:
                for r in range(first, fill.base + stop):
                    if fill.rows is None:
                        for col in range(columns):
                            self.takeItem(r, col)
                        continue
                    for col, value in enumerate(fill.rows[r - fill.base][1]):
                        item = QStandardItem(value)
                        item.setEditable(False)
                        self.setItem(r, col, item)
            finally:
                self.blockSignals(blocked)
            if stop > fill.next:
                self.dataChanged.emit(self.index(first, 0), self.index(fill.base + stop - 1, columns - 1))
            fill.next = stop
            if stop >= fill.count:
                self._fills.pop(0)
        self._schedule_fill()

    def _done_fetching(self, marker: asyncio.Future[Any] | None) -> None:
        if marker is not None and not marker.done():
            marker.set_result(None)
        if self._fetching is marker:
            self._fetching = None


def paged_table(table: QTableView, model: PagedTableModel) -> None:
    """Show ``model`` in ``table``, reading the rows on screen whenever the table scrolls or resizes.

    Rows are selected whole, a header click sorts in SQL, and row heights are fixed (no measuring of 100K rows).
    """
    table.setModel(model)

    def visible() -> None:
        top = table.rowAt(0)
        if top < 0:  # no rows, or not laid out yet
            return
        bottom = table.rowAt(max(0, table.viewport().height() - 1))
        model.want_rows(top, bottom if bottom >= 0 else model.total - 1)  # -1: the rows end above the bottom

    def reset() -> None:
        table.scrollToTop()  # new rows (another order or filter) are shown from their first one
        visible()

    model.rows_reset.connect(reset)
    table.verticalScrollBar().valueChanged.connect(lambda _v: visible())
    table.verticalScrollBar().rangeChanged.connect(lambda _a, _b: visible())
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    table.verticalHeader().hide()
    table.horizontalHeader().setStretchLastSection(True)
    table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.DescendingOrder)  # the store's order until a click
    table.setSortingEnabled(True)
