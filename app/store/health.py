"""Keeping the store intact: integrity checks, a daily rotating backup, restore, and clear errors for bad files.

* :func:`check_database` runs ``PRAGMA quick_check`` (fast; at every start-up and after any ``DatabaseError``) or
  the full ``integrity_check`` (on demand, ``replaysage db check --full``).
* :func:`daily_backup` keeps one online backup per day in ``backups/`` next to the database, the newest
  :data:`KEEP_BACKUPS` of them; :func:`restore_database` puts one back (after checking it), keeping the damaged
  file aside. A damaged database is never written to: the error names ``replaysage db restore``. A sound one is
  replaced only when asked to (``--force``), after saying what would be lost, and is kept aside too.
* :func:`store_fault` tells what is wrong when SQLite fails: the disk is full, the file or filesystem is read-only,
  or (only from SQLite's own verdict) the file is damaged. A full disk or a read-only folder makes the check itself
  fail to open the file; that is not damage, and saying "damaged, restore a backup" would send the user to the
  one remedy that cannot help and may lose data.

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
MIN_FREE_BYTES = 1 << 20
"""Below this much free space on the database's filesystem a failed write is put down to a full disk."""
SQLITE_READONLY, SQLITE_IOERR, SQLITE_CORRUPT, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_NOTADB = 8, 10, 11, 13, 14, 26
"""Primary result codes (https://sqlite.org/rescode.html); Python 3.11 gives them as ``sqlite_errorcode``."""
BACKUP_DIR = "backups"
RESTORE_HINT = "run `replaysage db restore` to put back the newest good backup"


class DatabaseError(KnownError):
    """The store cannot be opened, migrated or used."""


class DatabaseCorruptError(DatabaseError):
    """The database file is damaged; nothing more is written into it."""


class DatabaseReadOnlyError(DatabaseError):
    """The database file (or its folder) cannot be written."""


class DatabaseFullError(DatabaseError):
    """The disk (or quota) holding the database has no room for the write."""


def _result_code(exc: BaseException) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def filesystem_fault(path: Path) -> DatabaseError | None:
    """What the filesystem holding ``path`` says against writing there: read-only, or full (None when neither)."""
    folder = path if path.is_dir() else path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        vfs = os.statvfs(folder)
    except OSError:
        return None
    if vfs.f_flag & os.ST_RDONLY:
        return DatabaseReadOnlyError(
            f"database {path} is on a read-only filesystem ({folder}); nothing can be written there. Make it "
            f"writable, or set REPLAYSAGE_HOME to another folder (数据库所在的文件系统为只读)"
        )
    free = vfs.f_bavail * vfs.f_frsize
    if vfs.f_blocks and free < MIN_FREE_BYTES:  # (a pseudo filesystem such as /proc has no blocks at all)
        return DatabaseFullError(
            f"the disk holding database {path} is full ({free:,} bytes free in {folder}); nothing was lost, but "
            f"nothing more can be stored until space is freed (磁盘已满，数据库未损坏；请释放空间)"
        )
    return None


def store_fault(exc: BaseException, path: Path) -> DatabaseError | None:
    """The user-facing error for an SQLite or OS failure that is not damage: disk full, read-only (None otherwise).

    SQLite's result code decides where it is explicit (``SQLITE_FULL``, ``SQLITE_READONLY``; ``ENOSPC``/``EROFS``
    for an OS error); any other failure is put down to the filesystem when it is read-only or out of space.
    Damage (``SQLITE_CORRUPT``, ``SQLITE_NOTADB``) is never a fault here: only :func:`check_database` says it.
    """
    import errno

    code = _result_code(exc)
    err = getattr(exc, "errno", None)
    if code == SQLITE_FULL or err in (errno.ENOSPC, errno.EDQUOT):
        return filesystem_fault(path) or DatabaseFullError(
            f"the disk holding database {path} is full (SQLite: {exc}); nothing was lost, but nothing more can be "
            f"stored until space is freed (磁盘已满，数据库未损坏；请释放空间)"
        )
    if code == SQLITE_READONLY or err in (errno.EROFS, errno.EACCES, errno.EPERM):
        return filesystem_fault(path) or DatabaseReadOnlyError(
            f"database {path} cannot be written (read-only file or folder: {exc}); make it writable or set "
            "REPLAYSAGE_HOME to another folder (数据库为只读)"
        )
    if code in (SQLITE_CORRUPT, SQLITE_NOTADB):
        return None
    return filesystem_fault(path)


def check_database(path: Path, *, full: bool = False, immutable: bool = False) -> list[str]:
    """The damage SQLite finds in the file (empty when it is sound); a file that is not a database is damage.

    ``immutable`` reads a file nothing writes any more (a backup) without locks or a ``-shm`` file, so it can be
    checked on a read-only filesystem too.

    Raises:
        DatabaseError: the check could not run, and not because of damage (disk full, read-only, cannot open);
            the error says which.
    """
    uri = f"file:{path}?mode=ro" + ("&immutable=1" if immutable else "")
    try:
        con = sqlite3.connect(uri, uri=True)
        try:
            pragma = "integrity_check" if full else "quick_check"
            rows = [str(r[0]) for r in con.execute(f"PRAGMA {pragma}").fetchall()]
        finally:
            con.close()
    except sqlite3.Error as exc:
        fault = store_fault(exc, path)
        if fault is not None:
            raise fault from exc
        if _result_code(exc) in (SQLITE_CORRUPT, SQLITE_NOTADB) or type(exc) is sqlite3.DatabaseError:
            return [str(exc)]
        raise DatabaseError(f"cannot check database {path}: {exc}") from exc
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


class RestoreRefusedError(KnownError):
    """``db restore`` on a sound database without ``--force``: what would be lost is in the message."""


def table_counts(path: Path, *, immutable: bool = False) -> dict[str, int]:
    """Rows per table of a SQLite file (read-only), to say what a restore would lose."""
    uri = f"file:{path}?mode=ro" + ("&immutable=1" if immutable else "")
    con = sqlite3.connect(uri, uri=True)
    try:
        names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {n: int(con.execute(f'SELECT COUNT(*) FROM "{n}"').fetchone()[0]) for n in names}
    finally:
        con.close()


def restore_loss(path: Path, backup: Path) -> list[str]:
    """``table: now → in the backup`` for every table whose row count the restore would change."""
    now, then = table_counts(path), table_counts(backup, immutable=True)
    return [
        f"{name}: {now.get(name, 0)} → {then.get(name, 0)}"
        for name in sorted(set(now) | set(then))
        if now.get(name, 0) != then.get(name, 0) and name != "alembic_version"
    ]


def restore_database(path: Path, source: Path | None = None, *, force: bool = False) -> tuple[Path, Path | None]:
    """Replace the database with ``source`` (default: the newest sound backup); returns (used, set aside).

    The current file (with its ``-wal``/``-shm``) is renamed rather than deleted: ``.damaged-<time>`` when SQLite
    finds it damaged, ``.replaced-<time>`` when it was sound. A sound database is replaced only with ``force``:
    without it the error says which backup it would be and what would be lost (rows per table).

    Raises:
        RestoreRefusedError: the database is sound and ``force`` is not set.
        DatabaseError: the folder cannot be written (read-only, full): nothing is changed, and the message names
            the sound backup there is, if any.
        KnownError: no sound backup exists, or ``source`` is damaged.
    """
    candidates = [source] if source is not None else backups(path)
    chosen = None
    unreadable: list[str] = []
    for c in candidates:
        if not c.is_file():
            continue
        try:
            if not check_database(c, immutable=True):
                chosen = c
                break
        except DatabaseError as exc:  # not damage: the backup could not be read at all
            unreadable.append(f"{c.name}: {exc}")
    fault = filesystem_fault(path)
    if fault is not None:
        found = f"; the newest sound backup is {chosen}" if chosen is not None else ""
        raise type(fault)(f"cannot restore: {fault}{found}")
    if chosen is None:
        where = source if source is not None else backup_dir(path)
        why = f" ({'; '.join(unreadable)})" if unreadable else ""
        raise KnownError(f"no sound backup to restore from {where}{why} (没有可用的完好备份)")
    sound = path.exists() and path.stat().st_size > 0 and not check_database(path)
    if sound and not force:
        loss = restore_loss(path, chosen)
        lost = "; ".join(loss) if loss else "no row counts differ"
        raise RestoreRefusedError(
            f"database {path} is sound: nothing to restore. Restoring {chosen} would replace it (rows now → in the "
            f"backup: {lost}); the current file would be kept aside. Run `replaysage db restore --force` to do it "
            f"anyway (数据库完好，无需恢复；如确需用备份替换，请加 --force，当前文件会另存保留)"
        )
    staged = path.with_name(f"{path.name}.restoring-{os.getpid()}")
    try:  # the copy first: a disk that fills up now leaves the current file where it was
        backup_database(chosen, staged)
    except (sqlite3.Error, OSError) as exc:
        with contextlib.suppress(OSError):
            staged.unlink()
        raise (store_fault(exc, path) or DatabaseError(f"cannot restore {path} from {chosen}: {exc}")) from exc
    aside: Path | None = None
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    if path.exists():
        aside = path.with_name(f"{path.name}.{'replaced' if sound else 'damaged'}-{stamp}")
        os.replace(path, aside)
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            if aside is not None:
                os.replace(side, aside.with_name(aside.name + suffix))
            else:
                side.unlink()
    os.replace(staged, path)
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
