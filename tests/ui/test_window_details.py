"""Smaller things people notice (issue 30, item 9) on the real window offscreen."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtWidgets import QStyle, QStyleOptionComboBox

from app.i18n import Lang
from app.paths import sample_replay
from tests.conftest import corpus_file
from tests.ui.test_window_flows import SHORT_1V1, close_window, make_window

pytestmark = pytest.mark.gui


def test_the_sample_is_called_the_sample(qtbot: Any, run: Any) -> None:
    win = make_window(qtbot)
    view = win.analysis

    async def scenario() -> None:
        assert view.placeholder.text() == "Open a replay (Ctrl+O), then press Analyze (F5)."
        await win.open_replay(sample_replay())
        assert view.placeholder.isVisibleTo(view)
        text = view.placeholder.text()
        assert "bundled sample replay" in text
        assert sample_replay().name in text
        assert "Open a replay" not in text
        win.set_language(Lang.ZH)
        assert "自带的示例录像" in view.placeholder.text()
        await win.open_replay(corpus_file(SHORT_1V1))
        assert view.placeholder.text() == f"{SHORT_1V1} 还没有分析。按“分析”（F5）开始。"

    try:
        run(scenario())
    finally:
        close_window(win)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_model_box_shows_its_whole_text(qtbot: Any, run: Any, lang: str) -> None:
    win = make_window(qtbot, lang=lang)
    win.resize(1024, 600)
    picker = win.analysis.model_picker

    async def scenario() -> None:
        await win.open_replay(sample_replay())
        texts = [picker.itemText(i) for i in range(picker.count())]
        assert any(t.startswith("offline") for t in texts)
        widest = max(picker.fontMetrics().horizontalAdvance(t) for t in texts)
        option = QStyleOptionComboBox()
        picker.initStyleOption(option)
        field = picker.style().subControlRect(
            QStyle.ComplexControl.CC_ComboBox, option, QStyle.SubControl.SC_ComboBoxEditField, picker
        )
        assert field.width() >= widest  # the text field beside the arrow holds every item: nothing cut

    try:
        run(scenario())
    finally:
        close_window(win)
