"""One number field for the whole app: it reads what people type and never changes it without a word.

Qt's spin boxes silently rewrote input (issue 30, item 5): "-5000" became 5,000, letters vanished, "12k" reverted
on leaving the field and an 11-digit number was cut to the maximum. :class:`NumberField` is a line edit whose text
is read by :func:`app.numbers.parse_number` ("128k", "1M", "128,000", "12万", "$0.27", "80%"): a text it
understands becomes the value (a short form shows what it means: "= 128,000"); anything else is refused with a
message under the field, the field is outlined, and the text stays exactly as typed. :meth:`NumberField.value`
is the last accepted value; forms refuse to save while :meth:`NumberField.is_valid` is False. Up and Down step the
value as a spin box did.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from app.i18n import Lang
from app.numbers import NumberInputError, NumberSpec, format_number, parse_number, reading
from ui.lang import UiLanguage
from ui.theme import styled

ERROR_COLOR = "#b71c1c"


class NumberField(QWidget):
    """A line edit for one number of a :class:`app.numbers.NumberSpec`, with its message beside it.

    Args:
        spec: what the field accepts.
        lang: the interface language (a :class:`ui.lang.UiLanguage` re-words the message after a switch).
        value: the starting value.
        step: what Up / Down add or take away.
        prefix: a short label before the edit ("confidence ≥").

    Signals:
        valueChanged(object): a new accepted value (``int`` or ``float``), as typed or set.
        validityChanged(bool): the text became acceptable (True) or not (False).
    """

    valueChanged = Signal(object)  # noqa: N815 - named like Qt's spin box signal it replaces
    validityChanged = Signal(bool)  # noqa: N815 - Qt naming

    def __init__(
        self,
        spec: NumberSpec,
        lang: Lang | UiLanguage,
        value: float | None = None,
        *,
        step: float = 1,
        prefix: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.spec = spec
        self.step = step
        self._ui = lang if isinstance(lang, UiLanguage) else None
        self._lang = lang if isinstance(lang, Lang) else None
        start = value if value is not None else max(spec.minimum, 0)
        self._value: int | float = int(start) if spec.integer else float(start)
        self._problem = ""
        self.edit = QLineEdit(format_number(self._value, spec), self)
        self.edit.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.edit.installEventFilter(self)
        self.prefix = QLabel(prefix, self)
        self.prefix.setVisible(bool(prefix))
        self.message = QLabel(self)
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.hide()
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.prefix)
        row.addWidget(self.edit, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addLayout(row)
        lay.addWidget(self.message)
        self.setFocusProxy(self.edit)
        self.edit.textChanged.connect(self._check)
        if self._ui is not None:
            self._ui.changed.connect(lambda _code: self._check(self.edit.text()))

    # -- reading -----------------------------------------------------------------------------------------------

    @property
    def lang(self) -> Lang:
        """The language of the message now."""
        return self._ui.lang if self._ui is not None else (self._lang or Lang.EN)

    def value(self) -> int | float:
        """The last accepted value (while the text is refused it is the value before the refused text)."""
        return self._value

    def count(self) -> int:
        """The last accepted value of a whole-number field, typed as ``int``."""
        return int(self._value)

    def text(self) -> str:
        """The text as typed."""
        return self.edit.text()

    def is_valid(self) -> bool:
        """Whether the text is a value the field accepts."""
        return not self._problem

    def problem(self) -> str:
        """Why the text is refused, in the interface language ("" when it is accepted)."""
        return self._problem

    # -- writing -----------------------------------------------------------------------------------------------

    def setValue(self, value: float) -> None:  # noqa: N802 - the spin box API the forms and tests use
        """Show ``value`` (grouped digits) and accept it."""
        self.edit.setText(format_number(value, self.spec))

    def setText(self, text: str) -> None:  # noqa: N802 - Qt naming
        """Put ``text`` in the field as if typed (it is read and, if refused, kept with the message)."""
        self.edit.setText(text)

    def set_prefix(self, text: str) -> None:
        """Change the label before the edit."""
        self.prefix.setText(text)
        self.prefix.setVisible(bool(text))

    def _check(self, text: str) -> None:
        was_valid = self.is_valid()
        try:
            value = parse_number(text, self.spec, self.lang)
        except NumberInputError as exc:
            self._problem = str(exc)
            self._show(self._problem, error=True)
        else:
            self._problem = ""
            self._show(reading(text, value, self.spec), error=False)
            if value != self._value or type(value) is not type(self._value):
                self._value = value
                self.valueChanged.emit(value)
        if was_valid != self.is_valid():
            self.mark(not self.is_valid())
            self.validityChanged.emit(self.is_valid())
        self.edit.setToolTip(self._problem)

    def mark(self, invalid: bool) -> None:
        """Outline the field (a refused text, or a form's refusal about this number); ``invalid`` property."""
        self.setProperty("invalid", invalid)
        styled(self.edit, "invalid", invalid)

    def _show(self, text: str, *, error: bool) -> None:
        self.message.setText(text)
        self.message.setStyleSheet(f"color: {ERROR_COLOR};" if error else "color: palette(placeholder-text);")
        self.message.setVisible(bool(text))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        """Up / Down step an accepted value within the spec's range, as a spin box's arrows did."""
        if watched is self.edit and event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            key = event.key()
            if key in (Qt.Key.Key_Up, Qt.Key.Key_Down) and self.is_valid():
                delta = self.step if key == Qt.Key.Key_Up else -self.step
                stepped = min(max(self._value + delta, self.spec.minimum), self.spec.maximum)
                self.setValue(round(stepped, 6))
                return True
        return super().eventFilter(watched, event)
