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
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.budget.errors import BudgetConfigError
from app.budget.preview import profile_problem
from app.budget.profile import ModelProfile
from app.errors import KnownError
from app.i18n import Lang
from app.library.autosave import check_pattern
from app.numbers import NumberSpec
from app.secrets import SecretStore, mask
from app.settings import OFFLINE_PROFILE, OPTIONS, ModelProfileSettings, ProviderSettings, Settings, analysis_lang_of
from ui.budget_preview import BudgetPreview
from ui.lang import UiLanguage
from ui.number_field import NumberField
from ui.settings_presets import PRESETS, Preset
from ui.theme import themed

LANG_CHOICES = (("", "跟随系统", "System"), ("zh", "中文", "中文"), ("en", "English", "English"))
"""The interface language's choices: code ("" = the system's), 中文, English."""
ANALYSIS_LANG_CHOICES = (("", "与界面相同", "Same as the interface"), *LANG_CHOICES[1:])
"""The analysis language's choices: unset it follows the interface language (``Settings.analysis_lang``), not the
system's, so its first item says that."""

SECRET_FALLBACK_WORDS = {
    "session": ("仅本次运行（保存在内存，下次启动重新输入）", "This session only (in memory; asked again next start)"),
    "file": ("文件（仅本人可读的本地文件）", "A file (readable by you only)"),
}
"""Where API keys go without a system keyring, as the choice reads ("session" showed as is in Chinese)."""

CONTEXT_SPEC = NumberSpec(minimum=1_000, maximum=10_000_000, multipliers=True)
BUDGET_SPEC = NumberSpec(minimum=0, maximum=10_000_000, multipliers=True)
MAX_TOKENS_SPEC = NumberSpec(minimum=1, maximum=1_000_000, multipliers=True)
BATCH_PENDING_SPEC = NumberSpec(minimum=0, maximum=10_000)
"""Analyses waiting before the memory's batch track runs the same day (0: only the nightly run)."""
PRICE_SPEC = NumberSpec(minimum=0, maximum=1_000, integer=False, currency=True, example="0.27, $0.27")
"""What the model form's number fields accept (:mod:`app.numbers`); the budget rules themselves are checked by
:func:`app.budget.preview.profile_problem` with the field to change."""


def bundled_mods(ui: UiLanguage) -> list[tuple[str, str]]:
    """``(id, title)`` of every mod with bundled knowledge (``knowledge/<mod>/mod.json``)."""
    import json

    from app.paths import knowledge_dir

    mods = []
    for path in sorted(knowledge_dir().glob("*/mod.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        title = data.get("title", {}) if isinstance(data, dict) else {}
        text = ui.t(title.get("zh", ""), title.get("en", "")) if isinstance(title, dict) else ""
        mods.append((str(data.get("id", path.parent.name)), text or path.parent.name))
    return mods


def tier_text(context_length: int, ui: UiLanguage) -> str:
    """``= 160,000 (long tier)``: what ContextBudget 0 resolves to for a context length."""
    from app.budget.preview import TIER_NAMES
    from app.budget.profile import default_budget, tier_for

    tier = tier_for(max(context_length, 1))
    zh, en = TIER_NAMES.get(str(tier.value), (str(tier.value), str(tier.value)))
    n = default_budget(max(context_length, 1))
    return ui.t(f"0 = 档位默认 {n:,}（{zh}上下文档）", f"0 = tier default {n:,} ({en} tier)")


class SettingsDialog(QDialog):
    """Edit the settings; :meth:`apply` validates and saves them (keys into the keyring).

    Args:
        settings: the loaded settings (edited in place on apply).
        secrets: where API keys go.
        ui: the interface language.

    Signals:
        applied(): settings were saved.
        test_finished(bool, str): the connection test result.
    """

    applied = Signal()
    test_finished = Signal(bool, str)

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
        for page, zh, en in (
            (self._general_tab(), "常规", "General"),
            (self._providers_tab(), "服务商", "Providers"),
            (self._models_tab(), "模型", "Models"),
        ):
            index = self.tabs.addTab(page, "")

            def set_tab(text: str, i: int = index) -> None:
                self.tabs.setTabText(i, text)

            ui.bind(self, set_tab, zh, en)
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
        for which, zh, en in ((std.Ok, "确定", "OK"), (std.Apply, "应用", "Apply"), (std.Cancel, "取消", "Cancel")):
            ui.bind(self, buttons.button(which).setText, zh, en)
        self.buttons = buttons
        ui.changed.connect(self._retranslate)
        lay = QVBoxLayout(self)
        lay.addWidget(self.tabs, 1)
        lay.addWidget(self.warning_label)
        lay.addWidget(self.error_label)
        lay.addWidget(buttons)

    # -- general ------------------------------------------------------------------------------------------------

    def _row(self, form: QFormLayout, zh: str, en: str, field: QWidget) -> QLabel:
        """A form row whose label follows the interface language."""
        label = QLabel()
        self.ui.bind(self, label.setText, zh, en)
        form.addRow(label, field)
        return label

    def _item(self, box: QComboBox, index: int, zh: str, en: str) -> None:
        """A combo box item whose text follows the interface language."""
        self.ui.bind(self, lambda text: box.setItemText(index, text), zh, en)

    def _general_tab(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        self.ui_language = QComboBox()
        self.analysis_language = QComboBox()
        for box, key, choices in (
            (self.ui_language, "ui_language", LANG_CHOICES),
            (self.analysis_language, "analysis_language", ANALYSIS_LANG_CHOICES),
        ):
            for code, zh, en in choices:
                box.addItem("", code)
                self._item(box, box.count() - 1, zh, en)
            box.setCurrentIndex(max(0, box.findData(self.settings.get(key))))
        self.replay_folder = QLineEdit(self.settings.get("replay_folder"))
        self.knowledge_mod = QComboBox()
        self.knowledge_mod.setEditable(True)  # a user knowledge folder may name a mod we do not bundle
        self.knowledge_mod.addItem(self._detect_text(), "")  # retranslated in _retranslate (keeps a typed id)
        for mod_id, title in bundled_mods(self.ui):
            self.knowledge_mod.addItem(f"{mod_id} — {title}", mod_id)
        current = self.settings.get("knowledge_mod_override")
        index = self.knowledge_mod.findData(current)
        if index >= 0:
            self.knowledge_mod.setCurrentIndex(index)
        else:
            self.knowledge_mod.setEditText(current)
        self.autosave = QCheckBox()
        self.autosave.setChecked(bool(self.settings.get("autosave")))
        self.autosave_folder = QLineEdit(self.settings.get("autosave_folder"))
        self.autosave_pattern = QLineEdit(self.settings.get("autosave_pattern"))
        self.user_knowledge = QLineEdit(self.settings.get("user_knowledge_file"))
        self.secret_fallback = QComboBox()
        for code in OPTIONS["secret_fallback"].choices:
            self.secret_fallback.addItem("", code)
            zh, en = SECRET_FALLBACK_WORDS.get(code, (code, code))
            self._item(self.secret_fallback, self.secret_fallback.count() - 1, zh, en)
        fallback = self.settings.get("secret_fallback")
        self.secret_fallback.setCurrentIndex(max(0, self.secret_fallback.findData(fallback)))
        self.batch_pending = NumberField(BATCH_PENDING_SPEC, self.ui, int(self.settings.get("memory_batch_pending")))
        rows: tuple[tuple[str, QWidget], ...] = (
            ("ui_language", self.ui_language),
            ("analysis_language", self.analysis_language),
            ("replay_folder", self._browse(self.replay_folder, folder=True)),
            ("autosave", self.autosave),
            ("autosave_folder", self._browse(self.autosave_folder, folder=True)),
            ("autosave_pattern", self.autosave_pattern),
            ("knowledge_mod_override", self.knowledge_mod),
            ("user_knowledge_file", self._browse(self.user_knowledge, folder=False)),
            ("secret_fallback", self.secret_fallback),
            ("memory_batch_pending", self.batch_pending),
        )
        self.general_labels: dict[str, QLabel] = {}
        for key, widget in rows:
            self.general_labels[key] = self._row(form, OPTIONS[key].title_zh, OPTIONS[key].title_en, widget)
        return page

    def analysis_lang(self) -> Lang:
        """The analysis language the form names now (the budget preview plans in it, as ``plan --lang`` does)."""
        return analysis_lang_of(str(self.ui_language.currentData()), str(self.analysis_language.currentData()))

    def knowledge_mod_value(self) -> str:
        """The chosen mod id ("" = detect); a typed id is taken as is."""
        index = self.knowledge_mod.currentIndex()
        if index >= 0 and self.knowledge_mod.itemText(index) == self.knowledge_mod.currentText():
            return str(self.knowledge_mod.itemData(index) or "")
        return self.knowledge_mod.currentText().strip()

    def _browse(self, edit: QLineEdit, *, folder: bool) -> QWidget:
        row = QWidget()
        lay = QHBoxLayout(row)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(edit, 1)
        button = QPushButton()
        self.ui.bind_tr(self, button.setText, "Browse…")
        lay.addWidget(button)

        def pick() -> None:
            dlg = QFileDialog(self, self.ui.tx("Choose"), edit.text() or str(Path.home()))
            dlg.setFileMode(QFileDialog.FileMode.Directory if folder else QFileDialog.FileMode.ExistingFile)
            dlg.fileSelected.connect(edit.setText)
            dlg.open()

        button.clicked.connect(pick)
        return row

    # -- providers ------------------------------------------------------------------------------------------------

    def _providers_tab(self) -> QWidget:
        bind = self.ui.bind
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
        bind(self, self.p_stream.setText, "流式输出", "Streaming")
        self.p_stream.setChecked(True)
        self.preset = QComboBox()
        self.preset.addItem("", None)
        self._item(self.preset, 0, "从预设填入…", "Fill from a preset…")
        for preset in PRESETS:
            self.preset.addItem(preset.label, preset)
        self.preset.activated.connect(self._preset_picked)
        self.save_provider_button = save = QPushButton()
        bind(self, save.setText, "保存服务商", "Save provider")
        save.clicked.connect(self.save_provider)
        remove = QPushButton()
        bind(self, remove.setText, "删除", "Remove")
        remove.clicked.connect(self._remove_provider)
        form = QFormLayout()
        self._row(form, "预设", "Preset", self.preset)
        self._row(form, "名称", "Name", self.p_name)
        form.addRow("Base URL", self.p_url)
        self._row(form, "API 密钥（存入系统钥匙串）", "API key (kept in the keyring)", self.p_key)
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

    # -- marking and committing forms ----------------------------------------------------------------------------

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

    def commit_forms(self) -> bool:
        """Take filled provider and model forms into the edit (OK and Apply call this first)."""
        if self.provider_form_pending() and not self.save_provider():
            return False
        return not (self.model_form_pending() and not self.save_model())

    def _remove_provider(self) -> None:
        name = self.provider_list.currentItem().text() if self.provider_list.currentItem() else ""
        if name in self._providers:
            del self._providers[name]
            self.provider_list.takeItem(self.provider_list.currentRow())
            for prof in [p for p in self._profiles.values() if p.provider == name]:
                del self._profiles[prof.name]
            self._refill_models()

    # -- models ---------------------------------------------------------------------------------------------------

    def _models_tab(self) -> QWidget:
        bind = self.ui.bind
        page = QWidget()
        self.model_list = QListWidget()
        self.model_list.currentTextChanged.connect(self._show_model)
        self.m_name = QLineEdit()
        self.m_provider = QComboBox()
        self.m_provider.addItems(list(self._providers))
        self.m_model = QLineEdit()
        self.m_model.setPlaceholderText("deepseek-chat")
        self.m_context = NumberField(CONTEXT_SPEC, self.ui, 128_000, step=1_000)
        self.m_budget = NumberField(BUDGET_SPEC, self.ui, 0, step=1_000)  # over the limit: refused in words
        self.m_budget_hint = QLabel()
        self.m_max_tokens = NumberField(MAX_TOKENS_SPEC, self.ui, 8192, step=1_024)
        self.m_reasoning = QCheckBox()
        bind(self, self.m_reasoning.setText, "推理模型（输出思考）", "Reasoning model (emits thinking)")
        self.m_stream = QComboBox()
        for code, zh, en in ((None, "跟随服务商", "as provider"), (True, "开", "on"), (False, "关", "off")):
            self.m_stream.addItem("", code)
            self._item(self.m_stream, self.m_stream.count() - 1, zh, en)
        self.m_prices = [NumberField(PRICE_SPEC, self.ui, 0, step=0.01) for _ in range(3)]
        self.budget_preview = BudgetPreview(self.ui, plan_lang=self.analysis_lang)
        for lang_box in (self.ui_language, self.analysis_language):  # they decide the language it plans in
            lang_box.currentIndexChanged.connect(lambda _i: self.budget_preview.schedule())
        self.budget_preview.set_replay(self.replay)
        self.m_context.valueChanged.connect(self._budget_hint)
        self.m_budget.valueChanged.connect(self._budget_hint)
        self.m_budget.validityChanged.connect(self._budget_hint)
        for field in self.number_fields():
            field.valueChanged.connect(self._preview)
            field.validityChanged.connect(self._preview)
        self.m_provider.currentTextChanged.connect(self._preview)
        self.m_model.textChanged.connect(self._preview)
        self._budget_hint()
        self.active = QComboBox()
        self.save_model_button = save = QPushButton()
        bind(self, save.setText, "保存模型", "Save model")
        save.clicked.connect(self.save_model)
        remove = QPushButton()
        bind(self, remove.setText, "删除", "Remove")
        remove.clicked.connect(self._remove_model)
        self.test_button = QPushButton()
        bind(self, self.test_button.setText, "测试连接", "Test connection")
        self.test_button.clicked.connect(self.test_connection)
        self.test_label = QLabel()
        self.test_label.setWordWrap(True)
        form = QFormLayout()
        self._row(form, "名称", "Name", self.m_name)
        self._row(form, "服务商", "Provider", self.m_provider)
        self._row(form, "模型 ID", "Model id", self.m_model)
        form.addRow("ContextLength", self.m_context)
        form.addRow("ContextBudget", self.m_budget)
        form.addRow("", self.m_budget_hint)
        form.addRow("max_tokens", self.m_max_tokens)
        form.addRow("", self.m_reasoning)
        self._row(form, "流式", "Streaming", self.m_stream)
        self._row(form, "输入价格 / 百万", "Input price / M", self.m_prices[0])
        self._row(form, "缓存输入价格 / 百万", "Cached input price / M", self.m_prices[1])
        self._row(form, "输出价格 / 百万", "Output price / M", self.m_prices[2])
        buttons = QHBoxLayout()
        for b in (save, remove, self.test_button):
            buttons.addWidget(b)
        form.addRow(buttons)
        form.addRow(self.test_label)
        self._row(form, OPTIONS["active_profile"].title_zh, OPTIONS["active_profile"].title_en, self.active)
        lay = QHBoxLayout(page)
        lay.addWidget(self.model_list, 1)
        lay.addLayout(form, 3)
        lay.addWidget(self.budget_preview, 2)
        self._refill_models()
        self._preview()
        return page

    def _form_numbers(self) -> dict[str, Any]:
        """The form's budget numbers and prices in ``ModelProfileSettings.budget_mapping()`` form (unvalidated)."""
        return {
            "provider": self.m_provider.currentText(),
            "model": self.m_model.text().strip(),
            "context_length": self.m_context.count(),
            "context_budget": self.m_budget.count(),
            "max_tokens": self.m_max_tokens.count(),
            "reasoning": self.m_reasoning.isChecked(),
            "price_input": self.m_prices[0].value(),
            "price_cached_input": self.m_prices[1].value(),
            "price_output": self.m_prices[2].value(),
        }

    def number_fields(self) -> list[NumberField]:
        """The model form's number fields, in form order."""
        return [self.m_context, self.m_budget, self.m_max_tokens, *self.m_prices]

    def _number_labels(self) -> dict[NumberField, tuple[str, str]]:
        """Each number field's name in the form (for a refusal that names it)."""
        names = [
            ("ContextLength", "ContextLength"),
            ("ContextBudget", "ContextBudget"),
            ("max_tokens", "max_tokens"),
            ("输入价格", "input price"),
            ("缓存输入价格", "cached input price"),
            ("输出价格", "output price"),
        ]
        return dict(zip(self.number_fields(), names, strict=True))

    def _refused_number(self) -> NumberField | None:
        """The first number field whose text is refused (its message is under it)."""
        return next((field for field in self.number_fields() if not field.is_valid()), None)

    def _preview(self) -> None:
        if self._refused_number() is not None:  # the preview would show numbers the form does not hold
            self.budget_preview.set_refused(self.ui.tx("Correct the number marked in red first"))
            return
        self.budget_preview.set_profile(self._form_numbers())

    def _refill_models(self) -> None:
        current = self.active.currentData() or self.settings.get("active_profile")
        self.model_list.clear()
        self.model_list.addItems(list(self._profiles))
        self.active.clear()
        self.active.addItem(self._offline_text(), OFFLINE_PROFILE)
        for name in self._profiles:
            self.active.addItem(name, name)
        self.active.setCurrentIndex(max(0, self.active.findData(current)))

    def _detect_text(self) -> str:
        return self.ui.tx("detect from the replay")

    def _offline_text(self) -> str:
        return self.ui.tx("offline (rule-based analyst)")

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

    def _show_test_result(self, zh: str | None = None, en: str | None = None) -> None:
        """Show a connection test line (or re-show the last one in the current language)."""
        if zh is not None and en is not None:
            self._test_text = (zh, en)
        self.test_label.setText(self.ui.t(*self._test_text))

    def _budget_hint(self) -> None:
        if self.m_budget.count() == 0 and self.m_budget.is_valid():  # a refused text says its own message
            self.m_budget_hint.setText(tier_text(self.m_context.count(), self.ui))
        else:
            self.m_budget_hint.setText("")

    def _show_model(self, name: str) -> None:
        prof = self._profiles.get(name)
        if prof is None:
            return
        self.m_name.setText(prof.name)
        self.m_provider.setCurrentText(prof.provider)
        self.m_model.setText(prof.model_id)
        self.m_context.setValue(prof.context_length)
        self.m_budget.setValue(prof.context_budget)
        self.m_max_tokens.setValue(prof.max_tokens)
        self.m_reasoning.setChecked(prof.reasoning)
        self.m_stream.setCurrentIndex(max(0, self.m_stream.findData(prof.stream)))
        for box, val in zip(self.m_prices, (prof.price_input, prof.price_cached_input, prof.price_output), strict=True):
            box.setValue(val)

    def _model_from_form(self) -> ModelProfileSettings:
        refused = self._refused_number()
        if refused is not None:  # a typed text is never replaced by the value before it
            zh, en = self._number_labels()[refused]
            name = self.m_name.text().strip()
            raise KnownError(
                self.ui.t(f"模型 {name}：{zh}：{refused.problem()}", f"model {name}: {en}: {refused.problem()}")
            )
        data: dict[str, Any] = {
            "name": self.m_name.text(),
            "provider": self.m_provider.currentText(),
            "model_id": self.m_model.text(),
            "context_length": self.m_context.count(),
            "context_budget": self.m_budget.count(),
            "max_tokens": self.m_max_tokens.count(),
            "reasoning": self.m_reasoning.isChecked(),
            "stream": self.m_stream.currentData(),
            "price_input": self.m_prices[0].value(),
            "price_cached_input": self.m_prices[1].value(),
            "price_output": self.m_prices[2].value(),
        }
        problem = profile_problem(
            self.m_context.count(),
            self.m_budget.count(),
            self.m_max_tokens.count(),
            self.ui.lang,
            reasoning=self.m_reasoning.isChecked(),
        )  # the numbers first: they are what a user most often has to change
        if problem is not None:
            name = self.m_name.text().strip()
            raise KnownError(self.ui.tx("model {name}: {message}", name=name, message=problem.message))
        prof = ModelProfileSettings.from_json(data)
        self._check_budget(prof)
        if prof.name == OFFLINE_PROFILE:
            raise KnownError(self.ui.tx("'offline' is the built-in analyst"))
        if prof.provider not in self._providers:
            raise KnownError(
                self.ui.tx("model {name}: unknown provider {provider!r}", name=prof.name, provider=prof.provider)
            )
        return prof

    def _check_budget(self, prof: ModelProfileSettings) -> None:
        """Refuse numbers :class:`app.budget.profile.ModelProfile` would reject, in plain words."""
        problem = profile_problem(
            prof.context_length, prof.context_budget, prof.max_tokens, self.ui.lang, reasoning=prof.reasoning
        )
        if problem is not None:
            raise KnownError(self.ui.tx("model {name}: {message}", name=prof.name, message=problem.message))
        try:
            ModelProfile.from_mapping(prof.budget_mapping())
        except BudgetConfigError as exc:
            raise KnownError(self.ui.tx("model {name}: {exc}", name=prof.name, exc=exc)) from exc

    def model_form_pending(self) -> bool:
        """True when the model form holds a new or changed profile not yet taken."""
        name = self.m_name.text().strip()
        if self._refused_number() is not None:
            return True
        if not name and not self.m_model.text().strip():
            return False
        try:
            prof = self._model_from_form()
        except KnownError:
            return True
        return self._profiles.get(prof.name) != prof

    def _model_field(self) -> QWidget:
        """The model form field a refusal is about (its numbers first, then names)."""
        refused = self._refused_number()
        if refused is not None:
            return refused
        problem = profile_problem(
            self.m_context.count(),
            self.m_budget.count(),
            self.m_max_tokens.count(),
            self.ui.lang,
            reasoning=self.m_reasoning.isChecked(),
        )
        if problem is not None:
            fields: dict[str, QWidget] = {
                "context_length": self.m_context,
                "context_budget": self.m_budget,
                "max_tokens": self.m_max_tokens,
            }
            return fields[problem.field]
        if not self.m_name.text().strip() or self.m_name.text().strip() == OFFLINE_PROFILE:
            return self.m_name
        if self.m_provider.currentText() not in self._providers:
            return self.m_provider
        return self.m_model

    def save_model(self) -> bool:
        """Take the model form into the pending edit (validated); a refusal marks the field and returns False."""
        for widget in (self.m_name, self.m_provider, self.m_model, self.m_context, self.m_budget, self.m_max_tokens):
            if not (isinstance(widget, NumberField) and not widget.is_valid()):  # its own message stays
                self._mark(widget, False)
        try:
            prof = self._model_from_form()
        except KnownError as exc:
            self._refuse(str(exc), self._model_field(), page=2)
            return False
        self._profiles[prof.name] = prof
        self._refill_models()
        self.error_label.clear()
        return True

    def _remove_model(self) -> None:
        item = self.model_list.currentItem()
        if item is not None and item.text() in self._profiles:
            del self._profiles[item.text()]
            self._refill_models()

    def test_connection(self) -> asyncio.Task[None] | None:
        """Send a one-line probe with the form's model and provider (and a typed key) in the background."""
        try:
            prof = self._model_from_form()
        except KnownError as exc:
            self._show_test_result(str(exc), str(exc))
            return None
        if self._test_task is not None and not self._test_task.done():
            self._test_task.cancel()
        self._show_test_result("正在测试…", "Testing…")
        self._test_task = asyncio.get_event_loop().create_task(self._probe(prof))
        return self._test_task

    async def _probe(self, prof: ModelProfileSettings) -> None:
        """The same check as ``replaysage provider test`` (``app.llm.probe.check_connection``), server context too."""
        from app.i18n import Lang
        from app.llm.openai_compat import OpenAICompatProvider, make_http_client
        from app.llm.probe import check_connection
        from app.llm.server_context import context_warning

        prov = self._providers[prof.provider]
        key = self._keys.get(prov.name) or self.p_key.text().strip() or self.secrets.get(prov.name)
        client = await asyncio.to_thread(make_http_client)  # TLS setup off the GUI thread
        provider = OpenAICompatProvider(
            prof.name,
            prov.base_url,
            prof.model_id,
            api_key=key,
            extra_headers={**prov.extra_headers, **prof.extra_headers},
            stream=prov.stream if prof.stream is None else prof.stream,
            max_tokens=64,
            client=client,
        )
        ok, text, warn_zh, warn_en = False, "", "", ""
        try:
            report = await check_connection(
                provider, self.ui.lang, profile_context=prof.context_length or None, max_tokens=64
            )
            result = report.result
            ok = result.ok
            err = result.error
            text = (result.text or result.reasoning)[:200] if ok else str(err or "no reply")
            warn_zh = context_warning(report.server_context, report.profile_context, Lang.ZH)
            warn_en = context_warning(report.server_context, report.profile_context, Lang.EN)
        except KnownError as exc:
            text = str(exc)
        except Exception as exc:  # a transport bug must still end the test visibly
            text = repr(exc)
        finally:
            await provider.aclose()
            await client.aclose()
        zh, en = (
            (f"连接正常：{text}", f"Connection OK: {text}")
            if ok
            else (f"连接失败：{text}", f"Connection failed: {text}")
        )
        if warn_zh:  # the server runs with less context than the profile says (issue 31)
            zh, en = f"{zh}\n⚠ {warn_zh}", f"{en}\n⚠ {warn_en}"
        self._show_test_result(zh, en)
        self.test_finished.emit(ok, text)

    # -- apply ----------------------------------------------------------------------------------------------------

    def apply(self) -> bool:
        """Validate everything, store keys in the keyring, write the settings file. False (with a message) if not."""
        s = self.settings
        if not self.commit_forms():
            return False
        if not self.batch_pending.is_valid():  # its own message is under it; the form says which field
            option = OPTIONS["memory_batch_pending"]
            self.error_label.setText(
                self.ui.t(
                    f"先改正标红的数字：{option.title_zh}", f"Correct the number marked in red: {option.title_en}"
                )
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
