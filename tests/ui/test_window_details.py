"""Smaller things people notice (issue 30, item 9) on the real window offscreen."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtWidgets import QStyle, QStyleOptionComboBox

from app.i18n import Lang
from app.paths import sample_replay
from app.pipeline import events as ev
from tests.conftest import corpus_file
from tests.support.scripted_runner import ScriptedRunner
from tests.ui.conftest import until
from tests.ui.scripts import script
from tests.ui.test_window_flows import SHORT_1V1, close_window, make_window

pytestmark = pytest.mark.gui

ALLIES_VS_EMPIRE = "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"


def test_the_sample_is_called_the_sample(qtbot: Any, run: Any) -> None:
    win = make_window(qtbot)
    view = win.analysis

    async def scenario() -> None:
        assert view.placeholder.text() == "Open a replay (Ctrl+O), then press Analyze (F5)."
        await win.open_replay(sample_replay())
        assert view.placeholder.isVisibleTo(view)
        text = view.placeholder.text()
        assert "bundled sample replay" in text
        assert sample_replay().name in text
        assert "Open a replay" not in text
        win.set_language(Lang.ZH)
        assert "自带的示例录像" in view.placeholder.text()
        await win.open_replay(corpus_file(SHORT_1V1))
        assert view.placeholder.text() == f"{SHORT_1V1} 还没有分析。按“分析”（F5）开始。"

    try:
        run(scenario())
    finally:
        close_window(win)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_model_box_shows_its_whole_text(qtbot: Any, run: Any, lang: str) -> None:
    win = make_window(qtbot, lang=lang)
    win.resize(1024, 600)
    picker = win.analysis.model_picker

    async def scenario() -> None:
        await win.open_replay(sample_replay())
        texts = [picker.itemText(i) for i in range(picker.count())]
        assert any(t.startswith("offline") for t in texts)
        widest = max(picker.fontMetrics().horizontalAdvance(t) for t in texts)
        option = QStyleOptionComboBox()
        picker.initStyleOption(option)
        field = picker.style().subControlRect(
            QStyle.ComplexControl.CC_ComboBox, option, QStyle.SubControl.SC_ComboBoxEditField, picker
        )
        assert field.width() >= widest  # the text field beside the arrow holds every item: nothing cut

    try:
        run(scenario())
    finally:
        close_window(win)


def test_whole_run_totals_are_the_sum_of_the_stages(qtbot: Any, run: Any) -> None:
    runner = ScriptedRunner(script())
    win = make_window(qtbot, runner)
    view = win.analysis

    async def scenario() -> None:
        await win.open_replay(corpus_file(SHORT_1V1))
        task = win.run.analyze()
        assert task is not None
        await task
        # the script's six stages: prompt 5000+i (cached 1000), completion 300, reasoning 40, cost 0.001 each
        assert view.totals_label.text() == (
            "Whole run: prompt 30,015 (cached 6,000) · completion 1,800 · reasoning 240 · cost 0.0060"
        )
        win.set_language(Lang.ZH)
        assert view.totals_label.text().startswith("整次分析：提示 30,015（缓存 6,000）")

    try:
        run(scenario())
    finally:
        close_window(win)


def _shown(view: Any) -> dict[str, Any]:
    """What a reader sees of every stage: title, status, issue rows, text, usage line; and the run's totals."""
    out: dict[str, Any] = {"totals": view.totals_label.text()}
    for key, panel in view.panels.items():
        out[key] = (
            panel.title(),
            panel.status,
            [panel.issue_list.item(i).text() for i in range(panel.issue_list.count())],
            panel.usage_label.text(),
        )
    return out


def test_a_live_run_and_its_reopening_look_the_same(qtbot: Any, run: Any) -> None:
    win = make_window(qtbot)
    view = win.analysis

    async def scenario() -> None:
        await win.open_replay(corpus_file(ALLIES_VS_EMPIRE))
        task = win.run.analyze()
        assert task is not None
        await task
        assert view.status == "completed", win.message_bar.label.text()
        view.flush_all()
        live = _shown(view)
        assert view.analysis_id is not None
        await win.run.reopen(view.analysis_id)
        reopened = _shown(view)
        assert set(reopened) == set(live)
        for key in live:
            assert reopened[key] == live[key], key

    try:
        run(scenario())
    finally:
        close_window(win)


def test_the_library_remembers_replays_opened_at_earlier_starts(qtbot: Any, run: Any) -> None:
    first = make_window(qtbot)
    assert not first.ctx.settings.get("replay_folder")  # no replay folder set

    async def open_one() -> None:
        await first.open_replay(corpus_file(SHORT_1V1))

    try:
        run(open_one())
    finally:
        close_window(first)
    second = make_window(qtbot)  # the next start: a new window on the same user data

    async def listed() -> None:
        await until(lambda: second.library.model.rowCount() >= 1, what="the remembered replay to be listed")
        assert [p.name for p in second.library.model.paths()] == [SHORT_1V1]

    try:
        run(listed())
    finally:
        close_window(second)


def test_a_stage_text_reads_in_the_page_not_in_its_own_box(qtbot: Any, run: Any) -> None:
    long_text = "\n\n".join(f"Paragraph {n}: the tank #1234 moved north at {n}:00." for n in range(80))
    steps = [
        ev.StageFinished(e.stage, long_text) if isinstance(e, ev.StageFinished) and e.stage.key == "overview" else e
        for e in script()
    ]
    win = make_window(qtbot, ScriptedRunner(steps))
    win.resize(1366, 768)
    view = win.analysis

    async def scenario() -> None:
        await win.open_replay(corpus_file(SHORT_1V1))
        task = win.run.analyze()
        assert task is not None
        await task
        panel = view.panels["overview"]
        view.outline.jump_to("overview")
        await until(panel.final_view.isVisible, what="the overview text")
        box = panel.final_view
        doc_height = box.document().size().height()
        assert doc_height > 1000  # eighty paragraphs: far more than the old 360 px box
        assert box.height() >= doc_height  # the whole text is laid out in the page
        assert box.verticalScrollBar().maximum() == 0  # no scroll box of its own
        page = view.scroll_area.verticalScrollBar()
        await until(
            lambda: page.maximum() >= doc_height - view.scroll_area.viewport().height(),
            timeout=5,
            what="the page to hold the whole text",
        )

    try:
        run(scenario())
    finally:
        close_window(win)


def test_past_analyses_are_worded_in_the_interface_language(qtbot: Any, run: Any) -> None:
    win = make_window(qtbot, lang="zh")
    view = win.analysis

    async def scenario() -> None:
        await win.open_replay(corpus_file(SHORT_1V1))
        view.model_picker.setCurrentIndex(view.model_picker.findData("offline"))
        task = win.run.analyze()
        assert task is not None
        await task
        refreshed = win.run.refresh_history()
        assert refreshed is not None
        await refreshed
        item = view.history.itemText(0)
        assert item.endswith("离线分析器 · 完成"), item
        assert "offline" not in item
        assert "completed" not in item
        win.set_language(Lang.EN)
        await until(lambda: view.history.itemText(0).endswith("offline analyst · completed"), what="English words")

    try:
        run(scenario())
    finally:
        close_window(win)
