"""Small reusable widgets: a collapsible section, a batched text stream, the message bar, a flow layout.

The stream buffer follows engineering notes §1.8: deltas go into a list and a ~50 ms timer flushes them into a
``QPlainTextEdit`` through one document cursor, so thousands of deltas cost one insert per tick, never a
re-layout per token; the view auto-scrolls only when the reader is already at the bottom.
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QEvent, QMargins, QObject, QPoint, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QResizeEvent, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLayoutItem,
    QPlainTextEdit,
    QScrollArea,
    QSizePolicy,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ui.theme import styled

FLUSH_MS = 50

BLOCK_CHARS = 1500
"""Longest run of streamed text shown as one paragraph. A text layout is redone whole on every insert, so a
paragraph with no line breaks (reasoning often has none) made each flush slower as it grew: 20 ms past 12,000
characters. Longer runs are shown as several paragraphs, cut after punctuation or a space (else where a delta
began); the stream's text itself is never changed."""

_BREAK_AFTER = "。！？；，、.!?;, \t"

MARKDOWN_NO_HTML = QTextDocument.MarkdownFeature.MarkdownDialectGitHub | QTextDocument.MarkdownFeature.MarkdownNoHTML
"""Markdown features for model text: GitHub Markdown, with embedded HTML shown as text (replay names can hold
tags, and a model may quote them)."""


def plain_label(text: str = "", parent: QWidget | None = None) -> QLabel:
    """A label that always shows its text as plain text.

    Qt's default guesses rich text from a ``<``, and replay text (names, map names, messages quoting them) must
    never render as HTML.
    """
    label = QLabel(text, parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


class ElidedHeader(QToolButton):
    """A section header that shortens its text with "…" when narrow, instead of widening the whole page.

    A header's minimum width was its full title, so one long stage title gave a narrow analysis pane a horizontal
    scroll bar. The full title stays in :meth:`full_text` and, while shortened, in the tooltip.
    """

    MIN_TEXT_WIDTH = 48

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = ""

    def set_full_text(self, text: str) -> None:
        """Set the title (shown whole when it fits)."""
        self._full = text
        self._elide()

    def full_text(self) -> str:
        """The whole title."""
        return self._full

    def _chrome(self) -> int:
        return self.iconSize().width() + 24  # arrow, spacing and frame around the text

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """As wide as the whole title."""
        hint = super().sizeHint()
        return QSize(self.fontMetrics().horizontalAdvance(self._full) + self._chrome(), hint.height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """Narrow: the text is elided to fit."""
        return QSize(self.MIN_TEXT_WIDTH + self._chrome(), super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        """Re-elide for the new width."""
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        room = max(self.MIN_TEXT_WIDTH, self.width() - self._chrome())
        shown = self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, room)
        if shown != self.text():
            super().setText(shown)
        self.setToolTip(self._full if shown != self._full else "")


class Collapsible(QWidget):
    """A titled section whose body folds away.

    Signals:
        toggled(bool): the new expanded state.
    """

    toggled = Signal(bool)

    def __init__(self, title: str = "", expanded: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.header = ElidedHeader(self)
        self.header.set_full_text(title)
        self.header.setCheckable(True)
        self.header.setChecked(expanded)
        self.header.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.header.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
        self.header.setAutoRaise(True)
        self.header.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        bold = self.header.font()  # a font, not a style sheet: a sheet per header put every panel through the
        bold.setBold(True)  # style-sheet engine
        self.header.setFont(bold)
        self.body = QWidget(self)
        self.body_layout = QVBoxLayout(self.body)
        self.body_layout.setContentsMargins(16, 2, 2, 4)
        self.body.setVisible(expanded)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.header)
        lay.addWidget(self.body)
        self.header.toggled.connect(self._on_toggled)

    def _on_toggled(self, on: bool) -> None:
        self.header.setArrowType(Qt.ArrowType.DownArrow if on else Qt.ArrowType.RightArrow)
        self.body.setVisible(on)
        self.toggled.emit(on)

    def add(self, widget: QWidget) -> QWidget:
        """Append a widget to the body."""
        self.body_layout.addWidget(widget)
        return widget

    def set_title(self, text: str) -> None:
        """Change the header text."""
        self.header.set_full_text(text)

    def title(self) -> str:
        """The header text (whole, even while the header shows it shortened)."""
        return self.header.full_text()

    def set_expanded(self, on: bool) -> None:
        """Open or fold the section."""
        self.header.setChecked(on)

    @property
    def expanded(self) -> bool:
        """True when the body shows."""
        return self.header.isChecked()


class LazyTextSection(Collapsible):
    """A folded section with a read-only text box that is filled only while the section is open.

    Setting a 300,000-character prompt into a text box costs its layout on the GUI thread, and most prompts
    are never looked at; the text waits here until the reader opens the section.
    """

    def __init__(self, title: str = "", height: int = 200, parent: QWidget | None = None) -> None:
        super().__init__(title, expanded=False, parent=parent)
        self.box = text_box(height)
        self.add(self.box)
        self._text = ""
        self._filled = True

    def set_text(self, text: str) -> None:
        """Replace the text (shown at once if the section is open, else when it opens)."""
        self._text = text
        self._filled = False
        if self.expanded:
            self._fill()

    def text(self) -> str:
        """The section's text, shown or not."""
        return self._text

    def _fill(self) -> None:
        if not self._filled:
            self.box.setPlainText(self._text)
            self._filled = True

    def _on_toggled(self, on: bool) -> None:
        if on:
            self._fill()
        super()._on_toggled(on)


class StreamBuffer(QObject):
    """Batched appends of streamed text into a ``QPlainTextEdit``.

    Args:
        edit: the target (read-only) text widget.
        interval_ms: flush period.

    Signals:
        flushed(int): characters inserted by a flush.
    """

    flushed = Signal(int)

    def __init__(self, edit: QPlainTextEdit, interval_ms: int = FLUSH_MS) -> None:
        super().__init__(edit)
        self.edit = edit
        self._pending: list[str] = []
        self._all: list[str] = []
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.flush)
        self.flushes = 0
        self._block = 0  # characters in the last paragraph shown

    def append(self, text: str) -> None:
        """Queue text; it shows at the next tick."""
        if not text:
            return
        self._pending.append(text)
        self._all.append(text)
        if not self._timer.isActive():
            self._timer.start()

    def flush(self) -> None:
        """Insert everything queued (one cursor insert) and stop the timer when idle."""
        if not self._pending:
            self._timer.stop()
            return
        chunk = "".join(self._pending)
        self._pending.clear()
        bar = self.edit.verticalScrollBar()
        at_bottom = bar.value() >= bar.maximum() - 4
        cursor = QTextCursor(self.edit.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        for i, piece in enumerate(self._display_pieces(chunk)):
            if i:
                cursor.insertBlock()
            cursor.insertText(piece)
        if at_bottom:
            bar.setValue(bar.maximum())
        self.flushes += 1
        self.flushed.emit(len(chunk))

    def _display_pieces(self, chunk: str) -> list[str]:
        """``chunk`` cut into the pieces shown as separate paragraphs (:data:`BLOCK_CHARS`).

        Joined, the pieces are ``chunk`` again. Keeps the length of the last paragraph for the next flush.
        """
        pieces: list[str] = []
        emitted = i = 0
        block = self._block
        while i < len(chunk):
            newline = chunk.find("\n", i)
            end = newline if newline >= 0 else len(chunk)
            room = BLOCK_CHARS - block
            if end - i <= room:
                if newline < 0:
                    block += end - i
                    break
                block, i = 0, newline + 1
                continue
            limit = i + max(room, 0)
            cut = max(chunk.rfind(c, i, limit) for c in _BREAK_AFTER)
            if cut >= 0:
                at = cut + 1
            elif block > 0:
                at = i  # no place to cut before the limit: break where the earlier text ended
            else:
                at = limit  # one unbroken run longer than a paragraph: cut it hard
            pieces.append(chunk[emitted:at])
            emitted = i = at
            block = 0
        pieces.append(chunk[emitted:])
        self._block = block
        return pieces

    def text(self) -> str:
        """Everything appended so far (flushed or not)."""
        return "".join(self._all)

    def reset(self, text: str = "") -> None:
        """Drop queued text and replace the widget's content."""
        self._pending.clear()
        self._all = [text] if text else []
        self._timer.stop()
        self.edit.setPlainText(text)
        self._block = len(text) - text.rfind("\n") - 1

    @property
    def pending(self) -> bool:
        """True while text waits for a flush."""
        return bool(self._pending)


class FlowingTextBrowser(QTextBrowser):
    """A read-only rich-text view as tall as its text: the page around it scrolls, never the box.

    Each stage's answer sat in its own 360 px scroll box inside the scrolling analysis page, two scroll bars for one
    reading (issue 30, item 9). The height follows the document (its layout reports every size change, also while
    a long answer is rendered in slices and when the width changes the wrapping).
    """

    def __init__(self, parent: QWidget | None = None, minimum: int = 40) -> None:
        super().__init__(parent)
        self._minimum = minimum
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.document().documentLayout().documentSizeChanged.connect(lambda _size: self._fit())

    def _fit(self) -> None:
        margins = self.contentsMargins()
        height = int(self.document().size().height() + 0.999) + margins.top() + margins.bottom()
        height = max(height, self._minimum)
        if height != self.height():
            self.setFixedHeight(height)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        """A new width rewraps the text: fit the height again."""
        super().resizeEvent(event)
        self._fit()

    def reveal_cursor(self) -> None:
        """Scroll the enclosing scroll area (the page) so the text cursor is in view."""
        parent = self.parentWidget()
        while parent is not None and not isinstance(parent, QScrollArea):
            parent = parent.parentWidget()
        page = parent.widget() if parent is not None else None
        if parent is None or page is None:
            return
        rect = self.cursorRect()
        top = self.viewport().mapTo(page, rect.topLeft())
        parent.ensureVisible(top.x(), top.y() + rect.height() // 2, 0, max(60, rect.height()))


def text_box(height: int = 160, parent: QWidget | None = None) -> QPlainTextEdit:
    """A read-only plain-text box for streamed or generated text."""
    box = QPlainTextEdit(parent)
    box.setReadOnly(True)
    box.setMinimumHeight(60)
    box.setMaximumHeight(height)
    box.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
    return box


class MessageBar(QFrame):
    """A dismissible bar at the top of the window for user-facing errors (:class:`app.errors.KnownError`)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("messageBar")
        self.label = plain_label(parent=self)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        close = QToolButton(self)
        close.setText("✕")
        close.setAutoRaise(True)
        close.clicked.connect(self.hide)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(8, 4, 4, 4)
        lay.addWidget(self.label, 1)
        lay.addWidget(close)
        self.hide()

    def show_message(self, text: str, level: str = "error") -> None:
        """Show ``text``; ``level`` is ``error``, ``warning`` or ``info``."""
        colors = {"error": ("#fdecea", "#b71c1c"), "warning": ("#fff8e1", "#8a6d00"), "info": ("#e8f4fd", "#0b4f8a")}
        bg, fg = colors.get(level, colors["error"])
        self.setStyleSheet(f"#messageBar {{ background: {bg}; border: 1px solid {fg}; }} QLabel {{ color: {fg}; }}")
        self.label.setText(text)
        self.level = level
        self.show()

    def text(self) -> str:
        """The message shown (empty when hidden)."""
        return self.label.text() if self.isVisible() or not self.isHidden() else ""


class FlowLayout(QLayout):
    """Widgets left to right, wrapping onto the next line when the row is full (toolbars and filter rows).

    A plain ``QHBoxLayout`` made its widgets' summed width the window's minimum (the analysis toolbar alone asked
    for 781 px); a flow layout asks only for its widest item and grows in height instead.
    """

    def __init__(self, parent: QWidget | None = None, spacing: int = 6) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._gap = spacing
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QLayoutItem) -> None:  # noqa: N802 - Qt override
        """Qt calls this for addWidget."""
        self._items.append(item)

    def count(self) -> int:
        """Number of items."""
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 - Qt override
        """Item ``index`` (None past the end)."""
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 - Qt override
        """Remove and return item ``index``."""
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:  # noqa: N802 - Qt override
        """Never asks for more room than its rows."""
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt override
        """The height depends on how many rows the width allows."""
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt override
        """Height of the rows at ``width``."""
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802 - Qt override
        """Place the items."""
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """All items on one row."""
        w = sum(i.sizeHint().width() for i in self._items) + self._gap * max(len(self._items) - 1, 0)
        h = max((i.sizeHint().height() for i in self._items), default=0)
        m = self.contentsMargins()
        return QSize(w + m.left() + m.right(), h + m.top() + m.bottom())

    def minimumSize(self) -> QSize:  # noqa: N802 - Qt override
        """The widest single item."""
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        m = self.contentsMargins()
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    def _arrange(self, rect: QRect, *, move: bool) -> int:
        m: QMargins = self.contentsMargins()
        area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        x, y, row_h = area.x(), area.y(), 0
        for item in self._items:
            widget = item.widget()
            if widget is not None and widget.isHidden():
                continue
            hint = item.sizeHint()
            if x > area.x() and x + hint.width() > area.right() + 1:
                x, y, row_h = area.x(), y + row_h + self._gap, 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), QSize(min(hint.width(), area.width()), hint.height())))
            x += hint.width() + self._gap
            row_h = max(row_h, hint.height())
        return y + row_h - rect.y() + m.bottom()


class EmptyHint(QLabel):
    """A sentence over an empty list or table that says what fills it (hidden as soon as a row arrives).

    Attach one per view: ``EmptyHint(view, text)``. It follows the view's model, so every way rows arrive keeps it
    right without the tab doing anything. The model's signals only schedule a check for the next loop turn (with
    the hint as the timer's context): a model emits while its view is being destroyed, and a slot reaching into
    the half-deleted view at once crashed the process.
    """

    def __init__(self, view: QAbstractItemView, text: str) -> None:
        super().__init__(text, view.viewport())
        self.view = view
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        styled(self, "role", "empty")
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        model = view.model()
        for sig in (model.rowsInserted, model.rowsRemoved, model.modelReset, model.layoutChanged):
            sig.connect(self._later)
        view.viewport().installEventFilter(self)
        self.update_visibility()

    def _later(self, *_args: object) -> None:
        QTimer.singleShot(0, self, self.update_visibility)  # dropped if the hint is gone by then

    def update_visibility(self) -> None:
        """Show only while the view has no rows."""
        if not (shiboken6.isValid(self) and shiboken6.isValid(self.view)):
            return
        self.setVisible(self.view.model().rowCount() == 0)
        self.setGeometry(self.view.viewport().rect().adjusted(12, 12, -12, -12))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        """Follow the viewport's size."""
        if event.type() == QEvent.Type.Resize:
            self.setGeometry(self.view.viewport().rect().adjusted(12, 12, -12, -12))
        return False
