"""The main window: replay library, replay card with the APM timeline, the analysis view and side tabs.

A thin view over :mod:`app` services and the composition root of the window's parts (:mod:`ui.window`): it lays
out the widgets, hands each part what it works with, and wires them together. Replays are parsed in worker
threads, analyses come from the runner of :mod:`ui.runner`, user-facing problems (:class:`app.errors.KnownError`)
go to the message bar.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import weakref
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import QByteArray, Qt, Signal
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QShowEvent
from PySide6.QtWidgets import QMainWindow, QSplitter, QStackedWidget, QToolButton, QVBoxLayout, QWidget

from app.errors import KnownError
from app.i18n import Lang
from app.library.folders import FoundFolder
from app.secrets import Notice, SecretStore, set_notice_sink
from app.settings import Settings
from ui.analysis_view import AnalysisView
from ui.charts.replay_charts import ChartPanel
from ui.lang import UiLanguage
from ui.library import LibraryWidget
from ui.replay_card import ReplayCard, TimelineChart
from ui.replay_info import ReplayInfo, info_from_summary, is_replay, load_info, replay_name_filter
from ui.runner import AnalysisRunner, default_runner
from ui.services import Database
from ui.settings_dialog import SettingsDialog
from ui.tabs.loading import Loader, error_text
from ui.widgets import MessageBar
from ui.window.export import ReportExport
from ui.window.menus import MenuSlots, WindowMenus
from ui.window.reads import OpenedReplay, is_sample, open_replay, started
from ui.window.replay_folders import ReplayFolders
from ui.window.review_mode import ReviewMode
from ui.window.run_control import RunController
from ui.window.side_panel import SidePanel
from ui.window.status import WindowStatus

if TYPE_CHECKING:
    from PySide6.QtWidgets import QFileDialog

    from app.pipeline.feedback import FeedbackResult
    from ui.feedback import FeedbackDialog, FeedbackTarget

log = logging.getLogger(__name__)


@dataclass
class AppContext:
    """What the window works with: the store, the settings, the key store and the analysis runner."""

    db: Database
    settings: Settings
    secrets: SecretStore
    runner: AnalysisRunner | None = None
    tasks: set[asyncio.Task[Any]] = field(default_factory=set)

    @classmethod
    def open(cls, runner: AnalysisRunner | None = None) -> AppContext:
        """Open the user's store and settings (``REPLAYSAGE_HOME`` redirects both)."""
        from ui.services import open_store

        settings = Settings.load()
        return cls(open_store(), settings, SecretStore(settings.get("secret_fallback")), runner)


NARROW_WINDOW = 1600
"""A first window narrower than this (a 1366- or 1440-wide laptop) starts with the side panel closed: open, it
left the analysis about 700 px at 1366."""
LIBRARY_WIDTH = 300
"""The replay library's width when it is shown again after being folded away."""


def _notice_sink(window: MainWindow) -> Callable[[str], None]:
    """Where :func:`app.secrets.notify` sends a notice while ``window`` lives: its signal (queued across threads)."""
    ref = weakref.ref(window)

    def sink(text: str) -> None:
        live = ref()
        if live is not None and shiboken6.isValid(live):
            live.notice_arrived.emit(text)

    return sink


class MainWindow(QMainWindow):
    """ReplaySage's window: lays out the widgets and composes the parts of :mod:`ui.window`.

    Parts (each owns one concern; see their modules): :attr:`status` (status line, progress, message bar),
    :attr:`menus`, :attr:`run` (Analyze / Cancel / Resume, stored analyses), :attr:`export`, :attr:`side` (the
    side dock's tabs), :attr:`review` (review mode) and :attr:`folders` (folder offer, autosave).

    Signals:
        replay_opened(str): a replay was parsed and shown (its path).
    """

    replay_opened = Signal(str)
    notice_arrived = Signal(object)  # a credential notice (app.secrets.notify), from any thread

    def __init__(
        self,
        ctx: AppContext,
        ui: UiLanguage | None = None,
        *,
        find_folders: Callable[[], list[FoundFolder]] | None = None,
    ) -> None:
        """Build the window; ``find_folders`` finds the games' replay folders (tests and screenshots fake a home)."""
        super().__init__()
        self.ctx = ctx
        self.ui = ui = ui or UiLanguage(ctx.settings.ui_lang())
        db, settings = ctx.db, ctx.settings
        runner = ctx.runner or default_runner(db, self.run_settings, ctx.secrets)
        self.info: ReplayInfo | None = None
        self.settings_dialog: SettingsDialog | None = None
        self.file_dialog: QFileDialog | None = None
        self.setAcceptDrops(True)
        self.setObjectName("ReplaySageMainWindow")
        self.resize(1280, 760)
        self._shown_once = False
        self._layout_restored = False

        self.message_bar = MessageBar(self)
        self.status = WindowStatus(self.message_bar, self.statusBar())
        self.library = LibraryWidget(ui, db)
        self.card = ReplayCard(ui)
        self.timeline = TimelineChart(ui)
        self.analysis = AnalysisView(runner, ui)
        self.charts = ChartPanel(ui, self.timeline)  # the APM timeline and the replay's charts, in tabs
        self.folders = ReplayFolders(
            self,
            db,
            settings,
            ui,
            library=self.library,
            status=self.status,
            remember=self._remember,
            on_error=self._load_failed,
            find_folders=find_folders,
        )
        self.side = SidePanel(
            self,
            db,
            settings,
            ui,
            remember_reviewer=self._remember_reviewer,
            enter_review=lambda: self.review.set_active(True),
        )
        self._lay_out()
        self.side_button = QToolButton(self)  # the side panel's switch, visible when the dock starts hidden
        self.side_button.setDefaultAction(self.side.dock.toggleViewAction())
        self.side_button.setAutoRaise(True)
        self.statusBar().addPermanentWidget(self.side_button)

        # what the analysis area shows (an opened replay, a reopened analysis): the newest request wins, so a
        # slow replay opened first can never replace one opened after it
        self.replay_loader = Loader(self, self._load_failed)
        self.opened_loader = Loader(self, self._load_failed)
        replay = self._replay_path
        self.run = RunController(
            self,
            db,
            settings,
            ui,
            analysis=self.analysis,
            status=self.status,
            replay=replay,
            run_settings=self.run_settings,
            spawn=self.spawn,
            view_loader=self.replay_loader,
            on_error=self._load_failed,
        )
        self.export = ReportExport(
            self,
            db,
            settings,
            ui,
            analysis=self.analysis,
            status=self.status,
            replay=replay,
            on_error=self._load_failed,
        )
        self.menus = WindowMenus(
            self,
            ui,
            MenuSlots(
                open_replay=self.open_dialog,
                export=self.export.dialog,
                copy_summary=self.export.copy_summary,
                settings=self.open_settings,
                quit=self.close,
                analyze=self.run.request_analyze,
                cancel=self.run.request_cancel,
                resume=lambda: self.run.request_analyze(resume=True),
                language=self.choose_language,
                toggle_side=self.side.toggle,
                toggle_library=self.toggle_library,
                toggle_review=lambda: self.review.toggle(),  # noqa: PLW0108 - made below
            ),
            cancel_area=self.analysis,
        )
        self.review = ReviewMode(
            self.main_stack,
            self.splitter,
            self.side.dock,
            self.menus.review_action,
            db=db,
            settings=settings,
            ui=ui,
            remember_reviewer=self._remember_reviewer,
            refresh_side=self.side.refresh_memory,
        )

        self.library.replay_activated.connect(lambda p: self.open_replay(Path(p)))
        self.analysis.plan_changed.connect(self.timeline.set_plan)
        self.analysis.lookback_served.connect(self.timeline.add_lookback)
        self.analysis.time_requested.connect(self.timeline.jump_to)
        self.analysis.error.connect(self.status.error)
        self.analysis.feedback_requested.connect(self.open_feedback)
        ui.changed.connect(lambda _c: self._retitle())
        self.run.fill_models()
        self.analysis.model_picker.currentIndexChanged.connect(lambda _i: self.run.refresh_expected())
        self._retitle()
        self.library.set_folder(settings.get("replay_folder"))
        self.list_opened()
        self.restore_layout()
        # the games' replay folders: offered on first start, and watched so that every game's replay is kept
        self.folders.search()
        self.notice_arrived.connect(self.show_notice)
        set_notice_sink(_notice_sink(self))  # the notices given before (loading the settings) are shown at once

    def _lay_out(self) -> None:
        """The central area: message bar, folder offer, and the library beside the card, charts and analysis."""
        middle = QSplitter(Qt.Orientation.Vertical)
        top = QWidget()
        top_lay = QVBoxLayout(top)
        top_lay.setContentsMargins(0, 0, 0, 0)
        top_lay.addWidget(self.card)
        top_lay.addWidget(self.charts, 1)
        middle.addWidget(top)
        middle.addWidget(self.analysis)
        middle.setStretchFactor(1, 3)
        middle.setSizes([240, 560])  # the analysis (the result) gets most of a laptop screen's height
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("main_splitter")
        self.splitter.addWidget(self.library)
        self.splitter.addWidget(middle)
        self.splitter.setStretchFactor(0, 1)  # the side panel opening takes width from the library too
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setSizes([300, 700])
        self.middle_splitter = middle
        middle.setObjectName("middle_splitter")
        central = QWidget()
        lay = QVBoxLayout(central)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.message_bar)
        lay.addWidget(self.folders.offer)
        # the main area: the analysis (library, card, analysis) or, in review mode, the review queue at full width
        self.main_stack = QStackedWidget()
        self.main_stack.addWidget(self.splitter)
        lay.addWidget(self.main_stack, 1)
        self.setCentralWidget(central)

    def _replay_path(self) -> Path | None:
        return self.info.path if self.info is not None else None

    # -- replays -----------------------------------------------------------------------------------------------------

    def open_dialog(self) -> None:
        """Ctrl+O: pick a replay file (non-modal dialog, notes §1.4)."""
        from PySide6.QtWidgets import QFileDialog

        start = self.ctx.settings.get("replay_folder") or str(Path.home())
        dlg = QFileDialog(
            self,
            self.ui.tx("Open replay"),
            start,
            self.ui.tx("Replays ({replay_name_filter});;All files (*)", replay_name_filter=replay_name_filter()),
        )
        dlg.setFileMode(QFileDialog.FileMode.ExistingFile)
        dlg.fileSelected.connect(lambda p: self.open_replay(Path(p)))
        self.file_dialog = dlg
        dlg.open()

    def open_replay(self, path: Path) -> asyncio.Future[None]:
        """Parse ``path`` in a worker thread, then show it (card, timeline, past analyses, the latest one).

        Returns a future resolved once the newest request of the analysis area has been shown (or has failed);
        a replay opened meanwhile replaces this one, whose result is then dropped.
        """
        self.status.say(self.ui.tx("Reading {name}…", name=path.name))
        db = self.ctx.db
        return started(self.replay_loader.start(lambda: open_replay(db, path), self._show_opened))

    def _show_opened(self, opened: OpenedReplay) -> None:
        from ui.history import history_items

        info = opened.info
        self.info = info
        self.card.set_replay(info)
        self.timeline.set_replay(info)
        self.charts.set_replay(info)
        self.library.add_files([info])
        self.message_bar.hide()
        self._retitle()
        self.status.say(self.ui.tx("Opened {name}", name=info.path.name))
        self.analysis.set_history(history_items(opened.records, self.ui.lang))
        if opened.problem:
            self.status.error(opened.problem)
        if not self.analysis.running:
            if opened.latest is not None:  # its latest analysis, as it was left
                self.run.show_record(opened.latest)
            else:
                self.analysis.show_empty(info.path.name, sample=is_sample(info.path))
        self.run.refresh_expected()
        self.replay_opened.emit(str(info.path))

    def list_opened(self) -> asyncio.Future[None] | None:
        """List the replays opened at earlier starts (worker thread), besides the replay folder's."""
        from app.library.opened import opened_replays

        db = self.ctx.db
        return self.opened_loader.start(
            lambda: opened_replays(db), lambda rows: self.library.add_files([info_from_summary(h) for h in rows])
        )

    def _load_failed(self, exc: Exception) -> None:
        self.status.error(error_text(exc, self.ui.lang))

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 - Qt override
        """Accept dragged replay files."""
        if any(is_replay(Path(u.toLocalFile())) for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 - Qt override
        """Open the first dropped replay (and list the others)."""
        paths = [Path(u.toLocalFile()) for u in event.mimeData().urls() if is_replay(Path(u.toLocalFile()))]
        if paths:
            self.open_replay(paths[0])
            for extra in paths[1:]:
                self.spawn(self.list_only(extra))
            event.acceptProposedAction()

    async def list_only(self, path: Path) -> None:
        """List ``path`` in the library without opening it (a second dropped or given replay)."""
        self.library.add_files([await asyncio.to_thread(load_info, path, stats=False)])

    # -- settings, language and names kept -----------------------------------------------------------------------

    def open_settings(self) -> SettingsDialog:
        """Ctrl+,: the settings dialog (non-modal ``open()``); an open one is brought to the front instead."""
        old = self.settings_dialog
        if old is not None and shiboken6.isValid(old):
            if old.isVisible():
                old.raise_()
                old.activateWindow()
                return old
            old.deleteLater()  # a closed dialog would keep its language bindings alive
        dlg = SettingsDialog(
            self.ctx.settings, self.ctx.secrets, self.ui, self, replay=self.info.path if self.info else None
        )
        dlg.applied.connect(self._settings_applied)
        self.settings_dialog = dlg
        dlg.open()
        return dlg

    def _settings_applied(self) -> None:
        self.run.fill_models()
        self.folders.restart_autosave()
        self.library.set_folder(self.ctx.settings.get("replay_folder"))
        wanted = self.ctx.settings.ui_lang()
        if wanted is not self.ui.lang:
            self.set_language(wanted)

    def choose_language(self, lang: Lang) -> None:
        """View → 中文 / English: the ``ui_language`` setting, saved at once, then the window switches.

        The setting is the one source of truth: the settings dialog shows and writes the same value, and the next
        start opens in it (issue 30: the menu's choice was never saved, and Settings' OK put the old one back).
        """
        try:
            self.ctx.settings.set("ui_language", lang.value)
            self.ctx.settings.save()
        except (KnownError, OSError) as exc:  # the switch still happens; saying it is not kept is enough
            self.status.error(self.ui.tx("The interface language was not saved: {exc}", exc=exc))
        self.set_language(lang)

    def set_language(self, lang: Lang) -> None:
        """Switch the interface language live (for this session; :meth:`choose_language` also keeps it)."""
        self.ui.set_lang(lang)
        self.menus.show_language(lang)
        self.run.fill_models()
        self.run.refresh_history()  # the past analyses' words
        self.side.retranslate()
        self.review.drop_page()
        self._retitle()

    def run_settings(self) -> Settings:
        """The settings an analysis runs with: the analysis language follows the interface language.

        Unless the settings set it apart: a Chinese window produced English analyses on an English system.
        """
        settings = self.ctx.settings
        if settings.get("analysis_language") or settings.ui_lang() is self.ui.lang:
            return settings
        run = copy.deepcopy(settings)
        run.set("analysis_language", self.ui.lang.value)
        return run

    def _remember_reviewer(self, name: str) -> None:
        """The reviewer's name, asked once in the review queue, kept in the settings for every later session."""
        self._remember("reviewer_name", name)

    def _remember(self, key: str, name: str) -> None:
        """A name asked once (reviewer, analyst), kept in the settings for every later session."""
        if name and name != self.ctx.settings.get(key):
            try:
                self.ctx.settings.set(key, name)
                self.ctx.settings.save()
            except (KnownError, OSError) as exc:
                self.status.error(str(exc))

    def open_feedback(self, target: FeedbackTarget) -> FeedbackDialog:
        """Feedback on a stage or a claim (non-modal); recorded by the same service as ``replaysage feedback``."""
        from ui.feedback import FeedbackDialog, sender

        dlg = FeedbackDialog(
            target, sender(self.ctx.db), self.ui, analyst=str(self.ctx.settings.get("analyst_name") or ""), parent=self
        )
        dlg.recorded.connect(lambda result: self._feedback_recorded(dlg, result))
        self.feedback_dialog = dlg
        dlg.open()
        return dlg

    def _feedback_recorded(self, dlg: FeedbackDialog, result: FeedbackResult) -> None:
        self._remember("analyst_name", dlg.entered().analyst)
        facts = ", ".join(f"#{f}" for f in result.facts) or self.ui.tx("none")
        self.status.say(self.ui.tx("Feedback recorded (memory facts: {facts})", facts=facts))

    def show_notice(self, text: str) -> None:
        """A credential notice (kept for this session only, or missing) in the window's language."""
        self.status.tell(text.text(self.ui.lang) if isinstance(text, Notice) else text, "warning")

    def _retitle(self) -> None:
        name = f" — {self.info.path.name}" if self.info else ""
        self.setWindowTitle(f"ReplaySage{name}")
        if not self.analysis.running:
            self.status.say(self.ui.tx("Ready"))

    # -- tasks -------------------------------------------------------------------------------------------------------

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run a coroutine on the loop; a KnownError it raises goes to the message bar."""
        task = asyncio.get_event_loop().create_task(coro)
        self.ctx.tasks.add(task)

        def done(t: asyncio.Task[Any]) -> None:
            self.ctx.tasks.discard(t)
            if t.cancelled():
                return
            exc = t.exception()
            if isinstance(exc, KnownError):
                self.status.error(str(exc))
            elif exc is not None:
                log.error("background task failed", exc_info=exc)
                self.status.error(self.ui.tx("Internal error: {exc!r}", exc=exc))

        task.add_done_callback(done)
        return task

    # -- layout ------------------------------------------------------------------------------------------------------

    def toggle_library(self) -> None:
        """Ctrl+L: fold the replay library away (the analysis gets its width) or bring it back.

        Folded means a zero-width splitter pane, so the saved window layout remembers it.
        """
        sizes = self.splitter.sizes()
        total = sum(sizes)
        if sizes[0] > 0:
            self.splitter.setSizes([0, total])
        else:
            width = min(LIBRARY_WIDTH, total // 3)
            self.splitter.setSizes([width, total - width])
            self.library.search.setFocus()

    @property
    def library_shown(self) -> bool:
        """True while the replay library has width."""
        return self.splitter.sizes()[0] > 0

    def layout_state(self) -> str:
        """Window geometry, dock placement and splitter sizes as one string for the settings registry."""
        parts = [self.saveGeometry(), self.saveState(), self.splitter.saveState(), self.middle_splitter.saveState()]
        return ";".join(bytes(p.toBase64().data()).decode("ascii") for p in parts)

    def restore_layout(self) -> None:
        """Re-apply :meth:`layout_state` saved by the last session (a damaged value is ignored)."""
        saved = str(self.ctx.settings.get("window_layout") or "")
        parts = saved.split(";")
        if len(parts) != 4:
            return
        geometry, state, outer, inner = (QByteArray.fromBase64(p.encode("ascii")) for p in parts)
        self.restoreGeometry(geometry)
        self.restoreState(state)
        self.splitter.restoreState(outer)
        self.middle_splitter.restoreState(inner)
        self._layout_restored = True

    def save_layout(self) -> None:
        """Keep the layout for the next session (the settings file is small; written at close only)."""
        try:
            self.ctx.settings.set("window_layout", self.layout_state())
            self.ctx.settings.save()
        except (KnownError, OSError) as exc:
            log.warning("window layout not saved: %s", exc)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        """The first show closes the side panel on a narrow screen, and loads the side tabs after first paint.

        The imports (memory and error-wisdom libraries, their tables) and the views took 560 ms of the window's
        construction; the window now shows first and the tabs follow (:meth:`ui.window.side_panel.SidePanel.load`).
        """
        super().showEvent(event)
        if not self._shown_once:
            self._shown_once = True
            if not self._layout_restored and self.width() < NARROW_WINDOW:
                self.side.dock.hide()  # the analysis gets the width; Ctrl+B or the status-bar button opens it
        self.side.load()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt override
        """Closing cancels the analysis (finished stages stay stored) and background tasks."""
        self.review.close()
        self.save_layout()
        self.run.stop()
        self.replay_loader.cancel()
        self.folders.stop()
        self.opened_loader.cancel()
        self.library.cancel_scan()
        for task in list(self.ctx.tasks):
            task.cancel()
        set_notice_sink(None)
        self.run.close_worker()
        super().closeEvent(event)
