"""Review mode (issue 30 §8): the review queue in the main area at 1366×768, and what differs marked on both sides."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QFontMetrics, QTextCursor
from PySide6.QtWidgets import QPlainTextEdit, QPushButton

from app.i18n import Lang
from app.memory import MemoryStore
from tests.memory.helpers import Clock, analyse, run_ep
from tests.ui.conftest import until
from ui.lang import UiLanguage
from ui.main_window import AppContext, MainWindow
from ui.tabs.memory_review import CURRENT_MARK, PROPOSED_MARK

pytestmark = pytest.mark.gui

SIDE_MIN = 450
"""Each side of an item at 1366 px: the side panel gave about 150; the analysis text is about 700 wide."""
LIST_MIN = 300
"""The queue list at 1366 px: an item's sentence wraps in a few lines, not one word a line."""


def back_button(win: MainWindow) -> QPushButton:
    """Review mode's way back (the page is built)."""
    button = win.review.back_button
    assert button is not None
    return button


def _window(qtbot: Any, lang: Lang) -> tuple[MainWindow, MemoryStore]:
    ctx = AppContext.open()
    store = MemoryStore(ctx.db, clock=Clock())
    for player in ("Kirov", "Tanya", "Natasha"):  # each: one opening, then another on the same map: a conflict
        analyse(store, run_ep(f"{player}1", player, ("Barracks", "Refinery")))
        analyse(store, run_ep(f"{player}2", player, ("Barracks", "Reactor"), played="2026-01-02T00:00:00"))
    win = MainWindow(ctx, UiLanguage(lang))
    qtbot.addWidget(win)
    win.resize(1366, 768)
    win.show()
    return win, store


def _marked(view: QPlainTextEdit, colour: str) -> list[str]:
    """The runs of ``view``'s text whose background is ``colour``, read from the document's formatting."""
    doc = view.document()
    text = doc.toPlainText()
    cursor = QTextCursor(doc)
    runs: list[str] = []
    inside = False
    for i, ch in enumerate(text):
        cursor.setPosition(i + 1)  # the format of the character before the cursor
        on = cursor.charFormat().background().color() == QColor(colour) and ch != "\u2029"
        if on and inside:
            runs[-1] += ch
        elif on:
            runs.append(ch)
        inside = on
    return runs


@pytest.mark.parametrize("lang", [Lang.EN, Lang.ZH])
def test_review_mode_gives_each_side_room_and_cuts_nothing(qtbot: Any, run: Any, lang: Lang) -> None:
    win, store = _window(qtbot, lang)
    assert len(store.queue()) == 3

    async def scenario() -> None:
        win.side.dock.show()
        win.menus.review_action.trigger()
        tab = win.review.queue
        assert tab is not None
        assert win.review.active
        await tab.refreshed()
        await until(lambda: tab.left.toPlainText() != "", what="the first item's sides")
        assert win.main_stack.currentWidget() is win.review.page
        assert not win.side.dock.isVisible()  # it would take the width again
        assert win.menus.review_action.isChecked()
        assert win.width() == 1366
        # both sides of the item are wide, side by side, and their text wraps inside them
        for view in (tab.left, tab.right):
            assert view.width() >= SIDE_MIN, view.width()
            assert view.horizontalScrollBar().maximum() == 0
        assert (
            tab.left.mapTo(win, tab.left.rect().topLeft()).x() + SIDE_MIN
            <= tab.right.mapTo(win, tab.right.rect().topLeft()).x()
        )
        # every queue item is shown whole: no horizontal scrolling, each wrapped text fits its row
        lst = tab.list
        assert lst.count() == 3
        assert lst.width() >= LIST_MIN, lst.width()
        assert lst.horizontalScrollBar().maximum() == 0
        width = lst.viewport().width()
        metrics = QFontMetrics(lst.font())
        for row in range(lst.count()):
            item = lst.item(row)
            rect = lst.visualItemRect(item)
            assert rect.right() <= width
            needed = metrics.boundingRect(QRect(0, 0, rect.width(), 10_000), Qt.TextFlag.TextWordWrap, item.text())
            assert needed.height() <= rect.height(), (item.text(), needed.height(), rect.height())
        # the way back: the analysis again, and the side panel as it was
        win.menus.review_action.trigger()
        assert not win.review.active
        assert not win.menus.review_action.isChecked()
        assert win.main_stack.currentWidget() is win.splitter
        assert win.side.dock.isVisible()

    run(scenario())


def test_what_differs_is_marked_on_both_sides(qtbot: Any, run: Any) -> None:
    win, store = _window(qtbot, Lang.EN)

    async def scenario() -> None:
        win.review.set_active(True)
        tab = win.review.queue
        await tab.refreshed()
        await until(lambda: tab.left.toPlainText() != "", what="the first item's sides")
        item = store.queue()[0]
        assert item.other is not None
        assert (item.other.value, item.fact.value) == ("Barracks → Refinery", "Barracks → Reactor")
        current, proposed = _marked(tab.left, CURRENT_MARK[0]), _marked(tab.right, PROPOSED_MARK[0])
        # the opening's second building is what the two facts disagree on: marked where the fact says it
        first_current = tab.left.toPlainText().splitlines()[0]
        first_proposed = tab.right.toPlainText().splitlines()[0]
        assert first_current.endswith("Barracks → Refinery")
        assert first_proposed.endswith("Barracks → Reactor")
        assert current[0] == "Refinery"
        assert proposed[0] == "Reactor"
        # the shared words are not marked on either side
        for runs in (current, proposed):
            assert not any("Barracks" in r for r in runs)
            assert not any(r.startswith("Player") for r in runs)
        # the two games' replays differ too (Kirov1 / Kirov2): their evidence lines are marked
        assert any("1" in r for r in current)
        assert any("2" in r for r in proposed)
        # and a line names the differing fields, in words
        assert tab.differs.isVisible()
        assert tab.differs.text().startswith("What differs (marked on both sides): what it says")
        assert "status" in tab.differs.text()

    run(scenario())


def test_the_side_panel_queue_opens_the_review_mode(qtbot: Any, run: Any) -> None:
    win, _store = _window(qtbot, Lang.ZH)
    tabs: Any = win.side.memory_tabs
    side = tabs.queue

    async def scenario() -> None:
        await tabs.refreshed()
        assert side.wide_button is not None
        assert side.wide_button.text() == "在审阅模式中打开（Ctrl+Shift+R）"
        side.wide_button.click()
        assert win.review.active
        assert win.review.queue is not side
        assert win.review.queue.wide_button is None  # already there
        await win.review.queue.refreshed()
        assert win.review.queue.list.count() == 3
        assert back_button(win).text() == "返回分析（Ctrl+Shift+R）"
        # a language switch rebuilds the page in the new language and stays in review mode
        win.set_language(Lang.EN)
        assert win.review.active
        assert back_button(win).text() == "Back to the analysis (Ctrl+Shift+R)"
        await win.review.queue.refreshed()
        assert win.review.queue.list.count() == 3
        back_button(win).click()
        assert not win.review.active

    run(scenario())
