"""Settings never lose input, and the budget preview plans exactly as ``replaysage plan --json``.

Real parts: the dialog offscreen on a qasync loop, the settings file and keyring backend of an isolated user
folder, corpus replays, and the ``plan`` command run in-process on the same settings file.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QDialogButtonBox

from app.i18n import Lang
from app.settings import ModelProfileSettings, ProviderSettings, Settings
from tests.conftest import corpus_file
from ui.lang import UiLanguage
from ui.main_window import AppContext
from ui.settings_dialog import SettingsDialog

pytestmark = pytest.mark.gui

LONG_REPLAY = "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"
SECRET = "sk-test-FORM-0123456789abcdef"


def _dialog(qtbot: Any, replay: Path | None = None) -> tuple[AppContext, SettingsDialog]:
    ctx = AppContext.open()
    dlg = SettingsDialog(ctx.settings, ctx.secrets, UiLanguage(Lang.EN), replay=replay)
    qtbot.addWidget(dlg)
    dlg.open()
    return ctx, dlg


def _plan_cli(replay: Path, profile: str) -> tuple[int, dict[str, Any] | None, str]:
    from app.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["plan", str(replay), "--model", profile, "--json", "--lang", "en"])
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, (json.loads(out.getvalue()) if code == 0 else None), err.getvalue()


def test_ok_takes_filled_provider_and_model_forms(qtbot: Any, run: Any, memory_keyring: Any) -> None:
    ctx, dlg = _dialog(qtbot)
    dlg.p_name.setText("Local")
    dlg.p_url.setText("http://127.0.0.1:9/v1")
    dlg.p_key.setText(SECRET)
    dlg.m_name.setText("local-model")
    dlg.m_provider.setCurrentText("Local")  # not in the list yet: the OK below takes the provider form first
    dlg.m_model.setText("m-1")
    dlg.m_context.setValue(200_000)
    dlg.m_max_tokens.setValue(4096)
    assert dlg.provider_form_pending()
    assert dlg.model_form_pending()
    dlg.buttons.button(QDialogButtonBox.StandardButton.Ok).click()  # no "Save provider" / "Save model" pressed
    assert not dlg.isVisible()
    saved = Settings.load()
    assert [p.base_url for p in saved.providers if p.name == "Local"] == ["http://127.0.0.1:9/v1"]
    prof = saved.profile("local-model")
    assert (prof.provider, prof.model_id, prof.context_length, prof.max_tokens) == ("Local", "m-1", 200_000, 4096)
    assert ctx.secrets.get("Local") == SECRET
    assert SECRET not in saved.path.read_text(encoding="utf-8")  # the key went to the keyring only
    ctx.db.close()


def test_a_rejected_profile_keeps_the_dialog_open_with_the_field_marked(
    qtbot: Any, run: Any, memory_keyring: Any
) -> None:
    settings = Settings.load()
    settings.put_provider(ProviderSettings("Local", "http://127.0.0.1:9/v1"))
    settings.save()
    ctx, dlg = _dialog(qtbot)
    dlg.m_name.setText("greedy")
    dlg.m_provider.setCurrentText("Local")
    dlg.m_model.setText("m")
    dlg.m_context.setValue(128_000)
    dlg.m_budget.setValue(999_999)
    assert dlg.m_budget.value() == 999_999  # typed, not silently capped
    dlg.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    assert dlg.isVisible()  # the dialog stays: nothing typed is lost
    assert dlg.tabs.currentIndex() == 2
    assert dlg.m_budget.property("invalid") is True
    message = dlg.error_label.text()
    assert "999,999" in message
    assert "115,200" in message
    assert all(p.name != "greedy" for p in Settings.load().profiles)
    dlg.save_model()  # "Save model" refuses the same way
    assert dlg.model_list.count() == 0
    assert dlg.m_name.text() == "greedy"
    dlg.m_budget.setValue(0)  # fix it: OK now takes it and closes
    dlg.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    assert not dlg.isVisible()
    assert dlg.m_budget.property("invalid") is False
    assert Settings.load().profile("greedy").context_budget == 0
    ctx.db.close()


def test_the_short_context_refusal_names_what_to_change(qtbot: Any, run: Any, memory_keyring: Any) -> None:
    settings = Settings.load()
    settings.put_provider(ProviderSettings("Local", "http://127.0.0.1:9/v1"))
    settings.save()
    ctx, dlg = _dialog(qtbot)
    dlg.m_name.setText("tiny")
    dlg.m_provider.setCurrentText("Local")
    dlg.m_model.setText("m")
    dlg.m_max_tokens.setValue(8192)
    dlg.m_reasoning.setChecked(True)  # a reasoning model keeps twice max_tokens for the answer
    dlg.m_context.setValue(16_000)  # 90% = 14,400 < the 16,384 output reserve (twice max_tokens)
    assert not dlg.save_model()
    text = dlg.error_label.text()
    assert "16,384" in text
    assert "14,400" in text
    # the smallest context: 90% of it holds the reserve 16,384 + the 32K tier's fixed prompt 7,500
    # (system 2,000 + summary 2,000 + overview 1,000 + task 1,000 + the slice's types 1,500): 26,538 → 27,000
    assert "at least 27,000" in text
    assert "2,000 or less" in text  # or a max_tokens whose reserve is the floor (16,000 / 4 = 4,000 = 2 × 2,000)
    assert "max(" not in text  # no formula jargon
    assert dlg.m_max_tokens.property("invalid") is True
    dlg.m_context.setValue(32_000)  # issue 31: a 32K model works (reserve 16,384 under 28,800)
    assert dlg.save_model()
    dlg.m_reasoning.setChecked(False)  # without reasoning 16K holds it: reserve max(8,192, 4,000) = 8,192
    dlg.m_context.setValue(16_000)
    assert dlg.save_model()
    ctx.db.close()


@pytest.mark.parametrize(("context_length", "budget"), [(200_000, 0), (200_000, 80_000), (1_000_000, 0)])
def test_budget_preview_equals_plan_json(
    qtbot: Any, run: Any, memory_keyring: Any, context_length: int, budget: int
) -> None:
    replay = corpus_file(LONG_REPLAY)
    settings = Settings.load()
    settings.put_provider(ProviderSettings("Local", "http://127.0.0.1:9/v1"))
    settings.put_profile(
        ModelProfileSettings(
            "m",
            "Local",
            "model-x",
            context_length=context_length,
            context_budget=budget,
            max_tokens=8192,
            price_input=0.27,
            price_cached_input=0.07,
            price_output=1.1,
        )
    )
    settings.save()
    code, cli, err = _plan_cli(replay, "m")
    assert code == 0, err
    assert cli is not None

    async def scenario() -> None:
        ctx, dlg = _dialog(qtbot, replay)
        dlg.model_list.setCurrentRow(0)  # shows the saved profile in the form
        preview = dlg.budget_preview
        await preview.settled()
        assert preview.problem == ""
        assert preview.plan == cli  # the same document, every number
        shown = {k: v.text() for k, v in preview.values.items()}
        assert shown["segments"] == str(len(cli["segments"]))
        assert shown["windows"] == str(sum(len(s["windows"]) for s in cli["segments"]))
        assert shown["requests"] == str(len(cli["requests"]))
        prompt = sum(r["breakdown"]["total"] - r["breakdown"]["reserve"] for r in cli["requests"])  # prompt + reserve
        assert shown["prompt_tokens"] == f"{prompt:,}" == f"{cli['totals']['prompt_tokens']:,}"
        assert shown["cacheable"] == f"{cli['totals']['cacheable_share']:.0%}"
        assert f"{cli['totals']['input_cost']:.4f}" in shown["cost"]
        effective = budget or (160_000 if context_length >= 1_000_000 else 100_000)
        assert f"effective budget {effective:,}" in preview.budget_label.text()
        # editing a number replans: the newest result is the one shown
        dlg.m_budget.setValue(50_000)
        dlg.m_budget.setValue(cli["profile"]["budget"])
        await preview.settled()
        assert preview.plan == cli
        ctx.db.close()

    run(scenario())


def test_budget_preview_shows_a_long_replay_on_a_128k_model_with_the_quality_note(
    qtbot: Any, run: Any, memory_keyring: Any
) -> None:
    # issue 31: the 24-minute replay is no longer refused below 200K; the preview shows its segments and says
    # that quality is not guaranteed, as `replaysage plan` does
    replay = corpus_file(LONG_REPLAY)
    settings = Settings.load()
    settings.put_provider(ProviderSettings("Local", "http://127.0.0.1:9/v1"))
    settings.put_profile(ModelProfileSettings("mid", "Local", "model-s", context_length=128_000))
    settings.save()
    code, cli, _err = _plan_cli(replay, "mid")
    assert code == 0
    assert cli is not None
    assert len(cli["segments"]) > 1

    async def scenario() -> None:
        ctx, dlg = _dialog(qtbot, replay)
        dlg.model_list.setCurrentRow(0)
        await dlg.budget_preview.settled()
        assert dlg.budget_preview.plan == cli
        assert dlg.budget_preview.values["segments"].text() == str(len(cli["segments"]))
        note = f"long replay on a 128K model: {len(cli['segments'])} segments, quality not guaranteed"
        assert note in dlg.budget_preview.state_label.text()
        ctx.db.close()

    run(scenario())


def test_budget_preview_refuses_like_plan_in_plain_words(qtbot: Any, run: Any, memory_keyring: Any) -> None:
    replay = corpus_file(LONG_REPLAY)
    settings = Settings.load()
    settings.put_provider(ProviderSettings("Local", "http://127.0.0.1:9/v1"))
    # 16K with max_tokens 1,000: budget 12,000 (75%) leaves no room for a slice next to the fixed parts
    settings.put_profile(ModelProfileSettings("tiny", "Local", "model-s", context_length=16_000, max_tokens=1000))
    settings.save()
    code, _cli, err = _plan_cli(replay, "tiny")
    assert code == 2
    assert "no room for a log slice" in err

    async def scenario() -> None:
        ctx, dlg = _dialog(qtbot, replay)
        dlg.model_list.setCurrentRow(0)
        await dlg.budget_preview.settled()
        assert dlg.budget_preview.plan is None
        assert "no room for a log slice" in dlg.budget_preview.problem
        assert "ContextBudget" in dlg.budget_preview.problem  # what to change
        assert all(v.text() == "–" for v in dlg.budget_preview.values.values())
        ctx.db.close()

    run(scenario())
