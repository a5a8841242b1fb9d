"""Qt's own dialogs speak the interface language: PySide6's qtbase_zh_CN is loaded for 中文 (issue 30, item 4)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QMessageBox

from app.i18n import Lang
from ui.lang import UiLanguage

pytestmark = pytest.mark.gui


def test_qt_dialog_buttons_follow_the_interface_language(qtbot: Any) -> None:
    ui = UiLanguage(Lang.ZH)
    try:
        # Qt's own catalogue: QPlatformTheme words its standard buttons ("Cancel" → 取消 in qtbase_zh_CN)
        assert QCoreApplication.translate("QPlatformTheme", "Cancel") == "取消"
        box = QMessageBox(QMessageBox.Icon.Question, "t", "q", QMessageBox.StandardButton.Save)
        qtbot.addWidget(box)
        assert box.button(QMessageBox.StandardButton.Save).text() == "保存"
        ui.set_lang(Lang.EN)
        assert QCoreApplication.translate("QPlatformTheme", "Cancel") == "Cancel"
    finally:
        ui.set_lang(Lang.EN)
