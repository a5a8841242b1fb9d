"""Window flows of issue 16 on the real window offscreen: safe keys during a run, reopening the latest analysis."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox, QTableWidget

from app.settings import ModelProfileSettings, ProviderSettings, Settings
from tests.conftest import corpus_file
from tests.support.scripted_runner import ScriptedRunner
from tests.support.typed import cell_text
from tests.ui.conftest import until
from tests.ui.scripts import script
from ui.lang import UiLanguage
from ui.main_window import AppContext, MainWindow

pytestmark = pytest.mark.gui

SHORT_1V1 = "ra3_1v1_industrial_strength_observer_7m.RA3Replay"


def make_window(qtbot: Any, runner: Any = None, lang: str = "en") -> MainWindow:
    from app.i18n import Lang

    ctx = AppContext.open(runner=runner)
    win = MainWindow(ctx, UiLanguage(Lang(lang)))
    qtbot.addWidget(win)
    win.show()
    win.activateWindow()
    return win


def asked(win: MainWindow) -> QMessageBox:
    """The question the window asked last (there must be one)."""
    box = win.run.confirm_box
    assert box is not None
    return box


def close_window(win: MainWindow) -> None:
    win.close()
    win.ctx.db.close()


def test_offline_model_name_matches_the_offline_analyst() -> None:
    from app.analyst.provider import OFFLINE_MODEL
    from ui.analysis_view import OFFLINE_MODEL as VIEW_OFFLINE_MODEL

    assert VIEW_OFFLINE_MODEL == OFFLINE_MODEL


def test_esc_and_f5_during_a_paid_run_do_not_discard_it(qtbot: Any, run: Any) -> None:
    settings = Settings.load()
    settings.put_provider(ProviderSettings("Hosted", "http://127.0.0.1:9/v1"))
    settings.put_profile(
        ModelProfileSettings("paid", "Hosted", "m", context_length=200_000, price_input=0.27, price_output=1.1)
    )
    settings.save()
    runner = ScriptedRunner(script(chunks=40, pause=0.005, stall_at=("window:0:0", 5), stall=60.0))
    win = make_window(qtbot, runner)
    std = QMessageBox.StandardButton

    async def scenario() -> None:
        await win.open_replay(corpus_file(SHORT_1V1))
        view = win.analysis
        view.model_picker.setCurrentIndex(view.model_picker.findData("paid"))
        win.run.analyze()
        await until(
            lambda: "window:0:0" in view.panels and "part 5." in view.panels["window:0:0"].live_text(),
            what="the run to stream",
        )
        # Esc in the library's search box is the search box's business
        win.library.search.setFocus()
        QTest.keyClick(win.library.search, Qt.Key.Key_Escape)
        await until(lambda: True)
        assert view.running
        assert win.run.confirm_box is None
        # Esc in the analysis area asks first (a paid model); No keeps the run
        view.scroll_area.setFocus()
        QTest.keyClick(view.scroll_area, Qt.Key.Key_Escape)
        await until(
            lambda: win.run.confirm_box is not None and asked(win).isVisible(),
            what="the cancel question",
        )
        assert view.running
        asked(win).button(std.No).click()
        await until(lambda: not asked(win).isVisible(), what="the question to close")
        assert view.running
        # F5 during the run asks too; No keeps it (no second run was started)
        win.menus.analyze_action.trigger()
        assert asked(win).isVisible()
        assert "running" in asked(win).text()
        asked(win).button(std.No).click()
        await until(lambda: not asked(win).isVisible(), what="the question to close")
        assert view.running
        assert runner.runs == 1
        assert view.panels["window:0:0"].status == "running"
        # Yes cancels, keeping what streamed
        QTest.keyClick(view.scroll_area, Qt.Key.Key_Escape)
        await until(lambda: asked(win).isVisible(), what="the cancel question")
        asked(win).button(std.Yes).click()
        await until(lambda: not view.running, what="the run to stop")
        assert view.status == "cancelled"
        assert "part 5." in view.panels["window:0:0"].live_text()

    try:
        run(scenario())
    finally:
        close_window(win)


@pytest.mark.parametrize("paid", [True, False])
def test_the_cancel_button_and_esc_do_the_same(qtbot: Any, run: Any, paid: bool) -> None:
    """Issue 30 item 9: the Cancel button stopped a paid run at once while Esc asked first; now both ask (paid)
    or both stop at once (the offline analyst costs nothing)."""
    settings = Settings.load()
    settings.put_provider(ProviderSettings("Hosted", "http://127.0.0.1:9/v1"))
    settings.put_profile(
        ModelProfileSettings("paid", "Hosted", "m", context_length=200_000, price_input=0.27, price_output=1.1)
    )
    settings.save()
    runner = ScriptedRunner(script(chunks=40, pause=0.005, stall_at=("window:0:0", 5), stall=60.0))
    win = make_window(qtbot, runner)
    std = QMessageBox.StandardButton
    view = win.analysis

    def press_button() -> None:
        view.cancel_button.click()

    def press_esc() -> None:
        view.scroll_area.setFocus()
        QTest.keyClick(view.scroll_area, Qt.Key.Key_Escape)

    async def start() -> None:
        runs = runner.runs
        view.model_picker.setCurrentIndex(view.model_picker.findData("paid" if paid else "offline"))
        win.run.analyze()
        await until(
            lambda: (
                runner.runs == runs + 1
                and view.panels["window:0:0"].status == "running"
                and "part 5." in view.panels["window:0:0"].live_text()
            ),
            what="the run to stream",
        )

    async def cancel_with(press: Any) -> str:
        """Cancel a fresh run with ``press``; the question asked (paid) or ""."""
        await start()
        before = win.run.confirm_box
        press()
        await until(lambda: True)
        box = win.run.confirm_box
        question = ""
        if paid:
            assert box is not None
            assert box is not before
            assert box.isVisible()
            assert view.running  # nothing stopped before the answer
            question = box.text()
            box.button(std.No).click()
            await until(lambda: not box.isVisible(), what="the question to close")
            assert view.running
            press()
            await until(lambda: win.run.confirm_box is not box and asked(win).isVisible(), what="asked again")
            asked(win).button(std.Yes).click()
            await until(lambda: not asked(win).isVisible(), what="the question to close")
        else:
            assert box is before  # nothing asked: the offline analyst spends nothing
        await until(lambda: not view.running, what="the run to stop")
        assert view.status == "cancelled"
        win.activateWindow()  # as a user's click back into the window does after the question
        await until(lambda: QApplication.activeWindow() is win, what="the window to be active again")
        return question

    async def scenario() -> None:
        await win.open_replay(corpus_file(SHORT_1V1))
        by_button = await cancel_with(press_button)
        by_esc = await cancel_with(press_esc)
        assert by_button == by_esc
        if paid:
            assert by_button.startswith("Finished stages are kept")

    try:
        run(scenario())
    finally:
        close_window(win)


def test_shortcuts_list_and_no_stray_mnemonics(qtbot: Any, run: Any) -> None:
    win = make_window(qtbot)
    try:
        dlg = win.menus.show_shortcuts()
        table = dlg.findChild(QTableWidget)
        assert table is not None
        rows = {cell_text(table, r, 1): cell_text(table, r, 0) for r in range(table.rowCount())}
        assert "F5" in rows
        assert "Esc" in rows
        assert "analysis area" in rows["Esc"]
        assert "F1" in rows
        tabs = win.side.wisdom_tab.pages if hasattr(win.side.wisdom_tab, "pages") else None
        if tabs is not None:
            titles = [tabs.tabText(i) for i in range(tabs.count())]
            assert "Audit && metrics" in titles  # shown as "Audit & metrics" (a lone & made "Audit _metrics")
    finally:
        close_window(win)


def test_opening_a_replay_shows_its_latest_analysis_as_it_was_live(qtbot: Any, run: Any) -> None:
    replay = corpus_file(SHORT_1V1)
    live = make_window(qtbot)
    snapshot: dict[str, Any] = {}

    def snap(win: MainWindow) -> dict[str, Any]:
        view = win.analysis
        view.flush_all()
        return {
            k: (
                p.title(),
                p.status,
                p.final_text,
                p.budget_bar.values if p._built else {},
                p.usage_label.text() if p._built else "",
                [i.message for i in p.issues],
            )
            for k, p in view.panels.items()
        }

    async def first() -> None:
        await live.open_replay(replay)
        assert live.analysis.placeholder.isVisibleTo(live.analysis)  # nothing stored yet: say what to do
        live.run.analyze()
        await until(
            lambda: live.analysis.status == "completed" and not live.analysis.running,
            timeout=90,
            what="the offline run",
        )
        snapshot.update(snap(live))

    try:
        run(first())
    finally:
        close_window(live)
    assert snapshot

    again = make_window(qtbot)

    async def second() -> None:
        await again.open_replay(replay)
        view = again.analysis
        assert not view.running
        assert snap(again) == snapshot  # the same panels, texts, bars and usage as the live run
        assert not view.placeholder.isVisibleTo(view)
        assert "Analysing" not in again.status.text()
        assert "Showing stored analysis" in again.status.text()
        assert not again.status.progress.isVisible()
        for panel in view.panels.values():
            if panel._built:
                assert "[claims]" not in panel.live_text()
                assert all("[claims]" not in d for d in panel.drafts)
                usage = panel.usage_label.text()
                if usage:  # the offline analyst: no speed or cost, and no fake numbers for them
                    assert "TTFT – · – tok/s · cost –" in usage

    try:
        run(second())
    finally:
        close_window(again)


def test_outline_jumps_and_the_view_follows_the_running_stage(qtbot: Any, run: Any) -> None:
    from PySide6.QtWidgets import QAbstractSlider

    from tests.ui.scripts import STAGES

    runner = ScriptedRunner(script(chunks=60, pause=0.01))
    win = make_window(qtbot, runner)
    win.resize(1280, 720)

    async def scenario() -> None:
        await win.open_replay(corpus_file(SHORT_1V1))
        view = win.analysis
        bar = view.scroll_area.verticalScrollBar()
        win.run.analyze()
        # the outline lists every stage in plan order before anything streams
        await until(lambda: len(view.outline.items) == len(STAGES), what="the outline")
        # the running stage is the open one, and the view scrolls to it
        key = "window:0:1"
        await until(lambda: key in view.panels and view.panels[key].status == "running", what=f"{key} to run")
        panel = view.panels[key]
        assert panel.expanded
        assert not view.panels["window:0:0"].expanded  # finished before: folded back
        assert view.outline.items[key].text(0).startswith("◐")
        await until(lambda: bar.value() == view.outline.scroll_target(key) > 0, what="the view to follow")
        # the reader scrolls: the view stops following
        bar.triggerAction(QAbstractSlider.SliderAction.SliderToMinimum)
        assert not view.outline.follow_box.isChecked()
        await until(lambda: view.panels["window:1:0"].status == "running", what="the next stage")
        assert view.panels["window:1:0"].expanded  # still opened for the reader…
        assert bar.value() == 0  # …but the view stayed where the reader put it
        await until(lambda: view.status == "completed" and not view.running, what="the run to end")
        # done: the summary is first, open, and shown; the collapsed headers carry the issue counts
        summary = view.panels["summary_round"]
        first = view.outline.tree.topLevelItem(0)
        assert first is not None
        assert first.data(0, Qt.ItemDataRole.UserRole) == "summary_round"
        assert view.panel_layout.indexOf(summary) == 1  # right after the (hidden) placeholder
        assert summary.expanded
        await until(lambda: bar.value() == view.outline.scroll_target("summary_round"), what="the summary in view")
        revised = view.panels["window:0:1"]
        assert not revised.expanded
        # 2 issues caused the revision and the same 2 remain after it; the Info hint needs no revision, so it is not
        # counted (one tally for the header, the outline and the issues section)
        assert "found 2 · fixed 0 · 2 left" in revised.title()
        assert "found 2 · fixed 0 · 2 left" in view.outline.items["window:0:1"].text(0)
        assert all(view.outline.items[k].text(0).startswith("●") for k in view.panels)
        # a click in the outline opens that stage and scrolls its header to the top
        item = view.outline.items["window:1:0"]
        view.outline.tree.itemClicked.emit(item, 0)
        target = view.panels["window:1:0"]
        assert target.expanded
        await until(lambda: bar.value() == view.outline.scroll_target("window:1:0") > 0, what="the jump")
        assert (
            abs(target.mapTo(view.container, target.rect().topLeft()).y() - bar.value()) <= 1
            or bar.value() == bar.maximum()
        )
        assert view.summary_button.isEnabled()
        view.summary_button.click()
        await until(lambda: bar.value() == view.outline.scroll_target("summary_round"), what="back to the summary")

    try:
        run(scenario())
    finally:
        close_window(win)


def test_clicking_an_issue_selects_its_claim_and_highlights_the_citing_sentence(qtbot: Any, run: Any) -> None:
    from app.claims.issues import Severity, ValidationIssue
    from app.pipeline import events as ev

    stage = ev.StageRef(ev.StageKind.WINDOW, 0, 0, 60.0, 180.0)
    claims = {
        "unitClaims": [{"unitId": 1234, "player": "Alice", "type": "AlliedTank", "confidence": "confirmed"}],
        "eventClaims": [{"time": "2:30.00", "player": "Alice", "kind": "build", "name": "Refinery"}],
        "timelineClaims": [],
    }
    # the validator gives each issue its claim's typed reference (``claim``: list and index) and the object id
    unit_issue = ValidationIssue(
        Severity.CONTRADICTION,
        "OwnershipContradiction",
        "unit claim 1: #1234 is claimed for Alice but Boris has strong ownership evidence",
        150.0,
        1234,
        claim="unit:0",
    )
    event_issue = ValidationIssue(
        Severity.WARNING, "EventNotFound", "event claim 1: no build of Refinery near 2:30", 150.0, claim="event:0"
    )
    loose = ValidationIssue(Severity.INFO, "Style", "be more specific")
    text = (
        "## Window 1\n\nAlice opened with a barracks at 1:00.\n\nThe tank #1234 belongs to Alice.\n\n"
        "She built a refinery at 2:30.\n"
    )
    events: list[ev.PipelineEvent] = [
        ev.RunStarted(3, "replay", "scripted", (stage,), segments=((0.0, 300.0),)),
        ev.StageStarted(stage, {}, "PROMPT"),
        ev.TextDelta(stage, text + "\n[claims]\n```json\n{}\n```"),
        ev.ClaimsParsed(stage, claims),
        ev.IssuesFound(stage, (unit_issue, event_issue, loose)),
        ev.StageFinished(stage, text),
        ev.RunFinished(3, "completed"),
    ]
    win = make_window(qtbot, ScriptedRunner(events))

    async def scenario() -> None:
        await win.open_replay(corpus_file(SHORT_1V1))
        win.run.analyze()
        view = win.analysis
        await until(lambda: view.status == "completed" and not view.running, what="the run")
        panel = view.panels[stage.key]
        table = panel.claims_table
        assert table.rowCount() == 2
        assert cell_text(table, 0, 0).startswith("U1 · unit #1234")
        assert cell_text(table, 0, 1) == "Alice"
        assert cell_text(table, 0, 3) == "confirmed"
        assert "Contradiction" in cell_text(table, 0, 4)
        assert cell_text(table, 1, 0).startswith("E1 · event")
        assert cell_text(table, 1, 2) == "2:30"
        assert "Warning" in cell_text(table, 1, 4)
        rows = {
            panel.issue_list.item(i).data(Qt.ItemDataRole.UserRole + 1).code: panel.issue_list.item(i)
            for i in range(panel.issue_list.count())
        }
        panel.issue_list.itemClicked.emit(rows["OwnershipContradiction"])
        assert table.selected_index() == 0
        assert panel.claims_section.expanded
        assert panel.cited_text == "The tank #1234 belongs to Alice."
        assert win.timeline.marker == 150.0
        panel.issue_list.itemClicked.emit(rows["EventNotFound"])
        assert table.selected_index() == 1
        assert panel.cited_text == "She built a refinery at 2:30."
        panel.issue_list.itemClicked.emit(rows["Style"])  # names no claim: nothing selected or highlighted
        assert table.selected_index() is None
        assert panel.cited_text == ""

    try:
        run(scenario())
    finally:
        close_window(win)


def test_analysis_language_follows_the_interface_unless_set_apart(qtbot: Any, monkeypatch: Any) -> None:
    from app.i18n import Lang

    monkeypatch.setenv("REPLAYSAGE_LANG", "en")  # an English system
    win = make_window(qtbot, lang="zh")  # a Chinese window (View → 中文, or --lang zh)
    try:
        assert win.ctx.settings.get("analysis_language") == ""
        assert win.run_settings().analysis_lang() is Lang.ZH
        assert win.ctx.settings.get("analysis_language") == ""  # the user's settings are not rewritten
        win.ctx.settings.set("analysis_language", "en")  # set apart on purpose: kept
        assert win.run_settings().analysis_lang() is Lang.EN
    finally:
        close_window(win)


def test_side_panel_open_on_a_laptop_screen_keeps_the_analysis_readable(qtbot: Any, run: Any) -> None:
    """1366 wide with the side panel at 640 px: no sideways scrolling in the analysis; Ctrl+L folds the library
    away for more room, and the fold is remembered by the next window."""
    from app.paths import sample_replay
    from app.pipeline import events as ev

    win = make_window(qtbot)
    win.resize(1366, 768)
    view = win.analysis
    stages = (ev.StageRef(ev.StageKind.SUMMARY), ev.StageRef(ev.StageKind.OVERVIEW, end_seconds=220.0))

    async def scenario() -> None:
        await win.open_replay(sample_replay())
        view.handle(ev.RunStarted(1, str(sample_replay()), "offline", stages))
        view.handle(ev.StageStarted(stages[0], {}, ""))
        view.handle(ev.StageFinished(stages[0], "## Match summary\n" + "Alice opens with a Power Plant. " * 40))
        win.side.dock.show()
        win.resizeDocks([win.side.dock], [640], Qt.Orientation.Horizontal)
        await win.side.tabs_loaded()
        qtbot.wait(50)
        assert view.scroll_area.horizontalScrollBar().maximum() == 0  # the panels fit the pane's width
        # the library and the outline gave up width too (they kept theirs, and the panels were 198 px wide)
        assert view.scroll_area.viewport().width() >= 280
        header = view.panels["summary"].header
        assert header.full_text().startswith("Match summary (no model)")
        if header.text() != header.full_text():  # shortened to fit: the whole title is the tooltip
            assert header.text().endswith("…")
            assert header.toolTip() == header.full_text()
        narrow = view.scroll_area.viewport().width()
        assert win.library_shown
        QTest.keyClick(win, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
        qtbot.wait(50)
        assert not win.library_shown
        assert view.scroll_area.viewport().width() > narrow + 100  # the library's width went to the analysis
        win.save_layout()
        again = MainWindow(win.ctx, UiLanguage(win.ui.lang))
        qtbot.addWidget(again)
        again.show()
        assert not again.library_shown  # remembered
        again.toggle_library()
        assert again.library_shown
        assert again.focusWidget() is again.library.search  # typing goes to the library search
        again.close()

    try:
        run(scenario())
    finally:
        close_window(win)


def test_a_long_section_title_never_widens_the_page(qtbot: Any) -> None:
    from ui.widgets import Collapsible

    long_title = "Window 12  1:23:45–1:29:59  · done · validation found 12 · fixed 11 · 1 left " * 3
    section = Collapsible(long_title)
    qtbot.addWidget(section)
    assert section.minimumSizeHint().width() < 150
    section.resize(220, 40)
    section.show()
    assert section.header.text().endswith("…")
    assert section.header.toolTip() == long_title
    assert section.title() == long_title
    section.set_title("Short")
    assert section.header.text() == "Short"
    assert section.header.toolTip() == ""
