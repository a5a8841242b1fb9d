from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app.store import open_database
from app.store.db import DatabaseError
from app.store.meta import AppMeta


def test_store_creates_migrates_and_reopens(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    db = open_database(path)
    with db.session() as s:
        s.add(AppMeta(key="k", value="v"))
    db.close()
    db = open_database(path)
    with db.session() as s:
        assert s.get(AppMeta, "k").value == "v"  # type: ignore[union-attr]
    db.close()
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    con.close()


def test_store_refuses_a_newer_schema(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    open_database(path).close()
    con = sqlite3.connect(path)
    con.execute(
        "UPDATE alembic_version SET version_num = 'from_the_future' "
        "WHERE rowid = (SELECT MIN(rowid) FROM alembic_version)"
    )
    con.commit()
    con.close()
    with pytest.raises(DatabaseError, match="newer ReplaySage"):
        open_database(path)


def test_migrations_match_the_table_definitions(tmp_path: Path) -> None:
    """Every table module and its Alembic migration describe the same schema (no drift)."""
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    import app.store.tables  # noqa: F401
    from app.store.base import Base

    db = open_database(tmp_path / "store.sqlite3")
    with db.engine.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"compare_type": False})
        diff = [d for d in compare_metadata(ctx, Base.metadata) if not _is_benign(d)]
    db.close()
    assert diff == []


def _is_benign(diff: object) -> bool:
    # SQLite reflection cannot see some index/constraint naming details; table and column drift is what matters.
    kind = diff[0] if isinstance(diff, tuple) else diff[0][0]  # type: ignore[index]
    return kind in ("add_index", "remove_index", "add_constraint", "remove_constraint", "add_fk", "remove_fk")
