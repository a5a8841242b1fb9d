"""Every screen speaks the interface language (issue 30, item 4): a walk over the window, its side views and the
settings dialog in 中文 fails on any Latin-letter word that is not a name, an internal name or a unit of measure,
and in English on any Chinese character.

The analysis texts themselves (the model's or the offline analyst's answer, prompts, reasoning) are content in the
analysis language, not interface words, and are left out; so are the user's own data (player and map names, model
ids, preset product names), passed in as names.
"""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QWidget

from app.paths import sample_replay
from tests.support.ui_words import foreign_words, shown_texts
from tests.ui.conftest import until
from tests.ui.test_window_flows import close_window, make_window
from ui.settings_dialog import bundled_mods
from ui.settings_presets import PRESETS

pytestmark = pytest.mark.gui

SEEDED_NAMES = ("Kirov", "Rival", "Barracks", "Refinery", "Infinity Isle", "analyst", "English", "中文")
"""The example memory's players, map and internal unit names (tools/screenshot.py), and the languages' own names."""


def _is_content(widget: QWidget) -> bool:
    """An analysis text (answer, prompt, reasoning): content in the analysis language, not an interface word."""
    from ui.analysis_view import StagePanel

    parent = widget.parentWidget()
    while parent is not None and not isinstance(parent, StagePanel):
        parent = parent.parentWidget()
    return parent is not None and isinstance(widget, QPlainTextEdit | QTextEdit)


def _texts(root: QWidget) -> list[tuple[str, str]]:
    content = {id(w) for w in root.findChildren(QWidget) if _is_content(w)}
    return [(where, text) for where, text in shown_texts(root, skip=content)]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_screen_speaks_the_interface_language(qtbot: Any, run: Any, lang: str) -> None:
    win = make_window(qtbot, lang=lang)
    # the screenshots' example memory (a fact, a chain, a review item); tools/ is not type-checked as a package
    importlib.import_module("tools.screenshot").seed_memory(win.ctx.db)

    async def scenario() -> list[tuple[str, str]]:
        await win.open_replay(sample_replay())
        task = win.analyze()
        assert task is not None
        await task
        win.side_dock.show()
        await win.side_tabs_loaded()
        await until(lambda: True)
        dlg = win.open_settings()
        await until(lambda: True)
        info = win.info
        assert info is not None
        names = [
            *SEEDED_NAMES,
            info.map_name,
            info.path.name,
            *(p.name for p in info.players),
            *(p.label for p in PRESETS),
            *(p.model_id for p in PRESETS),
            "offline",
            *(f"{mod_id} {title}" for mod_id, title in bundled_mods(win.ui)),
        ]
        found = foreign_words(_texts(win) + _texts(dlg), lang, names)
        dlg.close()
        return found

    try:
        found = run(scenario())
    finally:
        close_window(win)
    assert not found, "\n".join(f"{w}: {t}" for w, t in sorted(set(found)))
