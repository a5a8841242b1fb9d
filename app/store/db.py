"""Open the SQLite store, migrate it, and hand out sessions.

SQLite on Python 3.11 needs the connection set up by hand (engineering notes §1.10): autocommit driver mode,
an explicit ``BEGIN``, foreign keys, WAL. Alembic runs in code on the same connection (§1.11); the database is
backed up before an upgrade, and a database newer than this app is refused rather than damaged.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from app.errors import KnownError


class DatabaseError(KnownError):
    """The store cannot be opened or migrated."""


def _alembic_config() -> Config:
    cfg = Config()
    location = resources.files("app.store") / "migrations"
    cfg.set_main_option("script_location", str(location))
    return cfg


def _make_engine(url: str) -> Engine:
    engine = create_engine(url, connect_args={"isolation_level": None, "check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: sqlite3.Connection, _record: Any) -> None:
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA busy_timeout=5000")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN")

    return engine


class Database:
    """The store: an engine plus a session factory. The only object that writes the database."""

    def __init__(self, engine: Engine, path: Path | None) -> None:
        self.engine = engine
        self.path = path
        self._sessions = sessionmaker(engine, expire_on_commit=False)

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session for one unit of work: committed on success, rolled back on error."""
        with self._sessions() as s:
            try:
                yield s
                s.commit()
            except BaseException:
                s.rollback()
                raise

    def close(self) -> None:
        """Release every connection."""
        self.engine.dispose()


def open_database(path: Path | str | None = None) -> Database:
    """Open (creating and migrating as needed) the store at ``path``; ``None`` means the user data folder."""
    if path is None:
        from app.paths import database_path

        path = database_path()
    p = None if str(path) == ":memory:" else Path(path)
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
    return Database(engine, p)


def _reason(exc: BaseException) -> str:
    """The driver's own words (``file is not a database``), without SQLAlchemy's SQL echo and help link."""
    if isinstance(exc, DBAPIError) and exc.orig is not None:
        return str(exc.orig)
    return str(exc).split("\n", 1)[0]


def backup_database(path: Path, target: Path) -> None:
    """Copy the database at ``path`` to ``target`` through SQLite's online backup.

    A plain file copy would miss whatever still sits in the ``-wal`` file (committed but not yet checkpointed),
    so the backup would lack the latest rows; the backup API reads through the WAL like any reader. The copy is
    written next to ``target`` first and moved into place, so an old backup is never left half-overwritten.
    """
    partial = target.with_name(target.name + ".partial")
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


def migrate(engine: Engine, path: Path | None) -> None:
    """Upgrade the schema to every head, after a backup; refuse a database newer than the app."""
    cfg = _alembic_config()
    script = ScriptDirectory.from_config(cfg)
    known = {rev.revision for rev in script.walk_revisions()}
    heads = set(script.get_heads())
    with engine.connect() as conn:
        current = set(MigrationContext.configure(conn).get_current_heads())
    unknown = current - known
    if unknown:
        raise DatabaseError(
            f"database {path} was written by a newer ReplaySage (schema {', '.join(sorted(unknown))}); "
            "update the app or choose another data folder"
        )
    if current == heads:
        return
    if path is not None and current and path.exists():
        backup_database(path, path.with_suffix(path.suffix + ".bak"))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "heads")
