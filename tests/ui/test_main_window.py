"""The real main window offscreen: corpus replays, scripted and real offline analyses, cancel, reopen."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from app.pipeline import events as ev
from app.pipeline.repository import AnalysisRepository
from tests.conftest import corpus_file
from tests.support.scripted_runner import ScriptedRunner
from tests.ui.conftest import until
from tests.ui.scripts import ISSUES, STAGES, breakdown, script
from ui.lang import UiLanguage
from ui.main_window import AppContext, MainWindow

pytestmark = pytest.mark.gui

ALLIES_VS_EMPIRE = "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"
SHORT_1V1 = "ra3_1v1_industrial_strength_observer_7m.RA3Replay"


def make_window(qtbot: Any, runner: Any = None, lang: str = "zh") -> MainWindow:
    from app.i18n import Lang

    ctx = AppContext.open(runner=runner)
    win = MainWindow(ctx, UiLanguage(Lang(lang)))
    qtbot.addWidget(win)
    win.show()
    return win


def close_window(win: MainWindow) -> None:
    win.close()
    win.ctx.db.close()


def test_open_corpus_replay_and_scripted_analysis(qtbot: Any, run: Any) -> None:
    runner = ScriptedRunner(script())
    win = make_window(qtbot, runner)

    async def scenario() -> None:
        await win.open_replay(corpus_file(ALLIES_VS_EMPIRE))
        info = win.info
        assert info is not None
        # the corpus manifest names this game: a 1v1, Allies vs Empire, about 24 minutes
        players = [p for p in info.players if not p.observer]
        assert sorted(p.faction for p in players) == ["Allies", "Empire"]
        assert 23 * 60 <= info.duration <= 25 * 60
        texts = " ".join(lab.text() for lab in win.card.player_labels)
        assert "盟军" in texts  # a Chinese window: the knowledge's Chinese names of Allies and Empire
        assert "升阳帝国" in texts
        assert win.timeline.info is info
        assert win.library.model.rowCount() == 1

        win.menus.analyze_action.trigger()  # F5
        await until(lambda: win.analysis.status == "completed" and not win.analysis.running, what="completed run")
        view = win.analysis
        view.flush_all()
        # one panel per stage, windows grouped under their segment
        assert set(view.panels) == {s.key for s in STAGES}
        assert sorted(view.groups) == [0, 1]
        assert [p.stage.key for p in view.groups[0].findChildren(type(view.panels["overview"]))] == [
            "window:0:0",
            "window:0:1",
        ]
        assert all(p.status == "done" for p in view.panels.values())
        # budget bar values are exactly the event's breakdown
        for i, st in enumerate(STAGES):
            if st.kind is not ev.StageKind.SUMMARY:
                assert view.panels[st.key].budget_bar.values == breakdown(i)
        # Markdown rendered once the stage finished: the heading marker is gone, the text is there
        overview = view.panels["overview"]
        assert not overview.expanded  # finished stages fold back; the summary is the one open
        assert view.panels["summary_round"].expanded if "summary_round" in view.panels else True
        overview.header.click()
        assert overview.final_view.isVisibleTo(overview)
        assert not overview.live_box.isVisibleTo(overview)
        assert overview.final_view.toPlainText().startswith("overview")
        assert "final text" in overview.final_view.toPlainText()
        # prompt and reasoning are collapsed by default, with their content
        assert not overview.prompt_section.expanded
        assert overview.prompt_section.text() == "PROMPT for overview"
        overview.prompt_section.header.click()  # the box is filled when the reader opens the section
        assert overview.prompt_box.toPlainText() == "PROMPT for overview"
        assert not overview.reasoning_section.expanded
        assert overview.reasoning.text() == "thinking about overview. "
        # issues of the revised window: the after-revision list, worst first, severity badges
        w = view.panels["window:0:1"]
        w.header.click()
        assert not w.issues_section.expanded
        rows = [w.issue_list.item(i).text() for i in range(w.issue_list.count())]
        assert len(rows) == len(ISSUES)
        assert rows[0].startswith("● 矛盾")  # the severity in the interface language (zh here)
        assert "2:30" in rows[0]
        assert rows[-1].startswith("● 提示")
        # the title keeps the tally: 2 issues above Info before the revision, 2 still there after it
        assert w.issues_section.title() in ("Validation: found 2 · fixed 0 · 2 left", "校验：发现 2 · 修正 0 · 剩余 2")
        # the draft before the revision is folded away, the final text open
        assert w.drafts == ["".join(f"window:0:1 part {n}. " for n in range(8))]
        assert not w.drafts_section.expanded
        assert w.drafts_section.isVisibleTo(w)
        assert "fixed unit 1234" in w.final_view.toPlainText()
        assert w.lookbacks == [(200.0, 230.0, 812)]
        assert (200.0, 230.0) in win.timeline.lookbacks
        assert win.timeline.windows == [(60.0, 180.0), (180.0, 300.0), (300.0, 480.0)]
        # clicking an issue jumps the timeline to its time
        w.issue_list.itemClicked.emit(w.issue_list.item(0))
        assert win.timeline.marker == 150.0
        # usage and overall progress
        assert "5,003" in view.panels["window:0:1"].usage_label.text()
        assert win.status.progress.maximum() == len(STAGES)
        assert win.status.progress.value() == len(STAGES)

    try:
        run(scenario())
    finally:
        close_window(win)


def test_cancel_mid_stream_keeps_partial_text(qtbot: Any, run: Any) -> None:
    runner = ScriptedRunner(script(chunks=40, pause=0.005, stall_at=("window:0:0", 9), stall=60.0))
    win = make_window(qtbot, runner)

    async def scenario() -> None:
        await win.open_replay(corpus_file(SHORT_1V1))
        win.run.analyze()
        view = win.analysis
        await until(
            lambda: "window:0:0" in view.panels and view.panels["window:0:0"].live_text().count("part") == 10,
            what="ten deltas of window 0:0",
        )
        await until(lambda: "part 9." in view.panels["window:0:0"].live_box.toPlainText(), what="the flush")
        win.menus.cancel_action.trigger()  # Esc
        await until(lambda: not view.running, what="the run to stop")
        panel = view.panels["window:0:0"]
        expected = "".join(f"window:0:0 part {n}. " for n in range(10))
        assert panel.live_text() == expected
        assert panel.live_box.toPlainText() == expected
        assert panel.live_box.isVisibleTo(panel)
        assert panel.status == "cancelled"
        assert view.status == "cancelled"
        assert view.panels["overview"].status == "done"
        assert view.panels["window:0:1"].status == "pending"

    try:
        run(scenario())
    finally:
        close_window(win)


def test_new_run_cancels_the_old_one(qtbot: Any, run: Any) -> None:
    runner = ScriptedRunner(script(chunks=20, pause=0.01))
    win = make_window(qtbot, runner)

    async def scenario() -> None:
        await win.open_replay(corpus_file(SHORT_1V1))
        first = win.run.analyze()
        await until(
            lambda: "overview" in win.analysis.panels and win.analysis.panels["overview"].live_text(),
            what="the first run streaming",
        )
        second = win.run.analyze()
        assert first is not None
        assert second is not None
        await until(first.done, what="the first run to stop")
        assert first.cancelled()
        await until(second.done, what="the second run")
        assert win.analysis.status == "completed"
        assert runner.runs == 2
        assert all(p.status == "done" for p in win.analysis.panels.values())

    try:
        run(scenario())
    finally:
        close_window(win)


def test_real_offline_analysis_matches_the_store(qtbot: Any, run: Any) -> None:
    win = make_window(qtbot, lang="en")

    async def scenario() -> None:
        await win.open_replay(corpus_file(SHORT_1V1))
        task = win.run.analyze()
        assert task is not None
        await task
        view = win.analysis
        assert view.status == "completed", win.message_bar.label.text()
        assert view.analysis_id is not None
        rec = AnalysisRepository(win.ctx.db).load(view.analysis_id)
        stored = {s.key: s for s in rec.stages}
        assert set(view.panels) == set(stored)
        windows = [k for k in stored if k.startswith("window:")]
        assert windows
        assert {int(k.split(":")[1]) for k in windows} == set(view.groups)
        assert sum(1 for s in stored.values() if s.requests and s.requests[-1].breakdown) >= 3
        for key, srec in stored.items():
            panel = view.panels[key]
            assert panel.status == "done"
            if srec.requests:
                assert panel.budget_bar.values == {k: int(v) for k, v in srec.requests[-1].breakdown.items()}
            final_issues = [i for i in srec.issues if i.after_revision == bool(srec.revised)]
            assert panel.issue_list.count() == len(final_issues)
        # reopening the stored analysis rebuilds the same panels with the same budgets
        await until(lambda: win.analysis.history.count() >= 1, what="history")
        before = {k: dict(p.budget_bar.values) for k, p in view.panels.items()}
        await win.run.reopen(rec.id)
        assert {k: p.budget_bar.values for k, p in view.panels.items()} == before
        assert all(p.status == "done" for p in view.panels.values())

    try:
        run(scenario())
    finally:
        close_window(win)


def test_bad_file_goes_to_the_message_bar(qtbot: Any, run: Any, tmp_path: Path) -> None:
    bad = tmp_path / "broken.RA3Replay"
    bad.write_bytes(b"not a replay at all" * 10)
    win = make_window(qtbot, ScriptedRunner([]))

    async def scenario() -> None:
        task = win.open_replay(bad)
        await asyncio.wait([task])
        await until(win.message_bar.isVisible, what="the message bar")
        assert "broken.RA3Replay" in win.message_bar.label.text()
        assert win.info is None

    try:
        run(scenario())
    finally:
        close_window(win)


def test_library_watches_the_folder_and_searches(qtbot: Any, run: Any, tmp_path: Path) -> None:
    folder = tmp_path / "replays"
    folder.mkdir()
    win = make_window(qtbot, ScriptedRunner([]))

    async def scenario() -> None:
        win.library.set_folder(folder)
        assert win.library.model.rowCount() == 0
        (folder / "a.RA3Replay").symlink_to(corpus_file(ALLIES_VS_EMPIRE))
        (folder / "b.RA3Replay").symlink_to(corpus_file(SHORT_1V1))
        (folder / "notes.txt").write_text("not a replay")
        await until(lambda: win.library.model.rowCount() == 2, what="the watcher to list two replays")
        win.library.search.setText("no-such-player-xyz")
        assert win.library.model.rowCount() == 0
        win.library.search.setText("")
        assert win.library.model.rowCount() == 2
        # sorting by duration happens in the source model: 7 min before 24 min ascending
        win.library.model.sort(3, Qt.SortOrder.AscendingOrder)
        assert [p.name for p in win.library.model.paths()] == ["b.RA3Replay", "a.RA3Replay"]
        (folder / "b.RA3Replay").unlink()
        await until(lambda: win.library.model.rowCount() == 1, what="the removed file to disappear")

    try:
        run(scenario())
    finally:
        close_window(win)


def test_language_switch_is_live(qtbot: Any, run: Any) -> None:
    from app.i18n import Lang

    win = make_window(qtbot, ScriptedRunner(script(chunks=2)))

    async def scenario() -> None:
        await win.open_replay(corpus_file(SHORT_1V1))
        task = win.run.analyze()
        assert task is not None
        await task
        assert win.analysis.analyze_button.text() == "分析 (F5)"
        assert win.analysis.panels["overview"].title().startswith("总览")
        win.side.dock.show()  # the side panel (closed in a narrow first window) builds its views when opened
        await win.side.tabs_loaded()
        assert win.side.tabs.tabText(0) == "错误智慧"
        win.set_language(Lang.EN)
        assert win.analysis.analyze_button.text() == "Analyze (F5)"
        assert win.analysis.panels["overview"].title().startswith("Overview")
        assert win.library.model.headerData(0, Qt.Orientation.Horizontal) == "Map"
        assert win.side.tabs.tabText(0) == "Error wisdom"
        from ui.tabs.wisdom_tab import WisdomTab

        assert isinstance(win.side.wisdom_tab, WisdomTab)
        assert win.side.wisdom_tab.lang is Lang.EN  # the hosted side views are rebuilt in the new language
        win.set_language(Lang.ZH)
        assert win.analysis.groups[1].title().startswith("第 2 段")

    try:
        run(scenario())
    finally:
        close_window(win)


def test_cancel_a_real_run_then_resume_it(qtbot: Any, run: Any) -> None:
    win = make_window(qtbot, lang="en")

    async def scenario() -> None:
        await win.open_replay(corpus_file(ALLIES_VS_EMPIRE))
        view = win.analysis
        win.run.analyze()
        await until(lambda: view.done >= 3, what="three finished stages")
        win.menus.cancel_action.trigger()
        await until(lambda: not view.running, what="the cancelled run to stop")
        assert view.status == "cancelled"
        first_id = view.analysis_id
        assert first_id is not None
        rec = AnalysisRepository(win.ctx.db).load(first_id)
        assert rec.status == "cancelled"
        done_before = {s.key for s in rec.stages if s.status == "done"}
        assert 3 <= len(done_before) < len(rec.stages)
        # the interrupted analysis is offered for Resume
        await until(view.resume_button.isEnabled, what="Resume to be offered")
        view.resume_button.click()
        await until(lambda: view.status == "completed" and not view.running, timeout=60, what="the resumed run")
        assert view.analysis_id == first_id
        rec = AnalysisRepository(win.ctx.db).load(first_id)
        assert rec.status == "completed"
        assert all(s.status == "done" for s in rec.stages)
        assert set(view.panels) == {s.key for s in rec.stages}
        assert all(p.status == "done" for p in view.panels.values())

    try:
        run(scenario())
    finally:
        close_window(win)


def test_drop_replay_files_on_the_window(qtbot: Any, run: Any, tmp_path: Path) -> None:
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDropEvent

    win = make_window(qtbot, ScriptedRunner([]))
    other = tmp_path / "note.txt"
    other.write_text("x")

    async def scenario() -> None:
        mime = QMimeData()
        mime.setUrls(
            [
                QUrl.fromLocalFile(str(corpus_file(SHORT_1V1))),
                QUrl.fromLocalFile(str(other)),
                QUrl.fromLocalFile(str(corpus_file(ALLIES_VS_EMPIRE))),
            ]
        )
        event = QDropEvent(
            QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
        )
        win.dropEvent(event)
        await until(lambda: win.info is not None and win.library.model.rowCount() == 2, what="dropped files")
        assert win.info is not None
        assert win.info.path.name == SHORT_1V1
        assert {p.name for p in win.library.model.paths()} == {SHORT_1V1, ALLIES_VS_EMPIRE}

    try:
        run(scenario())
    finally:
        close_window(win)


def test_side_tabs_host_the_wisdom_and_memory_views(qtbot: Any, run: Any) -> None:
    from app.i18n import Lang
    from app.memory import FeedbackInput, MemoryStore
    from app.store import open_database
    from app.wisdom import ErrorWisdomManager
    from ui.tabs.memory_tabs import MemoryTabs
    from ui.tabs.players_tab import PlayersTab
    from ui.tabs.wisdom_tab import WisdomTab

    db = open_database()  # the user's store (REPLAYSAGE_HOME), as the window opens it
    entry_id = ErrorWisdomManager(db, Lang.EN).record_error(
        "工具性错误",
        "调用失败类",
        "CONTEXT_OVERFLOW",
        "overflow",
        "too long",
        "shrink",
        "keep under the limit",
        "t",
        {"severity": "severe", "model": "m1", "confidence": 0.9},
    )
    MemoryStore(db).record_feedback(FeedbackInput("ana", preference="请简洁"))
    fact_ids = [str(f.id) for f in MemoryStore(db).facts()]
    db.close()
    win = make_window(qtbot, ScriptedRunner([]))

    async def scenario() -> None:
        assert isinstance(win.side.wisdom_tab, WisdomTab)
        assert isinstance(win.side.memory_tabs, MemoryTabs)
        assert isinstance(win.side.players_tab, PlayersTab)
        assert win.side.tabs.count() == 3
        await win.side.wisdom_tab.refreshed()
        await win.side.memory_tabs.refreshed()
        entries = win.side.wisdom_tab.model
        assert [entries.row_id(r) for r in range(entries.rowCount())] == [entry_id]
        assert win.side.wisdom_tab.rules_table.rowCount() == 5  # the built-ins
        facts = win.side.memory_tabs.facts.model
        assert fact_ids
        assert [facts.row_id(r) for r in range(facts.rowCount())] == fact_ids
        win.set_language(Lang.EN)  # rebuilt: the new views load again, the old ones stop
        await win.side.wisdom_tab.refreshed()
        await win.side.memory_tabs.refreshed()
        assert win.side.wisdom_tab.model.row_id(0) == entry_id
        assert win.side.wisdom_tab.message.text() == ""
        assert not win.side.dock.isVisible()  # a 1280-wide first window starts with the side panel closed
        win.menus.side_action.trigger()  # Ctrl+B shows the side tabs, and hides them again
        assert win.side.tabs.isVisible()
        win.menus.side_action.trigger()
        assert not win.side.tabs.isVisible()

    try:
        run(scenario())
    finally:
        close_window(win)


def test_a_partial_run_is_not_shown_as_complete(qtbot: Any, run: Any) -> None:
    """A run that ends ``partial`` (e.g. its overview skipped, issue 29) says it is resumable, not complete."""
    steps = script(chunks=2)
    overview = STAGES[1]
    at = next(i for i, s in enumerate(steps) if isinstance(s, ev.StageFinished) and s.stage == overview)
    steps[at] = ev.StageFailed(overview, "overview failed, continuing without it: HTTP 429", "", "error")
    steps[-1] = ev.RunFinished(7, "partial", 30_000, 1_800, 0.006)
    win = make_window(qtbot, ScriptedRunner(steps), lang="en")

    async def scenario() -> None:
        await win.open_replay(corpus_file(SHORT_1V1))
        win.menus.analyze_action.trigger()
        await until(lambda: not win.analysis.running and win.analysis.status == "partial", what="the partial run")
        await until(lambda: win.status.text() == "Analysis partly done (resumable)", what="the status line")
        assert win.status.progress.isHidden()

    try:
        run(scenario())
    finally:
        close_window(win)
