"""ui.tabs.staged: pages made one per event-loop turn (the one on screen first), reads queued behind the building."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtWidgets import QLabel, QWidget

from ui.tabs.loading import read_in_worker
from ui.tabs.staged import StagedTabs, later, later_pending

pytestmark = pytest.mark.gui


def _tabs(qtbot: Any, made: list[str]) -> StagedTabs:
    tabs = StagedTabs()
    qtbot.addWidget(tabs)

    def factory(key: str) -> Any:
        def make() -> QWidget:
            made.append(key)
            later(tabs, lambda: made.append(f"after {key}"))  # queued behind this page: runs before the next one
            return QLabel(key)

        return make

    for key in ("a", "b", "c", "d"):
        tabs.add_page(key, key.upper(), factory(key))
    return tabs


def test_pages_are_made_one_per_turn_current_first_and_at_once_when_asked(qtbot: Any, run: Any) -> None:
    made: list[str] = []
    tabs = _tabs(qtbot, made)
    tabs.setCurrentIndex(2)  # before start(): nothing is made for it
    assert made == []
    tabs.start()
    assert made == []  # not even the current page in the turn that built the widget
    assert tabs.pending()
    page_d = tabs.page("d")  # asked for: made on the spot, in its own tab
    assert made == ["d"]
    assert isinstance(page_d, QLabel)
    assert page_d.text() == "d"
    assert tabs.indexOf(page_d) == 3
    assert tabs.tabText(3) == "D"

    async def scenario() -> None:
        await tabs.all_made()
        await asyncio.sleep(0.02)
        # then the one on screen, then in tab order; one page per job of the queue (the queue runs a job per turn)
        assert made == ["d", "c", "after d", "after c", "a", "after a", "b", "after b"]

    run(scenario())
    tabs.setCurrentWidget(tabs.page("a"))
    assert tabs.currentIndex() == 0


def test_a_read_waits_for_the_building_queued_before_it(qtbot: Any, run: Any) -> None:
    owner = QLabel()
    qtbot.addWidget(owner)
    order: list[str] = []

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        later(owner, lambda: order.append("build 1"))
        later(owner, lambda: order.append("build 2"))
        assert later_pending() == 2

        def read() -> int:
            order.append("read")
            return 42

        assert await read_in_worker(loop, owner, read) == 42
        assert order == ["build 1", "build 2", "read"]
        # with nothing being built the read starts at once
        assert await read_in_worker(loop, owner, lambda: "now") == "now"

    run(scenario())


def _handing_over(page: QWidget) -> Callable[[], QWidget]:
    """A page factory that hands over a page built before (as the error-wisdom tab's entries page)."""
    return lambda: page


def test_a_page_built_ahead_but_never_made_dies_with_its_tabs(qapp: Any) -> None:
    """The error-wisdom tab builds its entries page ahead; a language switch deleted the tab before the page was
    made, leaving a parentless window for the garbage collector to free, on whichever thread it ran."""
    import threading

    from PySide6.QtCore import QCoreApplication, QEvent

    tabs = StagedTabs()
    ahead = QLabel("built ahead")
    gone_on: list[str] = []
    ahead.destroyed.connect(lambda: gone_on.append(threading.current_thread().name))
    tabs.add_page("ahead", "Ahead", _handing_over(ahead))
    tabs.start()
    del ahead  # only the factory holds it now
    tabs.deleteLater()  # before the page's turn came
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert gone_on == [threading.main_thread().name]
