"""The window's status line, progress bar and message bar: the one way every part of the window tells the user.

A part that reports something is handed this object, never the window: the status line says what happens now,
the message bar keeps what the user must read (a problem, a finished export), and the progress bar counts a run.
"""

from __future__ import annotations

from PySide6.QtWidgets import QProgressBar, QStatusBar

from ui.widgets import MessageBar, plain_label


class WindowStatus:
    """The status bar's line and progress bar, and the message bar above the main area.

    Args:
        message_bar: the window's message bar (laid out by the window).
        status_bar: the window's status bar; the line and the progress bar are added to it (it owns them).
    """

    def __init__(self, message_bar: MessageBar, status_bar: QStatusBar) -> None:
        self.message_bar = message_bar
        self.label = plain_label()
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(260)
        self.progress.setTextVisible(True)
        self.progress.hide()
        status_bar.addWidget(self.label, 1)
        status_bar.addPermanentWidget(self.progress)

    def say(self, text: str) -> None:
        """Put ``text`` on the status line."""
        self.label.setText(text)

    def text(self) -> str:
        """What the status line says now."""
        return self.label.text()

    def error(self, text: str) -> None:
        """Show a user-facing problem in the message bar (its first line on the status line)."""
        self.message_bar.show_message(text, "error")
        self.label.setText(text.splitlines()[0][:120] if text else "")

    def tell(self, text: str, level: str = "info") -> None:
        """Show ``text`` in the message bar at ``level`` ("info", "warning") and on the status line."""
        self.message_bar.show_message(text, level)
        self.label.setText(text)

    def busy(self) -> None:
        """The progress bar turns without a count (a run being prepared)."""
        self.progress.setRange(0, 0)
        self.progress.show()
