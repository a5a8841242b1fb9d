"""The open-replay race (issue 18): replay A opened first but parsed last never replaces replay B opened after it.

Real replays from tests/data, a real store with one stored analysis per replay, the real window offscreen. A's
parse is held in its worker thread until B has been requested behind it (or, were loads to run side by side,
until B's parse has finished), so A's result always arrives last: deterministic, no timing.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from app.pipeline import events as ev
from app.pipeline.prepare import file_sha256
from app.pipeline.repository import AnalysisRepository, StageResult
from app.store.db import Database
from tests.conftest import corpus_file
from tests.support.scripted_runner import ScriptedRunner, Step
from tests.ui.conftest import until
from ui.lang import UiLanguage
from ui.main_window import AppContext, MainWindow
from ui.replay_info import ReplayInfo, load_info
from ui.window import reads

pytestmark = pytest.mark.gui

SLOW_A = "ra3_1v1_industrial_strength_observer_7m.RA3Replay"
FAST_B = "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"
OVERVIEW = ev.StageRef(ev.StageKind.OVERVIEW)


def store_analysis(db: Database, replay: Path, text: str) -> int:
    """A completed one-stage analysis of ``replay`` whose overview says ``text``."""
    repo = AnalysisRepository(db)
    analysis_id = repo.create(
        replay_path=str(replay),
        replay_sha256=file_sha256(replay),
        replay_name=replay.name,
        model_label="offline",
        provider="offline",
        model_id="offline",
        lang="en",
        plan={},
        stages=[OVERVIEW],
        summary_text="",
    )
    repo.stage_done(analysis_id, OVERVIEW, StageResult(text=text))
    repo.finish(analysis_id, "completed", {})
    return analysis_id


def test_a_slow_replay_opened_first_never_replaces_the_one_opened_after_it(
    qtbot: Any, run: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.i18n import Lang

    slow_a, fast_b = corpus_file(SLOW_A), corpus_file(FAST_B)
    analysed: list[Path] = []

    def record_path(path: Path) -> list[Step]:
        analysed.append(path)
        return []

    ctx = AppContext.open(runner=ScriptedRunner(record_path))
    store_analysis(ctx.db, slow_a, "Analysis of replay A")
    b_id = store_analysis(ctx.db, fast_b, "Analysis of replay B")
    win = MainWindow(ctx, UiLanguage(Lang.EN))
    qtbot.addWidget(win)
    win.show()

    a_started, release_a, b_parsed = threading.Event(), threading.Event(), threading.Event()
    parsed: list[str] = []

    def held_load_info(path: Path, **kwargs: Any) -> ReplayInfo:
        if path == slow_a:
            a_started.set()
            release_a.wait(60)  # a guard against a hung test only; the test opens the gate itself
        info = load_info(path, **kwargs)
        parsed.append(path.name)
        if path == fast_b:
            b_parsed.set()
        return info

    monkeypatch.setattr(reads, "load_info", held_load_info)
    shown: list[str] = []
    win.replay_opened.connect(shown.append)

    async def scenario() -> None:
        first = win.open_replay(slow_a)
        await until(a_started.is_set, what="A's parse to start")
        second = win.open_replay(fast_b)
        # B is requested while A's parse is held: let A finish only once B can no longer finish after it
        await until(lambda: b_parsed.is_set() or win.replay_loader.stale(), what="B to be queued or parsed")
        release_a.set()
        await asyncio.wait([first, second])
        await until(lambda: not win.replay_loader.busy(), what="the loader to settle")

        assert SLOW_A in parsed  # A was parsed to the end...
        assert shown == [str(fast_b)]  # ...but only B was ever shown
        assert win.replay_loader.superseded == 1
        info = win.info
        assert info is not None
        assert info.path == fast_b
        # the manifest names B a 1v1 of Allies vs Empire, about 24 minutes; A is a 7-minute game
        assert sorted(p.faction for p in info.players if not p.observer) == ["Allies", "Empire"]
        assert 23 * 60 <= info.duration <= 25 * 60
        assert win.card.info is info
        assert win.timeline.info is info
        assert FAST_B in win.windowTitle()
        assert SLOW_A not in win.windowTitle()
        # B's latest analysis, not A's
        view = win.analysis
        assert view.analysis_id == b_id
        assert view.panels[OVERVIEW.key].final_text == "Analysis of replay B"
        assert [view.history.itemData(i) for i in range(view.history.count())] == [b_id]

        win.run.analyze()  # F5 analyses what is shown: B
        await until(lambda: analysed, what="the analysis to start")
        assert analysed == [fast_b]

    try:
        run(scenario())
    finally:
        release_a.set()
        win.close()
        ctx.db.close()


def test_a_history_refresh_of_the_previous_replay_is_dropped(
    qtbot: Any, run: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A's history, asked for while B's opening is on its way, arrives after B is shown and is dropped.

    The window's reads run in one worker thread in the order they were asked for (``ui.tabs.loading``), so B's
    opening, asked for first, is shown before A's refresh comes back. The test records when A's refresh arrives,
    so a change of that order fails here instead of leaving the drop untested.
    """
    from app.i18n import Lang

    slow_a, fast_b = corpus_file(SLOW_A), corpus_file(FAST_B)
    ctx = AppContext.open(runner=ScriptedRunner([]))
    a_id = store_analysis(ctx.db, slow_a, "Analysis of replay A")
    b_id = store_analysis(ctx.db, fast_b, "Analysis of replay B")
    win = MainWindow(ctx, UiLanguage(Lang.EN))
    qtbot.addWidget(win)
    win.show()
    shown: list[str] = []
    win.replay_opened.connect(shown.append)
    arrived: list[tuple[Path, list[str]]] = []  # each history that came back, with the replays shown by then
    real_show_history = win.run._show_history

    def recorded_show_history(history: Any) -> None:
        arrived.append((history.path, list(shown)))
        real_show_history(history)

    monkeypatch.setattr(win.run, "_show_history", recorded_show_history)

    async def scenario() -> None:
        await win.open_replay(slow_a)
        assert win.analysis.history.itemData(0) == a_id
        second = win.open_replay(fast_b)
        refresh = win.run.refresh_history()  # A is still the open replay: A's history, on its way while B opens
        assert refresh is not None
        await asyncio.wait([second, refresh])
        await until(lambda: not win.run.history_loader.busy(), what="the history refresh to settle")

        assert arrived == [(slow_a, [str(slow_a), str(fast_b)])]  # A's history came back once B was shown...
        view = win.analysis
        assert win.info is not None
        assert win.info.path == fast_b
        assert [view.history.itemData(i) for i in range(view.history.count())] == [b_id]  # ...and was dropped

    try:
        run(scenario())
    finally:
        win.close()
        ctx.db.close()
