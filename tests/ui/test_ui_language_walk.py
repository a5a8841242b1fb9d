"""Every screen speaks the interface language (issue 30, item 4): a walk over the window, its side views and the
settings dialog in 中文 fails on any Latin-letter word that is not a name, an internal name or a unit of measure,
and in English on any Chinese character.

The analysis texts themselves (the model's or the offline analyst's answer, prompts, reasoning) are content in the
analysis language, not interface words, and are left out; so are the user's own data (player and map names, model
ids, preset product names), passed in as names.
"""

from __future__ import annotations

import importlib
from functools import partial
from typing import Any

import pytest
from PySide6.QtWidgets import QAbstractItemView, QComboBox, QPlainTextEdit, QStackedWidget, QTextEdit, QWidget

from app.paths import sample_replay
from tests.support.ui_words import foreign_words, shown_texts
from tests.ui.conftest import settled, until
from tests.ui.test_window_flows import close_window, make_window
from ui.settings_dialog import bundled_mods
from ui.settings_presets import PRESETS

pytestmark = pytest.mark.gui

SEEDED_NAMES = ("Kirov", "Rival", "Barracks", "Refinery", "Infinity Isle", "analyst", "English", "中文")
"""The example memory's players, map and internal unit names (tools/screenshot.py), and the languages' own names."""


def _line_with(text: str, word: str) -> str:
    """The line of ``text`` where ``word`` is (the failure shows it in context)."""
    return next((line.strip() for line in text.splitlines() if word in line), text)[:160]


DETAIL_ROWS = 6
"""How many rows of each side list or table the walk opens (the example memory has fewer facts than this)."""


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


async def _open_details(win: Any, player: str) -> list[tuple[str, str]]:
    """What the side views show only on request: each list's and table's detail for its first rows (facts, chains,
    review items, wisdom entries), a player's profile, and the review mode's queue in the main area."""
    from ui.tabs.players_tab import PlayersTab

    seen: dict[tuple[str, str], None] = {}  # each text once: every row shows its page again

    async def each_row(root: QWidget) -> None:
        for view in root.findChildren(QAbstractItemView):
            model = view.model()
            if model is None or _in_combo_box(view):
                continue
            page = _page_of(view, root)
            for row in range(min(model.rowCount(), DETAIL_ROWS)):
                view.setCurrentIndex(model.index(row, 0))
                seen.update(dict.fromkeys(await settled(partial(_texts, page), interval=0.05)))

    await each_row(win.side.dock)
    for tab in win.side.dock.findChildren(PlayersTab):
        shown = tab.show_profile(player)
        assert shown is not None
        await shown
        seen.update(dict.fromkeys(await settled(partial(_texts, tab))))
    win.review.set_active(True)
    if win.review.queue is not None:
        await win.review.queue.refreshed()
        await each_row(win.review.page)
    win.review.set_active(False)
    return list(seen)


def _in_combo_box(view: QWidget) -> bool:
    """A combo box's popup list (its items are read with the combo box)."""
    parent = view.parentWidget()
    while parent is not None:
        if isinstance(parent, QComboBox):
            return True
        parent = parent.parentWidget()
    return False


def _page_of(view: QWidget, root: QWidget) -> QWidget:
    """The tab page holding ``view`` and its detail pane (its innermost page under ``root``), else ``root``."""
    page = view
    while (parent := page.parentWidget()) is not None and parent is not root:
        if isinstance(parent, QStackedWidget):
            return page
        page = parent
    return root


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_screen_speaks_the_interface_language(qtbot: Any, run: Any, lang: str) -> None:
    win = make_window(qtbot, lang=lang)
    # the screenshots' example memory (a fact, a chain, a review item); tools/ is not type-checked as a package
    importlib.import_module("tools.screenshot").seed_memory(win.ctx.db)

    async def scenario() -> list[tuple[str, str]]:
        await win.open_replay(sample_replay())
        info = win.info
        assert info is not None
        task = win.run.analyze()
        assert task is not None
        await task
        win.side.dock.show()
        await win.side.tabs_loaded()
        await until(lambda: True)
        await settled(lambda: _texts(win))
        details = await _open_details(win, info.players[0].name)
        dlg = win.open_settings()
        await until(lambda: True)
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
        # the side tabs fill from worker threads after they are built: read the screens until two reads agree
        texts = await settled(lambda: _texts(win) + _texts(dlg))
        found = [
            (where, f"{word!r} in {_line_with(text, word)!r}")
            for where, text in dict.fromkeys(texts + details)  # each text once: the rows repeat the whole dock
            for _, word in foreign_words([(where, text)], lang, names)
        ]
        dlg.close()
        return found

    try:
        found = run(scenario())
    finally:
        close_window(win)
    assert not found, "\n".join(f"{w}: {t}" for w, t in sorted(set(found)))
