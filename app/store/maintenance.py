"""``replaysage db vacuum``: the domains' own tidying, then the file compacted.

The store does not know which rows refer to text blocks (the domains above it do), so deleting unreferenced blocks
is a task a domain registers here (the command line's composition root does, :mod:`app.cli`). Without one, vacuum
only compacts the file: nothing is deleted that a row might still need.
"""

from __future__ import annotations

from collections.abc import Callable

from app.store.db import Database

Task = Callable[[Database], str]
"""Tidies the store; returns one line for the user saying what it did."""

_tasks: list[Task] = []


def register_task(task: Task) -> None:
    """Add a tidying task run by every vacuum (once, however often registered)."""
    if task not in _tasks:
        _tasks.append(task)


def vacuum(db: Database) -> list[str]:
    """Run every registered task, then compact the file (SQLite ``VACUUM``); returns what was done, line by line."""
    lines = [task(db) for task in _tasks]
    if db.engine.dialect.name == "sqlite" and db.path is not None:
        before = _file_bytes(db)
        raw = db.engine.raw_connection()  # the driver connection (autocommit): VACUUM cannot run in a transaction
        try:
            cursor = raw.cursor()
            for sql in ("PRAGMA wal_checkpoint(TRUNCATE)", "VACUUM", "PRAGMA wal_checkpoint(TRUNCATE)"):
                cursor.execute(sql)
            cursor.close()
        finally:
            raw.close()
        after = _file_bytes(db)
        lines.append(f"file compacted: {before / 1e6:.2f} MB -> {after / 1e6:.2f} MB (文件已压缩)")
    return lines


def _file_bytes(db: Database) -> int:
    assert db.path is not None
    wal = db.path.with_name(db.path.name + "-wal")
    return db.path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)
