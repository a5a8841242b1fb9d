"""Small reusable widgets: a collapsible section, a batched text stream, the message bar.

The stream buffer follows engineering notes §1.8: deltas go into a list and a ~50 ms timer flushes them into a
``QPlainTextEdit`` through one document cursor, so thousands of deltas cost one insert per tick, never a
re-layout per token; the view auto-scrolls only when the reader is already at the bottom.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

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


class Collapsible(QWidget):
    """A titled section whose body folds away.

    Signals:
        toggled(bool): the new expanded state.
    """

    toggled = Signal(bool)

    def __init__(self, title: str = "", expanded: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.header = QToolButton(self)
        self.header.setText(title)
        self.header.setCheckable(True)
        self.header.setChecked(expanded)
        self.header.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.header.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
        self.header.setAutoRaise(True)
        self.header.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.header.setStyleSheet("QToolButton { font-weight: bold; text-align: left; }")
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
        self.header.setText(text)

    def title(self) -> str:
        """The header text."""
        return self.header.text()

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
