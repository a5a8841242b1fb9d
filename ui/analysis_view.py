"""The analysis view: Analyze / Cancel, a model picker, and one collapsible panel per stage, grouped.

It consumes :mod:`app.pipeline.events` only (never model text or JSON) from whatever runner
:mod:`ui.runner` provides. One worker per view: a new run cancels the old one and waits for it to stop before
starting, and events of an old run are ignored by generation. Events may arrive from a worker thread (the
pipeline marks a cancelled run from one), so :meth:`AnalysisView.post` hops to the GUI thread when needed.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Iterable
from pathlib import Path

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.errors import KnownError
from app.i18n import N_
from app.pipeline import events as ev
from ui.claims_table import ClaimRow
from ui.lang import UiLanguage
from ui.runner import AnalysisRunner
from ui.stage_outline import StageOutline
from ui.stage_panel import (
    ENDED_STATES,
    MD_CHUNK_CHARS,
    OFFLINE_MODEL,
    RENDER_SLICE_S,
    SEVERITY_COLORS,
    BudgetBar,
    StagePanel,
    display_text,
    markdown_chunks,
)
from ui.stage_words import BUDGET_PARTS, clock
from ui.theme import themed
from ui.widgets import (
    Collapsible,
    FlowLayout,
    plain_label,
)

__all__ = [
    "BUDGET_PARTS",
    "ENDED_STATES",
    "MD_CHUNK_CHARS",
    "OFFLINE_MODEL",
    "RENDER_SLICE_S",
    "SEVERITY_COLORS",
    "AnalysisView",
    "BudgetBar",
    "StagePanel",
    "clock",
    "display_text",
    "markdown_chunks",
]


log = logging.getLogger(__name__)


def run_totals(panels: Iterable[StagePanel]) -> dict[str, float | None]:
    """A whole run's usage: every stage's requests summed (``cost`` None when no request had a price)."""
    totals: dict[str, float | None] = {"prompt": 0, "cached": 0, "completion": 0, "reasoning": 0, "cost": None}
    for panel in panels:
        u = panel.usage
        for key in ("prompt", "cached", "completion", "reasoning"):
            totals[key] = (totals[key] or 0) + u.get(key, 0)
        if "cost" in u and not u.get("offline"):
            totals["cost"] = (totals["cost"] or 0.0) + u["cost"]
    return totals


class AnalysisView(QWidget):
    """Drives one analysis at a time and shows it.

    Args:
        runner: where analyses come from (see :mod:`ui.runner`).
        ui: the interface language.

    Signals:
        progress(int, int): stages finished, stages planned.
        time_requested(float): jump the timeline to a game time (an issue was clicked).
        plan_changed(list, list): segments and focus windows ``[(start, end)]`` of the run.
        lookback_served(float, float): a lookback range to draw.
        run_finished(str): ``completed``, ``partial`` (resumable), ``cancelled``, ``failed`` (or ``error``).
        error(str): a user-facing problem (:class:`KnownError`) for the message bar.
        analyze_requested(): the Analyze button was pressed.
        resume_requested(): the Resume button was pressed.
        cancel_requested(): the Cancel button was pressed; the window handles it as it handles Esc (one handler:
            it asks first before stopping a paid run).
        reopen_requested(int): a stored analysis was picked.
        feedback_requested(object): a :class:`ui.feedback.FeedbackTarget` the analyst wants to give feedback on.
        copied(str): a stage's text (or the summary) was put on the clipboard; the stage's title.
    """

    progress = Signal(int, int)
    time_requested = Signal(float)
    plan_changed = Signal(list, list)
    lookback_served = Signal(float, float)
    run_finished = Signal(str)
    error = Signal(str)
    analyze_requested = Signal()
    resume_requested = Signal()
    cancel_requested = Signal()
    reopen_requested = Signal(int)
    feedback_requested = Signal(object)
    copied = Signal(str)

    def __init__(self, runner: AnalysisRunner, ui: UiLanguage, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.ui = ui
        self.panels: dict[str, StagePanel] = {}
        self.groups: dict[int, Collapsible] = {}
        self.stages: list[ev.StageRef] = []
        self.segments: list[tuple[float, float]] = []
        self.done = 0
        self.status = "idle"
        self.analysis_id: int | None = None
        self.running_profile = ""
        self._task: asyncio.Task[None] | None = None
        self._generation = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self.last_event_at = 0.0

        self.model_picker = QComboBox(self)
        # as wide as its longest item (it cut "offline (rule-based analyst)"); the bar wraps instead of the text
        self.model_picker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.analyze_button = QPushButton(self)
        self.cancel_button = QPushButton(self)
        self.cancel_button.setEnabled(False)
        self.resume_button = QPushButton(self)
        self.resume_button.setEnabled(False)
        self.history = QComboBox(self)
        self.history.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.history.setMinimumContentsLength(22)
        self.history_label = QLabel(self)
        self.model_label = QLabel(self)
        # what Analyze will take with the picked model (segments, tokens, cost; the quality note below 200K)
        self.expected_label = plain_label(parent=self)
        self.expected_label.setWordWrap(True)
        self.expected_label.setProperty("role", "hint")
        self.expected_label.hide()
        self._expected: tuple[str, str] = ("", "")
        self.analyze_button.clicked.connect(self.analyze_requested.emit)
        self.cancel_button.clicked.connect(self.cancel_requested.emit)
        self.resume_button.clicked.connect(self.resume_requested.emit)
        self.history.activated.connect(self._history_picked)
        self.analyze_button.setProperty("primary", True)
        themed(self.analyze_button)
        bar = FlowLayout()  # wraps onto a second row in a narrow window instead of widening it
        for w in (
            self.model_label,
            self.model_picker,
            self.analyze_button,
            self.cancel_button,
            self.resume_button,
            self.history_label,
            self.history,
        ):
            bar.addWidget(w)

        self.container = QWidget()
        self.panel_layout = QVBoxLayout(self.container)
        self.panel_layout.setContentsMargins(4, 4, 4, 4)
        self.panel_layout.addStretch(1)
        self.scroll_area = QScrollArea(self)
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setWidget(self.container)
        self.outline = StageOutline(
            self, self.scroll_area, self.container, self.panel_layout, panels=self.panels, groups=self.groups
        )
        self.summary_button = QPushButton(self)
        self.summary_button.setEnabled(False)
        self.summary_button.clicked.connect(self.show_summary)
        self.copy_summary_button = QPushButton(self)
        self.copy_summary_button.setEnabled(False)
        self.copy_summary_button.clicked.connect(self.copy_summary)
        QWidget.setTabOrder(self.copy_summary_button, self.outline.follow_box)  # the box after the buttons
        side = QWidget(self)
        side_lay = QVBoxLayout(side)
        side_lay.setContentsMargins(0, 0, 0, 0)
        side_lay.addWidget(self.summary_button)
        side_lay.addWidget(self.copy_summary_button)
        side_lay.addWidget(self.outline.tree, 1)
        self.totals_label = QLabel(side)  # the whole run's tokens and cost (each stage shows its own)
        self.totals_label.setWordWrap(True)
        self.totals_label.setProperty("role", "hint")
        self.totals_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        side_lay.addWidget(self.totals_label)
        side_lay.addWidget(self.outline.follow_box)
        self.body_split = QSplitter(self)
        self.body_split.addWidget(side)
        self.body_split.addWidget(self.scroll_area)
        self.body_split.setStretchFactor(0, 1)  # a narrower pane (the side panel opened) narrows the outline too
        self.body_split.setStretchFactor(1, 4)
        self.body_split.setSizes([190, 600])
        self.placeholder = QLabel(self.container)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.panel_layout.insertWidget(0, self.placeholder)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(bar)
        lay.addWidget(self.expected_label)
        lay.addWidget(self.body_split, 1)
        ui.bind_tr(self, self.analyze_button.setText, "Analyze (F5)")
        ui.bind_tr(self, self.cancel_button.setText, "Cancel (Esc)")
        ui.bind_tr(self, self.resume_button.setText, "Resume")
        ui.bind_tr(self, self.history_label.setText, "Past analyses:")
        ui.bind_tr(self, self.model_label.setText, "Model:")
        self._empty_for: tuple[str, bool] | None = None  # (replay name, is the bundled sample) the placeholder names
        self._word_placeholder()
        ui.changed.connect(lambda _code: self._word_placeholder())
        ui.changed.connect(lambda _code: self._relabel_totals())
        ui.bind_tr(self, self.summary_button.setText, "Summary ↑")
        ui.bind_tr(self, self.copy_summary_button.setText, "Copy summary")
        ui.bind_tr(self, self.outline.follow_box.setText, "Follow the running stage")
        ui.changed.connect(lambda _c: self._show_expected())
        ui.bind_tr(self, self.outline.tree.setToolTip, "Click to jump to the stage")

    def set_expected(self, zh: str, en: str) -> None:
        """What Analyze will take with the picked model, in both languages ("" hides the line)."""
        self._expected = (zh, en)
        self._show_expected()

    def _show_expected(self) -> None:
        if not shiboken6.isValid(self.expected_label):
            return
        text = self.ui.t(*self._expected)
        self.expected_label.setText(text)
        self.expected_label.setVisible(bool(text))

    # -- running ---------------------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """True while a run's task is alive."""
        return self._task is not None and not self._task.done()

    def start(self, replay_path: Path, profile: str, *, resume: bool = False) -> asyncio.Task[None]:
        """Start a run (cancelling the current one first) and return its task."""
        old = self._task
        if old is not None and not old.done():
            old.cancel()
        self._generation += 1
        self.running_profile = profile
        self._loop = asyncio.get_running_loop() if _loop_running() else asyncio.get_event_loop()
        self._task = self._loop.create_task(self._run(self._generation, old, replay_path, profile, resume))
        self.analyze_button.setEnabled(True)
        self.cancel_button.setEnabled(True)
        self.resume_button.setEnabled(False)
        self.status = "starting"
        return self._task

    def cancel(self) -> None:
        """Stop the running analysis (finished stages stay stored; partial text stays visible)."""
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def _run(self, gen: int, old: asyncio.Task[None] | None, path: Path, profile: str, resume: bool) -> None:
        if old is not None and not old.done():
            await asyncio.wait([old])

        def emit(event: ev.PipelineEvent) -> None:
            self.post(event, gen)

        outcome = "failed"
        try:
            self.analysis_id = await self.runner.run(path, emit, profile=profile, resume=resume)
            # a partial run (a stage not really finished, e.g. a skipped overview) is never shown as complete
            outcome = self.status if self.status in ("completed", "partial", "failed") else "completed"
        except asyncio.CancelledError:
            outcome = "cancelled"
            if gen == self._generation:
                self._interrupt_all()
            raise
        except KnownError as exc:
            outcome = "error"
            if gen == self._generation:
                self.error.emit(str(exc))
                self._interrupt_all()
        except Exception as exc:  # a bug: show it rather than lose it silently
            outcome = "error"
            log.exception("analysis run failed")
            if gen == self._generation:
                self.error.emit(self.ui.tx("The analysis failed: {exc!r}", exc=exc))
                self._interrupt_all()
        finally:
            if gen == self._generation:
                self.status = outcome
                self.cancel_button.setEnabled(False)
                self.run_finished.emit(outcome)

    def post(self, event: ev.PipelineEvent, generation: int | None = None) -> None:
        """Accept an event from any thread (events of a superseded run are dropped)."""
        if threading.current_thread() is not threading.main_thread() and self._loop is not None:
            self._loop.call_soon_threadsafe(self.post, event, generation)
            return
        if generation is not None and generation != self._generation:
            return
        self.handle(event)

    # -- events ----------------------------------------------------------------------------------------------

    def clear(self) -> None:
        """Remove every panel."""
        for w in [*self.panels.values(), *self.groups.values()]:
            w.setParent(None)
            w.deleteLater()
        for extra in getattr(self, "_tops", []):
            extra.setParent(None)
            extra.deleteLater()
        self._tops: list[QWidget] = []
        self.panels.clear()
        self.groups.clear()
        self.outline.clear()
        self.summary_button.setEnabled(False)
        self.copy_summary_button.setEnabled(False)
        self.totals_label.clear()
        self.stages = []
        self.done = 0
        self.placeholder.hide()

    def _insert(self, widget: QWidget) -> None:
        self.panel_layout.insertWidget(self.panel_layout.count() - 1, widget)

    def _panel(self, stage: ev.StageRef) -> StagePanel:
        panel = self.panels.get(stage.key)
        if panel is not None:
            return panel
        if stage.kind is ev.StageKind.SUMMARY:
            panel = StagePanel(stage, N_("Match summary (no model)"), self.ui)
            self._insert(panel)
        elif stage.kind is ev.StageKind.OVERVIEW:
            panel = StagePanel(stage, N_("Overview"), self.ui)
            self._insert(panel)
        elif stage.kind is ev.StageKind.SUMMARY_ROUND:
            panel = StagePanel(stage, N_("Summary"), self.ui)
            self._insert(panel)
        else:
            group = self.groups.get(stage.segment)
            if group is None:
                group = Collapsible("", expanded=True)
                seg = stage.segment
                span = ""
                if 0 <= seg < len(self.segments):
                    a, b = self.segments[seg]
                    span = f"  {clock(a)}–{clock(b)}"
                self.ui.bind_tr(group, group.set_title, "Segment {seg}{span}", seg=seg + 1, span=span)
                self.groups[seg] = group
                self._insert(group)
            panel = StagePanel(stage, N_("Window {n}"), self.ui, n=stage.window + 1)
            group.add(panel)
        panel.time_clicked.connect(self.time_requested.emit)
        panel.feedback_requested.connect(lambda row, p=panel: self._feedback_on(p, row))
        panel.copied.connect(lambda _text, p=panel: self.copied.emit(p.title_text()))
        self.panels[stage.key] = panel
        if stage.kind is ev.StageKind.SUMMARY_ROUND:
            self.summary_button.setEnabled(True)
        self.outline.add(panel)
        return panel

    def _feedback_on(self, panel: StagePanel, row: ClaimRow | None) -> None:
        """A panel asked for feedback: name the stored analysis, the stage and the claim for the window."""
        from ui.feedback import FeedbackTarget

        if self.analysis_id is None:
            self.error.emit(self.ui.tx("This analysis is not stored yet: no feedback."))
            return
        title = panel.title_text()
        if panel.stage.kind is ev.StageKind.WINDOW:
            title += f"  {clock(panel.stage.start_seconds)}–{clock(panel.stage.end_seconds)}"
        label = ""
        if row is not None:
            index = panel.claims_table.rows.index(row)
            item = panel.claims_table.item(index, 0)
            label = item.text() if item is not None else row.key
        target = FeedbackTarget(self.analysis_id, panel.stage.key, title, row.ref if row else None, label)
        self.feedback_requested.emit(target)

    def handle(self, e: ev.PipelineEvent) -> None:
        """Apply one pipeline event to the panels."""
        self.last_event_at = time.monotonic()
        match e:
            case ev.RunStarted():
                # a resumed run replays its finished stages without their request breakdown: keep their bars
                carried = (
                    {k: p.breakdowns for k, p in self.panels.items() if p.breakdowns}
                    if e.resumed and e.analysis_id == self.analysis_id
                    else {}
                )
                self.clear()
                self.analysis_id = e.analysis_id
                self.status = "running"
                self.segments = list(e.segments)
                self.stages = list(e.stages)
                self.outline.follow_box.setChecked(True)  # a new run is followed again
                for st in e.stages:
                    panel = self._panel(st)
                    if st.key in carried:
                        panel.carry_breakdowns(carried[st.key])
                windows = [(s.start_seconds, s.end_seconds) for s in e.stages if s.kind is ev.StageKind.WINDOW]
                self.plan_changed.emit(list(self.segments), windows)
                self.progress.emit(0, len(self.stages))
            case ev.StageStarted():
                panel = self._panel(e.stage)
                panel.started(e)
                self.outline.open_running(panel, live=self.status in ("running", "starting"))
            case ev.TextDelta():
                self._panel(e.stage).text_delta(e)
            case ev.ReasoningDelta():
                self._panel(e.stage).reasoning_delta(e)
            case ev.UsageUpdated():
                self._panel(e.stage).usage_updated(e)
                self._relabel_totals()
            case ev.LookbackServed():
                self._panel(e.stage).lookback(e)
                self.lookback_served.emit(e.start_seconds, e.end_seconds)
            case ev.ClaimsParsed():
                self._panel(e.stage).claims_parsed(e)
            case ev.IssuesFound():
                self._panel(e.stage).issues_found(e)
            case ev.RevisionStarted():
                self._panel(e.stage).revision_started(e)
            case ev.RevisionFinished():
                self._panel(e.stage).revision_finished(e)
            case ev.StageFinished():
                panel = self._panel(e.stage)
                panel.finished(e)
                if e.stage.kind is ev.StageKind.SUMMARY_ROUND:
                    self.copy_summary_button.setEnabled(True)
                self.outline.fold_finished(panel)
                self._count()
            case ev.StageFailed():
                self._panel(e.stage).failed(e)
                self._count()
            case ev.RetryScheduled():
                self._panel(e.stage).retry(e)
            case ev.RunFinished():
                self.status = e.status
                if e.status == "completed":
                    self.show_summary()
                else:
                    self._interrupt_all()
                if e.message and e.status == "failed":
                    self.error.emit(e.message)
            case _:
                pass

    # -- the summary and the run's totals -----------------------------------------------------------------------

    def _summary_panel(self) -> StagePanel | None:
        return next((p for p in self.panels.values() if p.stage.kind is ev.StageKind.SUMMARY_ROUND), None)

    def show_summary(self) -> None:
        """The run's summary first: moved to the top of the page, opened, and scrolled to."""
        panel = self._summary_panel()
        if panel is None:
            return
        self.summary_button.setEnabled(True)
        if self.panel_layout.indexOf(panel) != 1:
            self.panel_layout.removeWidget(panel)
            self.panel_layout.insertWidget(1, panel)  # after the (hidden) placeholder
        self.outline.to_top(panel)
        panel.user_set = False
        self.outline.jump_to(panel.stage.key)

    def copy_summary(self) -> str | None:
        """Put the summary's text on the clipboard (None, and a message, while there is no finished summary)."""
        panel = self._summary_panel()
        if panel is None or panel.final_text is None:
            self.error.emit(self.ui.tx("There is no finished summary to copy yet."))
            return None
        return panel.copy_text()

    def _relabel_totals(self) -> None:
        if not any(p.usage for p in self.panels.values()):
            self.totals_label.clear()
            return
        tot = run_totals(self.panels.values())
        prompt, cached, out, reasoning = (int(tot[k] or 0) for k in ("prompt", "cached", "completion", "reasoning"))
        cost = f"{tot['cost']:.4f}" if tot["cost"] is not None else "–"
        self.totals_label.setText(
            self.ui.tx(
                "Whole run: prompt {prompt:,} (cached {cached:,}) · completion {out:,} · reasoning "
                "{reasoning:,} · cost {cost}",
                prompt=prompt,
                cached=cached,
                out=out,
                reasoning=reasoning,
                cost=cost,
            )
        )

    def _count(self) -> None:
        self.done = sum(1 for p in self.panels.values() if p.status in ENDED_STATES)
        self.progress.emit(self.done, max(len(self.stages), len(self.panels)))

    def _interrupt_all(self) -> None:
        for panel in self.panels.values():
            panel.interrupt()

    def flush_all(self) -> None:
        """Flush every pending stream buffer now (tests, screenshots)."""
        for panel in self.panels.values():
            if panel._built:
                panel.live.flush()
                panel.reasoning.flush()

    # -- history ---------------------------------------------------------------------------------------------

    def set_history(self, items: list[tuple[int, str, bool]]) -> None:
        """Past analyses of the open replay: ``(id, label, resumable)``, newest first."""
        self.history.clear()
        for aid, label, _resumable in items:
            self.history.addItem(label, aid)
        self.resume_button.setEnabled(any(r for _a, _l, r in items) and not self.running)

    def select_history(self, analysis_id: int) -> None:
        """Show ``analysis_id`` as the picked past analysis."""
        index = self.history.findData(analysis_id)
        if index >= 0:
            self.history.setCurrentIndex(index)

    def show_empty(self, replay_name: str | None = None, *, sample: bool = False) -> None:
        """No analysis for the open replay yet: clear the panels and say what to do.

        The placeholder names the open replay, and says when it is the bundled sample (opened at start when no file
        is given): it read "Open a replay" while the sample was open (issue 30, item 9).
        """
        self.clear()
        self._empty_for = (replay_name, sample) if replay_name else None
        self._word_placeholder()
        self.placeholder.show()

    def _word_placeholder(self) -> None:
        if self._empty_for is None:
            text = self.ui.tx("Open a replay (Ctrl+O), then press Analyze (F5).")
        elif self._empty_for[1]:
            name = self._empty_for[0]
            text = self.ui.tx(
                "This is the bundled sample replay ({name}), here to try the app: press Analyze (F5) to "
                "try an analysis, or open your own replay (Ctrl+O).",
                name=name,
            )
        else:
            name = self._empty_for[0]
            text = self.ui.tx("{name} has not been analysed yet. Press Analyze (F5) to start.", name=name)
        self.placeholder.setText(text)

    def _history_picked(self, index: int) -> None:
        aid = self.history.itemData(index)
        if aid is not None:
            self.reopen_requested.emit(int(aid))


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
