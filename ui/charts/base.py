"""What every chart shares: a pyqtgraph plot that follows the window's light or dark palette, and a clock axis.

Why pyqtgraph (see CONTRIBUTING "Charts"): it is made for Qt desktop apps, pure Python over numpy, draws
thousands of points fast, and runs on the PySide6-Essentials the app already pins; Qt Charts would need the
PySide6-Addons wheel (several times the size of the whole app) pinned to the same exact version.

pyqtgraph's import takes most of a second (it loads numpy and its own Qt layer), so no module imports it at start-up:
:class:`ChartHost` is plain Qt, and the plots are made only when data arrives, after the chart's loader imported
pyqtgraph on the import thread (:func:`ui.imports.imported`).

Each plot is rebuilt when its data changes (the old one deleted at once on the GUI thread, with its scene and every
item in it), so no pyqtgraph item is ever left for the garbage collector (CONTRIBUTING "Threads and Qt objects").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from app.timefmt import format_clock

if TYPE_CHECKING:
    import pyqtgraph as pg

PLAYER_FALLBACK = ("#2f6fde", "#e8c31c", "#2faa3c", "#f07f1a", "#8e44ad", "#d62b2b", "#1ec8d8")
TIER_COLORS = {1: "#78909c", 2: "#f39c12", 3: "#e74c3c"}
"""Tier 1, 2, 3 marks (grey, orange, red): readable on the light and the dark background."""
CATEGORY_COLORS = {
    "infantry": "#4e79a7",
    "vehicle": "#f28e2b",
    "aircraft": "#76b7b2",
    "naval": "#59a14f",
    "other": "#b07aa1",
    "structure": "#9c755f",
}


def chart_colors(widget: QWidget) -> tuple[QColor, QColor, QColor]:
    """Background, text and grid colours of ``widget``'s palette (light or dark, whichever the window has)."""
    pal = widget.palette()
    base = pal.color(QPalette.ColorRole.Base)
    text = pal.color(QPalette.ColorRole.Text)
    grid = QColor(text)
    grid.setAlpha(60)
    return base, text, grid


def is_dark(widget: QWidget) -> bool:
    """Whether ``widget``'s palette is a dark one."""
    return widget.palette().color(QPalette.ColorRole.Base).lightness() < 128


def clock_axis(orientation: str = "bottom") -> pg.AxisItem:
    """An axis whose ticks read as game time (m:ss)."""
    import pyqtgraph as pg

    class ClockAxis(pg.AxisItem):  # type: ignore[misc]  # pyqtgraph has no type information
        def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:  # noqa: N802
            return [format_clock(max(v, 0.0)) for v in values]

        def tickSpacing(self, minVal: float, maxVal: float, size: float) -> list[tuple[float, float]]:  # noqa: N802, N803
            span = maxVal - minVal
            for major in (30, 60, 120, 300, 600, 1200):
                if span / major <= max(size / 70, 2):
                    return [(float(major), 0.0), (float(major) / 2, 0.0)]
            return super().tickSpacing(minVal, maxVal, size)  # type: ignore[no-any-return]

    return ClockAxis(orientation)


def theme_plot(plot: pg.PlotWidget, host: QWidget) -> None:
    """Colour ``plot``'s background, axes and legend from ``host``'s palette."""
    import pyqtgraph as pg

    base, text, grid = chart_colors(host)
    plot.setBackground(base)
    item = plot.getPlotItem()
    for name in ("left", "bottom", "right", "top"):
        axis = item.getAxis(name)
        axis.setPen(pg.mkPen(text))
        axis.setTextPen(pg.mkPen(text))
    item.showGrid(x=True, y=True, alpha=grid.alphaF())


class ChartHost(QWidget):
    """A chart's place in a view: a message while there is no data, then a plot drawn by ``draw``.

    Subclasses implement :meth:`draw` (make the plot for the current data, or None for the message) and call
    :meth:`redraw` when the data, the language or the palette changes.
    """

    def __init__(self, empty_text: Callable[[], str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._empty_text = empty_text
        self.plot: Any = None
        self.message = QLabel(self)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.addWidget(self.message)
        self.message.setText(empty_text())

    def draw(self) -> pg.PlotWidget | None:
        """The plot of the current data (None: show the empty message)."""
        raise NotImplementedError

    def redraw(self) -> None:
        """Replace the plot with one of the current data (the old plot deleted now, on the GUI thread)."""
        old, self.plot = self.plot, None
        if old is not None and shiboken6.isValid(old):
            self._layout.removeWidget(old)
            old.hide()
            shiboken6.delete(old)
        plot = self.draw()
        if plot is None:
            self.message.setText(self._empty_text())
            self.message.show()
            return
        self.message.hide()
        theme_plot(plot, self)
        self.plot = plot
        self._layout.addWidget(plot)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        """A palette change (light ↔ dark) redraws the plot in the new colours."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.plot is not None:
            self.redraw()


def new_plot(host: QWidget, *, clock_x: bool = True) -> pg.PlotWidget:
    """A plot widget (parented to ``host``) with a clock x axis, no mouse menu, no auto-range button."""
    import pyqtgraph as pg

    axes = {"bottom": clock_axis()} if clock_x else {}
    plot = pg.PlotWidget(parent=host, axisItems=axes)
    item = plot.getPlotItem()
    # pyqtgraph makes its context menus without a parent: parented here they go with the plot, never to the
    # garbage collector (setMenuEnabled(False) would only drop them to it); no right click opens them
    for menu in (item.ctrlMenu, item.vb.menu):
        if menu is not None:
            menu.setParent(plot, menu.windowFlags())
    item.vb.state["enableMenu"] = False
    plot.hideButtons()
    plot.setMouseEnabled(x=True, y=False)
    return plot


def add_legend(item: pg.PlotItem, host: QWidget) -> pg.LegendItem:
    """A legend in the top-right corner in ``host``'s palette (its labels take the colour when they are added)."""
    import pyqtgraph as pg

    base, text, grid = chart_colors(host)
    back = QColor(base)
    back.setAlpha(200)
    return item.addLegend(
        offset=(-4, 4), labelTextSize="8pt", labelTextColor=text, brush=pg.mkBrush(back), pen=pg.mkPen(grid)
    )
