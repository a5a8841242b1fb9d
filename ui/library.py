"""The replay library: the replay folder as a sortable, searchable table that follows the folder's changes.

A scan runs in a worker thread: :func:`app.library.scan_folder` reads the headers of new or changed files only
(the rest comes from the store's header cache, keyed by path, size and mtime) and reports progress. Sorting and
filtering happen in the source model over search text and sort keys computed once per row (engineering notes
§1.9: a proxy model over a Python model is two orders of magnitude slower on large folders). A
``QFileSystemWatcher`` on the folder triggers a debounced rescan.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import (
    QAbstractTableModel,
    QFileSystemWatcher,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLineEdit,
    QSizePolicy,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.i18n import N_, Lang
from app.library import scan_folder
from ui.analysis_view import clock
from ui.lang import UiLanguage
from ui.replay_info import ReplayInfo, info_from_summary
from ui.services import Database
from ui.widgets import plain_label

log = logging.getLogger(__name__)

COLUMNS = (
    N_("Map"),
    N_("Players (factions)"),
    N_("Date"),
    N_("Duration"),
    N_("Mod"),
    N_("File"),
)

_Index = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True, slots=True)
class LibraryRow:
    """A replay with what search and sort compare.

    Computed once per row (in the scan's worker thread), not per keystroke or click on the GUI thread.
    """

    info: ReplayInfo
    haystack: str
    cells: tuple[str, ...]
    keys: tuple[Any, ...]
    players_zh: str
    """The players column with Chinese faction names (``cells`` has them as the header spells them)."""


def library_row(info: ReplayInfo) -> LibraryRow:
    """The row of ``info`` (plain Python: build it in a worker thread for whole folders)."""
    cells = tuple(LibraryModel.cell(info, c) for c in range(len(COLUMNS)))
    players_zh = info.players_text_in(Lang.ZH)
    hay = f"{info.map_name} {info.players_text} {players_zh} {info.mod} {info.path.name}".lower()  # 盟军 or Allies
    keys = tuple(
        info.date or _NO_DATE if c == 2 else info.duration if c == 3 else cells[c].lower() for c in range(len(COLUMNS))
    )
    hash(info.path)  # a Path computes (and keeps) its hash on first use: here, not while the GUI thread files it
    return LibraryRow(info, hay, cells, keys, players_zh)


_NO_DATE = datetime.min.replace(tzinfo=UTC)
_DISPLAY, _TOOLTIP, _PATH = Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.UserRole
_ROLES = frozenset((_DISPLAY, _TOOLTIP, _PATH))


class LibraryModel(QAbstractTableModel):
    """Replay rows, sorted and filtered in the model itself over precomputed search text and sort keys."""

    def __init__(self, ui: UiLanguage) -> None:
        super().__init__()
        self.ui = ui
        self._all: dict[Path, LibraryRow] = {}
        self._folder_paths: dict[Path, list[Path]] = {}  # the rows each folder scan listed
        self._rows: list[LibraryRow] = []
        self._filter = ""
        self._sort = (2, Qt.SortOrder.DescendingOrder)
        ui.changed.connect(lambda _code: self._retranslate())

    def _retranslate(self) -> None:
        """Column titles and the players column (faction names) follow the interface language."""
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(COLUMNS) - 1)
        if self._rows:
            self.dataChanged.emit(self.index(0, 1), self.index(len(self._rows) - 1, 1), [_DISPLAY])

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008, N802 - Qt signature
        """Visible rows."""
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008, N802 - Qt signature
        """Fixed columns."""
        return len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        """Column titles in the interface language."""
        if orientation is Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section](self.ui.lang)
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """O(1) cell text; the tooltip carries a parse error (called per cell and role of every paint)."""
        if role not in _ROLES or not index.isValid():
            return None
        row = self._rows[index.row()]
        if role == _DISPLAY:
            if index.column() == 1 and self.ui.lang is Lang.ZH:
                return row.players_zh
            return row.cells[index.column()]
        if role == _TOOLTIP:
            return row.info.error or str(row.info.path)
        return str(row.info.path)

    @staticmethod
    def cell(info: ReplayInfo, col: int) -> str:
        """The text of column ``col`` for ``info``."""
        if col == 0:
            return info.map_name or ("⚠ " + info.error[:60] if info.error else "")
        if col == 1:
            return info.players_text
        if col == 2:
            return info.date.astimezone().strftime("%Y-%m-%d %H:%M") if info.date else ""
        if col == 3:
            return clock(info.duration) if info.duration else ""
        if col == 4:
            return info.mod
        return info.path.name

    @property
    def sort_order(self) -> tuple[int, Qt.SortOrder]:
        """The column and direction rows are sorted by."""
        return self._sort

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort in the source model."""
        self._sort = (column, order)
        self._rebuild()

    def set_filter(self, text: str) -> None:
        """Keep rows whose map, players, mod or file name contain every word of ``text``."""
        self._filter = text.strip().lower()
        self._rebuild()

    def _rebuild(self) -> None:
        words = self._filter.split()
        rows = (
            [r for r in self._all.values() if all(w in r.haystack for w in words)] if words else [*self._all.values()]
        )
        col, order = self._sort
        rows.sort(key=lambda r: r.keys[col], reverse=order is Qt.SortOrder.DescendingOrder)
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def put(self, infos: list[ReplayInfo]) -> None:
        """Add or replace rows."""
        for info in infos:
            self._all[info.path] = library_row(info)
        self._rebuild()

    def replace_folder(self, folder: Path, rows: list[LibraryRow]) -> None:
        """Make ``rows`` those of ``folder`` (its other rows are dropped; files opened from elsewhere stay)."""
        for path in self._folder_paths.pop(folder, ()):
            self._all.pop(path, None)
        self._all.update((r.info.path, r) for r in rows)
        self._folder_paths[folder] = [r.info.path for r in rows]
        self._rebuild()

    def info_at(self, row: int) -> ReplayInfo:
        """The row's replay."""
        return self._rows[row].info

    def paths(self) -> list[Path]:
        """Visible paths in display order."""
        return [r.info.path for r in self._rows]


class LibraryWidget(QWidget):
    """Search box + table of the replay folder, watched for new files.

    Signals:
        replay_activated(str): a row was double-clicked (or Enter pressed).
    """

    replay_activated = Signal(str)

    def __init__(self, ui: UiLanguage, db: Database, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ui = ui
        self.db = db
        self.folder: Path | None = None
        self.model = LibraryModel(ui)
        self.search = QLineEdit(self)
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self.model.set_filter)
        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.activated.connect(self._activated)
        self.status = plain_label(parent=self)
        self.status.setWordWrap(True)  # a long folder path wraps instead of widening the window
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.search)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.status)
        ui.bind_tr(self.search, self.search.setPlaceholderText, "Search map, player, mod…")
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(300)
        self._debounce.timeout.connect(self.rescan)
        self.watcher = QFileSystemWatcher(self)
        self.watcher.directoryChanged.connect(lambda _p: self._debounce.start())
        self._scan_task: asyncio.Task[int] | None = None
        self.scans = 0
        self.parsed = 0  # files the last scan had to read (the others came from the header cache)
        self._listed: Path | None = None  # the folder whose scan the rows show

    def _activated(self, index: QModelIndex) -> None:
        self.replay_activated.emit(str(self.model.info_at(index.row()).path))

    def set_folder(self, folder: str | Path | None) -> asyncio.Task[int] | None:
        """Watch ``folder`` (empty: none) and scan it; returns the scan task."""
        if self.watcher.directories():
            self.watcher.removePaths(self.watcher.directories())
        self.folder = Path(folder) if folder else None
        if self.folder is None or not self.folder.is_dir():
            self.status.setText(self.ui.tx("No replay folder set (Settings → Replay folder); drop or open files."))
            return None
        self.watcher.addPath(str(self.folder))
        return self.rescan()

    def rescan(self) -> asyncio.Task[int] | None:
        """Read new or changed files of the folder in a worker thread (the rest comes from the header cache)."""
        if self.folder is None:
            return None
        if self._scan_task is not None and not self._scan_task.done():
            self._debounce.start()  # a scan is running: come back when it is done
            return self._scan_task
        self._scan_task = asyncio.get_event_loop().create_task(self._scan(self.folder))
        return self._scan_task

    def cancel_scan(self) -> None:
        """Stop waiting for a running scan (the window is closing; its thread finishes on its own, unused)."""
        self._debounce.stop()
        if self._scan_task is not None and not self._scan_task.done():
            self._scan_task.cancel()

    async def _scan(self, folder: Path) -> int:
        loop = asyncio.get_running_loop()

        def progress(done: int, total: int) -> None:  # worker thread: the label is set on the GUI thread
            text = self.ui.tx("Reading replay headers {done}/{total}…", done=done, total=total)
            loop.call_soon_threadsafe(self._progress, text)

        shown = self._listed == folder  # the rows are this folder's: an unchanged scan needs no rows at all

        col, order = self.model.sort_order

        def scan() -> tuple[list[LibraryRow], int, int]:
            result = scan_folder(self.db, folder, progress, unchanged=not shown)
            rows = [library_row(info_from_summary(h)) for h in result.summaries]
            # sorted here, the model's own sort of the rows is a linear pass
            rows.sort(key=lambda r: r.keys[col], reverse=order is Qt.SortOrder.DescendingOrder)
            return rows, result.parsed, result.removed  # the summaries are freed here, not on the GUI thread

        rows, parsed, removed = await asyncio.to_thread(scan)
        if not shown or parsed or removed:
            self.model.replace_folder(folder, rows)
            self._listed = folder
        self.scans += 1
        self.parsed = parsed
        loop.call_soon(self._fit_columns)  # its own loop turn: measuring text is the costly part of a fill
        n = self.model.rowCount()
        self.status.setText(self.ui.tx("{folder} · {n} replays", folder=folder, n=n))
        return parsed

    def _progress(self, text: str) -> None:
        if shiboken6.isValid(self.status):
            self.status.setText(text)

    def add_files(self, infos: list[ReplayInfo]) -> None:
        """Show opened or dropped files too (they may live outside the folder)."""
        self.model.put(infos)
        self._fit_columns()

    def _fit_columns(self) -> None:
        """Size columns to their content once rows exist (sampling rows keeps it cheap, notes §1.9)."""
        if shiboken6.isValid(self) and self.model.rowCount() and not getattr(self, "_fitted", False):
            self._fitted = True
            self.table.horizontalHeader().setResizeContentsPrecision(50)
            self.table.resizeColumnsToContents()
            for col in (0, 1):
                self.table.setColumnWidth(col, min(self.table.columnWidth(col), 220))
