"""The live budget preview next to a model's numbers: what the budget does to the open replay.

Every change of ContextLength, ContextBudget or max_tokens replans the replay with :func:`app.budget.preview
.preview_plan` (the ``replaysage plan --json`` planner) in a worker thread, after a short pause in typing; the
newest request wins and older results are dropped. Refusals are shown in plain words with the field to change.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel, QVBoxLayout, QWidget

from app.errors import KnownError
from app.i18n import N_, Lang, Msg
from ui.lang import UiLanguage

log = logging.getLogger(__name__)

DEBOUNCE_MS = 250

ROWS: tuple[tuple[str, Msg], ...] = (
    ("segments", N_("Segments")),
    ("windows", N_("Focus windows")),
    ("requests", N_("Requests")),
    ("prompt_tokens", N_("Prompt tokens")),
    ("cacheable", N_("Cacheable share")),
    ("cost", N_("Estimated cost")),
)


def _compute(path: str, data: dict[str, Any], lang: Any) -> dict[str, Any]:
    """Worker-thread body (the planner's imports happen here, not on the GUI thread)."""
    from app.pipeline.planning import preview_plan
    from app.settings import Settings

    # the run's own plan (its system prompt and the user's knowledge file); memory facts need the store, which
    # the settings page does not hold: the main window's expected line counts them
    knowledge = Settings.load().get("user_knowledge_file") or None
    return preview_plan(path, data, lang, user_knowledge=knowledge)


class BudgetPreview(QGroupBox):
    """Plan numbers of the open replay for the model being edited.

    Signals:
        planned(): a preview finished (numbers or a refusal are shown); tests await it.
    """

    planned = Signal()

    def __init__(
        self, ui: UiLanguage, parent: QWidget | None = None, *, plan_lang: Callable[[], Lang] | None = None
    ) -> None:
        """``plan_lang`` gives the analysis language the replay is planned in (default: the interface's).

        The prompts of that language are what the model gets, so it decides every token count; the interface
        language only words the labels (issue 30: an English window previewed a Chinese analysis in English).
        """
        super().__init__(parent)
        self.ui = ui
        self.plan_lang: Callable[[], Lang] = plan_lang or (lambda: self.ui.lang)
        self.replay: Path | None = None
        self.data: dict[str, Any] = {}
        self.plan: dict[str, Any] | None = None
        self.problem = ""
        self.busy = False
        self._generation = 0
        self._task: asyncio.Task[None] | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self._start)
        self.budget_label = QLabel(self)
        self.budget_label.setWordWrap(True)
        self.budget_label.setProperty("role", "hint")
        self.state_label = QLabel(self)
        self.state_label.setWordWrap(True)
        self.values: dict[str, QLabel] = {}
        self._row_labels: dict[str, QLabel] = {}
        form = QFormLayout()
        for key, title in ROWS:
            name, value = QLabel(self), QLabel("–", self)
            ui.bind_msg(name, name.setText, title)
            self._row_labels[key] = name
            self.values[key] = value
            form.addRow(name, value)
        lay = QVBoxLayout(self)
        lay.addWidget(self.budget_label)
        lay.addLayout(form)
        lay.addWidget(self.state_label)
        lay.addStretch(1)
        ui.bind_tr(self, self.setTitle, "Budget preview (open replay)")
        ui.changed.connect(lambda _c: self.schedule())

    # -- inputs -----------------------------------------------------------------------------------------------

    def set_replay(self, path: Path | None) -> None:
        """The replay the preview plans (None: only the budget line is shown)."""
        self.replay = path
        self.schedule()

    def set_profile(self, data: Mapping[str, Any]) -> None:
        """The model's numbers and prices (``ModelProfileSettings.budget_mapping()`` keys); replans shortly."""
        self.data = dict(data)
        self.schedule()

    def set_refused(self, message: str) -> None:
        """A number of the form is refused: say so instead of planning numbers the form does not hold."""
        self._generation += 1
        self._timer.stop()
        self._show(self._generation, None, message)

    def schedule(self) -> None:
        """Replan after a short pause (typing a number fires one change per digit)."""
        from app.budget.preview import budget_line

        self.budget_label.setText(
            budget_line(
                int(self.data.get("context_length") or 0), int(self.data.get("context_budget") or 0), self.ui.lang
            )
        )
        self._generation += 1
        self.busy = True
        self._timer.start()

    # -- planning ---------------------------------------------------------------------------------------------

    def _start(self) -> None:
        from app.budget.preview import profile_problem

        gen = self._generation
        problem = profile_problem(
            int(self.data.get("context_length") or 0),
            int(self.data.get("context_budget") or 0),
            int(self.data.get("max_tokens") or 0),
            self.ui.lang,
            reasoning=bool(self.data.get("reasoning", False)),
        )
        if problem is not None:
            self._show(gen, None, problem.message)
            return
        if self.replay is None:
            self._show(
                gen,
                None,
                self.ui.tx("Open a replay to see its slices, requests and tokens under this budget."),
            )
            return
        self._task = asyncio.get_event_loop().create_task(self._plan(gen, str(self.replay), dict(self.data)))

    async def _plan(self, gen: int, path: str, data: dict[str, Any]) -> None:
        try:
            plan = await asyncio.to_thread(_compute, path, data, self.plan_lang())
        except KnownError as exc:
            self._show(gen, None, str(exc))
            return
        except Exception as exc:  # a planner bug: say it rather than leave the preview blank
            log.exception("budget preview failed")
            self._show(gen, None, self.ui.tx("The preview failed: {exc!r}", exc=exc))
            return
        self._show(gen, plan, "")

    def _show(self, gen: int, plan: dict[str, Any] | None, problem: str) -> None:
        if not shiboken6.isValid(self) or gen != self._generation:
            return  # a newer edit is on its way
        self.plan, self.problem, self.busy = plan, problem, False
        texts = self.numbers(plan) if plan is not None else {}
        for key, label in self.values.items():
            label.setText(texts.get(key, "–"))
        if problem:
            self.state_label.setText(problem)
            self.state_label.setStyleSheet("color: #b71c1c;")
        else:
            warnings = " ".join(plan.get("warnings", [])) if plan else ""
            self.state_label.setText(warnings)
            self.state_label.setStyleSheet("")
        self.planned.emit()

    def numbers(self, plan: Mapping[str, Any]) -> dict[str, str]:
        """The shown texts of a ``plan --json`` document."""
        from app.budget.preview import output_cost_ceiling

        totals = plan["totals"]
        windows = sum(len(s["windows"]) for s in plan["segments"])
        price_in = float(self.data.get("price_input") or 0) + float(self.data.get("price_cached_input") or 0)
        price_out = float(self.data.get("price_output") or 0)
        if price_in or price_out:
            ceiling = output_cost_ceiling(plan, price_out)
            cost = self.ui.tx(
                "input {input_cost:.4f} + output up to {ceiling:.4f}", input_cost=totals["input_cost"], ceiling=ceiling
            )
        else:
            cost = self.ui.tx("– (no prices set)")
        return {
            "segments": f"{len(plan['segments'])}",
            "windows": f"{windows}",
            "requests": f"{totals['requests']}",
            "prompt_tokens": f"{totals['prompt_tokens']:,}",
            "cacheable": f"{totals['cacheable_share']:.0%}",
            "cost": cost,
        }

    async def settled(self) -> None:
        """Wait until the newest preview is shown (tests)."""
        while self.busy:
            await asyncio.sleep(0.02)
