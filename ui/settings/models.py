"""The settings dialog's models page: the profile list and form, the live budget preview, the connection test."""

from __future__ import annotations

import asyncio
from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QWidget,
)

from app.budget.errors import BudgetConfigError
from app.budget.preview import profile_problem
from app.budget.profile import ModelProfile
from app.errors import KnownError
from app.i18n import N_, NC_, Lang, Msg
from app.settings import OFFLINE_PROFILE, OPTIONS, ModelProfileSettings
from ui.budget_preview import BudgetPreview
from ui.number_field import NumberField
from ui.settings.choices import BUDGET_SPEC, CONTEXT_SPEC, MAX_TOKENS_SPEC, PRICE_SPEC, tier_text
from ui.settings.form import SettingsForm


class ModelsPage(SettingsForm):
    """The models page: show, check, take and remove a model profile, preview its budget, test its connection."""

    def _models_tab(self) -> QWidget:
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
        self.ui.bind_tr(self, self.m_reasoning.setText, "Reasoning model (emits thinking)")
        self.m_stream = QComboBox()
        for code, name in ((None, N_("as provider")), (True, NC_("switch", "on")), (False, NC_("switch", "off"))):
            self.m_stream.addItem("", code)
            self._item(self.m_stream, self.m_stream.count() - 1, name)
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
        self.ui.bind_tr(self, save.setText, "Save model")
        save.clicked.connect(self.save_model)
        remove = QPushButton()
        self.ui.bind_tr(self, remove.setText, "Remove")
        remove.clicked.connect(self._remove_model)
        self.test_button = QPushButton()
        self.ui.bind_tr(self, self.test_button.setText, "Test connection")
        self.test_button.clicked.connect(self.test_connection)
        self.test_label = QLabel()
        self.test_label.setWordWrap(True)
        form = QFormLayout()
        self._row(form, NC_("settings form", "Name"), self.m_name)
        self._row(form, N_("Provider"), self.m_provider)
        self._row(form, N_("Model id"), self.m_model)
        form.addRow("ContextLength", self.m_context)
        form.addRow("ContextBudget", self.m_budget)
        form.addRow("", self.m_budget_hint)
        form.addRow("max_tokens", self.m_max_tokens)
        form.addRow("", self.m_reasoning)
        self._row(form, N_("Streaming"), self.m_stream)
        self._row(form, N_("Input price / M"), self.m_prices[0])
        self._row(form, N_("Cached input price / M"), self.m_prices[1])
        self._row(form, N_("Output price / M"), self.m_prices[2])
        buttons = QHBoxLayout()
        for b in (save, remove, self.test_button):
            buttons.addWidget(b)
        form.addRow(buttons)
        form.addRow(self.test_label)
        self._row(form, OPTIONS["active_profile"].label, self.active)
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

    def _number_labels(self) -> dict[NumberField, Msg | str]:
        """Each number field's name in the form (for a refusal that names it; a setting's own name as it is)."""
        names: list[Msg | str] = [
            "ContextLength",
            "ContextBudget",
            "max_tokens",
            N_("input price"),
            N_("cached input price"),
            N_("output price"),
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

    def _offline_text(self) -> str:
        return self.ui.tx("offline (rule-based analyst)")

    def _show_test_result(self, zh: str | None = None, en: str | None = None) -> None:
        """Show a connection test line, kept in both languages (or re-show the last one in the current language)."""
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
            label = self._number_labels()[refused]
            field = label(self.ui.lang) if isinstance(label, Msg) else label
            name = self.m_name.text().strip()
            raise KnownError(
                self.ui.tx("model {name}: {field}: {problem}", name=name, field=field, problem=refused.problem())
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
        testing = N_("Testing…")
        self._show_test_result(testing(Lang.ZH), testing(Lang.EN))
        self._test_task = asyncio.get_event_loop().create_task(self._probe(prof))
        return self._test_task

    async def _probe(self, prof: ModelProfileSettings) -> None:
        """The same check as ``replaysage provider test`` (``app.llm.probe.check_connection``), server context too."""
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
        line = N_("Connection OK: {text}") if ok else N_("Connection failed: {text}")
        zh, en = line(Lang.ZH, text=text), line(Lang.EN, text=text)
        if warn_zh:  # the server runs with less context than the profile says (issue 31)
            zh, en = f"{zh}\n⚠ {warn_zh}", f"{en}\n⚠ {warn_en}"
        self._show_test_result(zh, en)
        self.test_finished.emit(ok, text)
