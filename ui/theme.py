"""The app's look: the bundled CJK font and one small style sheet (spacing, primary action, status badges).

The style sheet is set on the few widgets that use its properties (:func:`themed`), never on the application: an
application-wide sheet routes every widget's polish, size hints and painting through Qt's style-sheet engine, and
while a model streamed that made the longest event-loop stall of ``benchmarks/ui_stream.py`` 59.7 ms instead of
42.5 ms (8,000 tokens).

Machines without a Chinese font (a fresh Linux install, a CI box) showed every Chinese player name as a row of
boxes. The app ships WenQuanYi Micro Hei (``resources/fonts``, Apache-2.0, licence beside it) and registers it at
start-up only when the system has no Simplified Chinese font, so a system font keeps winning where there is one.
"""

from __future__ import annotations

import logging
from typing import TypeVar

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QFontDatabase, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QWidget

from app.paths import resources_dir

log = logging.getLogger(__name__)

BUNDLED_CJK_FONT = "fonts/wqy-microhei.ttc"

SPACING = 6
"""The base unit of margins and gaps (multiples of it everywhere the window sets one)."""

STYLE_SHEET = """
QPushButton[primary="true"] { font-weight: 600; padding: 4px 14px; border-radius: 4px;
    background: palette(highlight); color: palette(highlighted-text); border: 1px solid palette(highlight); }
QPushButton[primary="true"]:disabled { background: palette(mid); border-color: palette(mid); }
QLabel[badge="true"] { border-radius: 8px; padding: 1px 8px; font-size: 11px; font-weight: 600;
    background: palette(mid); color: palette(base); }
QLabel[badge="running"] { border-radius: 8px; padding: 1px 8px; font-size: 11px; font-weight: 600;
    background: #2f6fdf; color: white; }
QLabel[badge="done"] { border-radius: 8px; padding: 1px 8px; font-size: 11px; font-weight: 600;
    background: #2e8b57; color: white; }
QLabel[badge="problem"] { border-radius: 8px; padding: 1px 8px; font-size: 11px; font-weight: 600;
    background: #c0392b; color: white; }
QLabel[role="empty"] { color: palette(placeholder-text); padding: 12px; }
QLabel[role="hint"] { color: palette(placeholder-text); }
QLineEdit[invalid="true"], QSpinBox[invalid="true"], QComboBox[invalid="true"] { border: 2px solid #c0392b; }
"""


def has_system_cjk_font() -> bool:
    """Whether a font that covers Simplified Chinese is installed (bundled ones not counted)."""
    return bool(QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese))


def ensure_cjk_font() -> str | None:
    """Register the bundled CJK font when the system has none; returns the family now used for Chinese.

    The family is added as a fallback of the default UI font (``QFont.insertSubstitution``) so Latin text keeps
    the system font and only the glyphs it lacks come from the bundled one.
    """
    if has_system_cjk_font():
        return None
    path = resources_dir() / BUNDLED_CJK_FONT
    font_id = QFontDatabase.addApplicationFont(str(path)) if path.is_file() else -1
    if font_id < 0:
        log.warning("no CJK font on this system and the bundled one (%s) could not be loaded", path)
        return None
    families = QFontDatabase.applicationFontFamilies(font_id)
    if not families:
        return None
    family = families[0]
    app_font = QGuiApplication.font()
    for base in {app_font.family(), *app_font.families(), "Sans Serif", "DejaVu Sans"}:
        if base:
            QFont.insertSubstitution(base, family)
    return family


DARK_COLORS: dict[QPalette.ColorRole, str] = {
    QPalette.ColorRole.Window: "#2b2b2b",
    QPalette.ColorRole.WindowText: "#e6e6e6",
    QPalette.ColorRole.Base: "#1e1e1e",
    QPalette.ColorRole.AlternateBase: "#262626",
    QPalette.ColorRole.Text: "#e6e6e6",
    QPalette.ColorRole.Button: "#353535",
    QPalette.ColorRole.ButtonText: "#e6e6e6",
    QPalette.ColorRole.BrightText: "#ffffff",
    QPalette.ColorRole.Highlight: "#2f6fdf",
    QPalette.ColorRole.HighlightedText: "#ffffff",
    QPalette.ColorRole.ToolTipBase: "#353535",
    QPalette.ColorRole.ToolTipText: "#e6e6e6",
    QPalette.ColorRole.PlaceholderText: "#8a8a8a",
    QPalette.ColorRole.Link: "#6ea8ff",
    QPalette.ColorRole.Mid: "#555555",
    QPalette.ColorRole.Dark: "#1a1a1a",
    QPalette.ColorRole.Light: "#4a4a4a",
}
"""The dark palette used where the platform does not darken Qt's own (Fusion's colours, as Qt's dark themes)."""

_light_palette: QPalette | None = None


def dark_palette() -> QPalette:
    """The palette of the dark theme (disabled texts greyed)."""
    palette = QPalette()
    for role, color in DARK_COLORS.items():
        palette.setColor(role, QColor(color))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText, QPalette.ColorRole.WindowText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor("#7a7a7a"))
    return palette


def apply_color_scheme(app: QApplication, scheme: Qt.ColorScheme) -> None:
    """Light or dark for ``scheme``.

    A platform that already themes Qt dark is left alone; elsewhere the dark palette is set (Fusion style, which
    honours it), and the platform's light one is put back for a light scheme.
    """
    global _light_palette  # noqa: PLW0603 - the palette the platform gave, restored for a light scheme
    if _light_palette is None:
        _light_palette = QPalette(app.palette())
    if scheme is Qt.ColorScheme.Dark:
        if _light_palette.color(QPalette.ColorRole.Window).lightness() < 128:
            return  # the platform's own palette is dark already
        app.setStyle("Fusion")
        app.setPalette(dark_palette())
    else:
        app.setPalette(_light_palette)


def apply_theme(app: QGuiApplication) -> None:
    """Font fallback, and light or dark as the system says, now and whenever it changes.

    The style sheet goes per widget (:func:`themed`), never on the application.
    """
    ensure_cjk_font()
    if isinstance(app, QApplication):
        hints = app.styleHints()
        apply_color_scheme(app, hints.colorScheme())
        hints.colorSchemeChanged.connect(lambda scheme: apply_color_scheme(app, scheme))


W = TypeVar("W", bound=QWidget)


def themed(widget: W) -> W:
    """Give ``widget`` and its children the style sheet (the roots whose widgets use its properties)."""
    widget.setStyleSheet(STYLE_SHEET)
    return widget


def styled(widget: W, name: str, value: object = True) -> W:
    """Set the sheet property ``name`` on ``widget`` and style that widget alone with the sheet.

    For a widget in a large view (the side tabs): a sheet on a container routes every widget under it through the
    style-sheet engine, and re-parenting a side tab under a themed tab widget re-styled its whole tree (25-35 ms
    of a language switch). Called again, it restyles the widget with the new value (a field marked invalid).
    """
    widget.setProperty(name, value)
    if widget.styleSheet() != STYLE_SHEET:
        widget.setStyleSheet(STYLE_SHEET)
    else:
        style = widget.style()
        style.unpolish(widget)
        style.polish(widget)
    return widget
