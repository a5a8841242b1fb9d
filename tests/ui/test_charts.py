"""The charts (issue 34): the analysis view's three replay charts, the profile's two, and the light/dark theme.

Expected values of Snow Plow (``ra3_1v1_snow_plow_soviets_vs_allies_14m``), read from
``replaysage facts --log --level 0 --to 1:00`` and the replay's raw commands, not from the chart code:

* lanyiiiiiii (slot 0) places SovietBarracks at 0:02.80 (his first structure; walls are not drawn), then
  SovietPowerPlant 0:13.87 and SovietRefinery at 0:25.73, 0:56.27 and 0:58.40: five structures in the first minute
  (the wall pieces at 0:04.73, 0:10.80, 0:18.80 and 0:59.13 left out). His first unit order is
  SovietScoutInfantry at 0:14.53 (the summary's first-production timeline).
* nickname (slot 1) places his first non-wall structure, AlliedBarracks, at 0:12.60 (a wall piece at 0:04.27).
* Commands with a position argument (the format notes' arg kind 7: 0x214 move, 0x209 place, powers…), counted
  in the parsed replay: 800 by slot 0 and 535 by slot 1.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from app.i18n import Lang
from app.memory import MemoryStore, episode_from_replay
from app.pipeline.records import AnalysisRecord
from app.replay.model import ArgKind
from app.replay.reader import parse_replay, read_replay_bytes
from app.store import Database, open_database
from tests.conftest import corpus_file
from tests.ui.test_window_flows import close_window, make_window
from ui.theme import apply_color_scheme

pytestmark = [pytest.mark.gui, pytest.mark.corpus]

SNOW_PLOW = "ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay"
MIRROR = "ra3_1v1_infinity_isle_allies_mirror_12m.RA3Replay"


def _positioned_orders(path: Path) -> dict[int, int]:
    """Per slot, the replay's commands that carry a position (straight from the parsed commands)."""
    replay = parse_replay(read_replay_bytes(path), str(path))
    out: dict[int, int] = {}
    for cmd in replay.commands:
        if ArgKind.POSITION in cmd.kinds:
            out[cmd.player] = out.get(cmd.player, 0) + 1
    return out


def test_analysis_charts_draw_the_replays_facts(qtbot: Any, run: Any) -> None:
    path = corpus_file(SNOW_PLOW)
    win = make_window(qtbot, lang="en")
    win.resize(1366, 768)
    panel = win.charts

    async def scenario() -> None:
        await win.open_replay(path)
        await panel.loaded()
        assert panel.path is None  # the APM tab in front: the charts are not computed
        panel.setCurrentIndex(1)  # a chart tab brought to the front computes them
        await panel.loaded()
        assert panel.path == path
        assert [panel.tabText(i) for i in range(4)] == ["APM", "Build order", "Production", "Orders map"]

        # build order: the first structure square of each lane at its placement, the first unit triangle
        build = panel.build_chart
        assert build.plot is not None
        lany = build.marks[0]["structure"].data["x"]
        assert min(lany) == pytest.approx(2.80, abs=0.01)
        assert min(build.marks[1]["structure"].data["x"]) == pytest.approx(12.60, abs=0.01)
        assert min(build.marks[0]["unit"].data["x"]) == pytest.approx(14.53, abs=0.01)
        assert sorted(x for x in lany if x < 60) == pytest.approx([2.80, 13.87, 25.73, 56.27, 58.40], abs=0.01)
        tips = build.marks[0]["structure"].data["data"]
        assert tips[0] == "0:02 Barracks"  # knowledge/ra3/objects.json's English name of SovietBarracks, on hover

        # production: lanyiiiiiii's first-minute structures, the bar heights drawn
        panel.pick_player(0)
        prod = panel.production_chart
        assert prod.counts["structure"][0] == 5
        assert float(prod.bars["structure"].opts["height"][0]) == 5
        assert "lanyiiiiiii" in prod.caption.text()

        # where orders were given: every positioned order of the picked player is in the grid
        raw = _positioned_orders(path)
        assert raw == {0: 800, 1: 535}
        heat = panel.heat_map
        assert sum(map(sum, heat.grid)) == raw[0]
        panel.pick_player(1)
        assert sum(map(sum, heat.grid)) == raw[1]
        panel.pick_player(None)
        assert sum(map(sum, heat.grid)) == raw[0] + raw[1]
        assert heat.image is not None

        # the interface language switches the charts' words
        win.ui.set_lang(Lang.ZH)
        assert panel.tabText(1) == "建造顺序"
        # knowledge/ra3/objects.json: SovietBarracks is 军营 in Chinese
        assert panel.build_chart.marks[0]["structure"].data["data"][0] == "0:02 军营"

    try:
        run(scenario())
    finally:
        close_window(win)


def _mean_lightness(widget: Any) -> float:
    image = widget.grab().toImage()
    values = [
        image.pixelColor(x, y).lightness()
        for x in range(0, image.width(), max(1, image.width() // 30))
        for y in range(0, image.height(), max(1, image.height() // 30))
    ]
    return float(sum(values)) / len(values)


def test_charts_and_the_apm_timeline_follow_the_dark_theme(qtbot: Any, run: Any) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    style = app.style().name()
    win = make_window(qtbot, lang="en")
    win.resize(1366, 768)
    panel = win.charts

    async def scenario() -> dict[str, tuple[float, float]]:
        panel.setCurrentIndex(2)  # a chart tab in front: opening a replay computes its charts
        await win.open_replay(corpus_file(SNOW_PLOW))
        await panel.loaded()
        assert panel.production_chart.plot is not None
        seen = {}
        for scheme in (Qt.ColorScheme.Dark, Qt.ColorScheme.Light):
            apply_color_scheme(app, scheme)
            await asyncio.sleep(0.05)
            panel.setCurrentIndex(0)
            await asyncio.sleep(0.05)
            apm = _mean_lightness(win.timeline)
            panel.setCurrentIndex(2)
            await asyncio.sleep(0.05)
            seen[scheme.name] = (apm, _mean_lightness(panel.production_chart))
        return seen

    try:
        seen = run(scenario())
    finally:
        apply_color_scheme(app, Qt.ColorScheme.Light)
        app.setStyle(style)
        close_window(win)
    assert seen["Dark"][0] < 110, seen  # the APM timeline (QPainter) in the dark palette
    assert seen["Dark"][1] < 110, seen  # the pyqtgraph production chart too
    assert seen["Light"][0] > 170, seen
    assert seen["Light"][1] > 170, seen


@pytest.fixture
def db(tmp_path: Path) -> Database:
    store = open_database(tmp_path / "store.sqlite3")
    memory = MemoryStore(store)
    with store.session() as s:
        for name in (MIRROR, SNOW_PLOW):
            s.add(AnalysisRecord(replay_path=str(corpus_file(name)), replay_sha256="", status="completed"))
    for name in (MIRROR, SNOW_PLOW):
        memory.record_run(episode_from_replay(corpus_file(name)))
    memory.run_batch()
    return store


def test_profile_charts_draw_openings_and_timings(qtbot: Any, db: Database, run: Any) -> None:
    """nickname's two games (``facts``): his structures open AlliedBarracks ×2 → AlliedPowerPlant → AlliedRefinery
    on Snow Plow (0:12.60, 0:23.67, 0:39.53, 1:02.87) and his first refinery order is at 0:39.87 there
    (first-production timeline); the profile's timing dots are those per-game values."""
    from ui.tabs.players_tab import PlayersTab

    async def scenario() -> None:
        tab = PlayersTab(db, Lang.EN, reviewer="coach")
        qtbot.addWidget(tab)
        tab.resize(900, 700)
        tab.show()
        assert tab.charts.openings.plot is None  # nothing drawn before a profile is asked for
        tab.show_profile("nickname")
        await tab.refreshed()
        openings = tab.charts.openings
        assert openings.data is not None
        snow = ("AlliedBarracks", "AlliedBarracks", "AlliedPowerPlant", "AlliedRefinery")
        bars = {o.sequence: o.count for o in openings.data.openings}
        assert bars[snow] == 1
        assert sum(bars.values()) == 2  # one opening per game
        assert sorted(openings.bars.opts["width"]) == [1, 1]
        assert openings.data.openings[0].label(Lang.EN).count("→") == 3
        timings = tab.charts.timings
        refinery = timings.games["first_refinery"]
        assert len(refinery) == 2
        assert any(abs(x - 39.9) < 0.06 for x in refinery), refinery  # Snow Plow's 0:39.87 (rounded to 0.1 s)
        text = tab.report.toPlainText()
        assert "## Timing spread" in text  # the charts' text alternative

    try:
        run(scenario())
    finally:
        db.close()


def test_memory_batch_threshold_is_a_number_field_in_settings(qtbot: Any, run: Any, memory_keyring: Any) -> None:
    from app.settings import OPTIONS, Settings
    from ui.lang import UiLanguage
    from ui.main_window import AppContext
    from ui.number_field import NumberField
    from ui.settings_dialog import SettingsDialog

    ctx = AppContext.open()
    try:
        ui = UiLanguage(Lang.EN)
        dlg = SettingsDialog(ctx.settings, ctx.secrets, ui)
        qtbot.addWidget(dlg)
        field = dlg.batch_pending
        assert isinstance(field, NumberField)
        assert field.count() == OPTIONS["memory_batch_pending"].default == 10
        assert (
            dlg.general_labels["memory_batch_pending"].text()
            == "Run the memory batch once this many analyses wait (0: daily only)"
        )
        ui.set_lang(Lang.ZH)
        assert dlg.general_labels["memory_batch_pending"].text().startswith("待蒸馏的分析达到几局时")
        field.setText("-3")  # refused: kept with its message, nothing saved
        assert not field.is_valid()
        assert not dlg.apply()
        assert Settings.load().get("memory_batch_pending") == 10
        field.setText("25")
        assert dlg.apply()
        assert Settings.load().get("memory_batch_pending") == 25
        field.setText("0")  # daily only
        assert dlg.apply()
        assert Settings.load().get("memory_batch_pending") == 0
    finally:
        ctx.db.close()
