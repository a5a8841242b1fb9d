"""ui.tabs.loading: queries in worker threads, the newest request wins, problems show in the view."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest
from PySide6.QtWidgets import QLabel

from app.errors import KnownError
from tests.ui.conftest import until
from ui.tabs.loading import Loader, error_text

pytestmark = pytest.mark.gui


def test_newest_request_wins_and_queries_leave_the_gui_thread(qtbot: Any, run: Any) -> None:
    label = QLabel()
    qtbot.addWidget(label)
    errors: list[Exception] = []
    loader = Loader(label, errors.append)
    applied: list[str] = []
    threads: list[str] = []
    release = threading.Event()

    def slow() -> str:
        threads.append(threading.current_thread().name)
        release.wait(10)
        return "old"

    def fresh(value: str) -> Any:
        def query() -> str:
            threads.append(threading.current_thread().name)
            return value

        return query

    async def scenario() -> None:
        first = loader.start(slow, applied.append)
        assert first is not None
        await until(lambda: threads, what="the slow query to start")
        loader.start(fresh("middle"), applied.append)  # replaced before it runs
        loader.start(fresh("new"), applied.append)
        release.set()
        await loader.wait()
        assert applied == ["new"]  # the slow query's result came after newer requests: dropped
        assert loader.superseded == 1
        assert threading.main_thread().name not in threads
        assert len(threads) == 2  # "middle" never ran
        assert errors == []

    run(scenario())


def test_errors_go_to_the_view(qtbot: Any, run: Any) -> None:
    label = QLabel()
    qtbot.addWidget(label)
    loader = Loader(label, lambda exc: label.setText(error_text(exc, lambda _zh, en: en)))

    def known() -> None:
        raise KnownError("the store is locked")

    def bug() -> None:
        raise ValueError("boom")

    async def scenario() -> None:
        loader.start(known, lambda _d: None)
        await loader.wait()
        assert label.text() == "the store is locked"
        loader.start(bug, lambda _d: None)
        await loader.wait()
        assert label.text() == "Internal error: ValueError('boom')"

    run(scenario())


def test_a_delayed_request_waits_and_a_cancelled_one_leaves_the_next_alone(qtbot: Any, run: Any) -> None:
    label = QLabel()
    qtbot.addWidget(label)
    loader = Loader(label, lambda exc: label.setText(str(exc)))
    applied: list[str] = []
    started: list[float] = []

    def query(value: str) -> Any:
        def read() -> str:
            started.append(time.monotonic())
            return value

        return read

    async def scenario() -> None:
        asked = time.monotonic()
        loader.start(query("late"), applied.append, delay_s=0.3)
        assert loader.busy()  # busy while it waits: callers awaiting wait() see it
        await loader.wait()
        assert applied == ["late"]
        assert started[0] - asked >= 0.3 * 0.95  # Qt coarse timers may fire up to 5% of their interval early

        # cancelled while it waits, then asked again: the first timer must not launch (or finish) the second request
        loader.start(query("dropped"), applied.append, delay_s=0.2)
        loader.cancel()
        assert not loader.busy()
        await asyncio.sleep(0.1)
        loader.start(query("kept"), applied.append, delay_s=0.3)
        await asyncio.sleep(0.15)  # the cancelled request's timer has fired by now
        assert loader.busy()
        assert len(started) == 1  # nothing launched early
        await loader.wait()
        assert applied == ["late", "kept"]
        assert len(started) == 2

    run(scenario())
