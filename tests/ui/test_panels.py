"""Stage panel details: the thinking timer, Markdown slicing, failures keep partial text, thread-safe emit."""

from __future__ import annotations

import asyncio
import re
import threading
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.i18n import N_, Lang
from app.pipeline import events as ev
from tests.support.scripted_runner import ScriptedRunner
from tests.ui.conftest import until
from ui.analysis_view import AnalysisView, StagePanel, markdown_chunks
from ui.lang import UiLanguage

pytestmark = pytest.mark.gui

STAGE = ev.StageRef(ev.StageKind.WINDOW, 0, 0, 60.0, 120.0)


def test_thinking_timer_runs_while_reasoning_and_stops_at_the_answer(qtbot: Any, run: Any) -> None:
    ui = UiLanguage(Lang.EN)
    panel = StagePanel(STAGE, N_("Window {n}"), ui, n=1)
    qtbot.addWidget(panel)

    async def scenario() -> None:
        panel.reasoning_delta(ev.ReasoningDelta(STAGE, "hmm "))
        assert re.fullmatch(r"thinking \d+ s", panel.reasoning_section.title())
        assert not panel.reasoning_section.expanded
        await asyncio.sleep(1.1)
        await until(lambda: panel.reasoning_section.title() != "thinking 0 s", what="the timer to tick")
        panel.text_delta(ev.TextDelta(STAGE, "answer"))
        title = panel.reasoning_section.title()
        assert re.fullmatch(r"thought for [1-9]\d* s", title)
        await asyncio.sleep(0.6)
        assert panel.reasoning_section.title() == title  # stopped
        ui.set_lang(Lang.ZH)
        assert panel.reasoning_section.title().startswith("思考了")
        assert panel.title().startswith("窗口 1  1:00–2:00")

    run(scenario())


def test_failed_stage_keeps_partial_text_and_reason(qtbot: Any) -> None:
    panel = StagePanel(STAGE, N_("Window {n}"), UiLanguage(Lang.EN), n=1)
    qtbot.addWidget(panel)
    panel.failed(ev.StageFailed(STAGE, "HTTP 429 rate limited", "partial answer"))
    assert panel.status == "failed"
    assert panel.live_box.toPlainText() == "partial answer"
    assert panel.error_label.text() == "HTTP 429 rate limited"
    assert "failed" in panel.title()


def test_retry_then_cut_reply_is_shown_with_its_outcome(qtbot: Any) -> None:
    ui = UiLanguage(Lang.EN)
    panel = StagePanel(STAGE, N_("Window {n}"), ui, n=1)
    qtbot.addWidget(panel)
    panel.retry(ev.RetryScheduled(STAGE, 1, 5, 8.0, "HTTP 503"))
    assert panel.error_label.text() == "retry 2/5 in 8 s: HTTP 503"
    assert "retrying" in panel.title()
    panel.text_delta(ev.TextDelta(STAGE, "Allied player opened with"))
    panel.failed(ev.StageFailed(STAGE, "the reply was cut after 25 characters", "Allied player opened with", "cut"))
    assert panel.status == "cut"
    assert panel.title().endswith("· cut")
    assert panel.live_box.toPlainText() == "Allied player opened with"  # the partial text stays visible
    ui.set_lang(Lang.ZH)
    assert panel.title().endswith("· 连接中断")


def test_markdown_chunks_rejoin_and_never_cut_a_code_fence() -> None:
    fence = "```\n" + "\n".join(f"code line {i}" for i in range(400)) + "\n```\n"
    text = "# Title\n\n" + "\n".join(f"- item {i} " + "x" * 40 for i in range(600)) + "\n\n" + fence + "tail\n"
    chunks = markdown_chunks(text, 2000)
    assert len(chunks) > 5
    assert "\n".join(chunks) == text
    for c in chunks:
        assert c.count("```") % 2 == 0
    assert markdown_chunks("short") == ["short"]


def test_events_from_a_worker_thread_arrive_in_order(qtbot: Any, run: Any) -> None:
    view = AnalysisView(ScriptedRunner([]), UiLanguage(Lang.EN))
    qtbot.addWidget(view)
    stage = ev.StageRef(ev.StageKind.OVERVIEW)

    async def scenario() -> None:
        view._loop = asyncio.get_running_loop()
        view.handle(ev.RunStarted(1, "r", "m", (stage,)))

        def worker() -> None:
            for i in range(500):
                view.post(ev.TextDelta(stage, f"{i},"))

        t = threading.Thread(target=worker)
        t.start()
        await asyncio.to_thread(t.join)
        expected = "".join(f"{i}," for i in range(500))
        await until(lambda: view.panels["overview"].live_text() == expected, what="all deltas")

    run(scenario())


def _ten_minute_chart(qtbot: Any) -> tuple[Any, Any]:
    """A 650×200 timeline of a 10-minute replay with one player at a flat 10 APM."""
    from ui.replay_card import TimelineChart
    from ui.replay_info import PlayerInfo, ReplayInfo

    chart = TimelineChart(UiLanguage(Lang.EN))
    qtbot.addWidget(chart)
    chart.resize(650, 200)
    info = ReplayInfo(
        path=__import__("pathlib").Path("x.RA3Replay"),
        duration=600.0,
        players=(PlayerInfo("A", "Allies", 0, "#2f6fde", 100.0, apm_buckets=(10.0,) * 10),),
    )
    chart.set_replay(info)
    return chart, info


def test_timeline_draws_windows_lookbacks_and_marker(qtbot: Any) -> None:
    from PySide6.QtGui import QColor

    chart, _info = _ten_minute_chart(qtbot)
    chart.set_plan([(0.0, 300.0), (300.0, 600.0)], [(60.0, 120.0)])
    chart.add_lookback(400.0, 450.0)
    chart.jump_to(500.0)
    # the axis maps game time linearly onto the plot and back
    assert chart.time_at(chart.x_of(137.0)) == pytest.approx(137.0, abs=1.0)
    assert chart.x_of(0.0) == chart.MARGIN_L
    img = chart.grab().toImage()
    top = chart.height() - chart.MARGIN_B - 60  # below the flat APM curve, above the lookback strip
    inside = QColor(img.pixel(int(chart.x_of(90.0)), top))
    outside = QColor(img.pixel(int(chart.x_of(200.0)), top))
    assert inside != outside  # the focus window is shaded
    assert inside.red() > inside.blue()  # amber, not the background grey
    marker = QColor(img.pixel(int(chart.x_of(500.0)), top + 20))
    assert marker.red() > 150  # the red time marker
    assert marker.green() < 80
    bottom = chart.height() - chart.MARGIN_B

    def strip_colors(t: float) -> set[str]:
        x = int(chart.x_of(t))
        return {QColor(img.pixel(x + dx, bottom - dy)).name() for dx in range(6) for dy in range(2, 7)}

    assert "#6a1b9a" in strip_colors(420.0)  # the hatched lookback strip
    assert "#6a1b9a" not in strip_colors(200.0)
    column = {QColor(img.pixel(int(chart.x_of(300.0)), y)).name() for y in range(top, top + 12)}
    assert column != {outside.name()}  # the dashed segment boundary


def test_a_long_paragraph_is_shown_in_pieces_and_kept_whole(qtbot: Any) -> None:
    from ui.widgets import BLOCK_CHARS, StreamBuffer, text_box

    box = text_box()
    qtbot.addWidget(box)
    buf = StreamBuffer(box)
    words = [f"word{i % 97} " if i % 5 else "数据，" for i in range(3000)]  # ~18,000 characters, no line break
    for n, w in enumerate(words):
        buf.append(w)
        if n % 40 == 0:
            buf.flush()
    buf.flush()
    original = "".join(words)
    assert buf.text() == original  # the stream is kept exactly
    shown = box.toPlainText()
    assert shown.replace("\n", "") == original  # only paragraph breaks were added for display
    paragraphs = shown.split("\n")
    assert len(paragraphs) >= len(original) // BLOCK_CHARS
    assert max(len(p) for p in paragraphs) <= BLOCK_CHARS
    assert all(p.endswith((" ", "，")) for p in paragraphs[:-1])  # cut after a space or punctuation


@given(st.lists(st.tuples(st.sampled_from(["ab", "ab ", "数据，", "x\ny"]), st.integers(0, 3000)), max_size=25))
def test_display_pieces_rejoin_and_respect_the_paragraph_limit(parts: list[tuple[str, int]]) -> None:
    from ui.widgets import BLOCK_CHARS, StreamBuffer

    class Probe:  # only the counter _display_pieces keeps between flushes
        _block = 0

    probe = Probe()
    shown: list[str] = []
    for alphabet, n in parts:
        chunk = (alphabet * (n // len(alphabet) + 1))[:n]
        pieces = StreamBuffer._display_pieces(probe, chunk)  # type: ignore[arg-type]
        assert "".join(pieces) == chunk
        shown.append("\n".join(pieces))
    paragraphs = "".join(shown).split("\n")
    assert max(len(p) for p in paragraphs) <= BLOCK_CHARS
    assert probe._block == len(paragraphs[-1])


def test_the_prompt_is_set_into_its_box_only_when_opened(qtbot: Any) -> None:
    panel = StagePanel(STAGE, N_("Window {n}"), UiLanguage(Lang.EN), n=1)
    qtbot.addWidget(panel)
    panel.started(ev.StageStarted(STAGE, {"system": 10, "total": 10}, "first prompt"))
    assert panel.prompt_section.text() == "first prompt"
    assert panel.prompt_box.toPlainText() == ""  # collapsed: nothing laid out yet
    panel.prompt_section.header.click()
    assert panel.prompt_box.toPlainText() == "first prompt"
    panel.started(ev.StageStarted(STAGE, {"system": 10, "total": 10}, "revision prompt"))
    assert panel.prompt_box.toPlainText() == "first prompt\n\n────────\n\nrevision prompt"  # open: at once


def test_timeline_curves_are_drawn_once_per_replay_and_size(qtbot: Any) -> None:
    chart, info = _ten_minute_chart(qtbot)
    layer = chart._curves_layer()
    chart.set_plan([(0.0, 300.0), (300.0, 600.0)], [(60.0, 120.0)])
    chart.add_lookback(400.0, 450.0)
    assert chart._curves_layer() is layer  # overlays do not redraw the curves
    chart.resize(700, 200)
    resized = chart._curves_layer()
    assert resized is not layer
    chart.set_replay(info)
    assert chart._curves_layer() is not resized
