"""Store faults are named for what they are: disk full, read-only, damaged (issue 29, failure 8).

How the faults are made. The tests run as root, and root writes into a 0o555 folder; there is no way to mount a
small or read-only filesystem here. So each fault is made where the store meets it:

* a full disk *during a write*: SQLite's own ``PRAGMA max_page_count`` on the app's connections, so SQLite itself
  fails the write with ``SQLITE_FULL`` ("database or disk is full"), the code a full disk gives;
* a full disk or a read-only filesystem *at start-up*: the filesystem's answer (``os.statvfs``: no blocks free, or
  the ``ST_RDONLY`` flag) for the store's folder, and the error SQLite gives there when it cannot create the
  ``-shm`` file of a WAL database (``SQLITE_IOERR`` / ``SQLITE_CANTOPEN``), injected at ``sqlite3.connect`` for
  that folder only: opens with ``immutable=1`` (which need no ``-shm``) still work, as they do on such a filesystem.

Everything else is real: SQLite files made by real offline analyses, the real CLI entry point, real backups.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from app.cli import main
from app.paths import database_path, sample_replay
from app.store import open_database
from app.store.health import (
    SQLITE_CANTOPEN,
    SQLITE_IOERR,
    DatabaseCorruptError,
    DatabaseFullError,
    backups,
    check_database,
)
from app.store.meta import AppMeta


def _analyses(db: Path) -> int:
    con = sqlite3.connect(db)
    try:
        return int(con.execute("SELECT COUNT(*) FROM analyses").fetchone()[0])
    finally:
        con.close()


def _analyse(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(sample_replay()), "--lang", "en", "--quiet"]) == 0, capsys.readouterr().err
    capsys.readouterr()


def _error(code: int, capsys: pytest.CaptureFixture[str]) -> str:
    out = capsys.readouterr()
    assert code == 2, out.out + out.err
    assert "Traceback" not in out.err
    return out.err


@pytest.fixture
def faulty_folder(monkeypatch: pytest.MonkeyPatch) -> Callable[[Path, str], None]:
    """Make ``folder`` look ``full`` or ``read-only`` to the store, as described in the module text."""

    def install(folder: Path, kind: str) -> None:
        real_statvfs, real_connect = os.statvfs, sqlite3.connect
        code, text = (SQLITE_IOERR, "disk I/O error") if kind == "full" else (SQLITE_CANTOPEN, "unable to open")

        def statvfs(path: Any) -> os.statvfs_result:
            st = real_statvfs(path)
            if Path(path).resolve() != folder.resolve():
                return st
            fields = list(st)
            if kind == "full":
                fields[4] = fields[3] = 0  # f_bavail, f_bfree
            else:
                fields[8] |= os.ST_RDONLY  # f_flag
            return os.statvfs_result(fields)

        def connect(database: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
            name = str(database)
            if str(folder.resolve()) in name and "immutable=1" not in name:
                exc = sqlite3.OperationalError(text)
                exc.sqlite_errorcode = code
                raise exc
            conn: sqlite3.Connection = real_connect(database, *args, **kwargs)
            return conn

        monkeypatch.setattr(os, "statvfs", statvfs)
        monkeypatch.setattr(sqlite3, "connect", connect)

    return install


def test_a_full_disk_during_a_write_is_a_full_disk_not_damage(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    db = open_database(path)
    try:
        with db.read() as s:
            pages = int(s.connection().exec_driver_sql("PRAGMA page_count").scalar_one())

        @event.listens_for(db.engine, "connect")
        def _limit(dbapi_conn: sqlite3.Connection, _record: Any) -> None:
            dbapi_conn.execute(f"PRAGMA max_page_count = {pages}")  # no page more: SQLite says SQLITE_FULL

        db.engine.dispose()
        with pytest.raises(DatabaseFullError, match="is full") as info, db.session() as s:
            s.add(AppMeta(key="big", value="x" * 200_000))
        assert "damaged" not in str(info.value)
        assert "restore" not in str(info.value)
    finally:
        db.close()
    assert check_database(path) == []  # and it was not damaged
    again = open_database(path)
    with again.read() as s:
        assert s.get(AppMeta, "big") is None
    again.close()


def test_a_full_disk_at_start_is_said_so_never_damaged(
    faulty_folder: Callable[[Path, str], None], capsys: pytest.CaptureFixture[str]
) -> None:
    _analyse(capsys)
    db = database_path()
    faulty_folder(db.parent, "full")
    with pytest.raises(DatabaseFullError):
        open_database(db)
    err = _error(main(["analyze", str(sample_replay()), "--quiet"]), capsys)
    assert "is full" in err
    assert "damaged" not in err
    assert "restore" not in err
    err = _error(main(["db", "check"]), capsys)
    assert "is full" in err
    assert "damaged" not in err


def test_restore_on_a_read_only_filesystem_names_the_sound_backup(
    faulty_folder: Callable[[Path, str], None], capsys: pytest.CaptureFixture[str]
) -> None:
    _analyse(capsys)
    db = database_path()
    assert main(["db", "backup"]) == 0
    capsys.readouterr()
    [backup] = backups(db)
    before = db.read_bytes()
    faulty_folder(db.parent, "read-only")
    err = _error(main(["db", "restore"]), capsys)
    assert "read-only filesystem" in err
    assert "no sound backup" not in err
    assert str(backup) in err  # the backup it would use, found sound
    err = _error(main(["analyze", str(sample_replay()), "--quiet"]), capsys)
    assert "read-only" in err
    assert "damaged" not in err
    assert db.read_bytes() == before


def test_restore_refuses_a_sound_store_and_says_what_would_be_lost(capsys: pytest.CaptureFixture[str]) -> None:
    _analyse(capsys)
    db = database_path()
    assert main(["db", "backup"]) == 0
    capsys.readouterr()
    _analyse(capsys)
    assert _analyses(db) == 2
    before = db.read_bytes()

    err = _error(main(["db", "restore"]), capsys)
    assert "is sound" in err
    assert "analyses: 2 → 1" in err
    assert "--force" in err
    assert db.read_bytes() == before
    assert _analyses(db) == 2

    assert main(["db", "restore", "--force"]) == 0
    out = capsys.readouterr().out
    assert "analyses: 2 → 1" in out
    assert _analyses(db) == 1
    [kept] = [
        p
        for p in db.parent.iterdir()
        if p.name.startswith(f"{db.name}.replaced-") and not p.name.endswith(("-wal", "-shm"))
    ]
    assert _analyses(kept) == 2  # the newest analysis survives in the kept file


def test_a_damaged_store_is_still_called_damaged(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    open_database(path).close()
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # the schema page
    path.write_bytes(bytes(data))
    with pytest.raises(DatabaseCorruptError, match="damaged"):
        open_database(path)


@pytest.fixture(autouse=True)
def _no_team_database(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REPLAYSAGE_DATABASE_URL", raising=False)
