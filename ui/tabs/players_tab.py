"""The Players side tab: a player's profile across the library, and the reviewer's name merges with their undo.

A thin view over :mod:`app.players`: the profile (:func:`app.players.profile.build_profile`, which may read new
replays) and every merge run in the views' worker thread (:mod:`ui.tabs.loading`); the GUI thread only sets the
rendered text and draws the charts (:mod:`ui.charts.profile_charts`: opening frequencies, timing distributions).
The profile is shown as its Markdown report in a plain-text view below the charts: replay names stay plain text,
and its tables are the charts' text alternative.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.i18n import Lang, system_lang, tr
from ui.charts.profile_charts import ProfileChartTabs
from ui.services import Database
from ui.tabs.loading import Actions, Loader, error_text

if TYPE_CHECKING:
    from app.players.charts import ProfileCharts


class PlayersTab(QWidget):
    """Name → profile; merge another name into the shown player, or undo a merge.

    Args:
        db: the store (library, analyses, memory, merges).
        lang: the interface language.
        reviewer: who merges, or how to read it at merge time (the ``reviewer_name`` setting, which the review
            queue may set later); a merge without one is refused with a message.
    """

    profile_shown = Signal(str)
    """The player whose profile was just shown (tests and the window wait for it)."""

    def __init__(
        self,
        db: Database,
        lang: Lang | None = None,
        reviewer: str | Callable[[], str] = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.db = db
        self.lang = lang or system_lang()
        self._reviewer = reviewer
        self.loader = Loader(self, self._show_error)
        self._actions = Actions(self, self._show_error)
        self.player = ""
        self.name = QLineEdit()
        self.name.setPlaceholderText(tr(self.lang, "player name"))
        self.show_button = QPushButton(tr(self.lang, "Show profile"))
        self.alias = QLineEdit()
        self.alias.setPlaceholderText(tr(self.lang, "another name"))
        self.merge_button = QPushButton(tr(self.lang, "Merge into this player"))
        self.unmerge_button = QPushButton(tr(self.lang, "Undo merge"))
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.report = QPlainTextEdit()
        self.report.setReadOnly(True)
        self.report.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.report.setPlaceholderText(
            tr(
                self.lang,
                "Type a player's name to see the library's games, openings per matchup, timings against "
                "the rest of the library, and what the memory knows about the player.",
            )
        )
        top = QHBoxLayout()
        top.addWidget(self.name, 1)
        top.addWidget(self.show_button)
        merge = QHBoxLayout()
        merge.addWidget(self.alias, 1)
        merge.addWidget(self.merge_button)
        merge.addWidget(self.unmerge_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(merge)
        layout.addWidget(self.message)
        # the charts above their text alternative (the report's tables); pyqtgraph is imported with the first profile
        self.charts = ProfileChartTabs(lambda: self.lang)
        self.charts.setMinimumHeight(170)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.charts)
        split.addWidget(self.report)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        layout.addWidget(split, 1)
        self.show_button.clicked.connect(self.show_profile)
        self.name.returnPressed.connect(self.show_profile)
        self.merge_button.clicked.connect(self.merge)
        self.unmerge_button.clicked.connect(self.unmerge)

    @property
    def reviewer(self) -> str:
        """Who merges now ("" when nobody is set)."""
        return (self._reviewer() if callable(self._reviewer) else self._reviewer).strip()

    def _show_error(self, exc: Exception) -> None:
        self.message.setText(error_text(exc, self.lang))

    async def refreshed(self) -> None:
        """Return once every load and action started so far has finished (for tests and callers)."""
        while self.loader.busy() or self._actions.tasks:
            await self.loader.wait()
            await self._actions.wait()

    def cancel_loading(self) -> None:
        """Stop applying pending loads (the tab is being replaced)."""
        self.loader.cancel()
        self._actions.cancel()

    def show_profile(self, name: str | None = None) -> asyncio.Future[None] | None:
        """Build the profile of ``name`` (the name field when None) in the worker thread, then show it."""
        wanted = (name if isinstance(name, str) else self.name.text()).strip()
        if not wanted:
            self.message.setText(tr(self.lang, "Type a player's name"))
            return None
        db, lang = self.db, self.lang

        def query() -> tuple[str, str, ProfileCharts]:
            from ui.charts.base import import_chart_library

            import_chart_library()  # the charts' library: a second of imports, off the GUI thread
            from app.players.charts import profile_charts
            from app.players.profile import build_profile
            from app.players.report import render_markdown
            from app.replay.reader import gc_paused

            with gc_paused():  # a full collection here would hold the GIL (the GUI thread) 50-90 ms in one go
                profile = build_profile(db, wanted)
                return str(profile["player"]), render_markdown(profile, lang), profile_charts(profile)

        def apply(result: tuple[str, str, ProfileCharts]) -> Iterator[None]:
            self.player, text, charts = result
            self.message.setText("")
            self.report.setPlainText(text)
            yield
            for chart in (self.charts.openings, self.charts.timings):
                if chart.prepare():  # the first plot widget in a turn of its own
                    yield
                chart.set_data(charts)
                yield
            self.profile_shown.emit(self.player)

        return self.loader.start(query, apply)

    def merge(self) -> asyncio.Future[Any] | None:
        """Make the alias field's name one of the shown player's names, then reload the profile."""
        player = self.player
        return self._names_action(lambda names, alias, who: names.merge(player, alias, who))

    def unmerge(self) -> asyncio.Future[Any] | None:
        """Undo the merge that made the alias field's name another player's, then reload the profile."""
        return self._names_action(lambda names, alias, who: names.unmerge(alias, who))

    def _names_action(self, act: Callable[[Any, str, str], Any]) -> asyncio.Future[Any] | None:
        alias = self.alias.text().strip()
        if not self.player or not alias:
            self.message.setText(tr(self.lang, "Show a player first, then type the other name"))
            return None
        who = self.reviewer
        if not who:
            self.message.setText(tr(self.lang, "A merge needs a reviewer: set the reviewer name"))
            return None
        db, lang = self.db, self.lang

        def action() -> None:
            from app.players.names import PlayerNames

            act(PlayerNames(db, lang=lang), alias, who)

        def done(_: None) -> None:
            self.show_profile(self.player)

        return self._actions.run(action, done)
