"""What every chart shares: a pyqtgraph plot that follows the window's light or dark palette, and a clock axis.

Why pyqtgraph (see CONTRIBUTING "Charts"): it is made for Qt desktop apps, pure Python over numpy, draws
thousands of points fast, and runs on the PySide6-Essentials the app already pins; Qt Charts would need the
PySide6-Addons wheel (several times the size of the whole app) pinned to the same exact version.

pyqtgraph's import takes most of a second (it loads numpy and its own Qt layer), so no module imports it at start-up:
:class:`ChartHost` is plain Qt, and the plots are made only when data arrives, after the chart's loader imported
pyqtgraph on the import thread (:func:`ui.imports.imported`).

Each chart keeps one plot widget and redraws into it when its data changes: the items of the last drawing are
deleted at once on the GUI thread, so no pyqtgraph item is ever left for the garbage collector (CONTRIBUTING
"Threads and Qt objects").
"""

from __future__ import annotations

import functools
import html
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import QEvent, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPalette
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


def import_chart_library() -> None:
    """Worker thread: pyqtgraph imported on the import thread; the first time, kept out of later collections.

    Its import adds some 40,000 objects (modules, classes, functions) that live as long as the process. Left in the
    collector's generations, every full collection walked them again: 38 ms of the GUI thread holding the GIL in
    one go, the longest stall of the table sorts that follow the charts in ``benchmarks/side_tabs.py`` (issue 34).
    Frozen as the side libraries are (``MainWindow._side_modules_imported``), a collection walks only newer objects.
    """
    from ui.imports import imported

    imported("pyqtgraph")
    _freeze_once()


@functools.cache
def _freeze_once() -> None:
    import gc

    gc.freeze()


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


def theme_plot(plot: pg.GraphicsView, host: QWidget) -> None:
    """Colour ``plot``'s background, axes and legend from ``host``'s palette."""
    import pyqtgraph as pg

    base, text, grid = chart_colors(host)
    plot.setBackground(base)
    item = plot.getPlotItem()
    for name in ("left", "bottom"):
        axis = item.getAxis(name)
        axis.setPen(pg.mkPen(text))
        axis.setTextPen(pg.mkPen(text))
    shown = bool(getattr(host, "GRID", True))
    item.showGrid(x=shown, y=shown, alpha=grid.alphaF())


class ChartHost(QWidget):
    """A chart's place in a view: a message while there is no data, then a plot drawn by ``draw``.

    Subclasses implement :meth:`draw` (make the plot for the current data, or None for the message) and call
    :meth:`redraw` when the data, the language or the palette changes.
    """

    GRID = True
    """Whether the plot shows grid lines (in the palette's text colour, faint)."""
    CLOCK_X = True
    """Whether the x axis is game time."""

    def __init__(self, empty_text: Callable[[], str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._empty_text = empty_text
        self.plot: Any = None
        self.message = QLabel(self)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        self.caption = QLabel(self)  # the title and legend as rich text: cheaper than pyqtgraph's, and plain widgets
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.caption.hide()
        self.caption_html = ""
        """What :meth:`draw` puts under the plot (title and legend); set by it."""
        self.drawn: Any = None
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(2)
        self._layout.addWidget(self.message)
        self._layout.addWidget(self.caption)
        self.message.setText(empty_text())

    def draw(self) -> pg.GraphicsView | None:
        """The plot of the current data (None: show the empty message)."""
        raise NotImplementedError

    def prepare(self) -> bool:
        """Make the (hidden) plot widget now if there is none yet; whether one was made.

        A plot widget costs a few milliseconds (the first one more): a view that draws several charts makes them in
        turns of their own.
        """
        if self.plot is not None and shiboken6.isValid(self.plot):
            return False
        self.plot = new_plot(self, clock_x=self.CLOCK_X)
        self.plot.hide()
        self._layout.insertWidget(1, self.plot, 1)
        return True

    def fresh_plot(self) -> pg.GraphicsView:
        """The host's plot, emptied (made on first use; the same widget is reused for every redraw).

        A new ``PlotWidget`` costs more GUI-thread time than everything drawn in it; the items of the last drawing
        are deleted here, at once, on the GUI thread.
        """
        if self.prepare():
            return self.plot
        item = self.plot.getPlotItem()
        old = list(item.items)
        item.clear()
        for it in old:
            if shiboken6.isValid(it):
                shiboken6.delete(it)
        return self.plot

    def draw_steps(self) -> Iterator[None]:
        """Draw in steps, one event-loop turn each, leaving the plot (or None) in ``drawn``; one step by default."""
        self.drawn = self.draw()
        yield

    def redraw_steps(self) -> Iterator[None]:
        """Draw the current data into the plot (or show the empty message), in :meth:`draw_steps`' turns."""
        self.caption_html = ""
        self.drawn = None
        yield from self.draw_steps()
        plot = self.drawn
        if plot is None:
            if self.plot is not None:
                self.plot.hide()
            self.caption.hide()
            self.message.setText(self._empty_text())
            self.message.show()
            return
        self.message.hide()
        theme_plot(plot, self)
        plot.show()
        self.caption.setText(self.caption_html)
        self.caption.setVisible(bool(self.caption_html))

    def redraw(self) -> None:
        """Draw the current data now, all steps in this turn."""
        for _ in self.redraw_steps():
            pass

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        """A palette change (light ↔ dark) redraws the plot in the new colours."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.plot is not None and self.plot.isVisibleTo(self):
            self.redraw()


def new_plot(host: QWidget, *, clock_x: bool = True) -> pg.GraphicsView:
    """A plot widget (parented to ``host``): a view box with a left and a bottom (clock) axis, no menus.

    Not pyqtgraph's ``PlotWidget``: its ``PlotItem`` builds, on every construction, a form of plot options (a
    dozen Qt widgets read into a widget group) and two context menus, which the charts never show. That was most
    of a chart's first turn (10-20 ms of GUI-thread CPU on a quiet machine, three to four times that while a
    worker thread held the GIL). :class:`PlotArea` keeps the part of ``PlotItem`` the charts use; it makes no
    menu, so no parentless ``QMenu`` is left for the garbage collector (CONTRIBUTING "Threads and Qt objects").
    """
    view, _area = _plot_classes()
    return view(host, clock_x)


@functools.cache
def _plot_classes() -> tuple[type, type]:
    """The light plot's classes, made on first use (pyqtgraph is imported off the GUI thread before that)."""
    import pyqtgraph as pg
    from PySide6.QtWidgets import QGraphicsGridLayout, QGraphicsItem, QSizePolicy

    class PlotArea(pg.GraphicsWidget):  # type: ignore[misc]  # pyqtgraph has no type information
        """A :class:`pyqtgraph.ViewBox` with a left and a bottom axis, laid out as ``PlotItem`` lays them out.

        It answers the few ``PlotItem`` calls the charts make: ``addItem``, ``clear``, ``items``, ``getAxis``,
        ``showGrid`` and the view box's ranges, aspect and mouse settings.
        """

        def __init__(self, bottom: pg.AxisItem) -> None:
            super().__init__()
            self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
            self.vb = pg.ViewBox(parent=self, enableMenu=False)
            self.items: list[Any] = []
            self.axes = {"left": pg.AxisItem("left", parent=self), "bottom": bottom}
            grid = QGraphicsGridLayout()
            grid.setContentsMargins(1, 1, 1, 1)
            grid.setHorizontalSpacing(0)
            grid.setVerticalSpacing(0)
            self.setLayout(grid)
            self.grid_layout = grid
            grid.addItem(self.vb, 0, 1)
            for name, (row, col) in (("left", (0, 0)), ("bottom", (1, 1))):
                axis = self.axes[name]
                axis.linkToView(self.vb)
                grid.addItem(axis, row, col)
                axis.setZValue(0.5)  # above images (z 0), as in PlotItem
                axis.setFlag(QGraphicsItem.GraphicsItemFlag.ItemNegativeZStacksBehindParent)
            grid.setRowStretchFactor(0, 100)
            grid.setColumnStretchFactor(1, 100)

        def getAxis(self, name: str) -> pg.AxisItem:  # noqa: N802 - PlotItem's name
            """The ``left`` or ``bottom`` axis."""
            return self.axes[name]

        def addItem(self, item: Any) -> None:  # noqa: N802 - PlotItem's name
            """Draw ``item`` in the view box."""
            self.items.append(item)
            self.vb.addItem(item)

        def clear(self) -> None:
            """Take every item out of the view box (the caller deletes them)."""
            for item in self.items:
                self.vb.removeItem(item)
            self.items = []

        def showGrid(self, x: bool, y: bool, alpha: float) -> None:  # noqa: N802 - PlotItem's name
            """Grid lines across the view from the bottom (``x``) and left (``y``) axes at ``alpha`` (0-1)."""
            level = int(max(0.0, min(1.0, alpha)) * 255)
            self.axes["bottom"].setGrid(level if x else False)
            self.axes["left"].setGrid(level if y else False)

        def setXRange(self, *args: Any, **kwargs: Any) -> None:  # noqa: N802 - PlotItem's name
            self.vb.setXRange(*args, **kwargs)

        def setYRange(self, *args: Any, **kwargs: Any) -> None:  # noqa: N802 - PlotItem's name
            self.vb.setYRange(*args, **kwargs)

        def setAspectLocked(self, *args: Any, **kwargs: Any) -> None:  # noqa: N802 - PlotItem's name
            self.vb.setAspectLocked(*args, **kwargs)

        def setMouseEnabled(self, x: bool, y: bool) -> None:  # noqa: N802 - PlotItem's name
            self.vb.setMouseEnabled(x=x, y=y)

    class PlotView(pg.GraphicsView):  # type: ignore[misc]  # pyqtgraph has no type information
        """The widget showing one :class:`PlotArea` (what ``PlotWidget`` is to ``PlotItem``)."""

        def __init__(self, host: QWidget, clock_x: bool) -> None:
            super().__init__(parent=host)
            self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
            self.plot_area = PlotArea(clock_axis() if clock_x else pg.AxisItem("bottom"))
            self.setCentralItem(self.plot_area)
            self.plot_area.setMouseEnabled(x=True, y=False)

        def getPlotItem(self) -> PlotArea:  # noqa: N802 - PlotWidget's name
            """The plot area (the charts' code reads it as a ``PlotItem``)."""
            return self.plot_area

        def setMouseEnabled(self, x: bool, y: bool) -> None:  # noqa: N802 - PlotWidget's name
            self.plot_area.setMouseEnabled(x=x, y=y)

    return PlotView, PlotArea


def swatch(color: str, text: str, shape: str = "■") -> str:
    """One legend entry as rich text: a coloured mark and its (escaped) label."""
    return f"<span style='color:{color}'>{shape}</span>&nbsp;{html.escape(text)}"


def caption(title: str, entries: list[str]) -> str:
    """A chart's caption: the title (escaped) and its legend entries on one wrapping line."""
    legend = " &nbsp; ".join(entries)
    head = f"<b>{html.escape(title)}</b>" if title else ""
    return head + (" &nbsp; " if head and legend else "") + legend


@functools.cache
def _labels_class() -> type:
    import pyqtgraph as pg

    class Labels(pg.GraphicsObject):  # type: ignore[misc]  # pyqtgraph has no type information
        """Many short texts at data points in one item: each drawn at a pixel offset from its point, unscaled.

        One item instead of a ``TextItem`` per name: thirty of those took more GUI-thread time than the rest of the
        chart together.
        """

        def __init__(self, labels: list[tuple[float, float, str, QColor, float, float]], font: QFont, rect: QRectF):
            super().__init__()
            self.labels = labels
            self._font = font
            self._rect = rect

        def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
            return self._rect

        def paint(self, p: QPainter, *args: object) -> None:
            tr = p.transform()
            p.save()
            p.resetTransform()
            p.setFont(self._font)
            for x, y, text, color, dx, dy in self.labels:
                pt = tr.map(QPointF(x, y))
                p.setPen(color)
                p.drawText(QPointF(pt.x() + dx, pt.y() + dy), text)
            p.restore()

    return Labels


def labels_item(
    labels: list[tuple[float, float, str, QColor, float, float]], font: QFont, rect: QRectF
) -> pg.GraphicsObject:
    """An item drawing ``(x, y, text, colour, dx, dy)`` labels (``dx``/``dy`` in pixels) over the data ``rect``."""
    return _labels_class()(labels, font, rect)
