"""Light and dark themes (issue 30, item 10): the window renders in both, following the scheme it is given."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from app.paths import sample_replay
from tests.ui.test_window_flows import close_window, make_window
from ui.theme import apply_color_scheme

pytestmark = pytest.mark.gui


def _lightness(image: QImage) -> float:
    """Mean lightness (0-255) over a grid of the picture's pixels."""
    values = [
        image.pixelColor(x, y).lightness()
        for x in range(0, image.width(), max(1, image.width() // 40))
        for y in range(0, image.height(), max(1, image.height() // 40))
    ]
    return sum(values) / len(values)


def test_the_window_renders_light_and_dark(qtbot: Any, run: Any) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    style = app.style().name()
    win = make_window(qtbot)
    win.resize(1366, 768)

    async def scenario() -> dict[str, float]:
        await win.open_replay(sample_replay())
        seen = {}
        for scheme in (Qt.ColorScheme.Dark, Qt.ColorScheme.Light):
            apply_color_scheme(app, scheme)
            await asyncio.sleep(0.05)  # the widgets take the palette change in the event loop
            seen[scheme.name] = _lightness(win.grab().toImage())
        return seen

    try:
        seen = run(scenario())
    finally:
        apply_color_scheme(app, Qt.ColorScheme.Light)
        app.setStyle(style)
        close_window(win)
    assert seen["Dark"] < 110, seen  # dark backgrounds, light text
    assert seen["Light"] > 170, seen
