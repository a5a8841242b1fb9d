"""Where the app finds its bundled resources and keeps user data.

``REPLAYSAGE_HOME`` redirects all user data (database, settings, logs, fallback secrets): tests point it at a
temporary folder so they never touch the user's profile. ``REPLAYSAGE_KNOWLEDGE`` points the game knowledge (the
mod folders) elsewhere: a modder's own folder, or a test's fixture mod.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "ReplaySage"
_SOURCE_ROOT = Path(__file__).resolve().parent.parent


def project_root() -> Path:
    """The folder holding ``knowledge/`` and ``resources/`` (the source tree, or a packaged bundle)."""
    override = os.environ.get("REPLAYSAGE_RESOURCES")
    return Path(override) if override else _SOURCE_ROOT


KNOWLEDGE_ENV = "REPLAYSAGE_KNOWLEDGE"


def knowledge_dir() -> Path:
    """Game knowledge, one folder per mod (:mod:`app.mods`): the bundled one, or ``REPLAYSAGE_KNOWLEDGE``'s folder."""
    override = os.environ.get(KNOWLEDGE_ENV)
    return Path(override) if override else project_root() / "knowledge"


def resources_dir() -> Path:
    """Bundled resources (the sample replay, icons, translations)."""
    return project_root() / "resources"


def sample_replay() -> Path:
    """The demo replay the app ships (written by the project's own code)."""
    return resources_dir() / "sample.RA3Replay"


def user_data_dir() -> Path:
    """Per-user data folder, created on first use."""
    override = os.environ.get("REPLAYSAGE_HOME")
    path = Path(override) if override else Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path


def database_path() -> Path:
    """The SQLite store."""
    return user_data_dir() / "replaysage.sqlite3"
