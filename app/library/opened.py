"""Replays opened in the window, remembered across starts: the library lists them with the folder's replays.

With no replay folder set the library used to start empty, forgetting every replay opened before (issue 30,
item 9). Opening a replay records its path (:func:`remember_opened`); at start the window lists the remembered
files that still exist (:func:`opened_replays`, worker thread), newest first.
"""

from __future__ import annotations

import time
from pathlib import Path

from sqlalchemy import delete, select

from app.library.headers import HeaderSummary, read_summary
from app.library.tables import LibraryOpenedRow
from app.store.db import Database

MAX_REMEMBERED = 200
"""How many opened replays are remembered (the oldest are forgotten first)."""


def remember_opened(db: Database, path: Path, when: float | None = None) -> None:
    """Record that ``path`` was opened now (or at ``when``); keeps the newest :data:`MAX_REMEMBERED`."""
    key = str(path.resolve())
    at = time.time() if when is None else when
    with db.session() as s:
        row = s.get(LibraryOpenedRow, key)
        if row is None:
            s.add(LibraryOpenedRow(path=key, opened_at=at))
        else:
            row.opened_at = at
        s.flush()
        old = s.scalars(
            select(LibraryOpenedRow.path).order_by(LibraryOpenedRow.opened_at.desc()).offset(MAX_REMEMBERED)
        ).all()
        if old:
            s.execute(delete(LibraryOpenedRow).where(LibraryOpenedRow.path.in_(old)))


def opened_paths(db: Database) -> list[Path]:
    """The remembered paths, newest first (files may have gone since)."""
    with db.read() as s:
        rows = s.scalars(select(LibraryOpenedRow.path).order_by(LibraryOpenedRow.opened_at.desc())).all()
    return [Path(p) for p in rows]


def opened_replays(db: Database) -> list[HeaderSummary]:
    """Header summaries of the remembered replays that still exist and can be read, newest first."""
    out = []
    for path in opened_paths(db):
        try:
            st = path.stat()
        except OSError:
            continue  # moved or deleted: not listed (kept, it may come back, e.g. a drive plugged in again)
        summary = read_summary(path, st.st_size, st.st_mtime_ns)
        if not summary.error:
            out.append(summary)
    return out
