"""The analysis view's chart panel: APM, build order, production by category, and where orders were given.

The facts are imported with the data (the worker thread imports them), never at start-up. The panel is a tab
widget whose first tab is the APM timeline (:class:`ui.replay_card.TimelineChart`, drawn with
QPainter as before); the other three are pyqtgraph plots of :mod:`app.facts.charts` data, computed with the fact
index in the views' worker thread (:class:`ui.tabs.loading.Loader`) when a replay opens. The widgets only draw.
"""

from __future__ import annotations

import asyncio
import functools
import html
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QComboBox, QTabWidget, QWidget

from app.timefmt import format_clock
from ui.charts.base import (
    CATEGORY_COLORS,
    PLAYER_FALLBACK,
    TIER_COLORS,
    ChartHost,
    caption,
    chart_colors,
    import_chart_library,
    labels_item,
    swatch,
)
from ui.lang import UiLanguage
from ui.tabs.loading import Loader, error_text

if TYPE_CHECKING:
    import pyqtgraph as pg

    from app.facts.charts import ReplayCharts
    from ui.replay_info import ReplayInfo

SETTLE_S = 0.1
"""How long the charts' query waits after a replay is shown: the worker's parse and the pyqtgraph import hold the
GIL, and started at once they made the GUI thread wait for it while it laid out and painted the opened replay (a
23 ms turn became an 80 ms stall in ``benchmarks/side_tabs.py``, issue 34)."""
LABEL_ROWS = 3
"""Rows the structure names of a build-order lane are staggered over, so neighbours do not overlap."""


def _charts_of(path: Path) -> ReplayCharts:
    """Worker thread: pyqtgraph imported on the import thread (a second of imports), then the replay's charts."""
    import_chart_library()
    from app.facts.charts import charts_of_file

    _heat_lut()  # read once, here: pyqtgraph reads the colour map from a file (milliseconds of the GUI thread's turn)
    return charts_of_file(str(path))


@functools.cache
def _heat_lut() -> Any:
    """The heat map's colours (inferno from its dark end), read once; an empty cell is transparent."""
    import pyqtgraph as pg

    lut = pg.colormap.get("inferno").getLookupTable(0.15, 1.0, nPts=256, alpha=True)
    lut[0][3] = 0  # no orders: the background shows through
    return lut


class _ReplayChart(ChartHost):
    """A chart of the open replay's :class:`ReplayCharts` (None until one is loaded)."""

    def __init__(self, panel: ChartPanel) -> None:
        ui = panel.ui
        super().__init__(lambda: ui.tx("Open a replay to see its charts"), panel)
        self.panel = panel
        self.ui = ui

    @property
    def data(self) -> ReplayCharts | None:
        """The charts' data of the open replay."""
        return self.panel.data

    def color_of(self, slot: int, name: str) -> QColor:
        """The player's colour on the replay card (by name), else one of the fallback colours by slot."""
        return QColor(self.panel.colors.get(name, PLAYER_FALLBACK[slot % len(PLAYER_FALLBACK)]))

    def _font(self, points: int = 8) -> QFont:
        font = QFont(self.font())
        font.setPointSize(points)
        return font


class BuildOrderChart(_ReplayChart):
    """One lane per player: structures (squares) and each unit type's first order (triangles), tiers marked.

    A mark's fill is its tier (grey, orange, red), its outline the player's colour; a short vertical line with
    "T2"/"T3" marks when the player first reached a tier. Hovering a mark names it with its time.
    """

    def __init__(self, panel: ChartPanel) -> None:
        super().__init__(panel)
        self.marks: dict[int, dict[str, Any]] = {}
        """Per slot the drawn scatter items (``structure``, ``unit``): tests read their points."""
        self._drawn_width = 0
        self._relayout = QTimer(self)  # the names are placed for a width: a resize places them again, once settled
        self._relayout.setSingleShot(True)
        self._relayout.setInterval(250)
        self._relayout.timeout.connect(self.redraw)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        """A width change of more than a few names' worth re-places the structure names (debounced)."""
        super().resizeEvent(event)
        if self.plot is not None and abs(self.width() - self._drawn_width) > 60:
            self._relayout.start()

    def draw_steps(self) -> Iterator[None]:
        """The lanes of the open replay's players, one lane per event-loop turn (a 3v3 has six)."""
        import pyqtgraph as pg

        data = self.data
        self.marks = {}
        self.drawn = None
        if data is None or not any(b.items for b in data.builds):
            return
        lang = self.ui.lang
        plot = self.fresh_plot()
        _, text, _ = chart_colors(self)
        item = plot.getPlotItem()
        self._drawn_width = self.width()
        font = self._font()
        metrics = QFontMetrics(font)
        plot_px = max(self.width() - 90, 200)  # the plot area: the widget less the axis and the margins
        seconds_per_px = data.duration * 1.02 / plot_px
        row_px = metrics.height() + 1
        labels: list[tuple[float, float, str, QColor, float, float]] = []
        lanes = len(data.builds)
        for lane, b in enumerate(data.builds):
            y = -lane
            color = self.color_of(b.slot, b.name)
            drawn: dict[str, Any] = {}
            for kind, symbol in (("structure", "s"), ("unit", "t1")):
                items = [i for i in b.items if i.kind == kind]
                if not items:
                    continue
                scatter = pg.ScatterPlotItem(
                    x=[i.seconds for i in items],
                    y=[y - 0.22 if kind == "unit" else y] * len(items),
                    data=[
                        f"{format_clock(i.seconds)} {i.name(lang)}" + (f" (T{i.tier})" if i.tier > 1 else "")
                        for i in items
                    ],
                    brush=[pg.mkBrush(TIER_COLORS[i.tier]) for i in items],
                    symbol=symbol,
                    size=11 if kind == "structure" else 9,
                    pen=pg.mkPen(color, width=2),
                    hoverable=True,
                    tip=lambda x, y, data: str(data),
                )
                item.addItem(scatter)
                drawn[kind] = scatter
            self.marks[b.slot] = drawn
            last_end = [-1e9] * LABEL_ROWS
            for i in (i for i in b.items if i.kind == "structure"):
                name = i.name(lang)
                row = next((r for r in range(LABEL_ROWS) if i.seconds >= last_end[r]), None)
                if row is None:
                    continue  # crowded: the hover still names it
                last_end[row] = i.seconds + (metrics.horizontalAdvance(name) + 8) * seconds_per_px
                labels.append((i.seconds, y, name, text, -5.0, -9.0 - row * row_px))
            for tier, seconds in b.tiers:
                labels.append((seconds, y - 0.22, f"T{tier}", QColor(TIER_COLORS[tier]), 6.0, row_px + 2.0))
            if b.tiers:
                xs = [v for _, sec in b.tiers for v in (sec, sec)]
                ys = [v for _ in b.tiers for v in (y - 0.45, y + 0.45)]
                tier_lines = pg.PlotCurveItem(
                    xs, ys, connect="pairs", pen=pg.mkPen(TIER_COLORS[3], width=1, style=Qt.PenStyle.DashLine)
                )
                item.addItem(tier_lines)
            yield
        item.addItem(labels_item(labels, font, QRectF(0, -lanes, data.duration, lanes + 1)))
        item.getAxis("left").setTicks([[(-lane, b.name) for lane, b in enumerate(data.builds)]])
        item.setXRange(0, data.duration, padding=0.01)
        item.setYRange(-(lanes - 1) - 0.55, 0.6, padding=0)
        self.caption_html = caption(
            "",
            [
                swatch(TIER_COLORS[1], "T1"),
                swatch(TIER_COLORS[2], "T2"),
                swatch(TIER_COLORS[3], "T3"),
                swatch(text.name(), self.ui.tx("structure"), "□"),
                swatch(text.name(), self.ui.tx("unit (first order)"), "△"),
                swatch(TIER_COLORS[3], self.ui.tx("dashed: a tier first reached"), "┆"),
                html.escape(self.ui.tx("hover a mark for its name and time")),
            ],
        )
        self.drawn = plot

    def draw(self) -> pg.GraphicsView | None:
        """The whole chart in one go (:meth:`draw_steps` is how it is drawn)."""
        for _ in self.draw_steps():
            pass
        return self.drawn


class ProductionChart(_ReplayChart):
    """Production per minute, stacked by category: the picked player's, or every player's summed."""

    def __init__(self, panel: ChartPanel) -> None:
        super().__init__(panel)
        self.bars: dict[str, Any] = {}
        """The drawn bar items by category: tests read their heights."""
        self.counts: dict[str, list[int]] = {}
        """The drawn counts per category and minute (the picked player's, or every player's summed)."""
        self.title = ""

    def draw(self) -> pg.GraphicsView | None:
        """The stacked bars of the picked player (every player's summed when the picker says "all")."""
        import pyqtgraph as pg

        from app.facts.charts import BUCKET_SECONDS, CATEGORIES, CATEGORY_LABELS

        data = self.data
        self.bars = {}
        if data is None or not data.production:
            return None
        slot = self.panel.picked_slot()
        chosen = [p for p in data.production if slot is None or p.slot == slot] or list(data.production)
        counts = {c: [sum(v) for v in zip(*(p.counts[c] for p in chosen), strict=True)] for c in CATEGORIES}
        who = chosen[0].name if len(chosen) == 1 else self.ui.tx("all players")
        self.counts = counts
        plot = self.fresh_plot()
        item = plot.getPlotItem()
        buckets = max(len(v) for v in counts.values())
        xs = [b * BUCKET_SECONDS + BUCKET_SECONDS / 2 for b in range(buckets)]
        bottom = [0.0] * buckets
        entries: list[str] = []
        for category in CATEGORIES:
            heights = [float(v) for v in counts[category]]
            if not any(heights):
                continue
            bars = pg.BarGraphItem(
                x=xs,
                y0=list(bottom),
                height=heights,
                width=BUCKET_SECONDS * 0.85,
                brush=pg.mkBrush(CATEGORY_COLORS[category]),
                pen=pg.mkPen(None),
            )
            item.addItem(bars)
            entries.append(swatch(CATEGORY_COLORS[category], CATEGORY_LABELS[category](self.ui.lang)))
            self.bars[category] = bars
            bottom = [a + b for a, b in zip(bottom, heights, strict=True)]
        self.title = self.ui.tx("{who}: produced per minute (units and structures)", who=who)
        self.caption_html = caption(self.title, entries)
        item.setXRange(0, buckets * BUCKET_SECONDS, padding=0.01)
        item.setYRange(0, max(max(bottom, default=1.0), 1.0) * 1.1, padding=0)
        return plot


class OrderHeatMap(_ReplayChart):
    """Where the picked player's (or every player's) orders with a position went, over the orders' extent."""

    GRID = False
    CLOCK_X = False

    def __init__(self, panel: ChartPanel) -> None:
        super().__init__(panel)
        self.image: Any = None
        self.grid: list[list[int]] = []
        """The drawn grid (``grid[row][col]``, row 0 at the low y): tests read it."""

    def draw(self) -> pg.GraphicsView | None:
        """The heat grid as an image over the bounds; empty cells let the background show."""
        import numpy as np
        import pyqtgraph as pg

        data = self.data
        self.image, self.grid = None, []
        if data is None or data.bounds is None:
            return None
        slot = self.panel.picked_slot()
        heats = [h for h in data.heat if slot is None or h.slot == slot] or list(data.heat)
        rows = len(heats[0].grid)
        grid = [[sum(h.grid[r][c] for h in heats) for c in range(rows)] for r in range(rows)]
        self.grid = grid
        orders = sum(h.orders for h in heats)
        plot = self.fresh_plot()
        plot.setMouseEnabled(x=False, y=False)
        item = plot.getPlotItem()
        array = np.array(grid, dtype=float).T  # ImageItem indexes [x, y]
        peak = max(float(array.max()), 1.0)
        image = pg.ImageItem(np.sqrt(array), levels=(0.0, max(np.sqrt(peak), 1.0)), lut=_heat_lut())
        min_x, min_y, max_x, max_y = data.bounds
        image.setRect(QRectF(min_x, min_y, max(max_x - min_x, 1.0), max(max_y - min_y, 1.0)))
        image.setAcceptedMouseButtons(Qt.MouseButton.NoButton)  # its right-click menu would be a parentless QMenu
        item.addItem(image)
        self.image = image
        item.setAspectLocked(True)
        for name in ("left", "bottom"):
            item.getAxis(name).setStyle(showValues=False)
            item.getAxis(name).setTicks([[]])
        who = self.ui.tx("all players") if slot is None or len(heats) != 1 else heats[0].name
        self.caption_html = caption(
            self.ui.tx("{who}: {orders} orders with a position", who=who, orders=orders),
            [
                html.escape(
                    self.ui.tx(
                        "over the area the orders span (a replay has no map size); brighter is more, up to "
                        "{peak} a cell",
                        peak=int(peak),
                    )
                )
            ],
        )
        return plot


class ChartPanel(QTabWidget):
    """The APM timeline and the three replay charts, in tabs, with a player picker for production and the map.

    Signals:
        charts_shown(str): the path of the replay whose charts were just drawn (tests and benchmarks wait for it).
    """

    charts_shown = Signal(str)

    def __init__(self, ui: UiLanguage, timeline: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chart_panel")
        self.ui = ui
        self.data: ReplayCharts | None = None
        self.path: Path | None = None
        self._pending: Path | None = None  # the open replay, while its charts wait for a chart tab to show
        self.colors: dict[str, str] = {}
        self.loader = Loader(self, self._failed)
        self.timeline = timeline
        self.build_chart = BuildOrderChart(self)
        self.production_chart = ProductionChart(self)
        self.heat_map = OrderHeatMap(self)
        self.player_picker = QComboBox(self)
        self.player_picker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.setCornerWidget(self.player_picker)
        self.addTab(timeline, "APM")
        self.addTab(self.build_chart, "")
        self.addTab(self.production_chart, "")
        self.addTab(self.heat_map, "")
        self.setDocumentMode(True)
        self._retitle()
        self._fill_picker()
        ui.changed.connect(lambda _c: self._relanguage())
        self.player_picker.currentIndexChanged.connect(lambda _i: self._player_picked())
        self.currentChanged.connect(self._tab_changed)

    def _retitle(self) -> None:
        self.setTabText(1, self.ui.tx("Build order"))
        self.setTabText(2, self.ui.tx("Production"))
        self.setTabText(3, self.ui.tx("Orders map"))
        self.setTabToolTip(1, self.ui.tx("Structures and first units over time, tiers marked"))
        self.setTabToolTip(2, self.ui.tx("Production per minute by category"))
        self.setTabToolTip(3, self.ui.tx("Where the orders with a position went on the map"))
        self.player_picker.setToolTip(self.ui.tx("The player the production and map charts show"))

    def _relanguage(self) -> None:
        self._retitle()
        self._fill_picker()
        for chart in self.charts():
            chart.redraw()

    def charts(self) -> tuple[BuildOrderChart, ProductionChart, OrderHeatMap]:
        """The three pyqtgraph charts."""
        return self.build_chart, self.production_chart, self.heat_map

    def _fill_picker(self) -> None:
        picked = self.player_picker.currentData()
        self.player_picker.blockSignals(True)
        self.player_picker.clear()
        self.player_picker.addItem(self.ui.tx("All players"), None)
        for p in self.data.production if self.data is not None else ():
            self.player_picker.addItem(p.name, p.slot)
        index = self.player_picker.findData(picked)
        self.player_picker.setCurrentIndex(max(index, 0))
        self.player_picker.blockSignals(False)
        self._picker_visibility()

    def _picker_visibility(self) -> None:
        self.player_picker.setVisible(self.data is not None and self.currentIndex() in (2, 3))

    def picked_slot(self) -> int | None:
        """The slot the picker names (None: all players)."""
        data = self.player_picker.currentData()
        return int(data) if data is not None else None

    def pick_player(self, slot: int | None) -> None:
        """Show ``slot``'s production and orders (None: all players; production then shows the first player)."""
        self.player_picker.setCurrentIndex(max(self.player_picker.findData(slot), 0))

    def _player_picked(self) -> None:
        self.production_chart.redraw()
        self.heat_map.redraw()

    def set_replay(self, info: ReplayInfo | None) -> asyncio.Future[None] | None:
        """Show ``info``'s replay's charts (None clears them).

        They are computed (the replay parsed again and its fact index built, in the worker thread) only while a
        chart tab is in front, or once one is brought to the front: with the APM tab showing, opening a replay costs
        what it did before the charts.
        """
        self.colors = {p.name: p.color for p in info.players} if info is not None else {}
        if info is None or info.error:
            self._pending = None
            self.loader.cancel()
            self._show(None, None)
            return None
        self._pending = info.path
        if self.currentIndex() == 0:
            self.loader.cancel()
            self._show(None, None)
            return None
        return self._load_pending()

    def _load_pending(self) -> asyncio.Future[None] | None:
        path, self._pending = self._pending, None
        if path is None:
            return None
        return self.loader.start(lambda: _charts_of(path), lambda data: self._show_steps(path, data), delay_s=SETTLE_S)

    def _tab_changed(self, index: int) -> None:
        self._picker_visibility()
        if index > 0 and self._pending is not None:
            self._load_pending()

    def _show(self, path: Path | None, data: ReplayCharts | None) -> None:
        for _ in self._show_steps(path, data):
            pass

    def _show_steps(self, path: Path | None, data: ReplayCharts | None) -> Iterator[None]:
        """Draw the charts one per event-loop turn (each plot takes a few milliseconds to build)."""
        self.path, self.data = path, data
        self._fill_picker()
        for chart in self.charts():
            if data is not None and chart.prepare():  # the first plot widget in a turn of its own
                yield
            yield from chart.redraw_steps()
            yield  # the chart is shown and painted before the next one is made
        if path is not None:
            self.charts_shown.emit(str(path))

    def _failed(self, exc: Exception) -> None:
        self._show(None, None)
        for chart in self.charts():
            chart.message.setText(error_text(exc, self.ui.lang))

    async def loaded(self) -> None:
        """Return once the charts asked for so far are drawn (tests and the screenshot tool)."""
        while self.loader.busy():
            await self.loader.wait()
