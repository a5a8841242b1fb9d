"""Open the SQLite store, migrate it, and hand out sessions.

SQLite on Python 3.11 needs the connection set up by hand (engineering notes §1.10): autocommit driver mode,
an explicit ``BEGIN``, foreign keys, WAL. Alembic runs in code on the same connection (§1.11); the database is
backed up before an upgrade, and a database newer than this app is refused rather than damaged.

Several processes may use one file (two ``analyze`` runs, the GUI and a CLI). Writes therefore:

* start with ``BEGIN IMMEDIATE`` — the write lock is taken at the start, where SQLite's busy handler waits for it,
  instead of at the first write of a deferred transaction, where a stale read snapshot fails at once with
  ``database is locked``;
* retry a busy ``BEGIN`` a bounded number of times (each waiting up to the busy timeout) before giving up with a
  message that says another process holds the database;
* are serialised inside one process by a lock per database file (one writer per process), so threads never
  contend at the SQLite level; transactions stay short (one unit of work per session).

Reads use :meth:`Database.read` (a deferred ``BEGIN``: WAL readers never wait for the writer). Everything
SQLite-specific sits behind :func:`_is_sqlite` so another dialect can bring its own.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any, NoReturn

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from app.store.health import (
    DatabaseError,
    DatabaseReadOnlyError,
    backup_database,
    check_database,
    corrupt_error,
    daily_backup,
    ensure_writable,
)

log = logging.getLogger("replaysage.store")

BUSY_TIMEOUT_MS = 5000
"""How long SQLite's busy handler waits for the write lock on one ``BEGIN IMMEDIATE``."""
BUSY_RETRIES = 6
"""How many more times a busy ``BEGIN IMMEDIATE`` is tried (with a short pause) before the write fails."""
_READ_OPTION = "replaysage_read"


class DatabaseBusyError(DatabaseError):
    """Another process held the database's write lock for longer than every retry waited."""


def _is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"


def _is_busy(exc: BaseException) -> bool:
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


def _begin_immediate(conn: Any) -> None:
    """``BEGIN IMMEDIATE``, retried a bounded number of times while another process holds the write lock."""
    for attempt in range(BUSY_RETRIES + 1):
        try:
            conn.exec_driver_sql("BEGIN IMMEDIATE")
            return
        except DBAPIError as exc:
            if exc.orig is None or not _is_busy(exc.orig) or attempt == BUSY_RETRIES:
                if exc.orig is not None and _is_busy(exc.orig):
                    waited = (BUSY_RETRIES + 1) * BUSY_TIMEOUT_MS / 1000
                    raise DatabaseBusyError(
                        f"the database is busy: another process held its write lock for over {waited:.0f} s "
                        "(is another ReplaySage writing to the same data folder?)"
                    ) from exc
                raise
            pause = min(0.05 * 2**attempt, 1.0)
            log.info("database busy, retrying BEGIN IMMEDIATE in %.2f s (%d/%d)", pause, attempt + 1, BUSY_RETRIES)
            time.sleep(pause)


_writer_locks: dict[str, threading.RLock] = {}
_writer_locks_guard = threading.Lock()


def _writer_lock(key: str) -> threading.RLock:
    """The one-writer-per-process lock of a database (shared by every :class:`Database` on the same file)."""
    with _writer_locks_guard:
        lock = _writer_locks.get(key)
        if lock is None:
            lock = _writer_locks[key] = threading.RLock()
        return lock


def _alembic_config() -> Config:
    cfg = Config()
    location = resources.files("app.store") / "migrations"
    cfg.set_main_option("script_location", str(location))
    return cfg


def _make_engine(url: str) -> Engine:
    if not url.startswith("sqlite"):
        return create_engine(url)
    engine = create_engine(url, connect_args={"isolation_level": None, "check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: sqlite3.Connection, _record: Any) -> None:
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")  # first: switching to WAL may wait for a lock
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        if conn.get_execution_options().get(_READ_OPTION):
            conn.exec_driver_sql("BEGIN")
        else:
            _begin_immediate(conn)

    return engine


class Database:
    """The store: an engine plus session factories. The only object that writes the database."""

    def __init__(self, engine: Engine, path: Path | None) -> None:
        self.engine = engine
        self.path = path
        self._sessions = sessionmaker(engine, expire_on_commit=False)
        self._read_sessions = sessionmaker(engine.execution_options(**{_READ_OPTION: True}), expire_on_commit=False)
        key = str(path.resolve()) if path is not None else f"memory:{id(self)}"
        self._writer = _writer_lock(key)
        self._local = threading.local()
        self._damage: list[str] = []  # set once a check found the file damaged: nothing more is written

    def _joined(self) -> Session | None:
        """The session this thread already holds (to join), else None after refusing a file known to be damaged."""
        outer: Session | None = getattr(self._local, "session", None)
        if outer is None and self._damage and self.path is not None:
            raise corrupt_error(self.path, self._damage)
        return outer

    def _raise_translated(self, exc: DBAPIError) -> NoReturn:
        translated = self._translate(exc)
        if translated is exc:
            raise exc
        raise translated from exc

    def _translate(self, exc: DBAPIError) -> BaseException:
        """A driver error as the user should see it: a read-only or damaged file (checked now), else as it was."""
        orig = exc.orig
        text = str(orig).lower()
        if isinstance(orig, sqlite3.OperationalError) and "readonly" in text:
            return DatabaseReadOnlyError(
                f"database {self.path} cannot be written (read-only file or folder); make it writable or set "
                "REPLAYSAGE_HOME to another folder (数据库为只读)"
            )
        damage_class = isinstance(orig, sqlite3.DatabaseError) and not isinstance(
            orig, sqlite3.OperationalError | sqlite3.IntegrityError
        )
        if damage_class and self.path is not None and _is_sqlite(self.engine):
            self._damage = check_database(self.path) or []
            if self._damage:
                return corrupt_error(self.path, self._damage)
        return exc

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session for one unit of work that may write: committed on success, rolled back on error.

        It holds the write lock (``BEGIN IMMEDIATE`` on SQLite) from its first statement to its end, so keep it
        short. A session opened while this thread already holds one joins it (one writer per process: a second
        connection of the same thread would wait for the first one forever).
        """
        outer = self._joined()
        if outer is not None:
            yield outer
            return
        with self._writer, self._sessions() as s:
            self._local.session = s
            try:
                yield s
                s.commit()
            except DBAPIError as exc:
                with contextlib.suppress(SQLAlchemyError):
                    s.rollback()
                self._raise_translated(exc)
            except BaseException:
                s.rollback()
                raise
            finally:
                self._local.session = None

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A read-only session (a deferred ``BEGIN``: it never waits for a writer, nor holds one up)."""
        outer = self._joined()
        if outer is not None:
            yield outer
            return
        with self._read_sessions() as s:  # closing ends the transaction; loaded objects stay usable (detached)
            try:
                yield s
            except DBAPIError as exc:
                self._raise_translated(exc)

    def close(self) -> None:
        """Release every connection."""
        self.engine.dispose()


def open_database(path: Path | str | None = None) -> Database:
    """Open (creating and migrating as needed) the store at ``path``; ``None`` means the user data folder."""
    if path is None:
        from app.paths import database_path

        path = database_path()
    p = None if str(path) == ":memory:" else Path(path)
    existed = p is not None and p.exists() and p.stat().st_size > 0
    if p is not None and existed:
        # before anything touches the file: a read-only file is a clear error, a damaged one is never written to
        ensure_writable(p)
        problems = check_database(p)
        if problems:
            raise corrupt_error(p, problems)
    url = "sqlite://" if p is None else f"sqlite:///{p}"
    engine = _make_engine(url)
    try:
        # The first connection is made inside migrate(): a file that is not SQLite, a folder that does not exist
        # or cannot be written surfaces here, and must reach the user as a message, not a driver traceback.
        migrate(engine, p)
    except DatabaseError:
        engine.dispose()
        raise
    except (SQLAlchemyError, sqlite3.Error, OSError) as exc:
        engine.dispose()
        hint = f" (folder {p.parent} does not exist)" if p is not None and not p.parent.is_dir() else ""
        raise DatabaseError(f"cannot open database {p or ':memory:'}: {_reason(exc)}{hint}") from exc
    if p is not None and existed:
        try:
            daily_backup(p)
        except (sqlite3.Error, OSError) as exc:  # a failed backup must not stop the app; say so in the log
            log.warning("daily backup of %s failed: %s", p, exc)
    return Database(engine, p)


def _reason(exc: BaseException) -> str:
    """The driver's own words (``file is not a database``), without SQLAlchemy's SQL echo and help link."""
    if isinstance(exc, DBAPIError) and exc.orig is not None:
        return str(exc.orig)
    return str(exc).split("\n", 1)[0]


def _at_heads(script: ScriptDirectory, current: set[str]) -> bool:
    """True when every head is applied.

    The version table names only the tips: a revision another one depends on (``depends_on``, e.g. ``memory_0002``
    on ``analysis_0004``) is applied without being named, and comparing the names alone migrated (and backed up)
    at every open.
    """
    applied = {rev.revision for rev in script.revision_map.iterate_revisions(tuple(current), "base") if rev}
    return set(script.get_heads()) <= applied


def migrate(engine: Engine, path: Path | None) -> None:
    """Upgrade the schema to every head, after a backup; refuse a database newer than the app."""
    cfg = _alembic_config()
    script = ScriptDirectory.from_config(cfg)
    known = {rev.revision for rev in script.walk_revisions()}
    with engine.execution_options(**{_READ_OPTION: True}).connect() as conn:
        current = set(MigrationContext.configure(conn).get_current_heads())
    unknown = current - known
    if unknown:
        raise DatabaseError(
            f"database {path} was written by a newer ReplaySage (schema {', '.join(sorted(unknown))}); "
            "update the app or choose another data folder"
        )
    if _at_heads(script, current):
        return
    if path is not None and current and path.exists():
        backup_database(path, path.with_suffix(path.suffix + ".bak"))
    with engine.begin() as conn:  # the write lock: another process starting at the same moment waits here
        if _at_heads(script, set(MigrationContext.configure(conn).get_current_heads())):
            return  # it migrated while we waited
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "heads")
