"""The part every settings page shares: the edit in progress, the dialog's labels and how a refusal is shown."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QDialog, QFormLayout, QLabel, QLineEdit, QTabWidget, QWidget

from app.i18n import Lang, Msg
from app.secrets import SecretStore
from app.settings import ModelProfileSettings, ProviderSettings, Settings
from ui.lang import UiLanguage
from ui.number_field import NumberField


class SettingsForm(QDialog):
    """The base of :class:`ui.settings_dialog.SettingsDialog` and of its pages (general, providers, models).

    It names what the pages share (each page builds its own widgets; a page may read another page's fields, as a
    preset fills both forms) and the helpers they all use: a translated form row or combo item, marking a field and
    refusing a form.

    Signals:
        applied(): settings were saved.
        test_finished(bool, str): the connection test result.
    """

    applied = Signal()
    test_finished = Signal(bool, str)

    settings: Settings
    secrets: SecretStore
    ui: UiLanguage
    replay: Path | None
    _providers: dict[str, ProviderSettings]
    _profiles: dict[str, ModelProfileSettings]
    _keys: dict[str, str]
    _test_task: asyncio.Task[None] | None
    _test_text: tuple[str, str]
    tabs: QTabWidget
    error_label: QLabel
    warning_label: QLabel
    # fields one page reads from another
    ui_language: QComboBox
    analysis_language: QComboBox
    p_key: QLineEdit
    m_name: QLineEdit
    m_provider: QComboBox
    m_model: QLineEdit
    m_context: NumberField
    m_budget: NumberField
    m_max_tokens: NumberField
    m_reasoning: QCheckBox

    def analysis_lang(self) -> Lang:
        """The analysis language the form names now (:class:`ui.settings.general.GeneralPage` answers)."""
        raise NotImplementedError

    def _refill_models(self) -> None:
        """Refill the model list and the active choice (:class:`ui.settings.models.ModelsPage` does)."""
        raise NotImplementedError

    def _row(self, form: QFormLayout, text: Msg, field: QWidget) -> QLabel:
        """A form row whose label follows the interface language."""
        label = QLabel()
        self.ui.bind_msg(self, label.setText, text)
        form.addRow(label, field)
        return label

    def _item(self, box: QComboBox, index: int, text: Msg | str) -> None:
        """A combo box item whose text follows the interface language (a ``str`` is shown as it is)."""
        if isinstance(text, Msg):  # a Msg is a str too: test it first
            self.ui.bind_msg(self, lambda shown: box.setItemText(index, shown), text)
        else:
            box.setItemText(index, text)

    @staticmethod
    def _mark(widget: QWidget, invalid: bool) -> None:
        """Outline a field the last refusal was about (``invalid`` property in :data:`ui.theme.STYLE_SHEET`)."""
        if isinstance(widget, NumberField):
            widget.mark(invalid)
            return
        widget.setProperty("invalid", invalid)
        widget.style().unpolish(widget)
        widget.style().polish(widget)

    def _refuse(self, message: str, field: QWidget, *, page: int) -> None:
        """Show why a form was not taken, bring its page forward and mark the field."""
        self.error_label.setText(message)
        self.tabs.setCurrentIndex(page)
        self._mark(field, True)
        field.setFocus()
