"""The GUI's one door to the store (issue 32): widgets never import :mod:`app.store` themselves.

Why: a widget that imports the store can start running queries on the GUI thread. Widgets receive the
:class:`Database` the window opened here and hand it to the app's services (repositories, the analysis service,
the library), which they call through a :class:`ui.tabs.loading.Loader` or the :class:`ui.runner.ProcessRunner`,
never directly on the GUI thread. The import contract "ui reaches app.store only through ui.services" in
``pyproject.toml`` holds everyone to it (``lint-imports``).
"""

from __future__ import annotations

import threading

from app.store import Database, open_database
from ui.imports import imported

__all__ = ["Database", "complete_mapping", "open_store"]

_MAPPING_COMPLETE = threading.Event()  # set once complete_mapping() has run in this process


def open_store() -> Database:
    """The user's store (``REPLAYSAGE_HOME`` / ``REPLAYSAGE_DATABASE_URL`` decide which), migrated to head.

    Its first query waits for :func:`complete_mapping` (the store runs it once, on the first thread that uses it).
    """
    return open_database(prepare=complete_mapping)


def complete_mapping() -> None:
    """Import every table module and configure the mapping, before the window's first query (a worker thread's).

    The start-up preload imports the analysis modules on the import thread while the window shows and its views
    start reading. SQLAlchemy configures every mapper of the one registry at the first query in the process: run
    while the import thread was half-way through ``app.pipeline.records`` (``AnalysisRecord`` mapped, its
    ``order_by="StageRecord.ordinal"`` naming a class not defined yet), it failed, and the failure stuck to the
    mapper: every later query of the process failed too (``benchmarks/ui_stream.py``, about one run in two).

    :mod:`app.tables` imports every table module. It is imported on the import thread (:func:`ui.imports.imported`),
    after whatever is queued there, so a table module the preload is importing is finished first, and two threads
    never import one package at once. Once it is imported no table module can be half-imported any more, and the
    mapping is configured whole. On the GUI thread this would wait for the queue; the views read in worker threads
    (:mod:`ui.tabs.loading`), so the window never waits for it.
    """
    if _MAPPING_COMPLETE.is_set():
        return
    imported("app.tables")
    from app.tables import configure

    configure()
    _MAPPING_COMPLETE.set()
