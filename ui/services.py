"""The GUI's one door to the store (issue 32): widgets never import :mod:`app.store` themselves.

Why: a widget that imports the store can start running queries on the GUI thread. Widgets receive the
:class:`Database` the window opened here and hand it to the app's services (repositories, the analysis service,
the library), which they call through a :class:`ui.tabs.loading.Loader` or the :class:`ui.runner.ProcessRunner`,
never directly on the GUI thread. The import contract "ui reaches app.store only through ui.services" in
``pyproject.toml`` holds everyone to it (``lint-imports``).
"""

from __future__ import annotations

from app.store import Database, open_database

__all__ = ["Database", "open_store"]


def open_store() -> Database:
    """The user's store (``REPLAYSAGE_HOME`` / ``REPLAYSAGE_DATABASE_URL`` decide which), migrated to head."""
    return open_database()
