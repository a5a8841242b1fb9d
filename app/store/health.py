"""Keeping the store intact: integrity checks, a daily rotating backup, restore, and clear errors for bad files.

* :func:`check_database` runs ``PRAGMA quick_check`` (fast; at every start-up and after any ``DatabaseError``) or
  the full ``integrity_check`` (on demand, ``replaysage db check --full``).
* :func:`daily_backup` keeps one online backup per day in ``backups/`` next to the database, the newest
  :data:`KEEP_BACKUPS` of them; :func:`restore_database` puts one back (after checking it), keeping the damaged
  file aside. A damaged database is never written to: the error names ``replaysage db restore``.

SQLite only; another dialect relies on its server's own tools (the callers check the dialect).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
from datetime import UTC, datetime
from pathlib import Path

from app.errors import KnownError

KEEP_BACKUPS = 7
BACKUP_DIR = "backups"
RESTORE_HINT = "run `replaysage db restore` to put back the newest good backup"


class DatabaseError(KnownError):
    """The store cannot be opened, migrated or used."""


class DatabaseCorruptError(DatabaseError):
    """The database file is damaged; nothing more is written into it."""


class DatabaseReadOnlyError(DatabaseError):
    """The database file (or its folder) cannot be written."""


def check_database(path: Path, *, full: bool = False) -> list[str]:
    """The problems SQLite finds in the file (empty when it is sound); a file that is not a database is a problem."""
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        return [str(exc)]
    try:
        pragma = "integrity_check" if full else "quick_check"
        rows = [str(r[0]) for r in con.execute(f"PRAGMA {pragma}").fetchall()]
    except sqlite3.DatabaseError as exc:
        return [str(exc)]
    finally:
        con.close()
    return [] if rows == ["ok"] else rows


def corrupt_error(path: Path, problems: list[str]) -> DatabaseCorruptError:
    """The user-facing error for a damaged file: what SQLite found and the way back."""
    first = " ".join((problems[0] if problems else "unknown damage").replace("*** in database main ***", "").split())
    first = first[:200] + ("…" if len(first) > 200 else "")
    more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
    return DatabaseCorruptError(
        f"database {path} is damaged ({first}{more}); nothing was written to it. {RESTORE_HINT} "
        f"(数据库已损坏，未写入任何内容；运行 `replaysage db restore` 恢复最近的完好备份)"
    )


def ensure_writable(path: Path) -> None:
    """Refuse a read-only database file or folder up front, with a message instead of a traceback on first write.

    Permission bits count even for a superuser (who could write anyway): a file made read-only was meant to be.
    """
    folder = path.parent
    for target, what in ((path, "file"), (folder, "folder")):
        if not target.exists():
            continue
        mode = target.stat().st_mode
        if not (mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)) or not os.access(target, os.W_OK):
            raise DatabaseReadOnlyError(
                f"database {what} {target} is read-only; make it writable or set REPLAYSAGE_HOME to another "
                f"folder (数据库{'文件' if what == 'file' else '所在文件夹'}为只读)"
            )


def backup_dir(path: Path) -> Path:
    """Where the backups of the database at ``path`` live."""
    return path.parent / BACKUP_DIR


def backups(path: Path) -> list[Path]:
    """The backups of a database, newest first."""
    folder = backup_dir(path)
    if not folder.is_dir():
        return []
    return sorted(folder.glob(f"{path.stem}-*.sqlite3"), reverse=True)


def backup_now(path: Path, *, keep: int = KEEP_BACKUPS, now: datetime | None = None) -> Path:
    """An online backup named by today's date (replacing today's), then only the newest ``keep`` are kept."""
    folder = backup_dir(path)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = (now or datetime.now(UTC)).strftime("%Y-%m-%d")
    target = folder / f"{path.stem}-{stamp}.sqlite3"
    backup_database(path, target)
    for old in backups(path)[keep:]:
        with contextlib.suppress(OSError):
            old.unlink()
    return target


def daily_backup(path: Path, *, keep: int = KEEP_BACKUPS, now: datetime | None = None) -> Path | None:
    """Back up once a day (the first open of the day); returns the new backup, or None when today's exists."""
    stamp = (now or datetime.now(UTC)).strftime("%Y-%m-%d")
    if any(b.name == f"{path.stem}-{stamp}.sqlite3" for b in backups(path)):
        return None
    return backup_now(path, keep=keep, now=now)


def restore_database(path: Path, source: Path | None = None) -> tuple[Path, Path | None]:
    """Replace the database with ``source`` (default: the newest sound backup); returns (used, set aside).

    The current file (with its ``-wal``/``-shm``) is renamed ``.damaged-<time>`` rather than deleted.

    Raises:
        KnownError: no sound backup exists, or ``source`` is damaged.
    """
    candidates = [source] if source is not None else backups(path)
    chosen = next((c for c in candidates if c.is_file() and not check_database(c)), None)
    if chosen is None:
        where = source if source is not None else backup_dir(path)
        raise KnownError(f"no sound backup to restore from {where} (没有可用的完好备份)")
    aside: Path | None = None
    if path.exists():
        aside = path.with_name(f"{path.name}.damaged-{datetime.now(UTC).strftime('%Y%m%dT%H%M%S')}")
        os.replace(path, aside)
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            if aside is not None:
                os.replace(side, aside.with_name(aside.name + suffix))
            else:
                side.unlink()
    backup_database(chosen, path)
    return chosen, aside


def backup_database(path: Path, target: Path) -> None:
    """Copy the database at ``path`` to ``target`` through SQLite's online backup.

    A plain file copy would miss whatever still sits in the ``-wal`` file (committed but not yet checkpointed),
    so the backup would lack the latest rows; the backup API reads through the WAL like any reader. The copy is
    written next to ``target`` first and moved into place, so an old backup is never left half-overwritten; the
    partial file is this process's own (several processes opening the store at once each back it up once).
    """
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    with contextlib.suppress(FileNotFoundError):
        partial.unlink()
    source = sqlite3.connect(path)
    try:
        dest = sqlite3.connect(partial)
        try:
            source.backup(dest)
        finally:
            dest.close()
    finally:
        source.close()
    os.replace(partial, target)
