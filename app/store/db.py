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

A team shares one PostgreSQL server instead (``REPLAYSAGE_DATABASE_URL`` or the ``team_database_url`` setting; the
password lives in the keyring). There every write transaction first takes one transaction-scoped advisory lock
(:data:`WRITE_LOCK_KEY`): the server's counterpart of ``BEGIN IMMEDIATE``, so writers on all machines take turns
exactly as processes sharing one SQLite file do, and every read-modify-write of the domain code (a review decision,
an evidence count, a lease) stays correct without a second set of rules. Reads are MVCC snapshots and never wait.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any, NoReturn

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import URL, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import NullPool

from app.store.health import (
    DatabaseError,
    backup_database,
    check_database,
    corrupt_error,
    daily_backup,
    ensure_writable,
    store_fault,
)

log = logging.getLogger("replaysage.store")

BUSY_TIMEOUT_MS = 5000
"""How long SQLite's busy handler waits for the write lock on one ``BEGIN IMMEDIATE``."""
BUSY_RETRIES = 6
"""How many more times a busy ``BEGIN IMMEDIATE`` is tried (with a short pause) before the write fails."""
_READ_OPTION = "replaysage_read"
WRITE_LOCK_KEY = 0x5265706C6179  # "Replay": the advisory lock every PostgreSQL write transaction takes first
ENV_DATABASE_URL = "REPLAYSAGE_DATABASE_URL"


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


def _make_engine(url: str | URL) -> Engine:
    if make_url(url).get_backend_name() == "postgresql":
        return _make_server_engine(url)
    if not str(url).startswith("sqlite"):
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


def _make_server_engine(url: str | URL) -> Engine:
    """A PostgreSQL engine whose write transactions take :data:`WRITE_LOCK_KEY` first (see the module text)."""
    # UTC sessions: times read back are UTC (as SQLite's), and naive times written are taken as UTC
    engine = create_engine(url, pool_pre_ping=True, connect_args={"options": "-c timezone=UTC"})

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        if not conn.get_execution_options().get(_READ_OPTION):
            conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({WRITE_LOCK_KEY})")

    return engine


def is_server_url(target: object) -> bool:
    """True for a database server URL (``postgresql+psycopg://…``), False for a SQLite file or URL."""
    return isinstance(target, str) and "://" in target and not target.startswith("sqlite")


def server_url(url: str) -> URL:
    """A server URL with the psycopg (v3) driver and its password filled in.

    The password comes from the environment's URL when it names the same server, else from the keyring; one
    already in ``url`` is kept.

    Raises:
        DatabaseError: the URL is not a PostgreSQL URL.
    """
    try:
        parsed = make_url(url)
    except Exception as exc:  # sqlalchemy.exc.ArgumentError: say what is wrong without the URL's secrets
        raise DatabaseError(f"not a database URL: {public_url(url)}") from exc
    if parsed.get_backend_name() != "postgresql":
        raise DatabaseError(f"a team database must be PostgreSQL (postgresql+psycopg://…), not {parsed.drivername}")
    parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.password:
        return parsed
    env = os.environ.get(ENV_DATABASE_URL, "").strip()
    if is_server_url(env):
        from_env = make_url(env).set(drivername="postgresql+psycopg")
        same = (from_env.host, from_env.port, from_env.database) == (parsed.host, parsed.port, parsed.database)
        if same and from_env.password and parsed.username in (None, from_env.username):
            return from_env
    from app.secrets import (
        TEAM_DATABASE,
        SecretBackend,
        SecretStore,
        missing_credential_notice,
        notify,
        url_credentials_account,
    )
    from app.settings import Settings

    store = SecretStore(Settings.load().get("secret_fallback"))
    creds = store.url_credentials(TEAM_DATABASE)
    if creds.password:
        return parsed.set(username=parsed.username or creds.username, password=creds.password)
    if store.status is SecretBackend.SESSION:  # a password given in an earlier run did not outlast it
        notify(missing_credential_notice(url_credentials_account(TEAM_DATABASE)))
    return parsed


def public_url(url: str | URL) -> str:
    """The URL as it may be shown and logged: no password, no secret parameters."""
    from app.urls import split_url_credentials

    text = url.render_as_string(hide_password=False) if isinstance(url, URL) else url
    return split_url_credentials(text)[0]


def configured_database() -> str:
    """Where the store is: ``REPLAYSAGE_DATABASE_URL``, else the team database setting, else the local file."""
    env = os.environ.get(ENV_DATABASE_URL, "").strip()
    if env:
        return env
    from app.settings import Settings

    team = str(Settings.load().get("team_database_url") or "").strip()
    if team:
        return team
    from app.paths import database_path

    return str(database_path())


class Database:
    """The store: an engine plus session factories. The only object that writes the database.

    ``prepare``, when given, runs once before the store's first session, read or fresh read, on whichever thread
    gets there first, under a lock: every other first use waits for it. A process that imports its table modules on
    a background thread passes the step that makes the mapping complete (the GUI: :func:`ui.services.open_store`).
    SQLAlchemy configures every mapper of the one registry at the first query anywhere in the process; run while
    another thread is half-way through a table module, it finds a relationship's target class not defined yet,
    fails, and that failure sticks to the mapper, so every later query of the process fails too. ``prepare`` must
    not use this store itself.
    """

    def __init__(self, engine: Engine, path: Path | None, *, prepare: Callable[[], None] | None = None) -> None:
        self.engine = engine
        self._prepare = prepare  # None once it has run
        self._prepare_lock = threading.Lock()
        self.path = path
        self._sessions = sessionmaker(engine, expire_on_commit=False)
        self._read_sessions = sessionmaker(engine.execution_options(**{_READ_OPTION: True}), expire_on_commit=False)
        self.server = not _is_sqlite(engine)
        self.location = public_url(engine.url) if self.server else str(path) if path is not None else ":memory:"
        """What :func:`open_database` reopens this store from (another process): a file, or the server's URL
        without its password."""
        key = str(path.resolve()) if path is not None else self.location if self.server else f"memory:{id(self)}"
        self._writer = _writer_lock(key)
        self._local = threading.local()
        self._damage: list[str] = []  # set once a check found the file damaged: nothing more is written

    def _ready(self) -> None:
        """Run ``prepare`` if no use has run it yet (the others wait for the one that runs it)."""
        if self._prepare is None:
            return
        with self._prepare_lock:
            prepare = self._prepare
            if prepare is not None:
                prepare()
                self._prepare = None  # only once it succeeded: a failed step is tried again by the next use

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
        """A driver error as the user should see it: disk full, read-only, or damaged (checked now), else as it was.

        A full disk or a read-only folder is said as such, never as damage (:func:`~app.store.health.store_fault`).
        """
        orig = exc.orig
        if isinstance(orig, sqlite3.Error) and self.path is not None:
            fault = store_fault(orig, self.path)
            if fault is not None:
                return fault
        damage_class = isinstance(orig, sqlite3.DatabaseError) and not isinstance(
            orig, sqlite3.OperationalError | sqlite3.IntegrityError
        )
        if damage_class and self.path is not None and _is_sqlite(self.engine):
            try:
                self._damage = check_database(self.path) or []
            except DatabaseError as fault:  # the check could not run: that is what to say
                return fault
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
        self._ready()
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
        self._ready()
        outer = self._joined()
        if outer is not None:
            yield outer
            return
        with self._read_sessions() as s:  # closing ends the transaction; loaded objects stay usable (detached)
            try:
                yield s
            except DBAPIError as exc:
                self._raise_translated(exc)

    @contextmanager
    def exclusive(self, job: str) -> Iterator[bool]:
        """Whether this process may run ``job`` (a scheduled batch or audit) now, without waiting.

        On a server it is a session advisory lock named by ``job``: while one machine runs the job, another gets
        False and leaves it, then sees it done. On SQLite always True: one machine, and writes already take turns.
        """
        if not self.server:
            yield True
            return
        key = int.from_bytes(hashlib.sha256(job.encode()).digest()[:8], "big", signed=True)
        with self.engine.execution_options(**{_READ_OPTION: True}).connect() as conn:
            got = bool(conn.exec_driver_sql(f"SELECT pg_try_advisory_lock({key})").scalar())
            conn.commit()  # the lock belongs to the connection, not to this transaction
            try:
                yield got
            finally:
                if got:
                    conn.exec_driver_sql(f"SELECT pg_advisory_unlock({key})")
                    conn.commit()

    @contextmanager
    def fresh_read(self) -> Iterator[Session]:
        """A read session on a connection opened now for it alone, not one of the pool's.

        It sees the store as the next process to open it will: a commit that only this process's open connections
        can see (a SQLite file whose ``-wal`` was removed under them, issue 29) is missing there, or the read
        fails. Driver errors come through as they are: the caller says what they mean for its data. An in-memory
        store has no second connection: there it is an ordinary read.
        """
        self._ready()
        if not self.server and self.path is None:
            with self.read() as s:
                yield s
            return
        args: dict[str, Any] = {"options": "-c timezone=UTC"} if self.server else {"check_same_thread": False}
        engine = create_engine(self.engine.url, poolclass=NullPool, connect_args=args)
        try:
            with Session(engine) as s:
                yield s
        finally:
            engine.dispose()

    def close(self) -> None:
        """Release every connection."""
        self.engine.dispose()


def open_database(path: Path | str | None = None, *, prepare: Callable[[], None] | None = None) -> Database:
    """Open (creating and migrating as needed) the store at ``path``.

    ``path`` is a SQLite file (or ``sqlite:///`` URL), a PostgreSQL URL, or ``None`` for :func:`configured_database`.
    ``prepare`` runs before the store's first use (:class:`Database`); the migrations need no mapped class.
    """
    if path is None:
        path = configured_database()
    if is_server_url(path):
        return _open_server(str(path), prepare)
    if isinstance(path, str) and path.startswith("sqlite:///"):
        path = path.removeprefix("sqlite:///")
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
        orig = exc.orig if isinstance(exc, DBAPIError) else exc
        fault = store_fault(orig, p) if p is not None and orig is not None else None
        if fault is not None:
            raise fault from exc
        hint = f" (folder {p.parent} does not exist)" if p is not None and not p.parent.is_dir() else ""
        raise DatabaseError(f"cannot open database {p or ':memory:'}: {_reason(exc)}{hint}") from exc
    if p is not None and existed:
        try:
            daily_backup(p)
        except (sqlite3.Error, OSError) as exc:  # a failed backup must not stop the app; say so in the log
            log.warning("daily backup of %s failed: %s", p, exc)
    return Database(engine, p, prepare=prepare)


def _open_server(url: str, prepare: Callable[[], None] | None = None) -> Database:
    """Open and migrate a team database on a PostgreSQL server."""
    engine = _make_engine(server_url(url))
    try:
        migrate(engine, None)
    except DatabaseError:
        engine.dispose()
        raise
    except (SQLAlchemyError, OSError) as exc:
        engine.dispose()
        raise DatabaseError(f"cannot open team database {public_url(url)}: {_reason(exc)}") from exc
    return Database(engine, None, prepare=prepare)


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


def schema_status(target: str | None = None) -> dict[str, Any]:
    """Where the store is and how its schema compares with this app's, without changing anything."""
    target = target or configured_database()
    server = is_server_url(target)
    if not server:
        target = target.removeprefix("sqlite:///")
        if not Path(target).is_file():
            raise DatabaseError(f"no database at {target}")
    engine = _make_engine(server_url(target) if server else f"sqlite:///{target}")
    script = ScriptDirectory.from_config(_alembic_config())
    heads = sorted(script.get_heads())
    try:
        with engine.execution_options(**{_READ_OPTION: True}).connect() as conn:
            current = sorted(MigrationContext.configure(conn).get_current_heads())
    except (SQLAlchemyError, OSError) as exc:
        raise DatabaseError(f"cannot open database {public_url(target)}: {_reason(exc)}") from exc
    finally:
        engine.dispose()
    known = {rev.revision for rev in script.walk_revisions()}
    unknown = set(current) - known
    applied = _applied_tips(script, set(current) - unknown)
    missing = sorted(set(heads) - _applied(script, set(current) - unknown))
    if unknown:
        state = "newer than this app (update ReplaySage)"
    elif not missing:
        state = "up to date"
    else:
        state = f"behind by {', '.join(missing)} (migrated at the next start, or by `replaysage db upgrade`)"
    return {
        "backend": "postgresql" if server else "sqlite",
        "location": public_url(target) if server else target,
        "current": sorted(applied | unknown),
        "heads": heads,
        "missing": missing,
        "state": state,
    }


def _applied(script: ScriptDirectory, current: set[str]) -> set[str]:
    """Every revision applied: those the version table names and all they stand on (``depends_on`` included)."""
    return {rev.revision for rev in script.revision_map.iterate_revisions(tuple(current), "base") if rev}


def _applied_tips(script: ScriptDirectory, current: set[str]) -> set[str]:
    """The newest applied revision of each branch, comparable with the app's heads one for one.

    The version table names only the tips it must: a branch head another branch depends on (``memory_0002`` on
    ``analysis_0004``) is applied without a row of its own, so listing the rows showed one revision fewer than the
    app's heads while the schema was up to date.
    """
    applied = _applied(script, current)
    below: set[str] = set()
    for name in applied:
        down = script.get_revision(name).down_revision
        below.update((down,) if isinstance(down, str) else down or ())
    return applied - below


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
            f"database {path or public_url(engine.url)} was written by a newer ReplaySage "
            f"(schema {', '.join(sorted(unknown))}); update the app or choose another data folder"
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
