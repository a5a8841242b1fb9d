"""The replay library: the replay folder as a sortable, searchable table that follows the folder's changes.

Rows are parsed in a worker thread; sorting and filtering happen in the source model (engineering notes §1.9:
a proxy model over a Python model is two orders of magnitude slower on large folders). A
``QFileSystemWatcher`` on the folder triggers a debounced rescan that only parses new or changed files.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime
from pathlib import Path
from typing import Any

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

from ui.analysis_view import clock
from ui.lang import UiLanguage
from ui.replay_info import ReplayInfo, is_replay, load_info
from ui.widgets import plain_label

log = logging.getLogger(__name__)

COLUMNS = (
    ("地图", "Map"),
    ("玩家（阵营）", "Players (factions)"),
    ("日期", "Date"),
    ("时长", "Duration"),
    ("模组", "Mod"),
    ("文件", "File"),
)

_Index = QModelIndex | QPersistentModelIndex


class LibraryModel(QAbstractTableModel):
    """Replay rows, sorted and filtered in the model itself."""

    def __init__(self, ui: UiLanguage) -> None:
        super().__init__()
        self.ui = ui
        self._all: dict[Path, ReplayInfo] = {}
        self._rows: list[ReplayInfo] = []
        self._filter = ""
        self._sort = (2, Qt.SortOrder.DescendingOrder)
        ui.changed.connect(lambda _c: self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(COLUMNS) - 1))

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008, N802 - Qt signature
        """Visible rows."""
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008, N802 - Qt signature
        """Fixed columns."""
        return len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        """Column titles in the interface language."""
        if orientation is Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.ui.t(*COLUMNS[section])
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """O(1) cell text; the tooltip carries a parse error."""
        if not index.isValid():
            return None
        info = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._cell(info, index.column())
        if role == Qt.ItemDataRole.ToolTipRole:
            return info.error or str(info.path)
        if role == Qt.ItemDataRole.UserRole:
            return str(info.path)
        return None

    @staticmethod
    def _cell(info: ReplayInfo, col: int) -> str:
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

    @staticmethod
    def _key(info: ReplayInfo, col: int) -> Any:
        if col == 2:
            return info.date or datetime.min.astimezone()
        if col == 3:
            return info.duration
        return LibraryModel._cell(info, col).lower()

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
        rows = [
            i
            for i in self._all.values()
            if all(w in f"{i.map_name} {i.players_text} {i.mod} {i.path.name}".lower() for w in words)
        ]
        col, order = self._sort
        rows.sort(key=lambda i: self._key(i, col), reverse=order is Qt.SortOrder.DescendingOrder)
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def put(self, infos: list[ReplayInfo]) -> None:
        """Add or replace rows."""
        for info in infos:
            self._all[info.path] = info
        self._rebuild()

    def remove_missing(self, folder: Path, present: set[Path]) -> None:
        """Drop rows of ``folder``'s files that no longer exist (files opened from elsewhere stay)."""
        gone = [p for p in self._all if p.parent == folder and p not in present]
        for p in gone:
            del self._all[p]
        if gone:
            self._rebuild()

    def known(self) -> set[Path]:
        """Paths already parsed."""
        return set(self._all)

    def info_at(self, row: int) -> ReplayInfo:
        """The row's replay."""
        return self._rows[row]

    def paths(self) -> list[Path]:
        """Visible paths in display order."""
        return [i.path for i in self._rows]


class LibraryWidget(QWidget):
    """Search box + table of the replay folder, watched for new files.

    Signals:
        replay_activated(str): a row was double-clicked (or Enter pressed).
    """

    replay_activated = Signal(str)

    def __init__(self, ui: UiLanguage, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ui = ui
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
        ui.bind(self.search, self.search.setPlaceholderText, "搜索地图、玩家、模组…", "Search map, player, mod…")
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(300)
        self._debounce.timeout.connect(self.rescan)
        self.watcher = QFileSystemWatcher(self)
        self.watcher.directoryChanged.connect(lambda _p: self._debounce.start())
        self._scan_task: asyncio.Task[int] | None = None
        self.scans = 0

    def _activated(self, index: QModelIndex) -> None:
        self.replay_activated.emit(str(self.model.info_at(index.row()).path))

    def set_folder(self, folder: str | Path | None) -> None:
        """Watch ``folder`` (empty: none) and scan it."""
        if self.watcher.directories():
            self.watcher.removePaths(self.watcher.directories())
        self.folder = Path(folder) if folder else None
        if self.folder is None or not self.folder.is_dir():
            self.status.setText(
                self.ui.t(
                    "未设置录像文件夹（设置 → 录像文件夹），可拖入或打开文件。",
                    "No replay folder set (Settings → Replay folder); drop or open files.",
                )
            )
            return
        self.watcher.addPath(str(self.folder))
        self.rescan()

    def rescan(self) -> asyncio.Task[int] | None:
        """Parse new or changed files of the folder in a worker thread."""
        if self.folder is None:
            return None
        if self._scan_task is not None and not self._scan_task.done():
            self._debounce.start()  # a scan is running: come back when it is done
            return self._scan_task
        self._scan_task = asyncio.get_event_loop().create_task(self._scan(self.folder))
        return self._scan_task

    async def _scan(self, folder: Path) -> int:
        files = await asyncio.to_thread(lambda: sorted(p for p in folder.iterdir() if p.is_file() and is_replay(p)))
        present = set(files)
        self.model.remove_missing(folder, present)
        new = [p for p in files if p not in self.model.known()]
        batch: list[ReplayInfo] = []
        for p in new:
            batch.append(await asyncio.to_thread(load_info, p, stats=False))
            if len(batch) >= 20:
                self.model.put(batch)
                batch = []
        if batch:
            self.model.put(batch)
        self.scans += 1
        self._fit_columns()
        n = self.model.rowCount()
        self.status.setText(self.ui.t(f"{folder} · {n} 个录像", f"{folder} · {n} replays"))
        return len(new)

    def add_files(self, infos: list[ReplayInfo]) -> None:
        """Show opened or dropped files too (they may live outside the folder)."""
        self.model.put(infos)
        self._fit_columns()

    def _fit_columns(self) -> None:
        """Size columns to their content once rows exist (sampling rows keeps it cheap, notes §1.9)."""
        if self.model.rowCount() and not getattr(self, "_fitted", False):
            self._fitted = True
            self.table.horizontalHeader().setResizeContentsPrecision(50)
            self.table.resizeColumnsToContents()
            for col in (0, 1):
                self.table.setColumnWidth(col, min(self.table.columnWidth(col), 220))
