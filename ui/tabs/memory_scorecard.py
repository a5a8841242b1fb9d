"""The memory's Scorecard tab: the monthly health metrics and their trend chart."""

from __future__ import annotations

import asyncio
import math

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPaintEvent, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.i18n import NC_, Lang, system_lang, tr
from app.memory import HEALTHY, METRICS, MemoryStore, Scorecard
from app.memory.scorecard import LABELS
from app.numbers import NumberSpec
from ui.number_field import NumberField
from ui.tabs.loading import Loader
from ui.tabs.memory_words import MessageBar, cancel_all, settle_all

MONTHS_SPEC = NumberSpec(minimum=1, maximum=24)
"""How many months the scorecard trend shows."""
METRIC_COLORS = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd")


MONTHS = (
    NC_("month", "Jan"),
    NC_("month", "Feb"),
    NC_("month", "Mar"),
    NC_("month", "Apr"),
    NC_("month", "May"),
    NC_("month", "Jun"),
    NC_("month", "Jul"),
    NC_("month", "Aug"),
    NC_("month", "Sep"),
    NC_("month", "Oct"),
    NC_("month", "Nov"),
    NC_("month", "Dec"),
)
"""The months as a chart's axis names them (3月 / Mar)."""


def _short_month(month: str, lang: Lang) -> str:
    """``2026-03`` as the month alone: 3月 / Mar (the full month stays in the table above the chart)."""
    try:
        number = int(month.rsplit("-", 1)[1])
    except (IndexError, ValueError):
        return month
    if not 1 <= number <= 12:
        return month
    return MONTHS[number - 1](lang)


class TrendChart(QWidget):
    """The five metrics month by month, each scaled to its healthy limit (1.0 = the limit; above is unhealthy).

    Upper-bounded metrics plot ``value / high``; evidence density, which must stay above 2.0, plots
    ``2.0 / value``, so every line means the same thing: under the dashed line is healthy.

    Signals:
        None.
    """

    def __init__(self, parent: QWidget | None = None, lang: Lang = Lang.EN) -> None:
        super().__init__(parent)
        self._cards: list[Scorecard] = []
        self.lang = lang
        self.setMinimumHeight(200)

    def set_cards(self, cards: list[Scorecard]) -> None:
        """Show these months (oldest first)."""
        self._cards = cards
        self.update()

    @staticmethod
    def scaled(metric: str, value: float | None) -> float | None:
        """A metric as a multiple of its healthy limit."""
        if value is None:
            return None
        lo, hi = HEALTHY[metric]
        if metric == "evidence_density":
            return lo / value if value > 0 else 2.0
        return value / hi if hi else 0.0

    def series(self) -> dict[str, list[float | None]]:
        """The plotted values per metric (exposed for tests)."""
        return {m: [self.scaled(m, c.metrics[m]) for c in self._cards] for m in METRICS}

    def axis_labels(self, left: float, width: float) -> list[tuple[float, str]]:
        """The month labels under the axis: ``(centre x, text)``, never overlapping.

        "2026-01" where every label fits; the month alone ("1月" / "Jan") where not; and where even those collide,
        every k-th of them counting back from the newest month. Twelve full labels overlapped at the side panel's
        width (issue 30, item 9).
        """
        n = len(self._cards)
        if not n:
            return []
        slot = width / n
        metrics = self.fontMetrics()
        gap = metrics.horizontalAdvance("  ")
        texts = [c.month for c in self._cards]
        if max(metrics.horizontalAdvance(t) for t in texts) + gap > slot:
            texts = [_short_month(m, self.lang) for m in texts]
        step = max(1, math.ceil((max(metrics.horizontalAdvance(t) for t in texts) + gap) / slot))
        return [(left + slot * (i + 0.5), texts[i]) for i in range(n - 1, -1, -step)][::-1]

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        """Draw the axes, the healthy-limit line and one polyline per metric."""
        del event
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        legend_h = 18 * ((len(METRICS) + 1) // 2)
        area = QRectF(44, 18, max(10, self.width() - 54), max(10, self.height() - 48 - legend_h))
        top = 2.0  # the chart shows up to twice the limit
        text_pen = QPen(self.palette().color(self.foregroundRole()), 1)
        # the healthy band (at or under the limit), the frame, the y axis in multiples of each metric's limit
        p.fillRect(
            QRectF(area.left(), area.bottom() - area.height() / top, area.width(), area.height() / top),
            QColor(46, 139, 87, 40),
        )
        p.setPen(QPen(QColor("#888888"), 1))
        p.drawRect(area)
        p.setPen(text_pen)
        for mult in (0.0, 1.0, 2.0):
            y = area.bottom() - area.height() * (mult / top)
            p.drawText(QPointF(4, y + 4), f"{mult:g}×")
        p.drawText(
            QPointF(area.left(), 12),
            tr(self.lang, "times the healthy limit (inside the green band is healthy)"),
        )
        limit_y = area.bottom() - area.height() * (1.0 / top)
        dash = QPen(QColor("#444444"), 1, Qt.PenStyle.DashLine)
        p.setPen(dash)
        p.drawLine(QPointF(area.left(), limit_y), QPointF(area.right(), limit_y))
        # the legend under the month axis
        for k, (color, metric) in enumerate(zip(METRIC_COLORS, METRICS, strict=True)):
            lx = area.left() + (k % 2) * (area.width() / 2)
            ly = area.bottom() + 26 + 18 * (k // 2)
            p.fillRect(QRectF(lx, ly - 9, 12, 10), QColor(color))
            p.setPen(text_pen)
            p.drawText(QPointF(lx + 16, ly), LABELS[metric][0] if self.lang is Lang.ZH else LABELS[metric][1])
        n = len(self._cards)
        p.setPen(QPen(QColor("#666666"), 1))
        for x, text in self.axis_labels(area.left(), area.width()):
            p.drawText(QPointF(x - self.fontMetrics().horizontalAdvance(text) / 2, area.bottom() + 15), text)
        for color, (_metric, values) in zip(METRIC_COLORS, self.series().items(), strict=True):
            path = QPainterPath()
            started = False
            for i, v in enumerate(values):
                if v is None:
                    started = False
                    continue
                x = area.left() + (area.width() * (i + 0.5) / max(n, 1))
                y = area.bottom() - area.height() * (min(v, top) / top)
                if started:
                    path.lineTo(x, y)
                else:
                    path.moveTo(x, y)
                    started = True
                p.setPen(QPen(QColor(color), 1))
                p.setBrush(QColor(color))
                p.drawEllipse(QPointF(x, y), 3, 3)
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.setPen(QPen(QColor(color), 2))
            p.drawPath(path)
        p.end()


class ScorecardTab(QWidget):
    """The five metrics per month against their healthy ranges, with a trend chart.

    Signals:
        month_selected(str): the ``YYYY-MM`` whose column was clicked.
    """

    month_selected = Signal(str)

    def __init__(
        self, store: MemoryStore, lang: Lang | None = None, months: int = 6, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.store = store
        self.lang = lang or system_lang()
        self.months = NumberField(MONTHS_SPEC, self.lang, months, prefix=tr(self.lang, "months"))
        self.months.edit.setMaximumWidth(64)
        self.table = QTableWidget(len(METRICS), 0)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.chart = TrendChart(lang=self.lang)
        self.cards: list[Scorecard] = []
        self.message = MessageBar()
        self.loader = Loader(self, lambda exc: self.message.show_error(exc, self.lang))
        layout = QVBoxLayout(self)
        layout.addWidget(self.months)
        layout.addWidget(self.table)
        layout.addWidget(self.chart)
        layout.addWidget(self.message)
        self.months.valueChanged.connect(self.refresh)
        self.table.horizontalHeader().sectionClicked.connect(self._on_column)
        self.refresh()

    async def refreshed(self) -> None:
        """Return once every load started so far has finished (for tests and callers)."""
        await settle_all(self.loader)

    def cancel_loading(self) -> None:
        """Stop applying pending loads (the tab is being replaced)."""
        cancel_all(self.loader)

    def refresh(self) -> asyncio.Future[None] | None:
        """Recompute the scorecards of the last N months (worker thread); returns the loading task."""
        months = self.months.count()
        return self.loader.start(lambda: self.store.scorecard_trend(months), self._fill)

    def _fill(self, cards: list[Scorecard]) -> None:
        self.message.clear_message()
        self.cards = cards
        self.table.setColumnCount(len(self.cards) + 1)
        shown = self.shown_cards()  # the current month first
        self.table.setHorizontalHeaderLabels([tr(self.lang, "healthy"), *(c.month for c in shown)])
        self.table.setVerticalHeaderLabels([LABELS[m][0] if self.lang is Lang.ZH else LABELS[m][1] for m in METRICS])
        for r, m in enumerate(METRICS):
            lo, hi = HEALTHY[m]
            self.table.setItem(r, 0, QTableWidgetItem(f"[{lo:g}, {hi:g}]"))
            for c, card in enumerate(shown, start=1):
                v = card.metrics[m]
                item = QTableWidgetItem("—" if v is None else f"{v:.3f}")
                ok = card.healthy(m)
                if ok is not None:
                    item.setBackground(QColor("#d8f0d8") if ok else QColor("#f6d0d0"))
                self.table.setItem(r, c, item)
        self.chart.set_cards(self.cards)

    def shown_cards(self) -> list[Scorecard]:
        """The months in table order: the current month first (past months, often empty, after it)."""
        return list(reversed(self.cards))

    def _on_column(self, col: int) -> None:
        shown = self.shown_cards()
        if 1 <= col <= len(shown):
            self.month_selected.emit(shown[col - 1].month)
