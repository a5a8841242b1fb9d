"""The analyst's feedback on a stage or one claim of a stored analysis: a small dialog over the CLI's service.

The dialog only collects what the analyst says (a note, agree / disagree or a free statement, a rating) and who
says it; :func:`app.pipeline.feedback.give_feedback` decides what it teaches the memory and the error-wisdom
library, exactly as ``replaysage feedback`` does. It runs in a worker thread; a refusal (no analyst, nothing said,
an unknown stage) keeps the dialog open with the service's own words.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from app.errors import KnownError
from ui.lang import UiLanguage
from ui.theme import themed
from ui.widgets import plain_label

if TYPE_CHECKING:  # the service is imported in the worker thread that runs it
    from app.pipeline.feedback import FeedbackResult, Verdict
    from ui.services import Database


@dataclass(frozen=True, slots=True)
class FeedbackTarget:
    """What the feedback is about.

    Attributes:
        analysis_id: the stored analysis.
        stage_key: the stage's key (``window:0:1``).
        stage_title: the stage as the panel names it.
        claim: the claim as the service takes it (``#762`` for an object, else the table's key), or None.
        claim_label: the claim as the table shows it ("" without a claim).
    """

    analysis_id: int
    stage_key: str
    stage_title: str
    claim: str | None = None
    claim_label: str = ""


@dataclass(frozen=True, slots=True)
class FeedbackInput:
    """What the analyst entered (passed to the service unchanged)."""

    analyst: str
    text: str
    verdict: Verdict
    rating: int | None


Sender = Callable[[FeedbackTarget, FeedbackInput], "FeedbackResult"]
"""Records the feedback (runs in a worker thread)."""


def sender(db: Database) -> Sender:
    """The sender over the app's service, as ``replaysage feedback`` calls it."""

    def send(target: FeedbackTarget, entered: FeedbackInput) -> FeedbackResult:
        from app.pipeline.feedback import give_feedback

        return give_feedback(
            db,
            target.analysis_id,
            entered.text,
            analyst=entered.analyst,
            stage=target.stage_key,
            claim=target.claim,
            verdict=entered.verdict,
            rating=entered.rating,
        )

    return send


class FeedbackDialog(QDialog):
    """Agree, disagree or state something about a stage or a claim; OK records it through ``send``.

    Signals:
        recorded(object): the :class:`FeedbackResult` once stored (the dialog then closes).
    """

    recorded = Signal(object)

    def __init__(
        self, target: FeedbackTarget, send: Sender, ui: UiLanguage, analyst: str = "", parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        themed(self)  # the analyst field is marked invalid when the service asks for a name
        self.target = target
        self.send = send
        self.ui = ui
        self.pending: asyncio.Future[FeedbackResult] | None = None
        self.setWindowTitle(ui.tx("Feedback"))
        about = ui.tx("Stage: {stage_title}", stage_title=target.stage_title)
        if target.claim is not None:
            about += ui.tx("\nClaim: {claim_label}", claim_label=target.claim_label)
        self.about = plain_label(about, self)
        self.about.setWordWrap(True)
        self.analyst = QLineEdit(analyst, self)
        self.analyst.setPlaceholderText(ui.tx("your name (remembered)"))
        self.statement = QRadioButton(ui.tx("&Statement (a preference or a fact)"), self)
        self.agree = QRadioButton(ui.tx("A&gree"), self)
        self.disagree = QRadioButton(ui.tx("&Disagree"), self)
        self.verdicts = QButtonGroup(self)
        for button in (self.statement, self.agree, self.disagree):
            self.verdicts.addButton(button)
        self.statement.setChecked(True)
        self.text = QPlainTextEdit(self)
        self.text.setTabChangesFocus(True)  # Tab leaves the box: the dialog stays keyboard-navigable
        self.text.setPlaceholderText(ui.tx("e.g. this player always opens with two barracks"))
        self.rating = QComboBox(self)
        self.rating.addItem(ui.tx("no rating"), None)
        for n in range(1, 6):
            self.rating.addItem("★" * n, n)
        self.message = plain_label(parent=self)
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #b71c1c;")
        self.message.hide()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(ui.tx("Record feedback"))
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setText(ui.tx("Cancel"))
        self.buttons.accepted.connect(self.submit)
        self.buttons.rejected.connect(self.reject)

        form = QFormLayout()
        analyst_label = QLabel(ui.tx("Analyst &name"), self)
        analyst_label.setBuddy(self.analyst)
        form.addRow(analyst_label, self.analyst)
        row = QHBoxLayout()
        for button in (self.statement, self.agree, self.disagree):
            row.addWidget(button)
        row.addStretch(1)
        form.addRow(ui.tx("Your verdict"), row)
        text_label = QLabel(ui.tx("&Text"), self)
        text_label.setBuddy(self.text)
        form.addRow(text_label, self.text)
        rating_label = QLabel(ui.tx("&Rating"), self)
        rating_label.setBuddy(self.rating)
        form.addRow(rating_label, self.rating)
        lay = QVBoxLayout(self)
        lay.addWidget(self.about)
        lay.addLayout(form)
        lay.addWidget(self.message)
        lay.addWidget(self.buttons)
        self.resize(520, 360)
        (self.text if analyst else self.analyst).setFocus()

    def entered(self) -> FeedbackInput:
        """The form's values."""
        verdict: Verdict = "agree" if self.agree.isChecked() else ("disagree" if self.disagree.isChecked() else None)
        rating = self.rating.currentData()
        return FeedbackInput(
            self.analyst.text().strip(), self.text.toPlainText().strip(), verdict, int(rating) if rating else None
        )

    def submit(self) -> asyncio.Future[FeedbackResult] | None:
        """OK: record the feedback in a worker thread; close on success, show the refusal otherwise."""
        if self.pending is not None and not self.pending.done():
            return self.pending
        entered = self.entered()
        if not entered.analyst:  # asked once: the window keeps the name in the settings
            self._refused(self.ui.tx("Enter your name as the analyst first (it is remembered)."))
            return None
        self.buttons.setEnabled(False)
        self.message.hide()
        loop = asyncio.get_event_loop()
        fut = loop.run_in_executor(None, self.send, self.target, entered)
        fut.add_done_callback(self._sent)  # a plain callback, never a task (see ui.tabs.loading.Loader)
        self.pending = fut
        return fut

    def _sent(self, fut: asyncio.Future[FeedbackResult]) -> None:
        self.buttons.setEnabled(True)
        if fut.cancelled():
            return
        exc = fut.exception()
        if exc is None:
            self.recorded.emit(fut.result())
            self.accept()
            return
        self._refused(str(exc) if isinstance(exc, KnownError) else self.ui.tx("Internal error: {exc!r}", exc=exc))

    def _refused(self, text: str) -> None:
        """Keep the dialog open with the reason; an empty analyst field is marked and focused."""
        self.message.setText(text)
        self.message.show()
        no_name = not self.analyst.text().strip()
        self.analyst.setProperty("invalid", no_name)
        self.analyst.style().polish(self.analyst)
        (self.analyst if no_name else self.text).setFocus()
