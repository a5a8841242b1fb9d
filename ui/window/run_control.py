"""The analysis run as the window drives it: Analyze, Cancel and Resume, the model picker, progress, stored runs.

The Analyze button, Analysis → Analyze and F5 take one path (:meth:`RunController.request_analyze`), as do the
Cancel button, Analysis → Cancel and Esc (:meth:`RunController.request_cancel`): each asks first where a run that
costs money would be lost. A stored analysis is shown through the same panels as a live run (:meth:`reopen`), and
the plan of the next run is shown before it is started (:meth:`refresh_expected`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QMessageBox, QWidget

from app.errors import KnownError
from app.i18n import N_, NC_, Lang
from app.settings import Settings
from ui.analysis_view import AnalysisView
from ui.lang import UiLanguage
from ui.services import Database
from ui.tabs.loading import Loader
from ui.window.reads import ReplayHistory, analyses_of, load_analysis, resume_target, started
from ui.window.status import WindowStatus

if TYPE_CHECKING:
    from app.pipeline.records import AnalysisRecord

RUN_OUTCOMES = {
    "completed": N_("Analysis complete"),
    "partial": N_("Analysis partly done (resumable)"),
    "cancelled": N_("Analysis cancelled (resumable)"),
    "failed": N_("Analysis failed"),
    "error": N_("Analysis error"),
}
"""What the status line says when a live run ends, by outcome."""


class RunController:
    """Starts, cancels and resumes the analysis of the open replay, and shows stored analyses.

    Args:
        parent: the window (parent of the confirmation boxes and owner of the loaders).
        db: the store; settings: the settings (profiles, the active one); ui: the interface language.
        analysis: the analysis view the runs stream into.
        status: where progress and problems are shown.
        replay: the path of the open replay (None when none is open).
        run_settings: the settings a run is started with (:meth:`ui.main_window.MainWindow.run_settings`).
        spawn: runs a coroutine on the window's loop, a problem it raises going to the message bar.
        view_loader: the analysis area's loader, shared with opening a replay: the newest request wins.
        on_error: shows a loader's problem.
    """

    def __init__(
        self,
        parent: QWidget,
        db: Database,
        settings: Settings,
        ui: UiLanguage,
        *,
        analysis: AnalysisView,
        status: WindowStatus,
        replay: Callable[[], Path | None],
        run_settings: Callable[[], Settings],
        spawn: Callable[[Coroutine[Any, Any, Any]], asyncio.Task[Any]],
        view_loader: Loader,
        on_error: Callable[[Exception], None],
    ) -> None:
        self._parent = parent
        self._db = db
        self._settings = settings
        self._ui = ui
        self.analysis = analysis
        self._status = status
        self._replay = replay
        self._run_settings = run_settings
        self._spawn = spawn
        self._view_loader = view_loader
        self.history_loader = Loader(parent, on_error)
        self.expected_loader = Loader(parent, on_error)  # what Analyze will take (issue 31)
        self.confirm_box: QMessageBox | None = None
        self._reopening = False  # replayed events of a stored analysis must not read as a live run
        analysis.analyze_requested.connect(self.request_analyze)
        analysis.resume_requested.connect(lambda: self.request_analyze(resume=True))
        analysis.cancel_requested.connect(self.request_cancel)  # the button and Esc: one handler
        analysis.reopen_requested.connect(self.reopen)
        analysis.progress.connect(self._progress)
        analysis.run_finished.connect(self._run_finished)

    # -- starting and stopping ---------------------------------------------------------------------------------------

    def analyze(self, resume: bool = False) -> asyncio.Task[None] | None:
        """F5: analyse the open replay with the picked model (a running analysis is cancelled first)."""
        path = self._replay()
        if path is None:
            self._status.error(self._ui.tx("Open a replay first (Ctrl+O)."))
            return None
        profile = self.analysis.model_picker.currentData() or self._settings.active_profile().name
        self._status.message_bar.hide()
        if resume:
            return self._spawn(self._resume(path, str(profile)))
        self._status.busy()
        self._status.say(self._ui.tx("Preparing the analysis…"))
        return self.analysis.start(path, str(profile), resume=resume)

    async def _resume(self, path: Path, profile: str) -> None:
        """Shift+F5 / Resume: continue the unfinished analysis; with none, run nothing and say what there is.

        A resume never starts a new, paid analysis (issue 30): when the newest analysis of this replay and model
        is complete it is shown, and with no analysis at all the window says to press F5.
        """
        db, lang = self._db, self._run_settings().analysis_lang()
        found, analysis_id = await asyncio.to_thread(resume_target, db, path, profile, lang)
        if found == "unfinished":
            self._status.busy()
            self._status.say(self._ui.tx("Preparing the analysis…"))
            await self.analysis.start(path, profile, resume=True)
            return
        if found == "complete" and analysis_id is not None:
            await self.reopen(analysis_id)
            text = self._ui.tx(
                "Analysis #{analysis_id} is already complete: there is nothing to resume, so nothing was "
                "run and no request was sent.",
                analysis_id=analysis_id,
            )
        else:
            text = self._ui.tx(
                "This replay has no unfinished analysis with {profile}: nothing to resume. Press F5 to analyse it.",
                profile=profile,
            )
        self._status.tell(text)

    def _confirm(self, title: str, text: str, on_yes: Callable[[], object]) -> QMessageBox:
        """Ask a yes/no question without a nested event loop (``open()``); ``on_yes`` runs on Yes only."""
        std = QMessageBox.StandardButton
        box = QMessageBox(QMessageBox.Icon.Question, title, text, std.Yes | std.No, self._parent)
        box.setDefaultButton(std.No)
        box.button(std.Yes).setText(self._ui.tx("Yes"))
        box.button(std.No).setText(self._ui.tx("No"))
        box.finished.connect(lambda result: on_yes() if result == std.Yes else None)
        self.confirm_box = box
        box.open()
        return box

    def _running_on_paid_model(self) -> bool:
        """The running analysis uses a language model (not the offline analyst): cancelling it wastes spend."""
        name = self.analysis.running_profile
        try:
            return not self._settings.profile(name).rule_based if name else False
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
            self._ui.tx("Cancel the analysis?"),
            self._ui.tx(
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
            self._ui.tx("Restart the analysis?"),
            self._ui.tx(
                "An analysis is running. Restarting cancels it (finished stages are kept) and analyses the "
                "replay again with the picked model."
            ),
            lambda: self.analyze(resume=resume),
        )
        return None

    def warm_up(self) -> None:
        """Start the analysis worker ahead of the first Analyze (runners without a worker ignore this)."""
        warm = getattr(self.analysis.runner, "warm", None)
        if callable(warm):
            warm()

    # -- progress ----------------------------------------------------------------------------------------------------

    def _progress(self, done: int, total: int) -> None:
        if self._reopening:
            return
        progress = self._status.progress
        progress.show()
        progress.setRange(0, max(total, 1))
        progress.setValue(done)
        progress.setFormat(f"{done}/{total}")
        self._status.say(self._ui.tx("Analysing: {done}/{total} stages done", done=done, total=total))

    def _run_finished(self, outcome: str) -> None:
        text = RUN_OUTCOMES.get(outcome)
        self._status.say(text(self._ui.lang) if text is not None else outcome)
        progress = self._status.progress
        if outcome == "completed":  # full, whatever stage count the last progress event gave (it may come later)
            progress.setValue(progress.maximum())
        else:
            progress.hide()
        self.refresh_history()

    # -- stored analyses ---------------------------------------------------------------------------------------------

    def refresh_history(self) -> asyncio.Future[None] | None:
        """Reload the past analyses of the open replay (dropped if another replay is open by the time they come)."""
        path = self._replay()
        if path is None:
            return None
        db = self._db
        return self.history_loader.start(lambda: ReplayHistory(path, analyses_of(db, path)), self._show_history)

    def _show_history(self, history: ReplayHistory) -> None:
        from ui.history import history_items

        if self._replay() == history.path:
            shown = self.analysis.history.currentData()
            self.analysis.set_history(history_items(history.records, self._ui.lang))
            if shown is not None:
                self.analysis.select_history(int(shown))

    def reopen(self, analysis_id: int) -> asyncio.Future[None]:
        """Show a stored analysis in the view (same panels as a live run); replaces a replay still opening."""
        db = self._db
        return started(self._view_loader.start(lambda: load_analysis(db, analysis_id), self.show_record))

    def show_record(self, rec: AnalysisRecord) -> None:
        """Show the stored analysis ``rec`` as it was left (its events replayed into the panels)."""
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
        self._status.progress.hide()
        states = {
            "completed": NC_("stored run", "completed"),
            "partial": NC_("stored run", "partly done, resumable"),
            "cancelled": NC_("stored run", "cancelled, resumable"),
            "failed": NC_("stored run", "failed"),
            "running": NC_("stored run", "unfinished"),
        }
        state = states.get(rec.status)
        shown = state(self._ui.lang) if state is not None else rec.status
        self._status.say(self._ui.tx("Showing stored analysis #{id} ({state})", id=rec.id, state=shown))

    # -- the model and the next run's plan ---------------------------------------------------------------------------

    def fill_models(self) -> None:
        """List the settings' model profiles in the picker, the active one picked."""
        picker = self.analysis.model_picker
        picker.clear()
        for prof in self._settings.profiles:
            offline = self._ui.tx("offline (rule-based analyst)")
            label = offline if prof.rule_based else prof.name
            picker.addItem(label, prof.name)
        picker.setCurrentIndex(max(0, picker.findData(self._settings.active_profile().name)))

    def refresh_expected(self) -> asyncio.Future[None] | None:
        """Plan the open replay for the picked model in a worker thread and show what Analyze will take.

        Segments, requests, prompt tokens and cost, and below 200K the note that a long replay is not guaranteed
        (``app.budget.preview.expected_run``, the plan the CLI and the budget preview make).
        """
        path = self._replay()
        if path is None:
            self.analysis.set_expected("", "")
            return None
        name = self.analysis.model_picker.currentData() or self._settings.active_profile().name
        try:
            prof = self._settings.profile(str(name))
        except KnownError:
            self.analysis.set_expected("", "")
            return None
        if prof.rule_based:
            offline = N_("Offline rule-based analyst: no model calls, no tokens.")
            self.analysis.set_expected(offline(Lang.ZH), offline(Lang.EN))
            return None
        data = prof.budget_mapping()
        settings, db = self._settings, self._db
        lang = settings.analysis_lang()  # the analysis' prompts decide every token count, not the window's language
        knowledge = settings.get("user_knowledge_file") or None
        analyst = str(settings.get("analyst_name") or "")

        def expected() -> tuple[str, str]:
            from app.pipeline.planning import expected_run

            # the plan the run will send (``replaysage plan`` with the same profile prints the same numbers)
            run = expected_run(path, data, lang, db=db, analyst=analyst, user_knowledge=knowledge)
            other = Lang.EN if lang is Lang.ZH else Lang.ZH
            # a refusal is worded in each language; the numbers are the analysis language's plan in both
            again = run if run.problem == "" else expected_run(path, data, other, user_knowledge=knowledge)
            zh, en = (run, again) if lang is Lang.ZH else (again, run)
            return zh.text(Lang.ZH), en.text(Lang.EN)

        return self.expected_loader.start(expected, lambda texts: self.analysis.set_expected(*texts))

    def stop(self) -> None:
        """The window closes: cancel the run (finished stages stay stored) and the history read."""
        self.analysis.cancel()
        self.history_loader.cancel()

    def close_worker(self) -> None:
        """The window has closed: end the analysis worker unless a run still ends in it."""
        close = getattr(self.analysis.runner, "close", None)
        if callable(close) and not self.analysis.running:
            close()
