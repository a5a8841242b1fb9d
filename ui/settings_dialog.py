"""The settings dialog, generated from :data:`app.settings.OPTIONS` plus provider and model-profile editors.

Opened with ``open()`` (never ``exec()``: a nested event loop inside a qasync coroutine breaks, notes §1.4).
API keys go to :class:`app.secrets.SecretStore` (the OS keyring), never into the settings file; the key
field only shows a masked hint of a stored key. ContextBudget 0 shows the tier default it resolves to.

Input is never lost: OK and Apply first take a filled provider or model form into the edit (as "Save provider" /
"Save model" would); a form that cannot be taken keeps the dialog open with the field marked. A model's numbers
are previewed live on the open replay (:class:`ui.budget_preview.BudgetPreview`) with the planner of
``replaysage plan``; presets fill both forms for common OpenAI-compatible endpoints.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtWidgets import QDialogButtonBox, QLabel, QTabWidget, QVBoxLayout, QWidget

from app.errors import KnownError
from app.i18n import N_
from app.library.autosave import check_pattern
from app.secrets import SecretStore
from app.settings import OFFLINE_PROFILE, OPTIONS, ModelProfileSettings, ProviderSettings, Settings
from ui.lang import UiLanguage
from ui.settings.choices import (
    ANALYSIS_LANG_CHOICES,
    BATCH_PENDING_SPEC,
    BUDGET_SPEC,
    CONTEXT_SPEC,
    LANG_CHOICES,
    MAX_TOKENS_SPEC,
    PRICE_SPEC,
    SECRET_FALLBACK_WORDS,
    bundled_mods,
    tier_text,
)
from ui.settings.general import GeneralPage
from ui.settings.models import ModelsPage
from ui.settings.providers import ProvidersPage
from ui.theme import themed

__all__ = [
    "ANALYSIS_LANG_CHOICES",
    "BATCH_PENDING_SPEC",
    "BUDGET_SPEC",
    "CONTEXT_SPEC",
    "LANG_CHOICES",
    "MAX_TOKENS_SPEC",
    "PRICE_SPEC",
    "SECRET_FALLBACK_WORDS",
    "SettingsDialog",
    "bundled_mods",
    "tier_text",
]


class SettingsDialog(GeneralPage, ProvidersPage, ModelsPage):
    """Edit the settings; :meth:`apply` validates and saves them (keys into the keyring).

    Args:
        settings: the loaded settings (edited in place on apply).
        secrets: where API keys go.
        ui: the interface language.

    Signals:
        applied(): settings were saved.
        test_finished(bool, str): the connection test result.
    """

    def __init__(
        self,
        settings: Settings,
        secrets: SecretStore,
        ui: UiLanguage,
        parent: QWidget | None = None,
        replay: Path | None = None,
    ) -> None:
        super().__init__(parent)
        themed(self)  # its fields use the sheet's roles (invalid, hint)
        self.settings = settings
        self.secrets = secrets
        self.ui = ui
        self.replay = replay
        ui.bind_tr(self, self.setWindowTitle, "Settings")
        self.resize(980, 620)
        self._providers: dict[str, ProviderSettings] = {p.name: p for p in settings.providers}
        self._profiles: dict[str, ModelProfileSettings] = {
            p.name: p for p in settings.profiles if p.name != OFFLINE_PROFILE
        }
        self._keys: dict[str, str] = {}  # typed, not yet stored
        self._test_task: asyncio.Task[None] | None = None
        self._test_text: tuple[str, str] = ("", "")  # the connection test line, 中文 and English
        self.tabs = QTabWidget(self)
        for page, name in (
            (self._general_tab(), N_("General")),
            (self._providers_tab(), N_("Providers")),
            (self._models_tab(), N_("Models")),
        ):
            index = self.tabs.addTab(page, "")

            def set_tab(text: str, i: int = index) -> None:
                self.tabs.setTabText(i, text)

            ui.bind_msg(self, set_tab, name)
        self.error_label = QLabel(self)
        self.error_label.setStyleSheet("color: #b71c1c;")
        self.error_label.setWordWrap(True)
        self.warning_label = QLabel(secrets.warning(ui.lang), self)
        self.warning_label.setStyleSheet("color: #8a6d00;")
        self.warning_label.setWordWrap(True)
        self.warning_label.setVisible(bool(self.warning_label.text()))
        std = QDialogButtonBox.StandardButton
        buttons = QDialogButtonBox(std.Ok | std.Apply | std.Cancel, self)
        buttons.accepted.connect(self._ok)
        buttons.rejected.connect(self.reject)
        buttons.button(std.Apply).clicked.connect(self.apply)
        for which, name in ((std.Ok, N_("OK")), (std.Apply, N_("Apply")), (std.Cancel, N_("Cancel"))):
            ui.bind_msg(self, buttons.button(which).setText, name)
        self.buttons = buttons
        ui.changed.connect(self._retranslate)
        lay = QVBoxLayout(self)
        lay.addWidget(self.tabs, 1)
        lay.addWidget(self.warning_label)
        lay.addWidget(self.error_label)
        lay.addWidget(buttons)

    def commit_forms(self) -> bool:
        """Take filled provider and model forms into the edit (OK and Apply call this first)."""
        if self.provider_form_pending() and not self.save_provider():
            return False
        return not (self.model_form_pending() and not self.save_model())

    def _retranslate(self) -> None:
        """Texts built from state (not bound once): rebuilt after a language switch."""
        self.active.setItemText(0, self._offline_text())
        typed = self.knowledge_mod.currentText()
        custom = self.knowledge_mod.itemText(self.knowledge_mod.currentIndex()) != typed
        self.knowledge_mod.setItemText(0, self._detect_text())
        for mod_id, title in bundled_mods(self.ui):
            index = self.knowledge_mod.findData(mod_id)
            if index >= 0:
                self.knowledge_mod.setItemText(index, f"{mod_id} — {title}")
        if custom:
            self.knowledge_mod.setEditText(typed)
        self._budget_hint()
        self._key_hint()
        self._show_test_result()
        self.warning_label.setText(self.secrets.warning(self.ui.lang))
        self.warning_label.setVisible(bool(self.warning_label.text()))

    # -- apply ----------------------------------------------------------------------------------------------------

    def apply(self) -> bool:
        """Validate everything, store keys in the keyring, write the settings file. False (with a message) if not."""
        s = self.settings
        if not self.commit_forms():
            return False
        if not self.batch_pending.is_valid():  # its own message is under it; the form says which field
            option = OPTIONS["memory_batch_pending"]
            self.error_label.setText(
                self.ui.tx("Correct the number marked in red: {title}", title=option.title(self.ui.lang))
            )
            return False
        try:
            for prof in self._profiles.values():  # before anything is written: a bad profile saves nothing
                self._check_budget(prof)
            s.set("ui_language", self.ui_language.currentData())
            s.set("analysis_language", self.analysis_language.currentData())
            s.set("replay_folder", self.replay_folder.text().strip())
            s.set("autosave", self.autosave.isChecked())
            s.set("autosave_folder", self.autosave_folder.text().strip())
            s.set("autosave_pattern", check_pattern(self.autosave_pattern.text().strip()))
            s.set("knowledge_mod_override", self.knowledge_mod_value())
            s.set("user_knowledge_file", self.user_knowledge.text().strip())
            s.set("secret_fallback", self.secret_fallback.currentData())
            s.set("memory_batch_pending", self.batch_pending.count())
            for name in [p.name for p in s.providers if p.name not in self._providers]:
                s.remove_provider(name)
                self.secrets.delete(name)
            for prov in self._providers.values():
                s.put_provider(prov)
            for name in [p.name for p in s.profiles if p.name != OFFLINE_PROFILE and p.name not in self._profiles]:
                s.remove_profile(name)
            for prof in self._profiles.values():
                s.put_profile(prof)
            s.set("active_profile", self.active.currentData() or OFFLINE_PROFILE)
            for name, key in self._keys.items():
                self.secrets.set(name, key)
            self._keys.clear()
            s.save()
        except (KnownError, OSError) as exc:
            self.error_label.setText(str(exc))
            return False
        self.warning_label.setText(self.secrets.warning(self.ui.lang))
        self.warning_label.setVisible(bool(self.warning_label.text()))
        self.applied.emit()
        wanted = s.ui_lang()
        if wanted is not self.ui.lang:  # nobody switched on ``applied`` (a window does): the dialog itself follows
            self.ui.set_lang(wanted)
        return True

    def _ok(self) -> None:
        if self.apply():
            self.accept()
