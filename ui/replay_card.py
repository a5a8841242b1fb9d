"""The replay card and the APM timeline chart.

The chart is drawn with ``QPainter`` in the window's palette (light or dark, :mod:`ui.theme`): one APM line per
player (in the player's colour) over the match, with the analysis plan drawn on it — segment boundaries (dashed
lines), focus windows (shaded bands), lookback ranges (hatched strips at the bottom) — and a marker at the time an
issue click jumped to.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QMouseEvent, QPainter, QPainterPath, QPaintEvent, QPalette, QPen, QPixmap
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from app.i18n import Lang, tr, trc
from app.knowledge.faction_names import faction_display
from app.knowledge.names import knowledge_mod
from ui.analysis_view import clock
from ui.lang import UiLanguage
from ui.replay_info import FACTION_COLORS, TEAM_COLORS, ReplayInfo
from ui.widgets import plain_label


class TimelineChart(QWidget):
    """APM per player over time with segments, focus windows, lookbacks and a time marker.

    Signals:
        time_clicked(float): the game time under a click.
    """

    time_clicked = Signal(float)

    MARGIN_L, MARGIN_R, MARGIN_T, MARGIN_B = 40, 10, 10, 22

    def __init__(self, ui: UiLanguage, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ui = ui
        self.info: ReplayInfo | None = None
        self.segments: list[tuple[float, float]] = []
        self.windows: list[tuple[float, float]] = []
        self.lookbacks: list[tuple[float, float]] = []
        self.marker: float | None = None
        self._layer: QPixmap | None = None
        self._layer_key: tuple[int, int, float, int] | None = None
        self.setMinimumHeight(140)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)

    # -- data -------------------------------------------------------------------------------------------------

    def set_replay(self, info: ReplayInfo | None) -> None:
        """Show a replay's APM curves (clears the plan overlays)."""
        self.info = info
        self.segments, self.windows, self.lookbacks, self.marker = [], [], [], None
        self._layer = None
        self.update()

    def set_plan(self, segments: list[tuple[float, float]], windows: list[tuple[float, float]]) -> None:
        """Draw an analysis plan: segment ranges and focus windows."""
        self.segments = list(segments)
        self.windows = list(windows)
        self.lookbacks = []
        self.update()

    def add_lookback(self, start: float, end: float) -> None:
        """Draw a served lookback range."""
        self.lookbacks.append((start, end))
        self.update()

    def jump_to(self, seconds: float) -> None:
        """Put the time marker at ``seconds``."""
        self.marker = seconds
        self.update()

    # -- geometry -----------------------------------------------------------------------------------------------

    @property
    def duration(self) -> float:
        """The time axis length (at least one minute)."""
        return max(self.info.duration if self.info else 0.0, 60.0)

    def _plot(self) -> QRectF:
        return QRectF(
            self.MARGIN_L,
            self.MARGIN_T,
            max(1, self.width() - self.MARGIN_L - self.MARGIN_R),
            max(1, self.height() - self.MARGIN_T - self.MARGIN_B),
        )

    def x_of(self, seconds: float) -> float:
        """Widget x of a game time."""
        r = self._plot()
        return r.left() + r.width() * min(max(seconds, 0.0), self.duration) / self.duration

    def time_at(self, x: float) -> float:
        """Game time of a widget x."""
        r = self._plot()
        return min(max((x - r.left()) / r.width(), 0.0), 1.0) * self.duration

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        """Clicking the chart moves the marker there."""
        t = self.time_at(event.position().x())
        self.jump_to(t)
        self.time_clicked.emit(t)

    # -- drawing ------------------------------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        """Background, overlays, curves, axes, marker."""
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        r = self._plot()
        pal = self.palette()
        p.fillRect(self.rect(), pal.color(QPalette.ColorRole.Base))
        p.fillRect(r, pal.color(QPalette.ColorRole.AlternateBase))
        for a, b in self.windows:
            p.fillRect(
                QRectF(self.x_of(a), r.top(), max(2.0, self.x_of(b) - self.x_of(a)), r.height()),
                QColor(255, 193, 7, 38),
            )
        for a, b in self.lookbacks:
            band = QRectF(self.x_of(a), r.bottom() - 8, max(2.0, self.x_of(b) - self.x_of(a)), 8)
            p.fillRect(band, QBrush(QColor("#6a1b9a"), Qt.BrushStyle.BDiagPattern))
            p.setPen(QPen(QColor("#6a1b9a")))
            p.drawRect(band)
        p.setPen(QPen(QColor("#607d8b"), 1, Qt.PenStyle.DashLine))
        for i, (a, _b) in enumerate(self.segments):
            if i == 0 and a <= 0:
                continue
            x = self.x_of(a)
            p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()))
        p.drawPixmap(0, 0, self._curves_layer())
        if self.marker is not None:
            x = self.x_of(self.marker)
            p.setPen(QPen(QColor("#d50000"), 2))
            p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()))
            p.drawText(QRectF(x + 3, r.top() + 2, 60, 14), Qt.AlignmentFlag.AlignLeft, clock(self.marker))
        p.end()

    def _curves_layer(self) -> QPixmap:
        """The APM curves and axes, drawn once per replay and size: a repaint then only draws the overlays.

        The curves cost 8–15 ms to draw, and the plan overlays repaint the chart at every stage of an analysis.
        """
        ratio = self.devicePixelRatioF()
        text = self.palette().color(QPalette.ColorRole.Text)
        key = (self.width(), self.height(), ratio, text.rgba())  # set_replay() drops the layer; a new palette too
        if self._layer is not None and self._layer_key == key:
            return self._layer
        layer = QPixmap(max(1, round(self.width() * ratio)), max(1, round(self.height() * ratio)))
        layer.setDevicePixelRatio(ratio)
        layer.fill(Qt.GlobalColor.transparent)
        p = QPainter(layer)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        r = self._plot()
        peak = 1.0
        players = [pl for pl in (self.info.players if self.info else ()) if not pl.observer and pl.apm_buckets]
        for pl in players:
            peak = max(peak, *pl.apm_buckets)
        peak *= 1.1
        for pl in players:
            path = QPainterPath()
            for k, apm in enumerate(pl.apm_buckets):
                t = min((k + 0.5) * pl.bucket_seconds, self.duration)
                pt = QPointF(self.x_of(t), r.bottom() - r.height() * apm / peak)
                if k == 0:
                    path.moveTo(pt)
                else:
                    path.lineTo(pt)
            p.setPen(QPen(QColor(pl.color), 2))
            p.drawPath(path)
        p.setPen(QPen(self.palette().color(QPalette.ColorRole.Mid)))
        p.drawRect(r)
        p.setPen(QPen(text))
        p.drawText(QRectF(0, r.top() - 2, self.MARGIN_L - 4, 14), Qt.AlignmentFlag.AlignRight, f"{int(peak)}")
        p.drawText(QRectF(0, r.bottom() - 12, self.MARGIN_L - 4, 14), Qt.AlignmentFlag.AlignRight, "0")
        step = 60.0 if self.duration <= 900 else 300.0
        t = 0.0
        while t <= self.duration:
            x = self.x_of(t)
            p.drawLine(QPointF(x, r.bottom()), QPointF(x, r.bottom() + 3))
            p.drawText(QRectF(x - 24, r.bottom() + 4, 48, 14), Qt.AlignmentFlag.AlignHCenter, clock(t))
            t += step
        p.drawText(QRectF(r.left() + 4, r.top() + 2, 200, 14), Qt.AlignmentFlag.AlignLeft, "APM")
        p.end()
        self._layer, self._layer_key = layer, key
        return layer


class ReplayCard(QFrame):
    """Map, mod, duration and the players (faction and team colours, APM) of the open replay."""

    def __init__(self, ui: UiLanguage, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ui = ui
        self.info: ReplayInfo | None = None
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.title = plain_label(parent=self)
        self.title.setStyleSheet("font-size: 15px; font-weight: bold;")
        self.meta = plain_label(parent=self)
        self.meta.setWordWrap(True)
        self.grid = QGridLayout()
        self.grid.setHorizontalSpacing(10)
        self.player_labels: list[QLabel] = []
        lay = QVBoxLayout(self)
        lay.addWidget(self.title)
        lay.addWidget(self.meta)
        lay.addLayout(self.grid)
        ui.changed.connect(lambda _c: self.set_replay(self.info))
        self.set_replay(None)

    def set_replay(self, info: ReplayInfo | None) -> None:
        """Fill the card (empty state when ``info`` is None)."""
        self.info = info
        for w in self.player_labels:
            w.setParent(None)
            w.deleteLater()
        self.player_labels = []
        if info is None:
            self.title.setText(self.ui.tx("No replay open"))
            self.meta.setText(self.ui.tx("Ctrl+O opens a replay; you can also drop files here."))
            return
        if info.error:
            self.title.setText(info.path.name)
            self.meta.setText(info.error)
            return
        self.title.setText(f"{info.map_name} — {info.path.name}")
        when = info.date.astimezone().strftime("%Y-%m-%d %H:%M") if info.date else "?"
        trunc = self.ui.tx(" (truncated replay)") if info.truncated else ""
        if not knowledge_mod(info.mod):  # say so instead of leaving the user to wonder about raw hashes
            trunc += self.ui.tx(" · no game knowledge for this game/mod")
        self.meta.setText(
            self.ui.tx(
                "Mod {mod} · duration {duration} · {when}{trunc}",
                mod=info.mod,
                duration=clock(info.duration),
                when=when,
                trunc=trunc,
            )
        )
        all_commands = self.ui.tx("All cmds/min")
        headers = (
            trc(self.ui.lang, "ui.replay_card", "Player"),
            self.ui.tx("Faction"),
            trc(self.ui.lang, "ui.replay_card", "Team"),
            "APM",
            all_commands,
        )
        for col, text in enumerate(headers):
            lab = QLabel(f"<b>{text}</b>")
            if col >= len(headers) - 2:
                lab.setToolTip(apm_tooltip(self.ui.lang))
            self.grid.addWidget(lab, 0, col)
            self.player_labels.append(lab)
        for row, pl in enumerate(info.players, start=1):
            name = plain_label(pl.name + (self.ui.tx(" (observer)") if pl.observer else ""))
            name.setStyleSheet(f"border-left: 10px solid {pl.color}; padding-left: 4px;")  # the colour swatch
            fcolor = FACTION_COLORS.get(pl.faction, "#555555")
            resolved = self.ui.tx(" (random, resolved)") if pl.faction_resolved else ""
            shown = _esc(faction_display(pl.faction, self.ui.lang))
            faction = QLabel(f"<span style='color:{fcolor}; font-weight:bold'>{shown}</span>{resolved}")
            team_color = TEAM_COLORS[(pl.team + 1) % len(TEAM_COLORS)] if pl.team >= 0 else TEAM_COLORS[0]
            team_text = self.ui.tx("Team {team}", team=pl.team + 1) if pl.team >= 0 else self.ui.tx("none")
            team = QLabel(f"<span style='background:{team_color}; color:white'>&nbsp;{team_text}&nbsp;</span>")
            apm = QLabel("" if pl.observer else f"{pl.apm:.0f}")
            cpm = QLabel("" if pl.observer else f"{pl.cpm:.0f}")
            for w in (apm, cpm):
                w.setToolTip(apm_tooltip(self.ui.lang))
            for col, w in enumerate((name, faction, team, apm, cpm)):
                self.grid.addWidget(w, row, col)
                self.player_labels.append(w)


def apm_tooltip(lang: Lang) -> str:
    """Why our APM is lower than the one KW players know (KWReplayAutoSaver counts every command)."""
    return tr(
        lang,
        "APM: orders the player gave per minute, without the messages the game sends by itself "
        "(CRC heartbeats, timing messages).\nAll cmds/min: those messages counted too: the APM "
        "KWReplayAutoSaver shows.",
    )


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
