from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import text

from app.store import open_database
from app.store.db import _alembic_config
from app.store.health import DatabaseError
from app.store.meta import AppMeta


def test_store_creates_migrates_and_reopens(store_url: str) -> None:
    db = open_database(store_url)
    with db.session() as s:
        s.add(AppMeta(key="k", value="v"))
    db.close()
    db = open_database(store_url)
    with db.read() as s:
        assert s.get_one(AppMeta, "k").value == "v"
        heads = {row[0] for row in s.execute(text("SELECT version_num FROM alembic_version"))}
    db.close()
    script = ScriptDirectory.from_config(_alembic_config())
    at = {rev.revision for rev in script.get_all_current(tuple(heads))}  # with the heads it depends on
    assert at == set(script.get_heads())  # every branch at its head
    if not db.server:
        con = sqlite3.connect(store_url)
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        con.close()


def test_reopening_a_current_store_neither_migrates_nor_backs_up(tmp_path: Path) -> None:
    """A revision others depend on (memory_0002 on analysis_0004) is applied though the version table omits it."""
    path = tmp_path / "store.sqlite3"
    open_database(path).close()
    open_database(path).close()  # batch workers open the store at once: a backup each time would collide
    assert not path.with_suffix(".sqlite3.bak").exists()


def test_store_refuses_a_newer_schema(store_url: str) -> None:
    db = open_database(store_url)
    with db.session() as s:
        first = sorted(row[0] for row in s.execute(text("SELECT version_num FROM alembic_version")))[0]
        future = text("UPDATE alembic_version SET version_num = 'from_the_future' WHERE version_num = :v")
        s.execute(future, {"v": first})
    db.close()
    with pytest.raises(DatabaseError, match="newer ReplaySage"):
        open_database(store_url)


def test_migrations_match_the_table_definitions(store_url: str) -> None:
    """Every table module and its Alembic migration describe the same schema on both backends (no drift)."""
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    import app.tables  # noqa: F401
    from app.store.base import Base

    db = open_database(store_url)
    with db.engine.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"compare_type": False})
        diff = [d for d in compare_metadata(ctx, Base.metadata) if not _is_benign(d)]
    db.close()
    assert diff == []


def _is_benign(diff: object) -> bool:
    # reflection cannot see some index/constraint naming details; table and column drift is what matters.
    kind = diff[0] if isinstance(diff, tuple) else diff[0][0]  # type: ignore[index]
    return kind in ("add_index", "remove_index", "add_constraint", "remove_constraint", "add_fk", "remove_fk")


def test_a_file_that_is_not_sqlite_is_a_known_error_naming_path_and_reason(tmp_path: Path) -> None:
    path = tmp_path / "notes.sqlite3"
    path.write_bytes(b"this is a text file, not a database\n" * 100)
    with pytest.raises(DatabaseError) as info:
        open_database(path)
    assert str(path) in str(info.value)
    assert "file is not a database" in str(info.value)  # SQLite's own reason (sqlite3 SQLITE_NOTADB)
    assert path.read_bytes() == b"this is a text file, not a database\n" * 100  # untouched


def test_a_path_inside_a_missing_folder_is_a_known_error(tmp_path: Path) -> None:
    path = tmp_path / "no_such_folder" / "store.sqlite3"
    with pytest.raises(DatabaseError) as info:
        open_database(path)
    assert str(path) in str(info.value)
    assert "unable to open database file" in str(info.value)
    assert "does not exist" in str(info.value)


def test_a_path_under_a_regular_file_is_a_known_error(tmp_path: Path) -> None:
    blocker = tmp_path / "plain_file"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(DatabaseError, match="unable to open database file"):
        open_database(blocker / "store.sqlite3")


def test_a_path_inside_a_read_only_folder_is_a_known_error(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        probe = folder / "probe"
        try:
            probe.write_text("x", encoding="utf-8")
        except OSError:
            pass
        else:  # root ignores folder permissions; /proc accepts no new files even from root (Linux)
            probe.unlink()
            folder = Path("/proc")
            if not (folder / "self").is_dir():
                pytest.skip("this user can write into a 0o555 folder and there is no /proc")
        path = folder / "store.sqlite3"
        with pytest.raises(DatabaseError) as info:
            open_database(path)
        assert str(path) in str(info.value)
        assert "unable to open database file" in str(info.value)
        assert not path.exists()
    finally:
        (tmp_path / "ro").chmod(0o755)


def test_backup_before_an_upgrade_holds_rows_still_in_the_wal(tmp_path: Path) -> None:
    """A row committed by a connection that is still open lives only in ``-wal``; the backup must contain it."""
    from alembic import command

    from app.store.db import _alembic_config, _make_engine

    path = tmp_path / "store.sqlite3"
    engine = _make_engine(f"sqlite:///{path}")
    cfg = _alembic_config()
    with engine.begin() as conn:  # an old store: only the base revision applied
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "base_0001")
    engine.dispose()
    writer = sqlite3.connect(path)
    try:
        assert writer.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        writer.execute("INSERT INTO app_meta (key, value) VALUES ('last', 'committed just before')")
        writer.commit()
        wal = path.with_name(path.name + "-wal")
        assert wal.stat().st_size > 0  # the row is in the WAL, not yet in the main file
        db = open_database(path)  # upgrades the other branches, backing up first
        db.close()
    finally:
        writer.close()
    backup = path.with_suffix(".sqlite3.bak")
    assert backup.is_file()
    con = sqlite3.connect(backup)
    try:
        rows = con.execute("SELECT value FROM app_meta WHERE key = 'last'").fetchall()
        versions = {r[0] for r in con.execute("SELECT version_num FROM alembic_version")}
    finally:
        con.close()
    assert rows == [("committed just before",)]
    assert versions == {"base_0001"}  # taken before the upgrade
