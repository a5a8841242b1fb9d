"""The bundled icon set (issue 30, item 10): every icon renders, its licence is beside it, and the window uses them
for the menus' main actions, the outline's stage status, the severities and the side tabs."""

from __future__ import annotations

from typing import Any

import pytest

from app.paths import resources_dir
from tests.conftest import corpus_file
from tests.support.scripted_runner import ScriptedRunner
from tests.ui.conftest import until
from tests.ui.scripts import script
from tests.ui.test_window_flows import SHORT_1V1, close_window, make_window
from ui.icons import ICON_NAMES, icon

pytestmark = pytest.mark.gui


def test_every_icon_renders_and_is_licensed(qtbot: Any) -> None:
    del qtbot  # a QApplication for the pixmaps
    folder = resources_dir() / "icons"
    assert "CC0" in (folder / "LICENSE.txt").read_text(encoding="utf-8")
    assert sorted(p.stem for p in folder.glob("*.svg")) == sorted(ICON_NAMES)
    for name in ICON_NAMES:
        image = icon(name).pixmap(16, 16).toImage()
        assert not image.isNull(), name
        painted = sum(image.pixelColor(x, y).alpha() > 0 for x in range(16) for y in range(16))
        assert painted > 20, name  # something is drawn, not an empty square


def test_the_window_uses_the_icons(qtbot: Any, run: Any) -> None:
    win = make_window(qtbot, ScriptedRunner(script()))
    view = win.analysis

    async def scenario() -> None:
        await win.open_replay(corpus_file(SHORT_1V1))
        task = win.run.analyze()
        assert task is not None
        await task
        for act in (
            win.menus.open_action,
            win.menus.analyze_action,
            win.menus.cancel_action,
            win.menus.settings_action,
        ):
            assert not act.icon().isNull()
        assert all(not item.icon(0).isNull() for item in view.outline.items.values())
        issues = view.panels["window:0:1"].issue_list
        assert issues.count() > 0
        assert all(not issues.item(i).icon().isNull() for i in range(issues.count()))
        win.side.dock.show()
        await win.side.tabs_loaded()
        await until(lambda: win.side.tabs.count() == 3, what="every side tab")
        assert all(not win.side.tabs.tabIcon(i).isNull() for i in range(win.side.tabs.count()))

    try:
        run(scenario())
    finally:
        close_window(win)
