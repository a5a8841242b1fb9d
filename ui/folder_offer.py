"""The first screen's offer: the games' replay folders found on this machine, accepted with one click.

The search (:func:`app.library.folders.find_replay_folders`) runs in a worker thread; this bar only shows its
result. Accepting sets the ``replay_folder`` setting (the window does that); closing the bar remembers that it
was declined, so it is not offered again.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QFrame, QHBoxLayout, QPushButton, QToolButton, QVBoxLayout, QWidget

from app.library.folders import FoundFolder
from ui.lang import UiLanguage
from ui.widgets import plain_label

WHERE = {"windows": "", "wine": "Wine", "proton": "Steam Proton"}
"""Where a found folder lives, by product name (shown as it is in every language)."""


class FolderOffer(QFrame):
    """A bar above the library offering the found replay folders.

    Signals:
        accepted(str): the folder the user chose.
        dismissed(): the user closed the bar without choosing.
    """

    accepted = Signal(str)
    dismissed = Signal()

    def __init__(self, ui: UiLanguage, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ui = ui
        self.setObjectName("folderOffer")
        self.setStyleSheet(
            "#folderOffer { background: #e8f4fd; border: 1px solid #0b4f8a; } #folderOffer QLabel { color: #0b4f8a; }"
        )
        self.folders: list[FoundFolder] = []
        self.label = plain_label(parent=self)
        self.label.setWordWrap(True)
        self.choice = QComboBox(self)
        self.choice.currentIndexChanged.connect(lambda _i: self._describe())
        self.use = QPushButton(self)
        self.use.setDefault(True)
        self.use.clicked.connect(self._accept)
        ui.bind_tr(self.use, self.use.setText, "Use this folder")
        close = QToolButton(self)
        close.setText("✕")
        close.setAutoRaise(True)
        ui.bind_tr(close, close.setToolTip, "No thanks (Settings → Replay folder)")
        close.clicked.connect(self._dismiss)
        text = QVBoxLayout()
        text.setContentsMargins(0, 0, 0, 0)
        text.addWidget(self.label)
        text.addWidget(self.choice)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(8, 4, 4, 4)
        lay.addLayout(text, 1)
        lay.addWidget(self.use)
        lay.addWidget(close)
        ui.changed.connect(lambda _c: self.offer(self.folders) if self.folders else None)
        self.hide()

    def offer(self, folders: list[FoundFolder]) -> None:
        """Show ``folders`` (the most recently used first); nothing found hides the bar."""
        self.folders = list(folders)
        self.choice.blockSignals(True)
        self.choice.clear()
        for f in self.folders:
            self.choice.addItem(f"{f.title_in(self.ui.lang)} — {f.path}", str(f.path))
        self.choice.blockSignals(False)
        self.choice.setVisible(len(self.folders) > 1)
        self._describe()
        self.setVisible(bool(self.folders))

    def current(self) -> FoundFolder | None:
        """The folder the bar offers now."""
        index = self.choice.currentIndex()
        return self.folders[index] if 0 <= index < len(self.folders) else None

    def _describe(self) -> None:
        found = self.current()
        if found is None:
            return
        where = WHERE.get(found.where, "")
        title, replays, path = found.title_in(self.ui.lang), found.replays, found.path
        tx = self.ui.tx
        if len(self.folders) > 1:  # the list names each folder: the text says which one is chosen
            count = len(self.folders)
            text = (
                tx(
                    "Found {count} game replay folders; chosen: {title} (in {where}), {replays} replays."
                    " Use it for the library? Every game's last replay is then kept as well.",
                    count=count,
                    title=title,
                    where=where,
                    replays=replays,
                )
                if where
                else tx(
                    "Found {count} game replay folders; chosen: {title}, {replays} replays."
                    " Use it for the library? Every game's last replay is then kept as well.",
                    count=count,
                    title=title,
                    replays=replays,
                )
            )
        elif where:
            text = tx(
                "Found your {title} replay folder (in {where}): {path} ({replays} replays)."
                " Use it for the library? Every game's last replay is then kept as well.",
                title=title,
                where=where,
                path=path,
                replays=replays,
            )
        else:
            text = tx(
                "Found your {title} replay folder: {path} ({replays} replays)."
                " Use it for the library? Every game's last replay is then kept as well.",
                title=title,
                path=path,
                replays=replays,
            )
        self.label.setText(text)

    def _accept(self) -> None:
        found = self.current()
        if found is not None:
            self.hide()
            self.accepted.emit(str(found.path))

    def _dismiss(self) -> None:
        self.hide()
        self.dismissed.emit()
