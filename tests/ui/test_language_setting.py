"""The interface language stays (issue 30): one setting, changed by the View menu and by Settings alike.

Real parts: the main window and the settings dialog offscreen, the settings file of an isolated user folder (read
back from disk, as the next start reads it), a corpus replay, and ``replaysage plan --json`` run in-process.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDialogButtonBox

from app.i18n import Lang
from app.settings import ModelProfileSettings, ProviderSettings, Settings
from tests.conftest import corpus_file
from ui.main_window import AppContext, MainWindow

pytestmark = pytest.mark.gui

LONG_REPLAY = "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"


@pytest.fixture(autouse=True)
def _english_system(monkeypatch: pytest.MonkeyPatch) -> None:
    """The system language is English, so "跟随系统" (follow the system) and 中文 differ."""
    monkeypatch.setenv("REPLAYSAGE_LANG", "en")


def _window(qtbot: Any) -> MainWindow:
    win = MainWindow(AppContext.open())  # no language given: the window takes the setting, as at a start
    qtbot.addWidget(win)
    win.show()
    win.activateWindow()
    qtbot.waitUntil(win.isActiveWindow, timeout=5000)  # the menu's keys reach an active window only
    return win


def _lang(win: MainWindow) -> Lang:
    """The window's language now (a call, so the type checker does not narrow it between two steps)."""
    return win.ui.lang


def _saved_ui_language() -> str:
    """The value on disk: what the next start reads ("" when nothing was saved yet)."""
    path = Settings.load().path
    return str(json.loads(path.read_text(encoding="utf-8")).get("ui_language", "")) if path.exists() else ""


def _ok(dlg: Any) -> None:
    dlg.buttons.button(QDialogButtonBox.StandardButton.Ok).click()


def test_the_menu_choice_is_saved_at_once_and_survives_settings_ok_and_a_restart(
    qtbot: Any, run: Any, tmp_path: Path
) -> None:
    win = _window(qtbot)
    assert _lang(win) is Lang.EN
    assert _saved_ui_language() == ""

    QTest.keyClick(win, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert _lang(win) is Lang.ZH
    assert win.menuBar().actions()[0].text() == "文件(&F)"
    assert _saved_ui_language() == "zh"  # saved at once, no OK needed
    assert win.menus.zh_action.isChecked()
    assert not win.menus.en_action.isChecked()

    dlg = win.open_settings()
    assert dlg.ui_language.currentData() == "zh"  # Settings shows the same value, not "System"
    dlg.replay_folder.setText(str(tmp_path))  # an unrelated change, then OK (issue 30: the window went English)
    _ok(dlg)
    assert not dlg.isVisible()
    assert _lang(win) is Lang.ZH
    assert _saved_ui_language() == "zh"
    assert win.menuBar().actions()[0].text() == "文件(&F)"

    win.close()
    win.ctx.db.close()
    again = _window(qtbot)  # a restart
    try:
        assert _lang(again) is Lang.ZH
        assert again.menuBar().actions()[0].text() == "文件(&F)"
        assert again.menus.zh_action.isChecked()
        # Settings changes the same value: English there is English in the menu, on disk and at the next start
        dlg2 = again.open_settings()
        assert dlg2.ui_language.currentData() == "zh"
        dlg2.ui_language.setCurrentIndex(dlg2.ui_language.findData("en"))
        _ok(dlg2)
        assert _lang(again) is Lang.EN
        assert again.menus.en_action.isChecked()
        assert _saved_ui_language() == "en"
        # "System" chosen explicitly in Settings is a choice too: saved as such, the system's language shows
        again.menus.zh_action.trigger()  # View → 界面：中文
        assert _saved_ui_language() == "zh"
        dlg3 = again.open_settings()
        dlg3.ui_language.setCurrentIndex(dlg3.ui_language.findData(""))
        _ok(dlg3)
        assert _saved_ui_language() == ""
        assert _lang(again) is Lang.EN
    finally:
        again.close()
        again.ctx.db.close()


def _plan_cli(replay: Path, lang: str | None) -> dict[str, Any]:
    from app.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["plan", str(replay), "--model", "m", "--json", *(["--lang", lang] if lang else [])])
    assert code == 0, err.getvalue()
    data = json.loads(out.getvalue())
    assert isinstance(data, dict)
    return data


def test_the_budget_preview_plans_in_the_analysis_language_whatever_the_window_shows(
    qtbot: Any, run: Any, memory_keyring: Any
) -> None:
    replay = corpus_file(LONG_REPLAY)
    settings = Settings.load()
    settings.put_provider(ProviderSettings("Local", "http://127.0.0.1:9/v1"))
    settings.put_profile(ModelProfileSettings("m", "Local", "model-x", context_length=200_000, max_tokens=8192))
    settings.set("analysis_language", "zh")
    settings.save()
    zh, en = _plan_cli(replay, "zh"), _plan_cli(replay, "en")
    assert zh["totals"]["prompt_tokens"] != en["totals"]["prompt_tokens"]  # the languages plan differently
    assert _plan_cli(replay, None) == zh  # without --lang, plan takes the analysis language analyze would use

    async def scenario() -> None:
        win = _window(qtbot)
        try:
            assert _lang(win) is Lang.EN  # an English window …
            dlg = win.open_settings()
            dlg.budget_preview.set_replay(replay)
            dlg.model_list.setCurrentRow(0)
            preview = dlg.budget_preview
            await preview.settled()
            assert preview.plan == zh  # … previews the Chinese analysis it will run, as `plan --lang zh`
            assert preview.title() == "Budget preview (open replay)"
            # the analysis language follows the interface when unset (its first item says so, not "System"), and
            # the form's choice replans at once
            assert dlg.analysis_language.itemText(0) == "Same as the interface"
            assert dlg.ui_language.itemText(0) == "System"
            dlg.analysis_language.setCurrentIndex(dlg.analysis_language.findData(""))
            await preview.settled()
            assert preview.plan == en
            dlg.ui_language.setCurrentIndex(dlg.ui_language.findData("zh"))  # not applied yet: the form decides
            await preview.settled()
            assert preview.plan == zh
            assert _lang(win) is Lang.EN
        finally:
            win.close()
            win.ctx.db.close()

    run(scenario())
