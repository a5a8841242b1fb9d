"""The app's icons: hand-drawn 16x16 SVGs in ``resources/icons`` (CC0, licence beside them), one per meaning.

Used for the menus' main actions, each stage's status in the outline, the severities of the issue list and the side
tabs (issue 30, item 10). Qt renders SVG through the ``qsvg`` image plugin that PySide6-Essentials ships.
"""

from __future__ import annotations

from functools import cache

from PySide6.QtGui import QIcon

from app.claims.issues import Severity
from app.paths import resources_dir

ICON_NAMES = (
    "open",
    "analyze",
    "cancel",
    "resume",
    "export",
    "settings",
    "status-done",
    "status-running",
    "status-pending",
    "status-failed",
    "status-cancelled",
    "severity-info",
    "severity-warning",
    "severity-weak",
    "severity-contradiction",
    "severity-fatal",
    "tab-wisdom",
    "tab-memory",
    "tab-players",
)

STATUS_ICONS = {
    "pending": "status-pending",
    "running": "status-running",
    "revising": "status-running",
    "retrying": "status-running",
    "done": "status-done",
    "failed": "status-failed",
    "cut": "status-failed",
    "stalled": "status-failed",
    "length": "status-failed",
    "cancelled": "status-cancelled",
}
"""A stage's status → its icon in the outline."""

SEVERITY_ICONS = {
    Severity.INFO: "severity-info",
    Severity.WARNING: "severity-warning",
    Severity.WEAK_EVIDENCE: "severity-weak",
    Severity.CONTRADICTION: "severity-contradiction",
    Severity.FATAL: "severity-fatal",
}


@cache
def icon(name: str) -> QIcon:
    """The icon ``name`` (one of :data:`ICON_NAMES`); an empty icon if the file is missing."""
    path = resources_dir() / "icons" / f"{name}.svg"
    return QIcon(str(path)) if path.is_file() else QIcon()
