"""The main window: replay library, replay card with the APM timeline, the analysis view and side tabs.

A thin view over :mod:`app` services: replays are parsed in worker threads, analyses come from the runner of
:mod:`ui.runner`, user-facing problems (:class:`app.errors.KnownError`) go to the message bar.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import warnings
import weakref
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import QByteArray, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QDialog,
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.errors import KnownError
from app.i18n import N_, NC_, Lang, Msg
from app.library import HeaderSummary, scan_folder
from app.library.autosave import AutoSaver, Kept
from app.library.folders import FoundFolder, find_replay_folders
from app.secrets import Notice, SecretStore, set_notice_sink
from app.settings import Settings
from ui.analysis_view import AnalysisView
from ui.charts.replay_charts import ChartPanel
from ui.folder_offer import FolderOffer
from ui.icons import icon
from ui.imports import import_in_background, imported
from ui.lang import UiLanguage
from ui.library import LibraryWidget
from ui.replay_card import ReplayCard, TimelineChart
from ui.replay_info import ReplayInfo, info_from_summary, is_replay, load_info, replay_name_filter
from ui.runner import AnalysisRunner, default_runner
from ui.services import Database
from ui.settings_dialog import SettingsDialog
from ui.tabs.loading import Loader, error_text
from ui.tabs.staged import AfterFirstPaint, StagedTabs, later
from ui.widgets import MessageBar, plain_label

if TYPE_CHECKING:
    from app.pipeline.feedback import FeedbackResult
    from app.pipeline.records import AnalysisRecord
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


def _is_sample(path: Path) -> bool:
    """Whether ``path`` is the bundled sample replay (the window opens it at start when no file is given)."""
    from app.paths import sample_replay

    try:
        return path.resolve() == sample_replay().resolve()
    except OSError:
        return False


def _analyses_of(db: Database, path: Path) -> list[AnalysisRecord]:
    """The stored analyses of a replay, newest first.

    The pipeline modules are imported here, in the worker thread: imported on the GUI thread they froze the
    window for 80 ms when the first replay opened.
    """
    imported("app.pipeline.service")  # on the one import thread, never beside another first import
    from app.pipeline.service import analyses_of

    records: list[AnalysisRecord] = analyses_of(db, path)
    return records


NARROW_WINDOW = 1600
"""A first window narrower than this (a 1366- or 1440-wide laptop) starts with the side panel closed: open, it
left the analysis about 700 px at 1366."""
FIRST_PAINT_WAIT_MS = 300
"""The side libraries load after the window first paints, or this long after it is shown if no paint came."""

SIDE_TABS = (
    N_("Error wisdom"),
    N_("Memory / facts / scorecard"),
    N_("Players"),
)
"""The side tabs' titles, in their order."""
SIDE_MODULES = ("app.memory.store", "app.wisdom.manager", "ui.tabs.memory_tabs", "ui.tabs.wisdom_tab")
"""What the side tabs import: loaded in a worker thread after the window shows (see ``showEvent``)."""


EXPORT_FORMATS: tuple[tuple[str, Msg], ...] = (
    (".md", N_("Markdown")),
    (".html", N_("HTML page")),
    (".json", N_("JSON (for scripts)")),
)
"""File types of File → Export analysis: suffix, name (``replaysage report --out`` takes the same)."""


def with_export_suffix(path: Path, suffix: str) -> Path:
    """A typed file name with the picked file type's suffix when the name has no report suffix of its own."""
    known = {s for s, _name in EXPORT_FORMATS} | {".markdown", ".htm"}
    return path if path.suffix.lower() in known else path.with_name(path.name + suffix)


def _export(db: Database, analysis_id: int, path: Path) -> Path:
    """Write a stored analysis' report (a worker thread; the renderers of ``replaysage report``)."""
    imported("app.pipeline.export")
    from app.pipeline.export import export_report

    export_report(db, analysis_id, path)
    return path


def _resume_target(db: Database, path: Path, profile: str, lang: Lang) -> tuple[str, int | None]:
    """What a resume finds (worker thread; :func:`app.pipeline.service.resume_target`)."""
    imported("app.pipeline.service")
    from app.pipeline.service import resume_target

    return resume_target(db, path, profile, lang)


def _load_analysis(db: Database, analysis_id: int) -> AnalysisRecord:
    """One stored analysis (imports on the import thread, as :func:`_analyses_of`)."""
    imported("app.pipeline.repository")
    from app.pipeline.repository import AnalysisRepository

    return AnalysisRepository(db).load(analysis_id)


@dataclass(frozen=True)
class OpenedReplay:
    """Everything opening a replay shows, loaded together in one worker thread so it lands (or is dropped) whole.

    Attributes:
        info: the parsed header, players and statistics.
        records: its stored analyses, newest first.
        latest: the newest of them with its stages loaded, shown as it was left (None when there is none).
        problem: why the stored analyses could not be read (the replay itself still opens).
    """

    info: ReplayInfo
    records: list[AnalysisRecord]
    latest: AnalysisRecord | None
    problem: str = ""


def _open_replay(db: Database, path: Path) -> OpenedReplay:
    """Parse ``path`` and read its stored analyses (runs in a worker thread)."""
    from sqlalchemy.exc import SQLAlchemyError

    from app.library.opened import remember_opened

    info = load_info(path)
    if info.error:
        raise KnownError(info.error)
    try:
        remember_opened(db, path)  # the library lists it at the next start, with or without a replay folder
    except SQLAlchemyError as exc:  # a busy or read-only store must not keep the replay from opening
        log.warning("could not remember %s: %s", path, exc)
    try:
        records = _analyses_of(db, path)
        latest = _load_analysis(db, records[0].id) if records else None
    except KnownError as exc:
        return OpenedReplay(info, [], None, str(exc))
    return OpenedReplay(info, records, latest)


@dataclass(frozen=True)
class ReplayHistory:
    """The stored analyses of one replay, for refreshing its history picker."""

    path: Path
    records: list[AnalysisRecord]


AUTOSAVE_POLL_MS = 2000
"""How often the replay folders are looked at for a new last replay (a copy waits until it is quiet this long)."""


def _autosave_poll(saver: AutoSaver, db: Database, listed: Path | None) -> tuple[list[Kept], list[HeaderSummary]]:
    """One look of the autosave (worker thread): what it did, and the library rows of copies made elsewhere.

    Copies into ``listed`` (the folder the library shows) are left to the library's own rescan: its scans
    assume that only they write that folder's header cache.
    """
    kept = saver.poll()
    copies = {str(k.target) for k in kept if k.status == "copied" and k.target is not None}
    rows: list[HeaderSummary] = []
    for folder in dict.fromkeys(Path(c).parent for c in copies):
        if folder != listed:
            rows += [h for h in scan_folder(db, folder).summaries if h.path in copies]
    return kept, rows


def _started(request: asyncio.Future[None] | None) -> asyncio.Future[None]:
    """A loader request's future: the window lives on the qasync loop, so the loader always has one to run on."""
    if request is None:
        raise RuntimeError("the main window needs a running asyncio loop")
    return request


def _notice_sink(window: MainWindow) -> Callable[[str], None]:
    """Where :func:`app.secrets.notify` sends a notice while ``window`` lives: its signal (queued across threads)."""
    ref = weakref.ref(window)

    def sink(text: str) -> None:
        live = ref()
        if live is not None and shiboken6.isValid(live):
            live.notice_arrived.emit(text)

    return sink


class MainWindow(QMainWindow):
    """ReplaySage's window.

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
        self.ui = ui or UiLanguage(ctx.settings.ui_lang())
        runner = ctx.runner or default_runner(ctx.db, self.run_settings, ctx.secrets)
        self.info: ReplayInfo | None = None
        self.settings_dialog: SettingsDialog | None = None
        self.setAcceptDrops(True)
        self.setObjectName("ReplaySageMainWindow")
        self.resize(1280, 760)

        self.message_bar = MessageBar(self)
        self.folder_offer = FolderOffer(self.ui, self)
        self.folder_offer.accepted.connect(self.use_replay_folder)
        self.folder_offer.dismissed.connect(self._offer_dismissed)
        self.library = LibraryWidget(self.ui, ctx.db)
        self.card = ReplayCard(self.ui)
        self.timeline = TimelineChart(self.ui)
        self.analysis = AnalysisView(runner, self.ui)
        self.side_tabs = QTabWidget()  # its widgets that use the sheet's roles are styled one by one (ui.theme.styled)
        self._side_built = False
        self._side_pending: list[int] = []  # side tabs still to build (indices into SIDE_TABS), next first
        self._side_trash: list[QWidget] = []  # replaced side tabs still to delete
        self._shown_once = False
        self._layout_restored = False
        self._side_loading: asyncio.Future[None] | None = None
        self._first_paint: AfterFirstPaint | None = None
        # what the analysis area shows (an opened replay, a reopened analysis): the newest request wins, so a
        # slow replay opened first can never replace one opened after it
        self.replay_loader = Loader(self, self._load_failed)
        self.history_loader = Loader(self, self._load_failed)
        self.export_loader = Loader(self, self._load_failed)
        self.expected_loader = Loader(self, self._load_failed)  # what Analyze will take (issue 31)

        middle = QSplitter(Qt.Orientation.Vertical)
        top = QWidget()
        top_lay = QVBoxLayout(top)
        top_lay.setContentsMargins(0, 0, 0, 0)
        top_lay.addWidget(self.card)
        self.charts = ChartPanel(self.ui, self.timeline)  # the APM timeline and the replay's charts, in tabs
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
        # side tabs in a dock (VS Code's panels, qBittorrent's side bar): closable, movable, floatable, remembered
        self.side_dock = QDockWidget(self)
        self.side_dock.setObjectName("side_dock")
        self.side_dock.setWidget(self.side_tabs)
        self.side_dock.setAllowedAreas(
            Qt.DockWidgetArea.LeftDockWidgetArea
            | Qt.DockWidgetArea.RightDockWidgetArea
            | Qt.DockWidgetArea.BottomDockWidgetArea
        )
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.side_dock)
        self.ui.bind_tr(self.side_dock, self.side_dock.setWindowTitle, "Side panel: wisdom / memory")
        self.resizeDocks([self.side_dock], [360], Qt.Orientation.Horizontal)
        central = QWidget()
        lay = QVBoxLayout(central)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.message_bar)
        lay.addWidget(self.folder_offer)
        # the main area: the analysis (library, card, analysis) or, in review mode, the review queue at full width
        self.main_stack = QStackedWidget()
        self.main_stack.addWidget(self.splitter)
        self.review_page: QWidget | None = None  # built when review mode is first entered
        self._review_queue: Any = None  # its ReviewQueueTab (None while the memory views are unavailable)
        self._dock_before_review = False
        lay.addWidget(self.main_stack, 1)
        self.setCentralWidget(central)

        self.status_label = plain_label()
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(260)
        self.progress.setTextVisible(True)
        self.progress.hide()
        self.statusBar().addWidget(self.status_label, 1)
        self.statusBar().addPermanentWidget(self.progress)
        self.side_button = QToolButton(self)  # the side panel's switch, visible when the dock starts hidden
        self.side_button.setDefaultAction(self.side_dock.toggleViewAction())
        self.side_button.setAutoRaise(True)
        self.statusBar().addPermanentWidget(self.side_button)
        self._build_menus()

        self.library.replay_activated.connect(lambda p: self.open_replay(Path(p)))
        self.analysis.analyze_requested.connect(self.request_analyze)
        self.analysis.resume_requested.connect(lambda: self.request_analyze(resume=True))
        self.analysis.cancel_requested.connect(self.request_cancel)  # the button and Esc: one handler
        self.analysis.reopen_requested.connect(self.reopen)
        self.analysis.progress.connect(self._progress)
        self.analysis.plan_changed.connect(self.timeline.set_plan)
        self.analysis.lookback_served.connect(self.timeline.add_lookback)
        self.analysis.time_requested.connect(self.timeline.jump_to)
        self.analysis.error.connect(self.show_error)
        self.analysis.run_finished.connect(self._run_finished)
        self.analysis.feedback_requested.connect(self.open_feedback)
        self.analysis.copied.connect(
            lambda title: self.status_label.setText(self.ui.tx("Copied: {title}", title=title))
        )
        self.ui.changed.connect(lambda _c: self._retitle())
        self._fill_models()
        self.analysis.model_picker.currentIndexChanged.connect(lambda _i: self.refresh_expected())
        self._retitle()
        self.library.set_folder(ctx.settings.get("replay_folder"))
        self.opened_loader = Loader(self, self._load_failed)
        self.list_opened()
        self.restore_layout()
        # the games' replay folders: offered on first start, and watched so that every game's replay is kept
        self.found_folders: list[FoundFolder] = []
        self.autosaver: AutoSaver | None = None
        self.autosave_timer = QTimer(self)
        self.autosave_timer.setInterval(AUTOSAVE_POLL_MS)
        self.autosave_timer.timeout.connect(self.poll_autosave)
        self.autosave_loader = Loader(self, self._load_failed)
        self.folder_loader = Loader(self, self._load_failed)
        self.folders_search = self.folder_loader.start(find_folders or find_replay_folders, self._folders_found)
        self.notice_arrived.connect(self.show_notice)
        set_notice_sink(_notice_sink(self))  # the notices given before (loading the settings) are shown at once

    # -- construction ----------------------------------------------------------------------------------------------

    def _build_menus(self) -> None:
        ui = self.ui
        bar = self.menuBar()
        file_menu = bar.addMenu("")
        ui.bind_tr(file_menu, file_menu.setTitle, "&File")
        analysis_menu = bar.addMenu("")
        ui.bind_tr(analysis_menu, analysis_menu.setTitle, "&Analysis")
        view_menu = bar.addMenu("")
        ui.bind_tr(view_menu, view_menu.setTitle, "&View")
        help_menu = bar.addMenu("")
        ui.bind_tr(help_menu, help_menu.setTitle, "&Help")

        def action(
            menu: Any,
            text: Msg,
            shortcut: QKeySequence | QKeySequence.StandardKey | str,
            slot: Callable[[], object],
            **params: object,
        ) -> QAction:
            act = QAction(self)
            ui.bind_msg(act, act.setText, text, **params)
            act.setShortcut(QKeySequence(shortcut))
            act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            act.triggered.connect(lambda _checked=False: slot())
            menu.addAction(act)
            self.addAction(act)
            return act

        self.open_action = action(file_menu, N_("Open replay…"), QKeySequence.StandardKey.Open, self.open_dialog)
        self.export_action = action(file_menu, N_("Export analysis…"), "Ctrl+E", self.export_dialog)
        self.copy_summary_action = action(file_menu, N_("Copy summary"), "Ctrl+Shift+Y", self.analysis.copy_summary)
        self.settings_action = action(file_menu, N_("Settings…"), "Ctrl+,", self.open_settings)
        self.quit_action = action(file_menu, N_("Quit"), "Ctrl+Q", self.close)
        self.analyze_action = action(analysis_menu, N_("Analyze"), "F5", self.request_analyze)
        self.cancel_action = action(analysis_menu, N_("Cancel"), "Esc", self.request_cancel)
        # Esc cancels only from the analysis area: in the library's search box or a side tab it clears or closes
        # what has focus there, never a run that may have cost money
        self.removeAction(self.cancel_action)
        self.cancel_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.analysis.addAction(self.cancel_action)
        self.resume_action = action(
            analysis_menu,
            N_("Resume unfinished analysis"),
            "Shift+F5",
            lambda: self.request_analyze(resume=True),
        )
        for act, name in (
            (self.open_action, "open"),
            (self.export_action, "export"),
            (self.settings_action, "settings"),
            (self.analyze_action, "analyze"),
            (self.cancel_action, "cancel"),
            (self.resume_action, "resume"),
        ):
            act.setIcon(icon(name))
        self.zh_action = action(
            view_menu,
            N_("Interface: {language}"),
            "Ctrl+Shift+C",
            lambda: self.choose_language(Lang.ZH),
            language="中文",
        )
        self.en_action = action(
            view_menu,
            N_("Interface: {language}"),
            "Ctrl+Shift+E",
            lambda: self.choose_language(Lang.EN),
            language="English",
        )
        languages = QActionGroup(self)  # the menu shows which one is chosen
        for act, lang in ((self.zh_action, Lang.ZH), (self.en_action, Lang.EN)):
            act.setCheckable(True)
            act.setChecked(lang is self.ui.lang)
            languages.addAction(act)
        self.side_action = action(
            view_menu,
            N_("Show/hide side tabs"),
            "Ctrl+B",
            lambda: self.side_dock.setVisible(not self.side_dock.isVisible()),
        )
        self.library_action = action(view_menu, N_("Show/hide replay library"), "Ctrl+L", self.toggle_library)
        self.review_action = action(
            view_menu,
            N_("Review mode (memory review queue)"),
            "Ctrl+Shift+R",
            lambda: self.set_review_mode(not self.review_mode),
        )
        self.review_action.setCheckable(True)
        self.shortcuts_action = action(help_menu, N_("Keyboard shortcuts"), "F1", self.show_shortcuts)
        self.shortcut_actions = [
            self.open_action,
            self.export_action,
            self.copy_summary_action,
            self.settings_action,
            self.quit_action,
            self.analyze_action,
            self.cancel_action,
            self.resume_action,
            self.zh_action,
            self.en_action,
            self.side_action,
            self.library_action,
            self.review_action,
            self.shortcuts_action,
        ]

    LIBRARY_WIDTH = 300
    """The replay library's width when it is shown again after being folded away."""

    def toggle_library(self) -> None:
        """Ctrl+L: fold the replay library away (the analysis gets its width) or bring it back.

        Folded means a zero-width splitter pane, so the saved window layout remembers it.
        """
        sizes = self.splitter.sizes()
        total = sum(sizes)
        if sizes[0] > 0:
            self.splitter.setSizes([0, total])
        else:
            width = min(self.LIBRARY_WIDTH, total // 3)
            self.splitter.setSizes([width, total - width])
            self.library.search.setFocus()

    @property
    def library_shown(self) -> bool:
        """True while the replay library has width."""
        return self.splitter.sizes()[0] > 0

    def show_shortcuts(self) -> QDialog:
        """Help → Keyboard shortcuts: every menu action with its key, and where Esc works."""
        dlg = QDialog(self)
        dlg.setWindowTitle(self.ui.tx("Keyboard shortcuts"))
        table = QTableWidget(len(self.shortcut_actions), 2, dlg)
        table.setHorizontalHeaderLabels([self.ui.tx("Action"), self.ui.tx("Key")])
        table.verticalHeader().hide()
        table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for row, act in enumerate(self.shortcut_actions):
            name = act.text().replace("&&", "\0").replace("&", "").replace("\0", "&")
            if act is self.cancel_action:
                name += self.ui.tx(" (in the analysis area; asks first on a paid model)")
            if act is self.analyze_action:
                name += self.ui.tx(" (asks first while an analysis runs)")
            table.setItem(row, 0, QTableWidgetItem(name))
            table.setItem(row, 1, QTableWidgetItem(act.shortcut().toString(QKeySequence.SequenceFormat.NativeText)))
        lay = QVBoxLayout(dlg)
        lay.addWidget(table)
        dlg.resize(520, 380)
        self.shortcuts_dialog = dlg
        dlg.open()
        return dlg

    def _confirm(self, title: str, text: str, on_yes: Callable[[], object]) -> QMessageBox:
        """Ask a yes/no question without a nested event loop (``open()``); ``on_yes`` runs on Yes only."""
        std = QMessageBox.StandardButton
        box = QMessageBox(QMessageBox.Icon.Question, title, text, std.Yes | std.No, self)
        box.setDefaultButton(std.No)
        box.button(std.Yes).setText(self.ui.tx("Yes"))
        box.button(std.No).setText(self.ui.tx("No"))
        box.finished.connect(lambda result: on_yes() if result == std.Yes else None)
        self.confirm_box = box
        box.open()
        return box

    def _running_on_paid_model(self) -> bool:
        """The running analysis uses a language model (not the offline analyst): cancelling it wastes spend."""
        name = self.analysis.running_profile
        try:
            return not self.ctx.settings.profile(name).rule_based if name else False
        except KnownError:
            return True

    def request_cancel(self) -> None:
        """Esc, Analysis → Cancel and the Cancel button: stop the run, asking first when it runs on a paid model."""
        if not self.analysis.running:
            return
        if not self._running_on_paid_model():
            self.analysis.cancel()
            return
        self._confirm(
            self.ui.tx("Cancel the analysis?"),
            self.ui.tx(
                "Finished stages are kept and the run can be resumed later. Tokens already spent on the "
                "running stage are not refunded."
            ),
            self.analysis.cancel,
        )

    def request_analyze(self, resume: bool = False) -> asyncio.Task[None] | None:
        """F5 / Analyze / Resume: while a run is going, ask before it is cancelled and started again."""
        if not self.analysis.running:
            return self.analyze(resume=resume)
        self._confirm(
            self.ui.tx("Restart the analysis?"),
            self.ui.tx(
                "An analysis is running. Restarting cancels it (finished stages are kept) and analyses the "
                "replay again with the picked model."
            ),
            lambda: self.analyze(resume=resume),
        )
        return None

    # -- review mode -------------------------------------------------------------------------------------------------

    @property
    def review_mode(self) -> bool:
        """True while the main area shows the review queue instead of the analysis."""
        return self.review_page is not None and self.main_stack.currentWidget() is self.review_page

    @property
    def review_queue(self) -> Any:
        """The review mode's queue (a wide ``ReviewQueueTab``; None until review mode is entered, or unavailable)."""
        return self._review_queue

    def set_review_mode(self, on: bool) -> None:
        """View → Review mode (Ctrl+Shift+R): the review queue takes the main area, or the analysis comes back.

        The side panel gave the queue 360 of 1366 px, about 150 px per side of an item (issue 30 §8); in the main
        area each side is as wide as the analysis text. The side panel is closed meanwhile (it would take that
        width again) and reopened on the way back, where the memory views are refreshed with the rulings made.
        """
        if on == self.review_mode:
            self.review_action.setChecked(on)
            return
        if on:
            if self.review_page is None:
                self.review_page = self._make_review_page()
                self.main_stack.addWidget(self.review_page)
            elif self._review_queue is not None:
                self._review_queue.refresh()  # rulings made in the side panel or on the command line
            self._dock_before_review = self.side_dock.isVisible()
            self.side_dock.hide()
            self.main_stack.setCurrentWidget(self.review_page)
            if self._review_queue is not None:
                self._review_queue.list.setFocus()
        else:
            self.main_stack.setCurrentWidget(self.splitter)
            if self._dock_before_review:
                self.side_dock.show()
            refresh = getattr(getattr(self, "_memory_tabs", None), "refresh", None)  # the side views, if built
            if callable(refresh):
                refresh()
        self.review_action.setChecked(on)

    def _make_review_page(self) -> QWidget:
        """The review mode's page: a title line with the way back, and the queue laid out wide."""
        page = QWidget()
        lay = QVBoxLayout(page)
        lay.setContentsMargins(0, 0, 0, 0)
        head = QHBoxLayout()
        title = QLabel(self.ui.tx("Review mode: memory review queue"))
        title.setStyleSheet("font-weight: 600; font-size: 11pt;")
        back = QPushButton(self.ui.tx("Back to the analysis (Ctrl+Shift+R)"))
        back.clicked.connect(lambda: self.set_review_mode(False))
        head.addWidget(title, 1)
        head.addWidget(back)
        lay.addLayout(head)
        self.review_back_button = back
        try:
            from app.memory.store import MemoryStore
            from ui.tabs.memory_review import ReviewQueueTab

            queue = ReviewQueueTab(
                MemoryStore(self.ctx.db), self.ui.lang, reviewer=str(self.ctx.settings.get("reviewer_name")), wide=True
            )
            queue.reviewer_named.connect(self._remember_reviewer)
            self._review_queue = queue
            lay.addWidget(queue, 1)
        except Exception as exc:  # a missing or broken memory view must not take the window down
            log.warning("review mode unavailable: %r", exc)
            self._review_queue = None
            lay.addWidget(self._placeholder(self.ui.tx("Memory is not available"), exc), 1)
        return page

    def _drop_review_page(self) -> None:
        """Forget the review page (a language switch: it is built again, in the new language, when needed)."""
        page, was_on = self.review_page, self.review_mode
        if page is None:
            return
        if was_on:
            self.set_review_mode(False)
        if self._review_queue is not None:
            self._review_queue.cancel_loading()
        self.main_stack.removeWidget(page)
        page.deleteLater()
        self.review_page, self._review_queue = None, None
        if was_on:
            self.set_review_mode(True)

    # -- side tabs ---------------------------------------------------------------------------------------------------

    @property
    def wisdom_tab(self) -> QWidget:
        """The error-wisdom view (built now if the deferred load has not built it yet)."""
        self.ensure_side_tabs()
        self._build_side_tab(0)
        return self._wisdom_tab

    @property
    def memory_tabs(self) -> QWidget:
        """The memory views (built now if the deferred load has not built it yet)."""
        self.ensure_side_tabs()
        self._build_side_tab(1)
        return self._memory_tabs

    @property
    def players_tab(self) -> QWidget:
        """The players view (built now if the deferred load has not built it yet)."""
        self.ensure_side_tabs()
        self._build_side_tab(2)
        return self._players_tab

    def ensure_side_tabs(self) -> None:
        """Build the side tabs if they are not built yet."""
        if not self._side_built:
            self._build_side_tabs()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        """The first show loads the side tabs: their modules in a worker thread, then the views.

        The imports (memory and error-wisdom libraries, their tables) and the views took 560 ms of the window's
        construction; the window now shows first and the tabs follow. A plain future and its done callback, never
        a task: a caller running ``processEvents()`` inside a task (the self-test) would re-enter the loop.
        """
        super().showEvent(event)
        if not self._shown_once:
            self._shown_once = True
            if not self._layout_restored and self.width() < NARROW_WINDOW:
                self.side_dock.hide()  # the analysis gets the width; Ctrl+B or the status-bar button opens it
        if self._side_loading is not None or self._side_built or self._first_paint is not None:
            return
        # The imports hold the GIL for a quarter of a second; run alongside the window's first paint they made
        # that paint wait for it (70-120 ms stalls). They start once the window has painted (or soon after show).
        self._first_paint = AfterFirstPaint(self, self._start_side_import, FIRST_PAINT_WAIT_MS)

    def _start_side_import(self) -> None:
        if self._side_loading is not None or self._side_built:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # shown before the loop runs: load once it does
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                try:
                    loop = asyncio.get_event_loop()
                except RuntimeError:  # no loop at all (a bare QApplication): built when first asked for
                    return
        self._side_loading = asyncio.wrap_future(import_in_background(SIDE_MODULES), loop=loop)
        self._side_loading.add_done_callback(self._side_modules_imported)

    def _side_modules_imported(self, fut: asyncio.Future[None]) -> None:
        """Build the views now if the side panel is open, else when it opens (132 ms of widgets on the GUI thread)."""
        if not shiboken6.isValid(self) or fut.cancelled():
            return
        if fut.exception() is not None:
            log.warning("side tabs: %r", fut.exception())  # the views show what is unavailable
        # The libraries are loaded now, and their modules, classes and functions live as long as the process.
        # Each full garbage collection walked all of them again (70-90 ms holding the GIL, a frozen window every
        # few seconds while tables page); frozen, a collection walks only the objects made since.
        gc.freeze()
        if self.side_dock.isVisible():
            self.ensure_side_tabs()
        else:
            self.side_dock.visibilityChanged.connect(lambda shown: self.ensure_side_tabs() if shown else None)

    async def side_tabs_loaded(self) -> None:
        """Return once the deferred side-tab load has built them."""
        if self._first_paint is not None:
            await self._first_paint.wait()
        if self._side_loading is not None:
            await asyncio.wait([self._side_loading])
            await asyncio.sleep(0)  # the done callback that builds them
        while self._side_pending:  # the tabs built in later turns
            await asyncio.sleep(0.001)
        for staged in self.side_tabs.findChildren(StagedTabs):  # and the pages inside them
            await staged.all_made()

    def _build_side_tabs(self) -> None:
        """Host the error-wisdom and memory views where they exist; otherwise show a ready, empty frame.

        The views load their data in worker threads (the error-wisdom manager, whose construction loads the
        query index, is built there too), so building them costs the GUI thread only the widgets. The tab on
        screen is built now and the other in a later event-loop turn (together they were 64 ms of GUI-thread work
        in one go); asking for a view (:attr:`wisdom_tab`, :attr:`memory_tabs`) builds it at once.
        """
        self._side_built = True
        current = max(0, self.side_tabs.currentIndex())
        while self.side_tabs.count():  # rebuilt on a language switch: those views take their language at birth
            old = self.side_tabs.widget(0)
            self.side_tabs.removeTab(0)
            cancel = getattr(old, "cancel_loading", None)
            if callable(cancel):
                cancel()
            if old is not None:
                self._side_trash.append(old)  # deleted later, one per turn (10-13 ms each)
        self._side_pending = [current] + [i for i in range(len(SIDE_TABS)) if i != current]
        self._build_side_tab(current)
        self._later_side_tabs()

    def _later_side_tabs(self) -> None:
        later(self, self._finish_side_tabs)  # the window's one queue of deferred view work: a job per turn

    def _finish_side_tabs(self) -> None:
        """Build the side tabs still waiting, then delete the replaced ones: one per event-loop turn."""
        if self._side_pending:
            self._build_side_tab(self._side_pending[0])
        elif self._side_trash:
            self._side_trash.pop(0).deleteLater()
        if self._side_pending or self._side_trash:
            self._later_side_tabs()

    def _build_side_tab(self, index: int) -> None:
        """Build side tab ``index`` of :data:`SIDE_TABS` (if it is still waiting) at its place among the built."""
        if index not in self._side_pending:
            return
        self._side_pending.remove(index)
        at = sum(1 for i in range(index) if i not in self._side_pending)
        widget, title = (self._make_wisdom_tab, self._make_memory_tabs, self._make_players_tab)[index]()
        self.side_tabs.insertTab(at, widget, title)  # the tab built first (the one on screen) stays current
        self.side_tabs.setTabIcon(at, icon(("tab-wisdom", "tab-memory", "tab-players")[index]))

    def _make_wisdom_tab(self) -> tuple[QWidget, str]:
        lang = self.ui.lang
        try:
            from ui.tabs.wisdom_tab import WisdomTab

            db = self.ctx.db

            def wisdom_manager() -> Any:  # called in the tab's worker thread, heavy import included
                from app.wisdom.manager import ErrorWisdomManager

                return ErrorWisdomManager(db, lang)

            from app.wisdom.store import WisdomStore

            self._wisdom_tab: QWidget = WisdomTab(wisdom_manager, lang, store=WisdomStore(db))
        except Exception as exc:  # a missing or broken side view must not take the window down
            log.warning("error-wisdom tab unavailable: %r", exc)
            self._wisdom_tab = self._placeholder(self.ui.tx("Error wisdom is not available"), exc)
        return self._wisdom_tab, SIDE_TABS[0](self.ui.lang)

    def _make_memory_tabs(self) -> tuple[QWidget, str]:
        lang = self.ui.lang
        title = SIDE_TABS[1](self.ui.lang)
        try:
            from app.memory.store import MemoryStore
            from ui.tabs.memory_tabs import MemoryTabs

            memory = MemoryTabs(
                MemoryStore(self.ctx.db),
                lang,
                reviewer=str(self.ctx.settings.get("reviewer_name")),
                on_reviewer=self._remember_reviewer,
            )
            self._memory_tabs: QWidget = memory
            memory.review_mode_requested.connect(lambda: self.set_review_mode(True))
            memory.queue_count_changed.connect(
                lambda n: self.side_tabs.setTabText(
                    self.side_tabs.indexOf(memory), title + (f" · {self.ui.tx('review')} {n}" if n else "")
                )
            )
        except Exception as exc:  # see above
            log.warning("memory tabs unavailable: %r", exc)
            self._memory_tabs = self._placeholder(self.ui.tx("Memory is not available"), exc)
        return self._memory_tabs, title

    def _make_players_tab(self) -> tuple[QWidget, str]:
        try:
            from ui.tabs.players_tab import PlayersTab

            self._players_tab: QWidget = PlayersTab(
                self.ctx.db, self.ui.lang, reviewer=lambda: str(self.ctx.settings.get("reviewer_name"))
            )
        except Exception as exc:  # see _make_wisdom_tab
            log.warning("players tab unavailable: %r", exc)
            self._players_tab = self._placeholder(self.ui.tx("Players are not available"), exc)
        return self._players_tab, SIDE_TABS[2](self.ui.lang)

    def run_settings(self) -> Settings:
        """The settings an analysis runs with: the analysis language follows the interface language.

        Unless the settings set it apart: a Chinese window produced English analyses on an English system.
        """
        settings = self.ctx.settings
        if settings.get("analysis_language") or settings.ui_lang() is self.ui.lang:
            return settings
        import copy

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
                self.show_error(str(exc))

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
        self.status_label.setText(self.ui.tx("Feedback recorded (memory facts: {facts})", facts=facts))

    @staticmethod
    def _placeholder(text: str, exc: Exception) -> QWidget:
        lab = plain_label(f"{text}\n({type(exc).__name__}: {exc})")
        lab.setAlignment(Qt.AlignmentFlag.AlignCenter)
        lab.setWordWrap(True)
        return lab

    def _fill_models(self) -> None:
        picker = self.analysis.model_picker
        picker.clear()
        for prof in self.ctx.settings.profiles:
            offline = self.ui.tx("offline (rule-based analyst)")
            label = offline if prof.rule_based else prof.name
            picker.addItem(label, prof.name)
        picker.setCurrentIndex(max(0, picker.findData(self.ctx.settings.active_profile().name)))

    def _retitle(self) -> None:
        name = f" — {self.info.path.name}" if self.info else ""
        self.setWindowTitle(f"ReplaySage{name}")
        if not self.analysis.running:
            self.status_label.setText(self.ui.tx("Ready"))

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
                self.show_error(str(exc))
            elif exc is not None:
                log.error("background task failed", exc_info=exc)
                self.show_error(self.ui.tx("Internal error: {exc!r}", exc=exc))

        task.add_done_callback(done)
        return task

    def show_error(self, text: str) -> None:
        """Show a user-facing problem in the message bar."""
        self.message_bar.show_message(text, "error")
        self.status_label.setText(text.splitlines()[0][:120] if text else "")

    # -- replays -----------------------------------------------------------------------------------------------------

    def open_dialog(self) -> None:
        """Ctrl+O: pick a replay file (non-modal dialog, notes §1.4)."""
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

    def export_dialog(self) -> QFileDialog | None:
        """Ctrl+E, File → Export analysis: save the shown analysis as Markdown, HTML or JSON (non-modal)."""
        analysis_id = self.analysis.analysis_id
        if analysis_id is None:
            self.show_error(
                self.ui.tx("There is no analysis to export: analyse the replay or open one from Past analyses first.")
            )
            return None
        stem = self.info.path.stem if self.info is not None else "replaysage"
        folder = Path(self.ctx.settings.get("replay_folder") or Path.home())
        filters = [f"{name(self.ui.lang)} (*{suffix})" for suffix, name in EXPORT_FORMATS]
        dlg = QFileDialog(
            self,
            self.ui.tx("Export analysis"),
            str(folder / f"{stem}-analysis-{analysis_id}.md"),
            ";;".join(filters),
        )
        dlg.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dlg.setOption(QFileDialog.Option.DontUseNativeDialog)  # the same dialog everywhere, and testable

        def chosen(name: str) -> None:
            picked = dlg.selectedNameFilter()
            suffix = next((fmt[0] for fmt, text in zip(EXPORT_FORMATS, filters, strict=True) if text == picked), ".md")
            self.export_to(with_export_suffix(Path(name), suffix), analysis_id)

        dlg.fileSelected.connect(chosen)
        self.export_file_dialog = dlg
        dlg.open()
        return dlg

    def export_to(self, path: Path, analysis_id: int | None = None) -> asyncio.Future[None]:
        """Write the report of ``analysis_id`` (default: the one shown) to ``path`` in a worker thread."""
        aid = self.analysis.analysis_id if analysis_id is None else analysis_id
        if aid is None:
            raise KnownError(self.ui.tx("There is no analysis to export."))
        db = self.ctx.db
        self.status_label.setText(self.ui.tx("Exporting to {path}…", path=path))
        return _started(self.export_loader.start(lambda: _export(db, aid, path), self._exported))

    def show_notice(self, text: str) -> None:
        """A credential notice (kept for this session only, or missing) in the window's language."""
        shown = text.text(self.ui.lang) if isinstance(text, Notice) else text
        self.message_bar.show_message(shown, "warning")
        self.status_label.setText(shown)

    def _exported(self, path: Path) -> None:
        text = self.ui.tx("The analysis was exported to {path}", path=path)
        self.message_bar.show_message(text, "info")
        self.status_label.setText(text)

    def open_replay(self, path: Path) -> asyncio.Future[None]:
        """Parse ``path`` in a worker thread, then show it (card, timeline, past analyses, the latest one).

        Returns a future resolved once the newest request of the analysis area has been shown (or has failed);
        a replay opened meanwhile replaces this one, whose result is then dropped.
        """
        self.status_label.setText(self.ui.tx("Reading {name}…", name=path.name))
        db = self.ctx.db
        return _started(self.replay_loader.start(lambda: _open_replay(db, path), self._show_opened))

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
        self.status_label.setText(self.ui.tx("Opened {name}", name=info.path.name))
        self.analysis.set_history(history_items(opened.records, self.ui.lang))
        if opened.problem:
            self.show_error(opened.problem)
        if not self.analysis.running:
            if opened.latest is not None:  # its latest analysis, as it was left
                self._show_record(opened.latest)
            else:
                self.analysis.show_empty(info.path.name, sample=_is_sample(info.path))
        self.refresh_expected()
        self.replay_opened.emit(str(info.path))

    def refresh_expected(self) -> asyncio.Future[None] | None:
        """Plan the open replay for the picked model in a worker thread and show what Analyze will take.

        Segments, requests, prompt tokens and cost, and below 200K the note that a long replay is not guaranteed
        (``app.budget.preview.expected_run``, the plan the CLI and the budget preview make).
        """
        if self.info is None:
            self.analysis.set_expected("", "")
            return None
        name = self.analysis.model_picker.currentData() or self.ctx.settings.active_profile().name
        try:
            prof = self.ctx.settings.profile(str(name))
        except KnownError:
            self.analysis.set_expected("", "")
            return None
        if prof.rule_based:
            offline = N_("Offline rule-based analyst: no model calls, no tokens.")
            self.analysis.set_expected(offline(Lang.ZH), offline(Lang.EN))
            return None
        path, data = self.info.path, prof.budget_mapping()
        settings, db = self.ctx.settings, self.ctx.db
        lang = settings.analysis_lang()  # the analysis' prompts decide every token count, not the window's language
        knowledge = settings.get("user_knowledge_file") or None
        analyst = str(settings.get("analyst_name") or "")

        def expected() -> tuple[str, str]:
            from app.i18n import Lang
            from app.pipeline.planning import expected_run

            # the plan the run will send (``replaysage plan`` with the same profile prints the same numbers)
            run = expected_run(path, data, lang, db=db, analyst=analyst, user_knowledge=knowledge)
            other = Lang.EN if lang is Lang.ZH else Lang.ZH
            # a refusal is worded in each language; the numbers are the analysis language's plan in both
            again = run if run.problem == "" else expected_run(path, data, other, user_knowledge=knowledge)
            zh, en = (run, again) if lang is Lang.ZH else (again, run)
            return zh.text(Lang.ZH), en.text(Lang.EN)

        return self.expected_loader.start(expected, lambda texts: self.analysis.set_expected(*texts))

    def list_opened(self) -> asyncio.Future[None] | None:
        """List the replays opened at earlier starts (worker thread), besides the replay folder's."""
        from app.library.opened import opened_replays

        db = self.ctx.db
        return self.opened_loader.start(
            lambda: opened_replays(db), lambda rows: self.library.add_files([info_from_summary(h) for h in rows])
        )

    def _load_failed(self, exc: Exception) -> None:
        self.show_error(error_text(exc, self.ui.lang))

    def refresh_history(self) -> asyncio.Future[None] | None:
        """Reload the past analyses of the open replay (dropped if another replay is open by the time they come)."""
        if self.info is None:
            return None
        db, path = self.ctx.db, self.info.path
        return self.history_loader.start(lambda: ReplayHistory(path, _analyses_of(db, path)), self._show_history)

    def _show_history(self, history: ReplayHistory) -> None:
        from ui.history import history_items

        if self.info is not None and self.info.path == history.path:
            shown = self.analysis.history.currentData()
            self.analysis.set_history(history_items(history.records, self.ui.lang))
            if shown is not None:
                self.analysis.select_history(int(shown))

    def reopen(self, analysis_id: int) -> asyncio.Future[None]:
        """Show a stored analysis in the view (same panels as a live run); replaces a replay still opening."""
        db = self.ctx.db
        return _started(self.replay_loader.start(lambda: _load_analysis(db, analysis_id), self._show_record))

    def _show_record(self, rec: AnalysisRecord) -> None:
        from ui.history import record_events

        if self.analysis.running:
            self.analysis.cancel()
        self._reopening = True  # the replayed events must not read as a live run ("Analysing 15/15")
        try:
            for event in record_events(rec):
                self.analysis.handle(event)
        finally:
            self._reopening = False
        self.analysis.flush_all()
        self.analysis.select_history(rec.id)
        self.progress.hide()
        states = {
            "completed": NC_("stored run", "completed"),
            "partial": NC_("stored run", "partly done, resumable"),
            "cancelled": NC_("stored run", "cancelled, resumable"),
            "failed": NC_("stored run", "failed"),
            "running": NC_("stored run", "unfinished"),
        }
        state = states.get(rec.status)
        shown = state(self.ui.lang) if state is not None else rec.status
        self.status_label.setText(self.ui.tx("Showing stored analysis #{id} ({state})", id=rec.id, state=shown))

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
                self.spawn(self._list_only(extra))
            event.acceptProposedAction()

    async def _list_only(self, path: Path) -> None:
        self.library.add_files([await asyncio.to_thread(load_info, path, stats=False)])

    # -- analysis ----------------------------------------------------------------------------------------------------

    def analyze(self, resume: bool = False) -> asyncio.Task[None] | None:
        """F5: analyse the open replay with the picked model (a running analysis is cancelled first)."""
        if self.info is None:
            self.show_error(self.ui.tx("Open a replay first (Ctrl+O)."))
            return None
        profile = self.analysis.model_picker.currentData() or self.ctx.settings.active_profile().name
        self.message_bar.hide()
        if resume:
            return self.spawn(self._resume(self.info.path, str(profile)))
        self.progress.setRange(0, 0)
        self.progress.show()
        self.status_label.setText(self.ui.tx("Preparing the analysis…"))
        return self.analysis.start(self.info.path, str(profile), resume=resume)

    async def _resume(self, path: Path, profile: str) -> None:
        """Shift+F5 / Resume: continue the unfinished analysis; with none, run nothing and say what there is.

        A resume never starts a new, paid analysis (issue 30): when the newest analysis of this replay and model
        is complete it is shown, and with no analysis at all the window says to press F5.
        """
        db, lang = self.ctx.db, self.run_settings().analysis_lang()
        found, analysis_id = await asyncio.to_thread(_resume_target, db, path, profile, lang)
        if found == "unfinished":
            self.progress.setRange(0, 0)
            self.progress.show()
            self.status_label.setText(self.ui.tx("Preparing the analysis…"))
            await self.analysis.start(path, profile, resume=True)
            return
        if found == "complete" and analysis_id is not None:
            await self.reopen(analysis_id)
            text = self.ui.tx(
                "Analysis #{analysis_id} is already complete: there is nothing to resume, so nothing was "
                "run and no request was sent.",
                analysis_id=analysis_id,
            )
        else:
            text = self.ui.tx(
                "This replay has no unfinished analysis with {profile}: nothing to resume. Press F5 to analyse it.",
                profile=profile,
            )
        self.message_bar.show_message(text, "info")
        self.status_label.setText(text)

    _reopening = False

    def _progress(self, done: int, total: int) -> None:
        if self._reopening:
            return
        self.progress.show()
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        self.progress.setFormat(f"{done}/{total}")
        self.status_label.setText(self.ui.tx("Analysing: {done}/{total} stages done", done=done, total=total))

    def _run_finished(self, outcome: str) -> None:
        texts = {
            "completed": N_("Analysis complete"),
            "partial": N_("Analysis partly done (resumable)"),
            "cancelled": N_("Analysis cancelled (resumable)"),
            "failed": N_("Analysis failed"),
            "error": N_("Analysis error"),
        }
        text = texts.get(outcome)
        self.status_label.setText(text(self.ui.lang) if text is not None else outcome)
        if outcome == "completed":  # full, whatever stage count the last progress event gave (it may come later)
            self.progress.setValue(self.progress.maximum())
        else:
            self.progress.hide()
        self.refresh_history()

    # -- settings and language ---------------------------------------------------------------------------------------

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

    # -- replay folders and the autosave -----------------------------------------------------------------------------

    def _folders_found(self, found: list[FoundFolder]) -> None:
        """Offer the found folders when none is set (and the offer was not declined); watch them all."""
        self.found_folders = found
        settings = self.ctx.settings
        if not settings.get("replay_folder") and settings.get("replay_folder_offer") != "dismissed":
            self.folder_offer.offer(found)
        self.restart_autosave()

    def use_replay_folder(self, folder: str) -> None:
        """Make ``folder`` the library's replay folder and remember it."""
        self.folder_offer.hide()
        try:
            self.ctx.settings.set("replay_folder", folder)
            self.ctx.settings.set("replay_folder_offer", "accepted")
            self.ctx.settings.save()
        except (KnownError, OSError) as exc:
            self.show_error(str(exc))
            return
        self.library.set_folder(folder)
        self.restart_autosave()
        self.status_label.setText(self.ui.tx("Replay folder: {folder}", folder=folder))

    def _offer_dismissed(self) -> None:
        self._remember("replay_folder_offer", "dismissed")

    def autosave_folders(self) -> list[Path]:
        """The folders the autosave watches: the library's folder and the games' folders found."""
        configured = str(self.ctx.settings.get("replay_folder") or "")
        folders = [Path(configured)] if configured and Path(configured).is_dir() else []
        return list(dict.fromkeys([*folders, *(f.path for f in self.found_folders)]))

    def restart_autosave(self) -> None:
        """Watch the replay folders as the settings say now (``autosave``, its folder and name pattern)."""
        self.autosave_timer.stop()
        self.autosaver = None
        settings = self.ctx.settings
        folders = self.autosave_folders()
        if not settings.get("autosave") or not folders:
            return
        target = str(settings.get("autosave_folder") or "")
        try:
            self.autosaver = AutoSaver(
                folders, target=Path(target) if target else None, pattern=str(settings.get("autosave_pattern"))
            )
        except KnownError as exc:
            self.show_error(str(exc))
            return
        self.autosave_timer.start()
        self.poll_autosave()

    def poll_autosave(self) -> asyncio.Future[None] | None:
        """One look at the watched folders, in the worker thread (a look still running is not doubled)."""
        saver = self.autosaver
        if saver is None or self.autosave_loader.busy():
            return None
        db, listed = self.ctx.db, self.library.folder
        return self.autosave_loader.start(lambda: _autosave_poll(saver, db, listed), self._autosaved)

    def _autosaved(self, result: tuple[list[Kept], list[HeaderSummary]]) -> None:
        kept, rows = result

        copied = [k.target.name for k in kept if k.status == "copied" and k.target is not None]
        if not copied:
            return
        names = ", ".join(copied)
        self.status_label.setText(self.ui.tx("Kept the last game's replay: {names}", names=names))
        if rows:
            self.library.add_files([info_from_summary(h) for h in rows])
        if any(k.status == "copied" and k.target is not None and k.target.parent == self.library.folder for k in kept):
            self.library.rescan()

    def _settings_applied(self) -> None:
        self._fill_models()
        self.restart_autosave()
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
            self.show_error(self.ui.tx("The interface language was not saved: {exc}", exc=exc))
        self.set_language(lang)

    def set_language(self, lang: Lang) -> None:
        """Switch the interface language live (for this session; :meth:`choose_language` also keeps it)."""
        self.ui.set_lang(lang)
        self.zh_action.setChecked(lang is Lang.ZH)
        self.en_action.setChecked(lang is Lang.EN)
        self._fill_models()
        self.refresh_history()  # the past analyses' words
        if self._side_built:  # else they are built later, in the new language
            self._build_side_tabs()
        self._drop_review_page()
        self._retitle()

    def warm_up(self) -> None:
        """Start the analysis worker ahead of the first Analyze (runners without a worker ignore this)."""
        warm = getattr(self.analysis.runner, "warm", None)
        if callable(warm):
            warm()

    # -- layout memory ----------------------------------------------------------------------------------------------

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

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt override
        """Closing cancels the analysis (finished stages stay stored) and background tasks."""
        if self.review_mode:  # the saved layout is the analysis's (the side panel as the user left it)
            self.set_review_mode(False)
        if self._review_queue is not None:
            self._review_queue.cancel_loading()
        self.save_layout()
        self.analysis.cancel()
        self.replay_loader.cancel()
        self.history_loader.cancel()
        self.autosave_timer.stop()
        self.autosave_loader.cancel()
        self.folder_loader.cancel()
        self.opened_loader.cancel()
        self.library.cancel_scan()
        for task in list(self.ctx.tasks):
            task.cancel()
        set_notice_sink(None)
        close = getattr(self.analysis.runner, "close", None)
        if callable(close) and not self.analysis.running:
            close()
        super().closeEvent(event)
