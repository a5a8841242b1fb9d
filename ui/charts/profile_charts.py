"""The player profile's charts: opening frequencies and timing distributions.

Drawn with pyqtgraph from :class:`app.players.charts.ProfileCharts`, which the Players view computes in its
worker thread.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QTabWidget, QWidget

from app.i18n import Lang, pick, tr
from ui.charts.base import ChartHost, caption, chart_colors, labels_item, swatch

if TYPE_CHECKING:
    import pyqtgraph as pg

    from app.players.charts import ProfileCharts

OPENING_COLOR = "#4e79a7"
GAME_COLOR = "#2f6fde"
PLAYER_MEDIAN_COLOR = "#e67e22"
LIBRARY_MEDIAN_COLOR = "#8e44ad"


class _ProfileChart(ChartHost):
    def __init__(self, lang: Callable[[], Lang], parent: QWidget | None = None) -> None:
        super().__init__(lambda: tr(lang(), "Show a player's profile to see charts"), parent)
        self._lang = lang
        self.data: ProfileCharts | None = None

    def t(self, zh: str, en: str) -> str:
        """The text in the view's language."""
        return pick(self._lang(), zh, en)

    def set_data(self, data: ProfileCharts | None) -> None:
        """Draw ``data`` (None: the empty message)."""
        self.data = data
        self.redraw()


class OpeningChart(_ProfileChart):
    """The player's most frequent openings (first structures) as horizontal bars: games each one opened."""

    GRID = False
    CLOCK_X = False

    def __init__(self, lang: Callable[[], Lang], parent: QWidget | None = None) -> None:
        super().__init__(lang, parent)
        self.bars: Any = None
        """The drawn bar item: tests read its widths (the games per opening)."""

    def draw(self) -> pg.GraphicsView | None:
        """One bar per opening, the most frequent on top, labelled with the sequence and ``n/games``."""
        import pyqtgraph as pg

        self.bars = None
        data = self.data
        if data is None or not data.openings:
            return None
        lang = self._lang()
        plot = self.fresh_plot()
        plot.setMouseEnabled(x=False, y=False)
        item = plot.getPlotItem()
        _, text, _ = chart_colors(self)
        n = len(data.openings)
        ys = [float(-i) for i in range(n)]
        counts = [float(o.count) for o in data.openings]
        bars = pg.BarGraphItem(
            x0=[0.0] * n, y=ys, width=counts, height=0.6, brush=pg.mkBrush(OPENING_COLOR), pen=pg.mkPen(None)
        )
        item.addItem(bars)
        self.bars = bars
        font = QFont(self.font())
        font.setPointSize(9)
        labels = [
            (0.0, y + 0.3, f"{o.label(lang)}  ({o.count}/{o.games})", text, 4.0, -3.0)
            for y, o in zip(ys, data.openings, strict=True)
        ]
        games = max(o.games for o in data.openings)
        item.addItem(labels_item(labels, font, QRectF(0, -n, max(games, 1), n + 1)))
        item.getAxis("left").setStyle(showValues=False)
        item.getAxis("left").setTicks([[]])
        item.setXRange(0, max(games, 1), padding=0.02)
        item.setYRange(-(n - 1) - 0.5, 1.0, padding=0)
        item.getAxis("bottom").setTickSpacing(major=max(1.0, float(games // 5 or 1)), minor=1.0)
        self.caption_html = caption(
            tr(self._lang(), "{player}'s most frequent openings", player=data.player),
            [html.escape(tr(self._lang(), "bar: games opened with these structures"))],
        )
        return plot


class TimingChart(_ProfileChart):
    """Per timing benchmark, on a game-time axis: the player's games and medians against the library's.

    Each game that reached it is a dot, the player's median an orange bar, the rest of the library's median a
    purple diamond. Every row's dots are one item, the medians two more: an item per row and kind took most of
    the chart's GUI-thread time (each is a Qt object added to the scene on its own).
    """

    def __init__(self, lang: Callable[[], Lang], parent: QWidget | None = None) -> None:
        super().__init__(lang, parent)
        self.dots: Any = None
        """The drawn per-game dots (one item; each point's ``data`` is its benchmark's name)."""

    @property
    def games(self) -> dict[str, list[float]]:
        """The drawn per-game dots' x (seconds) by benchmark, read back from the item (tests)."""
        if self.dots is None:
            return {}
        out: dict[str, list[float]] = {}
        for x, name in zip(self.dots.data["x"], self.dots.data["data"], strict=True):
            out.setdefault(str(name), []).append(float(x))
        return out

    def draw(self) -> pg.GraphicsView | None:
        """One row per benchmark (the first on top)."""
        import pyqtgraph as pg

        from app.players.report import BENCHMARK_LABELS

        self.dots = None
        data = self.data
        if data is None or not any(t.values for t in data.timings):
            return None
        plot = self.fresh_plot()
        plot.setMouseEnabled(x=False, y=False)
        item = plot.getPlotItem()
        xs: list[float] = []
        ys: list[float] = []
        names: list[str] = []
        median_x: list[float] = []
        median_y: list[float] = []
        library_x: list[float] = []
        library_y: list[float] = []
        for row, t in enumerate(data.timings):
            y = float(-row)
            xs += t.values
            ys += [y] * len(t.values)
            names += [t.name] * len(t.values)
            if t.player_median is not None:
                median_x += [t.player_median, t.player_median]
                median_y += [y - 0.3, y + 0.3]
            if t.library_median is not None:
                library_x.append(t.library_median)
                library_y.append(y)
        self.dots = pg.ScatterPlotItem(
            x=xs,
            y=ys,
            data=names,
            symbol="o",
            size=8,
            brush=pg.mkBrush(QColor(GAME_COLOR)),
            pen=pg.mkPen(QColor(GAME_COLOR).darker(130)),
        )
        item.addItem(self.dots)
        entries = [swatch(GAME_COLOR, tr(self._lang(), "one game"), "●")]
        if median_x:
            item.addItem(
                pg.PlotCurveItem(median_x, median_y, connect="pairs", pen=pg.mkPen(PLAYER_MEDIAN_COLOR, width=3))
            )
            entries.append(swatch(PLAYER_MEDIAN_COLOR, tr(self._lang(), "player median"), "┃"))
        if library_x:
            item.addItem(
                pg.ScatterPlotItem(
                    x=library_x,
                    y=library_y,
                    symbol="d",
                    size=12,
                    brush=pg.mkBrush(LIBRARY_MEDIAN_COLOR),
                    pen=pg.mkPen(None),
                )
            )
            entries.append(swatch(LIBRARY_MEDIAN_COLOR, tr(self._lang(), "library median"), "◆"))
        peak = max([60.0, *xs, *median_x, *library_x])
        labels = [(float(-row), self.t(*BENCHMARK_LABELS[t.name])) for row, t in enumerate(data.timings)]
        item.getAxis("left").setTicks([labels])
        item.setXRange(0, peak * 1.08, padding=0)
        item.setYRange(-(len(data.timings) - 1) - 0.5, 0.5, padding=0)
        self.caption_html = caption(tr(self._lang(), "{player}'s timings", player=data.player), entries)
        return plot


class ProfileChartTabs(QTabWidget):
    """The profile's two charts in tabs."""

    def __init__(self, lang: Callable[[], Lang], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("profile_charts")
        self._lang = lang
        self.openings = OpeningChart(lang, self)
        self.timings = TimingChart(lang, self)
        self.addTab(self.openings, "")
        self.addTab(self.timings, "")
        self.setDocumentMode(True)
        self.retranslate()

    def retranslate(self) -> None:
        """Tab titles in the view's language."""
        self.setTabText(0, tr(self._lang(), "Opening frequencies"))
        self.setTabText(1, tr(self._lang(), "Timing distributions"))

    def set_data(self, data: ProfileCharts | None) -> None:
        """Draw both charts of one profile."""
        self.openings.set_data(data)
        self.timings.set_data(data)
