"""The settings dialog round trip: the API key goes to the keyring, never into the settings file or the database."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from app.paths import database_path, user_data_dir
from app.secrets import SERVICE, SecretStore
from app.settings import Settings, settings_path
from tests.support.scripted_server import Reply, ScriptedServer
from tests.ui.conftest import until
from ui.lang import UiLanguage
from ui.main_window import AppContext, MainWindow
from ui.settings_dialog import SettingsDialog

pytestmark = pytest.mark.gui

SECRET = "sk-test-SECRET-0123456789abcdef"


def fill_provider_and_model(dlg: SettingsDialog, base_url: str, *, context: int, budget: int) -> None:
    dlg.p_name.setText("Local")
    dlg.p_url.setText(base_url)
    dlg.p_key.setText(SECRET)
    dlg.save_provider()
    dlg.m_name.setText("local-model")
    dlg.m_provider.setCurrentText("Local")
    dlg.m_model.setText("scripted-model")
    dlg.m_context.setValue(context)
    dlg.m_budget.setValue(budget)
    dlg.m_max_tokens.setValue(4096)
    dlg.m_prices[0].setValue(0.27)
    dlg.save_model()


def test_settings_round_trip_key_in_keyring_only(qtbot: Any, run: Any, memory_keyring: Any, tmp_path: Path) -> None:
    from app.i18n import Lang

    ctx = AppContext.open()
    win = MainWindow(ctx, UiLanguage(Lang.EN))
    qtbot.addWidget(win)
    folder = tmp_path / "replays"
    folder.mkdir()

    async def scenario() -> None:
        with ScriptedServer(default=Reply.chat("hello"), require_key=SECRET) as server:
            dlg = win.open_settings()
            fill_provider_and_model(dlg, server.base_url, context=1_000_000, budget=0)
            assert dlg.error_label.text() == ""
            # ContextBudget 0 shows the tier it resolves to (plan §4.1: ≥1M → 160K; 200K–256K → 100K)
            assert "160,000" in dlg.m_budget_hint.text()
            dlg.m_context.setValue(200_000)
            assert "100,000" in dlg.m_budget_hint.text()
            dlg.m_context.setValue(1_000_000)
            dlg.m_budget.setValue(150_000)
            assert dlg.m_budget_hint.text() == ""
            dlg.save_model()
            # test connection over real HTTP with the typed (not yet stored) key
            task = dlg.test_connection()
            assert task is not None
            await task
            assert dlg.test_label.text().startswith("Connection OK"), dlg.test_label.text()
            # the probe and the reads of the server's context (issue 31) all carry the typed key
            auth = {r.headers.get("authorization", "") for r in server.requests}
            assert auth == {f"Bearer {SECRET}"}
            assert len([r for r in server.requests if r.path.endswith("/chat/completions")]) == 1
            dlg.active.setCurrentIndex(dlg.active.findData("local-model"))
            dlg.analysis_language.setCurrentIndex(dlg.analysis_language.findData("zh"))
            dlg.replay_folder.setText(str(folder))
            dlg.knowledge_mod.setCurrentIndex(dlg.knowledge_mod.findData("corona"))  # knowledge/corona/mod.json
            assert dlg.apply()
            dlg.close()

        # the key is in the keyring, nowhere else
        assert memory_keyring.store[(SERVICE, "provider:Local")] == SECRET
        text = settings_path().read_text(encoding="utf-8")
        assert SECRET not in text
        assert SECRET[-8:] not in text
        for f in user_data_dir().rglob("*"):
            if f.is_file():
                assert SECRET.encode() not in f.read_bytes(), f
        assert database_path().exists()
        # round trip through the file
        loaded = Settings.load()
        assert json.loads(text)["active_profile"] == "local-model"
        prof = loaded.profile("local-model")
        assert (prof.provider, prof.model_id, prof.context_length, prof.context_budget, prof.max_tokens) == (
            "Local",
            "scripted-model",
            1_000_000,
            150_000,
            4096,
        )
        assert prof.price_input == pytest.approx(0.27)
        assert loaded.provider("Local").base_url == server.base_url
        assert loaded.get("analysis_language") == "zh"
        assert loaded.get("replay_folder") == str(folder)
        assert loaded.get("knowledge_mod_override") == "corona"
        assert SecretStore().get("Local") == SECRET
        # the window follows: the model picker lists the new profile, the library watches the folder
        picker = win.analysis.model_picker
        assert picker.findData("local-model") >= 0
        assert picker.currentData() == "local-model"
        await until(lambda: win.library.folder == folder, what="library folder")
        # a reopened dialog masks the stored key instead of showing it
        dlg2 = win.open_settings()
        dlg2.provider_list.setCurrentRow(0)
        assert SECRET not in dlg2.p_key.placeholderText()
        assert dlg2.p_key.text() == ""
        dlg2.close()

    try:
        run(scenario())
    finally:
        win.close()
        ctx.db.close()


def test_settings_refuse_bad_values_with_a_message(qtbot: Any, run: Any, memory_keyring: Any) -> None:
    from app.i18n import Lang

    ctx = AppContext.open()
    ui = UiLanguage(Lang.EN)
    dlg = SettingsDialog(ctx.settings, ctx.secrets, ui)
    qtbot.addWidget(dlg)
    dlg.p_name.setText("offline")
    dlg.p_url.setText("http://127.0.0.1:1/v1")
    dlg.save_provider()
    assert "reserved" in dlg.error_label.text()
    dlg.m_name.setText("m")
    dlg.m_model.setText("x")
    dlg.save_model()  # no provider exists yet
    assert "provider" in dlg.error_label.text()
    ctx.db.close()


def test_gui_analysis_over_http_uses_the_keyring_key(qtbot: Any, run: Any, memory_keyring: Any) -> None:
    from app.i18n import Lang
    from app.settings import ModelProfileSettings, ProviderSettings
    from tests.conftest import corpus_file

    reply = Reply.chat("## 分析\n\n双方在中路交战。", reasoning="先看时间线。", style="deepseek")
    with ScriptedServer(default=reply, require_key=SECRET) as server:
        settings = Settings.load()
        settings.put_provider(ProviderSettings("Local", server.base_url))
        settings.put_profile(
            ModelProfileSettings("local-model", "Local", "scripted-model", context_length=1_000_000, max_tokens=2048)
        )
        settings.set("active_profile", "local-model")
        settings.save()
        SecretStore().set("Local", SECRET)
        ctx = AppContext.open()
        win = MainWindow(ctx, UiLanguage(Lang.ZH))
        qtbot.addWidget(win)

        async def scenario() -> None:
            await win.open_replay(corpus_file("ra3_1v1_industrial_strength_observer_7m.RA3Replay"))
            assert win.analysis.model_picker.currentData() == "local-model"
            task = win.run.analyze()
            assert task is not None
            await task
            view = win.analysis
            assert view.status == "completed", win.message_bar.label.text()
            assert all(p.status == "done" for p in view.panels.values())
            assert server.requests
            assert {r.headers.get("authorization") for r in server.requests} == {f"Bearer {SECRET}"}
            overview = view.panels["overview"]
            assert overview.reasoning.text().startswith("先看时间线。")
            assert overview.usage["prompt"] > 0
            assert overview.budget_bar.values["context_length"] == 1_000_000
            for f in user_data_dir().rglob("*"):
                if f.is_file():
                    assert SECRET.encode() not in f.read_bytes(), f

        try:
            run(scenario())
        finally:
            win.close()
            ctx.db.close()


def test_budget_over_the_hard_limit_is_kept_and_refused_not_capped(qtbot: Any, run: Any, memory_keyring: Any) -> None:
    from app.i18n import Lang

    ctx = AppContext.open()
    dlg = SettingsDialog(ctx.settings, ctx.secrets, UiLanguage(Lang.EN))
    qtbot.addWidget(dlg)
    dlg.m_context.setValue(128_000)
    dlg.m_budget.setValue(200_000)
    assert dlg.m_budget.value() == 200_000  # what was typed stays (issue 16: 999999 was silently made 28,800)
    dlg.m_name.setText("x")
    assert not dlg.save_model()
    assert "115,200" in dlg.error_label.text()  # 90% of 128,000 (plan §4.3): the most it may be
    dlg.m_context.setValue(1_000_000)
    dlg.m_budget.setValue(0)  # 0 = the tier default, still allowed
    assert dlg.m_budget.value() == 0
    assert "160,000" in dlg.m_budget_hint.text()
    ctx.db.close()


def test_save_refuses_a_profile_the_budget_rules_reject(qtbot: Any, run: Any, memory_keyring: Any) -> None:
    from app.i18n import Lang
    from app.settings import ModelProfileSettings, ProviderSettings

    settings = Settings.load()
    settings.put_provider(ProviderSettings("Local", "http://127.0.0.1:1/v1"))
    settings.save()
    ctx = AppContext.open()
    # a profile whose budget is above 90% of its context (120,000 > 115,200), as an older file could hold it
    ctx.settings.put_profile(
        ModelProfileSettings("too-big", "Local", "m", context_length=128_000, context_budget=120_000)
    )
    dlg = SettingsDialog(ctx.settings, ctx.secrets, UiLanguage(Lang.EN))
    qtbot.addWidget(dlg)
    assert not dlg.apply()
    message = dlg.error_label.text()
    assert "too-big" in message
    assert "ContextBudget 120,000" in message
    assert "115,200" in message
    assert all(p.name != "too-big" for p in Settings.load().profiles)  # nothing written
    # the form refuses what the profile would reject too: a reasoning model's reserve max(2 × 20,000, 40,000 / 4)
    # = 40,000 ≥ 90% of 40,000
    dlg.m_name.setText("small")
    dlg.m_provider.setCurrentText("Local")
    dlg.m_model.setText("m")
    dlg.m_context.setValue(40_000)
    dlg.m_max_tokens.setValue(20_000)
    dlg.m_reasoning.setChecked(True)
    dlg.save_model()
    assert "small" in dlg.error_label.text()
    assert "max_tokens" in dlg.error_label.text()
    assert dlg.model_list.findItems("small", Qt.MatchFlag.MatchExactly) == []
    ctx.db.close()


def test_dialog_follows_a_live_language_switch(qtbot: Any, run: Any, memory_keyring: Any) -> None:
    from PySide6.QtWidgets import QDialogButtonBox

    from app.i18n import Lang

    ctx = AppContext.open()
    ui = UiLanguage(Lang.ZH)
    dlg = SettingsDialog(ctx.settings, ctx.secrets, ui)
    qtbot.addWidget(dlg)
    ok = dlg.buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert dlg.windowTitle() == "设置"
    assert dlg.tabs.tabText(2) == "模型"
    assert dlg.save_model_button.text() == "保存模型"
    assert ok.text() == "确定"
    dlg.knowledge_mod.setEditText("mymod")  # a typed mod id survives the switch
    ui.set_lang(Lang.EN)
    assert dlg.windowTitle() == "Settings"
    assert [dlg.tabs.tabText(i) for i in range(3)] == ["General", "Providers", "Models"]
    assert dlg.save_model_button.text() == "Save model"
    assert dlg.save_provider_button.text() == "Save provider"
    assert dlg.test_button.text() == "Test connection"
    assert ok.text() == "OK"
    assert dlg.general_labels["replay_folder"].text() == "Replay folder"
    assert dlg.m_stream.itemText(0) == "as provider"
    assert dlg.active.itemText(0) == "offline (rule-based analyst)"
    assert dlg.knowledge_mod.itemText(0) == "detect from the replay"
    assert dlg.knowledge_mod_value() == "mymod"
    assert dlg.m_budget.value() == 0
    assert dlg.m_budget_hint.text().startswith("0 = tier default")
    ctx.db.close()


def test_choosing_the_interface_language_in_the_dialog_applies_it(qtbot: Any, run: Any, memory_keyring: Any) -> None:
    from PySide6.QtWidgets import QDialogButtonBox

    from app.i18n import Lang

    ctx = AppContext.open()
    ui = UiLanguage(Lang.ZH)
    dlg = SettingsDialog(ctx.settings, ctx.secrets, ui)
    qtbot.addWidget(dlg)
    dlg.ui_language.setCurrentIndex(dlg.ui_language.findData("en"))
    assert dlg.windowTitle() == "设置"  # not before it is applied
    dlg.buttons.button(QDialogButtonBox.StandardButton.Apply).click()
    assert dlg.error_label.text() == ""
    assert ui.lang is Lang.EN
    assert dlg.windowTitle() == "Settings"
    assert dlg.tabs.tabText(0) == "General"
    assert dlg.result() == 0  # Apply saves without accepting (closing) the dialog
    assert Settings.load().get("ui_language") == "en"
    ctx.db.close()


def test_one_settings_dialog_at_a_time(qtbot: Any, memory_keyring: Any) -> None:
    import shiboken6

    from app.i18n import Lang
    from tests.support.scripted_runner import ScriptedRunner

    ctx = AppContext.open(runner=ScriptedRunner([]))
    win = MainWindow(ctx, UiLanguage(Lang.EN))
    qtbot.addWidget(win)
    try:
        first = win.open_settings()
        assert win.open_settings() is first  # Ctrl+, again brings the open one to the front
        first.reject()
        second = win.open_settings()
        assert second is not first
        qtbot.waitUntil(lambda: not shiboken6.isValid(first))  # the closed one is deleted, bindings and all
        second.reject()
    finally:
        win.close()
        ctx.db.close()
