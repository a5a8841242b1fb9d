"""One stage of an analysis as a panel.

:class:`StagePanel` shows a stage's streamed text, reasoning, budget bar, claims and issues; :class:`BudgetBar`
draws the prompt's budget. :mod:`ui.analysis_view` groups the panels and re-exports these names.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

import shiboken6
from PySide6 import QtGui
from PySide6.QtCore import QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QGuiApplication,
    QPainter,
    QPaintEvent,
    QPen,
    QTextCharFormat,
    QTextCursor,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QTextEdit,
    QWidget,
)

from app.claims.issues import Severity, ValidationIssue
from app.i18n import NC_, Msg
from app.pipeline import events as ev
from ui.icons import SEVERITY_ICONS, icon
from ui.lang import UiLanguage
from ui.stage_words import (
    BUDGET_PARTS,
    budget_text,
    clock,
    issue_count_text,
    issues_title,
    lookbacks_text,
    usage_text,
)
from ui.widgets import (
    MARKDOWN_NO_HTML,
    Collapsible,
    FlowingTextBrowser,
    LazyTextSection,
    StreamBuffer,
    plain_label,
    text_box,
)

STATE_WORDS: dict[str, Msg] = {
    "pending": NC_("stage state", "waiting"),
    "running": NC_("stage state", "running"),
    "done": NC_("stage state", "done"),
    "failed": NC_("stage state", "failed"),
    "cancelled": NC_("stage state", "cancelled"),
    "revising": NC_("stage state", "revising"),
    "cut": NC_("stage state", "cut"),
    "stalled": NC_("stage state", "stalled"),
    "length": NC_("stage state", "output limit"),
    "retrying": NC_("stage state", "retrying"),
}
"""A stage's state as its title says it."""

SEVERITY_COLORS = {
    Severity.INFO: "#607d8b",
    Severity.WARNING: "#c49000",
    Severity.WEAK_EVIDENCE: "#e67e22",
    Severity.CONTRADICTION: "#c0392b",
    Severity.FATAL: "#6d0000",
}


MD_CHUNK_CHARS = 800
RENDER_SLICE_S = 0.008
"""The final Markdown goes in as small pieces (:data:`MD_CHUNK_CHARS`), as many per event-loop turn as fit in this
many seconds: a 3,000-character piece of a list-heavy answer took 20–27 ms, and two of them ran in one turn."""
ENDED_STATES = ("done", "failed", "cancelled", "cut", "stalled", "length")
"""Panel states of a stage that ended; all but ``done`` mean the reply did not end by itself (resumable)."""

OFFLINE_MODEL = "offline"
"""``app.analyst.provider.OFFLINE_MODEL``, the model name the rule-based analyst reports (not imported: the module
costs ~200 ms to import on the GUI thread; a test checks the two agree)."""


def markdown_chunks(text: str, size: int = MD_CHUNK_CHARS) -> list[str]:
    """Split Markdown at line boundaries outside code fences into pieces of about ``size`` characters.

    Blank-line boundaries are preferred; a long list without blank lines is cut between items (the next
    piece starts a new list, which renders the same).
    """
    if len(text) <= size:
        return [text]
    pieces: list[str] = []
    current: list[str] = []
    length = 0
    fenced = False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        current.append(line)
        length += len(line) + 1
        if not fenced and length >= size and (not line.strip() or length >= 2 * size or _item_end(line)):
            pieces.append("\n".join(current))
            current, length = [], 0
    if current:
        pieces.append("\n".join(current))
    return pieces


def _item_end(line: str) -> bool:
    """True after a complete list item or paragraph line (a safe place to cut)."""
    return bool(line.strip()) and not line.rstrip().endswith(("\\", "|"))


def display_text(text: str) -> str:
    """A streamed answer without its machine-readable ``[claims]`` block (shown in the claims table instead)."""
    from app.claims.parse import parse_claims

    parsed = parse_claims(text)
    return parsed.display_text if parsed.marker_found else text


class BudgetBar(QWidget):
    """A stacked bar of a request's budget parts against ContextBudget (dashed) and ContextLength (full width)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.values: dict[str, int] = {}
        self.setMinimumHeight(18)
        self.setMaximumHeight(18)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def set_breakdown(self, breakdown: Mapping[str, int], lang: object = None) -> None:
        """Show a request's breakdown (keys of :class:`app.pipeline.events.StageStarted`)."""
        from app.i18n import Lang, tr

        self.values = {k: int(v) for k, v in breakdown.items()}
        lg = lang if isinstance(lang, Lang) else Lang.EN
        rows = "".join(
            f"<tr><td><span style='color:{color}'>■</span> {name(lg)}</td>"
            f"<td align='right'>{self.values.get(key, 0):,}</td></tr>"
            for key, name, color in BUDGET_PARTS
        )
        v = self.values
        self.setToolTip(
            tr(lg, "Tokens of this request (estimated)")
            + f"<table>{rows}</table>"
            + tr(
                lg,
                "dashed line = budget {get:,}; full width = context {get_2:,}",
                get=v.get("budget", 0),
                get_2=v.get("context_length", 0),
            )
        )
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        """Draw the parts left to right, then the budget and context marks."""
        p = QPainter(self)
        w, h = self.width() - 2, self.height() - 2
        p.fillRect(1, 1, w, h, QColor("#f3f3f3"))
        parts_total = sum(self.values.get(k, 0) for k, *_ in BUDGET_PARTS)
        scale_max = max(self.values.get("context_length", 0), self.values.get("budget", 0), parts_total, 1)
        x = 1.0
        for key, _name, color in BUDGET_PARTS:
            n = self.values.get(key, 0)
            if n <= 0:
                continue
            width = w * n / scale_max
            p.fillRect(QRectF(x, 1, width, h), QColor(color))
            x += width
        budget = self.values.get("budget", 0)
        if budget:
            bx = 1 + w * budget / scale_max
            pen = QPen(QColor("#222222"), 2, Qt.PenStyle.DashLine)
            p.setPen(pen)
            p.drawLine(int(bx), 0, int(bx), h + 2)
        p.setPen(QPen(QColor("#888888")))
        p.drawRect(0, 0, w + 1, h + 1)
        p.end()


class StagePanel(Collapsible):
    """Everything about one stage: budget, usage, prompt, reasoning, drafts, text, claims, issues, lookbacks.

    Signals:
        time_clicked(float): an issue with a game time was clicked.
        feedback_requested(object): the analyst wants to give feedback on this stage (None) or a claim (its
            :class:`ui.claims_table.ClaimRow`).
        copied(str): the stage's text was put on the clipboard (the text).
    """

    time_clicked = Signal(float)
    retitled = Signal()
    feedback_requested = Signal(object)
    copied = Signal(str)

    def __init__(
        self, stage: ev.StageRef, title: Msg, ui: UiLanguage, parent: QWidget | None = None, **title_params: object
    ) -> None:
        super().__init__("", expanded=False, parent=parent)  # the view opens the running stage only
        self.stage = stage
        self.user_set = False  # the reader opened or folded this panel: the view leaves it alone
        self.auto_opened = False
        self.header.clicked.connect(self._user_toggled)
        self.ui = ui
        self.stage_title, self.title_params = title, title_params
        self.status = "pending"
        self.final_text: str | None = None
        self.message = ""
        self.breakdowns: list[dict[str, int]] = []
        self.issues: list[ValidationIssue] = []
        self.draft_issues: list[ValidationIssue] | None = None  # the issues before the revision, once it ran
        self.lookbacks: list[tuple[float, float, int]] = []
        self.claims: dict[str, object] = {}
        self.usage: dict[str, float] = {}
        self._reason_start: float | None = None
        self._reason_end: float | None = None
        self.drafts: list[str] = []
        self._built = False
        self._tick = QTimer(self)
        self._tick.setInterval(250)
        self._tick.timeout.connect(self._retitle_reasoning)
        ui.changed.connect(lambda _code: self.retranslate())
        ui.changed.connect(lambda _code: self._reword_lists())
        self.retranslate()

    def _build(self) -> None:
        """Create the body widgets on first use.

        A plan of 30 stages then shows its titles at once, and each panel pays for its widgets only when its
        stage starts (or it is opened).
        """
        if self._built:
            return
        self._built = True
        stage = self.stage
        self.budget_bar = BudgetBar(self)
        self.budget_label = QLabel(self)
        self.budget_label.setWordWrap(True)
        self.budget_label.setTextFormat(Qt.TextFormat.RichText)  # coloured squares: the bar's legend
        self.usage_label = QLabel(self)
        self.usage_label.setWordWrap(True)
        self.error_label = plain_label(parent=self)
        self.error_label.setStyleSheet("color: #b71c1c;")
        self.error_label.setWordWrap(True)
        self.error_label.hide()
        self.prompt_section = LazyTextSection("", 220, parent=self)
        self.prompt_box = self.prompt_section.box
        self.reasoning_section = Collapsible("", expanded=False, parent=self)
        self.reasoning_box = text_box(200)
        self.reasoning_section.add(self.reasoning_box)
        self.reasoning = StreamBuffer(self.reasoning_box)
        self.reasoning_section.hide()
        self.drafts_section = Collapsible("", expanded=False, parent=self)
        self.drafts_section.hide()
        self.live_box = text_box(320)
        self.live = StreamBuffer(self.live_box)
        self.final_view = FlowingTextBrowser(self)  # as tall as the answer: the page is the one scroll
        self.final_view.setOpenExternalLinks(False)
        self.final_view.hide()
        from ui.claims_table import ClaimsTable

        self.claims_section = Collapsible("", expanded=False, parent=self)
        self.claims_table = ClaimsTable(self.ui, self)
        self.claims_section.add(self.claims_table)
        self.claim_feedback_button = QPushButton(self)
        self.claim_feedback_button.setEnabled(False)
        self.claims_section.add(self.claim_feedback_button)
        self.claims_section.hide()
        self.claims_table.itemSelectionChanged.connect(
            lambda: self.claim_feedback_button.setEnabled(self.claims_table.selected_index() is not None)
        )
        self.claims_table.activated.connect(lambda _index: self._claim_feedback())  # Enter or double-click
        self.claim_feedback_button.clicked.connect(self._claim_feedback)
        self.feedback_button = QPushButton(self)
        self.feedback_button.clicked.connect(lambda: self.feedback_requested.emit(None))
        self.copy_button = QPushButton(self)
        self.copy_button.clicked.connect(self.copy_text)
        actions = QWidget(self)  # the stage's own actions on one row: copy its text, give feedback on it
        actions_lay = QHBoxLayout(actions)
        actions_lay.setContentsMargins(0, 0, 0, 0)
        actions_lay.addWidget(self.copy_button)
        actions_lay.addWidget(self.feedback_button)
        actions_lay.addStretch(1)
        self.issues_section = Collapsible("", expanded=False, parent=self)
        self.issue_list = QListWidget(self)
        self.issue_list.setMaximumHeight(160)
        self.issue_list.itemClicked.connect(self._issue_clicked)
        self.issues_section.add(self.issue_list)
        self.issues_section.hide()
        self.lookback_label = QLabel(self)
        self.lookback_label.setWordWrap(True)
        self.lookback_label.hide()
        for w in (
            self.budget_bar,
            self.budget_label,
            self.usage_label,
            self.error_label,
            self.prompt_section,
            self.reasoning_section,
            self.drafts_section,
            self.live_box,
            self.final_view,
            self.lookback_label,
            self.claims_section,
            self.issues_section,
            actions,
        ):
            self.add(w)
        if stage.kind is ev.StageKind.SUMMARY:
            self.budget_bar.hide()
            self.budget_label.hide()
            self.usage_label.hide()
            self.prompt_section.hide()
        self.retranslate()

    # -- texts ------------------------------------------------------------------------------------------------

    def title_text(self) -> str:
        """The stage's name in the current language (``Window 3``)."""
        return self.stage_title(self.ui.lang, **self.title_params)

    def retranslate(self) -> None:
        """Re-apply every label in the current language."""
        state = STATE_WORDS.get(self.status)
        span = ""
        if self.stage.kind is ev.StageKind.WINDOW:
            span = f"  {clock(self.stage.start_seconds)}–{clock(self.stage.end_seconds)}"
        status = state(self.ui.lang) if state is not None else self.status
        self.set_title(
            f"{self.title_text()}{span}  · {status}{issue_count_text(self.ui, self.issues, self.draft_issues)}"
        )
        self.retitled.emit()
        if not self._built:
            return
        self.prompt_section.set_title(self.ui.tx("Prompt sent"))
        self.feedback_button.setText(self.ui.tx("Feedback on this stage…"))
        self.copy_button.setText(self.ui.tx("Copy this stage's text"))
        self.claim_feedback_button.setText(self.ui.tx("Feedback on the selected claim…"))
        n = len(self.drafts)
        self.drafts_section.set_title(self.ui.tx("Drafts before revision ({n})", n=n))
        n_claims = self.claims_table.rowCount()
        self.claims_section.set_title(self.ui.tx("Claims ({n_claims})", n_claims=n_claims))
        self._retitle_issues()
        self._retitle_reasoning()
        self._relabel_budget()
        self._relabel_usage()
        self._relabel_lookbacks()

    def _user_toggled(self) -> None:
        self.user_set = True

    def _claim_feedback(self) -> None:
        index = self.claims_table.selected_index()
        if index is not None:
            self.feedback_requested.emit(self.claims_table.rows[index])

    def _retitle_reasoning(self) -> None:
        if self._reason_start is None:
            self.reasoning_section.set_title(self.ui.tx("Thinking"))
            return
        end = self._reason_end if self._reason_end is not None else time.monotonic()
        n = int(end - self._reason_start)
        live = self._reason_end is None
        self.reasoning_section.set_title(
            self.ui.tx("thinking {n} s", n=n) if live else self.ui.tx("thought for {n} s", n=n)
        )

    def _retitle_issues(self) -> None:
        self.issues_section.set_title(issues_title(self.ui, self.issues, self.draft_issues))

    def _relabel_budget(self) -> None:
        self.budget_label.setText(budget_text(self.ui, self.budget_bar.values))

    def _relabel_usage(self) -> None:
        self.usage_label.setText(usage_text(self.ui, self.usage))

    def _relabel_lookbacks(self) -> None:
        if not self.lookbacks:
            return
        self.lookback_label.setText(lookbacks_text(self.ui, self.lookbacks))

    # -- events -----------------------------------------------------------------------------------------------

    def set_status(self, status: str) -> None:
        """Change the status shown in the title."""
        self.status = status
        self.retranslate()

    def started(self, e: ev.StageStarted) -> None:
        """A request of this stage is being sent."""
        self._build()
        if self.status in ("pending", *ENDED_STATES[1:]):
            self.set_status("running")
        if e.breakdown:
            self.breakdowns.append(dict(e.breakdown))
            self.budget_bar.set_breakdown(e.breakdown, self.ui.lang)
            self._relabel_budget()
        if e.prompt:
            existing = self.prompt_section.text()
            sep = "\n\n────────\n\n" if existing else ""
            self.prompt_section.set_text(existing + sep + e.prompt)

    def carry_breakdowns(self, breakdowns: list[dict[str, int]]) -> None:
        """Budget bars of this stage's requests from before a resume."""
        self._build()
        self.breakdowns = list(breakdowns)
        self.budget_bar.set_breakdown(breakdowns[-1], self.ui.lang)
        self._relabel_budget()

    def text_delta(self, e: ev.TextDelta) -> None:
        """Streamed answer text (plain while streaming)."""
        self._build()
        if self._reason_start is not None and self._reason_end is None:
            self._reason_end = time.monotonic()
            self._tick.stop()
            self._retitle_reasoning()
        self.live.append(e.text)

    def reasoning_delta(self, e: ev.ReasoningDelta) -> None:
        """Streamed reasoning: the collapsed block with its live timer."""
        self._build()
        if self._reason_start is None or self._reason_end is not None:
            self._reason_start = self._reason_start or time.monotonic()
            self._reason_end = None
            self._tick.start()
            self.reasoning_section.show()
            self._retitle_reasoning()
        self.reasoning.append(e.text)

    def usage_updated(self, e: ev.UsageUpdated) -> None:
        """Sum the stage's request usage; keep the last TTFT and speed."""
        self._build()
        u = self.usage
        for key, val in (
            ("prompt", e.prompt_tokens),
            ("cached", e.cached_prompt_tokens),
            ("completion", e.completion_tokens),
            ("reasoning", e.reasoning_tokens),
        ):
            u[key] = u.get(key, 0) + val
        if e.ttft_seconds is not None:
            u["ttft"] = e.ttft_seconds
        if e.tokens_per_second is not None:
            u["tps"] = e.tokens_per_second
        if e.cost is not None:
            u["cost"] = u.get("cost", 0.0) + e.cost
        u["offline"] = float(e.resolved_model == OFFLINE_MODEL)
        self._relabel_usage()

    def lookback(self, e: ev.LookbackServed) -> None:
        """A lookback range was served."""
        self._build()
        self.lookbacks.append((e.start_seconds, e.end_seconds, e.tokens))
        self.lookback_label.show()
        self._relabel_lookbacks()

    def claims_parsed(self, e: ev.ClaimsParsed) -> None:
        """The stage's claims (shown as JSON, collapsed)."""
        self._build()
        self.claims = dict(e.claims)
        self.claims_table.fill(self.claims, self.issues)
        self.claims_section.show()
        self.claims_section.set_title(self.ui.tx("Claims ({rowcount})", rowcount=self.claims_table.rowCount()))

    def issues_found(self, e: ev.IssuesFound) -> None:
        """Replace the issue list (after a revision the new list is the one that counts; the title keeps the tally)."""
        self._build()
        if e.after_revision and self.draft_issues is None:
            self.draft_issues = list(self.issues)  # what caused the revision stays countable
        self.issues = list(e.issues)
        self._fill_issue_list()
        if self.claims:
            self.claims_table.fill(self.claims, self.issues)
        self.issues_section.setVisible(bool(self.issues) or e.after_revision)
        self.retranslate()

    def _reword_lists(self) -> None:
        """After a language switch: the issue rows and the claims table name severities in the new language."""
        if self._built and self.issues:
            self._fill_issue_list()
        if self._built and self.claims:
            self.claims_table.fill(self.claims, self.issues)

    def _fill_issue_list(self) -> None:
        self.issue_list.clear()
        for issue in sorted(self.issues, key=lambda i: (-int(i.severity), i.time_seconds or 0.0)):
            when = f"{clock(issue.time_seconds)} " if issue.time_seconds is not None else ""
            item = QListWidgetItem(f"● {issue.severity.display(self.ui.lang)}  {when}{issue.message}")
            item.setIcon(icon(SEVERITY_ICONS[issue.severity]))
            item.setForeground(QBrush(QColor(SEVERITY_COLORS[issue.severity])))
            item.setToolTip(QtGui.Qt.convertFromPlainText(f"{issue.code}: {issue.message}"))  # messages quote names
            item.setData(Qt.ItemDataRole.UserRole, issue.time_seconds)
            item.setData(Qt.ItemDataRole.UserRole + 1, issue)
            self.issue_list.addItem(item)

    def revision_started(self, e: ev.RevisionStarted) -> None:
        """Fold the current draft away and stream the revision into the live box."""
        self._build()
        self.live.flush()
        draft = display_text(self.live.text())
        self.drafts.append(draft)
        box = text_box(240)
        box.setPlainText(draft)
        self.drafts_section.add(box)
        self.drafts_section.show()
        self.live.reset()
        self.set_status("revising")

    def revision_finished(self, e: ev.RevisionFinished) -> None:
        """A kept original goes back into the live box until the final text arrives."""
        self._build()
        if e.kept_original and self.drafts and not self.live.text():
            self.live.reset(self.drafts[-1])

    def finished(self, e: ev.StageFinished) -> None:
        """Render the final text as Markdown, once (long texts in slices, one per event-loop turn)."""
        self._build()
        self.live.flush()
        self._stop_reasoning()
        self.final_text = e.text
        self.live_box.hide()
        self.final_view.show()
        self.error_label.hide()  # a retry note from before the answer arrived
        self.set_status("done")
        chunks = markdown_chunks(e.text)
        if len(chunks) <= 1:
            self.final_view.clear()
            QTextCursor(self.final_view.document()).insertMarkdown(e.text, MARKDOWN_NO_HTML)
            return
        # one setMarkdown of a 100K-character answer blocks the loop for ~100 ms; slices keep each turn short
        self.final_view.clear()
        self._md_chunks = chunks
        self._md_first = True
        self.md_pending = True
        QTimer.singleShot(1, self._render_next_chunk)

    md_pending = False

    def _render_next_chunk(self) -> None:
        if not shiboken6.isValid(self) or not self._md_chunks:
            self.md_pending = False
            return
        t0 = time.perf_counter()
        while self._md_chunks and time.perf_counter() - t0 < RENDER_SLICE_S:
            chunk = self._md_chunks.pop(0)
            cursor = QTextCursor(self.final_view.document())
            cursor.movePosition(QTextCursor.MoveOperation.End)
            if not self._md_first:
                cursor.insertBlock()
            self._md_first = False
            cursor.insertMarkdown(chunk, MARKDOWN_NO_HTML)
        if self._md_chunks:
            QTimer.singleShot(1, self._render_next_chunk)  # a due timer, not a posted call: other work runs between
        else:
            self.md_pending = False
            self.final_view.moveCursor(QTextCursor.MoveOperation.Start)

    def retry(self, e: ev.RetryScheduled) -> None:
        """A request failed before content and waits for its next attempt: say so ("retry 2/5 in 8 s: HTTP 503")."""
        self._build()
        self.error_label.setText(e.describe(self.ui.lang))
        self.error_label.show()
        self.set_status("retrying")

    def failed(self, e: ev.StageFailed) -> None:
        """Keep the partial text visible with the reason; the title names how the reply ended."""
        self._build()
        self.live.flush()
        self._stop_reasoning()
        if e.partial_text and not self.live.text():
            self.live.reset(e.partial_text)
        self.message = e.message
        self.error_label.setText(e.message)
        self.error_label.show()
        self.set_status(e.outcome if e.outcome in ("cut", "stalled", "length", "cancelled") else "failed")

    def interrupt(self) -> None:
        """The run ended while this stage was streaming: keep what arrived."""
        if self._built and self.status in ("running", "revising", "retrying"):
            self.live.flush()
            self._stop_reasoning()
            self.set_status("cancelled")

    def _stop_reasoning(self) -> None:
        self.reasoning.flush()
        if self._reason_start is not None and self._reason_end is None:
            self._reason_end = time.monotonic()
        self._tick.stop()
        self._retitle_reasoning()

    def live_text(self) -> str:
        """The streamed text so far (partial when cancelled)."""
        return self.live.text() if self._built else ""

    def text(self) -> str:
        """The stage's text as stored: the final Markdown once it finished, else what arrived so far."""
        return self.final_text if self.final_text is not None else self.live_text()

    def copy_text(self) -> str:
        """Put the stage's text (its Markdown source, as the report has it) on the clipboard; returns it.

        A stage without text yet copies nothing (the clipboard keeps what it had).
        """
        text = self.text()
        if not text:
            return ""
        QGuiApplication.clipboard().setText(text)
        self.copied.emit(text)
        return text

    def _on_toggled(self, on: bool) -> None:
        if on:
            self._build()
        super()._on_toggled(on)

    cited_text = ""
    """The sentence highlighted for the last clicked issue's claim ("" when none was found)."""

    def _issue_clicked(self, item: QListWidgetItem) -> None:
        when = item.data(Qt.ItemDataRole.UserRole)
        if when is not None:
            self.time_clicked.emit(float(when))
        issue = item.data(Qt.ItemDataRole.UserRole + 1)
        if isinstance(issue, ValidationIssue):
            self.show_claim_of(issue)

    def show_claim_of(self, issue: ValidationIssue) -> int | None:
        """Select the claim an issue is about and highlight the sentence of the answer that cites it."""
        from ui.claims_table import citation_tokens, claim_row_for_issue

        index = claim_row_for_issue(issue, self.claims_table.rows)
        self.cited_text = ""
        view: QTextEdit | QPlainTextEdit = self.final_view if self.final_text is not None else self.live_box
        view.setExtraSelections([])
        if index is None:
            self.claims_table.clearSelection()
            return None
        self.claims_section.set_expanded(True)
        self.claims_table.select_claim(index)
        doc = view.document()
        for token in citation_tokens(self.claims_table.rows[index]):
            found = doc.find(token)
            if found.isNull():
                continue
            found.select(QTextCursor.SelectionType.BlockUnderCursor)
            sel = QTextEdit.ExtraSelection()
            sel.cursor = found
            fmt = QTextCharFormat()
            fmt.setBackground(QColor("#fff2a8"))
            sel.format = fmt
            view.setExtraSelections([sel])
            anchor = QTextCursor(found)
            anchor.clearSelection()
            view.setTextCursor(anchor)
            view.ensureCursorVisible()
            if isinstance(view, FlowingTextBrowser):
                view.reveal_cursor()  # the box does not scroll: the page brings the sentence into view
            self.cited_text = found.selectedText().strip()
            break
        return index
