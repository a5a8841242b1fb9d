"""The memory's Supersede-chains tab: which fact replaced which, and flipping one back."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.i18n import Lang, system_lang, tr
from app.memory import FactView, MemoryStore
from ui.tabs.loading import Actions, Loader, batches
from ui.tabs.memory_words import MessageBar, cancel_all, fact_text, settle_all, shown_content
from ui.widgets import EmptyHint


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
        await settle_all(self.loader, actions=self._actions)

    def cancel_loading(self) -> None:
        """Stop applying pending loads (the tab is being replaced)."""
        cancel_all(self.loader, actions=self._actions)

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
            self.detail.setPlainText("\n\n".join(fact_text(f, self.lang) for f in self._chains[row]))

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
