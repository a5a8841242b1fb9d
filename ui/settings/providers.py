"""The settings dialog's providers page: the provider list and form, presets, keys typed but not yet stored."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QPushButton,
    QWidget,
)

from app.errors import KnownError
from app.i18n import N_, NC_
from app.secrets import mask
from app.settings import OFFLINE_PROFILE, ProviderSettings
from ui.settings.form import SettingsForm
from ui.settings_presets import PRESETS, Preset


class ProvidersPage(SettingsForm):
    """The providers page: show, take and remove a provider; a preset fills this form and the model form."""

    def _providers_tab(self) -> QWidget:
        page = QWidget()
        self.provider_list = QListWidget()
        self.provider_list.addItems(list(self._providers))
        self.provider_list.currentTextChanged.connect(self._show_provider)
        self.p_name = QLineEdit()
        self.p_url = QLineEdit()
        self.p_url.setPlaceholderText("https://api.deepseek.com/v1")
        self.p_key = QLineEdit()
        self.p_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.p_stream = QCheckBox()
        self.ui.bind_tr(self, self.p_stream.setText, "Streaming")
        self.p_stream.setChecked(True)
        self.preset = QComboBox()
        self.preset.addItem("", None)
        self._item(self.preset, 0, N_("Fill from a preset…"))
        for preset in PRESETS:
            self.preset.addItem(preset.label, preset)
        self.preset.activated.connect(self._preset_picked)
        self.save_provider_button = save = QPushButton()
        self.ui.bind_tr(self, save.setText, "Save provider")
        save.clicked.connect(self.save_provider)
        remove = QPushButton()
        self.ui.bind_tr(self, remove.setText, "Remove")
        remove.clicked.connect(self._remove_provider)
        form = QFormLayout()
        self._row(form, N_("Preset"), self.preset)
        self._row(form, NC_("settings form", "Name"), self.p_name)
        form.addRow("Base URL", self.p_url)
        self._row(form, N_("API key (kept in the keyring)"), self.p_key)
        form.addRow("", self.p_stream)
        buttons = QHBoxLayout()
        buttons.addWidget(save)
        buttons.addWidget(remove)
        form.addRow(buttons)
        lay = QHBoxLayout(page)
        lay.addWidget(self.provider_list, 1)
        lay.addLayout(form, 2)
        return page

    def _show_provider(self, name: str) -> None:
        prov = self._providers.get(name)
        if prov is None:
            return
        self.p_name.setText(prov.name)
        self.p_url.setText(prov.base_url)
        self.p_stream.setChecked(prov.stream)
        self.p_key.clear()
        self._key_hint()

    def _key_hint(self) -> None:
        """The masked hint of the shown provider's stored (or typed) key."""
        name = self.p_name.text()
        stored = (self._keys.get(name) or self.secrets.get(name)) if name in self._providers else ""
        self.p_key.setPlaceholderText(self.ui.tx("stored: {stored}", stored=mask(stored)) if stored else "")

    def _provider_from_form(self) -> ProviderSettings:
        prov = ProviderSettings.from_json(
            {"name": self.p_name.text(), "base_url": self.p_url.text(), "stream": self.p_stream.isChecked()}
        )
        if prov.name == OFFLINE_PROFILE:
            raise KnownError(
                self.ui.tx(
                    "{offline_profile!r} is reserved for the built-in offline analyst", offline_profile=OFFLINE_PROFILE
                )
            )
        return prov

    def provider_form_pending(self) -> bool:
        """True when the provider form holds something not yet taken (a new or changed provider, a typed key)."""
        if not (self.p_name.text().strip() or self.p_url.text().strip() or self.p_key.text().strip()):
            return False
        try:
            prov = self._provider_from_form()
        except KnownError:
            return True
        return self._providers.get(prov.name) != prov or bool(self.p_key.text().strip())

    def save_provider(self) -> bool:
        """Take the provider form into the pending edit (validated; the key is stored on apply)."""
        try:
            prov = self._provider_from_form()
        except KnownError as exc:
            self._refuse(str(exc), self.p_url if self.p_name.text().strip() else self.p_name, page=1)
            return False
        self._mark(self.p_name, False)
        self._mark(self.p_url, False)
        if prov.name not in self._providers:
            self.provider_list.addItem(prov.name)
        if self.m_provider.findText(prov.name) < 0:
            self.m_provider.addItem(prov.name)
        self._providers[prov.name] = prov
        if self.p_key.text().strip():
            self._keys[prov.name] = self.p_key.text().strip()
            self.p_key.clear()
            self._key_hint()
        self.error_label.clear()
        return True

    def _preset_picked(self, index: int) -> None:
        """Fill the provider and model forms from a preset (every field stays editable; nothing is saved yet)."""
        preset = self.preset.itemData(index)
        if not isinstance(preset, Preset):
            return
        self.p_name.setText(preset.provider)
        self.p_url.setText(preset.base_url)
        self.p_stream.setChecked(True)
        self._key_hint()
        self.m_name.setText(preset.model_id)
        if self.m_provider.findText(preset.provider) < 0:
            self.m_provider.addItem(preset.provider)
        self.m_provider.setCurrentText(preset.provider)
        self.m_model.setText(preset.model_id)
        self.m_context.setValue(preset.context_length)
        self.m_budget.setValue(0)
        self.m_max_tokens.setValue(preset.max_tokens)
        self.m_reasoning.setChecked(preset.reasoning)
        self.preset.setCurrentIndex(0)

    def _remove_provider(self) -> None:
        name = self.provider_list.currentItem().text() if self.provider_list.currentItem() else ""
        if name in self._providers:
            del self._providers[name]
            self.provider_list.takeItem(self.provider_list.currentRow())
            for prof in [p for p in self._profiles.values() if p.provider == name]:
                del self._profiles[prof.name]
            self._refill_models()
