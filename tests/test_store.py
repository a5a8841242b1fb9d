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
    con.execute("UPDATE alembic_version SET version_num = 'from_the_future'")
    con.commit()
    con.close()
    with pytest.raises(DatabaseError, match="newer ReplaySage"):
        open_database(path)
