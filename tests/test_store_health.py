"""The store under damage: a read-only file, corruption in the middle of the file, backups and restore, a key in
the base URL. Real SQLite files, the real ``replaysage`` command in subprocesses, the scripted server over HTTP."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import stat
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from app.paths import sample_replay
from app.store import open_database
from app.store.health import (
    DatabaseCorruptError,
    DatabaseReadOnlyError,
    backup_now,
    backups,
    check_database,
    daily_backup,
)
from app.store.meta import AppMeta
from tests.conftest import REPO_ROOT

PAGE = 4096


def _cli(home: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "REPLAYSAGE_HOME": str(home), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=REPO_ROOT,
        env=full,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _analysed_home(home: Path) -> Path:
    """A user data folder with one finished offline analysis, checkpointed into the main file."""
    done = _cli(home, "analyze", str(sample_replay()), "--lang", "en", "--quiet")
    assert done.returncode == 0, done.stderr
    db = home / "replaysage.sqlite3"
    con = sqlite3.connect(db)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    return db


def _one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    lines = [ln for ln in result.stderr.splitlines() if ln.startswith("replaysage: error:")]
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_read_only_database_file_is_one_clear_error(tmp_path: Path) -> None:
    db = _analysed_home(tmp_path)
    db.chmod(stat.S_IRUSR | stat.S_IRGRP)
    try:
        with pytest.raises(DatabaseReadOnlyError, match="read-only"):
            open_database(db)
        line = _one_line_error(_cli(tmp_path, "analyze", str(sample_replay()), "--quiet"))
        assert f"database file {db} is read-only" in line
    finally:
        db.chmod(stat.S_IRUSR | stat.S_IWUSR)


def _damage_middle_page(db: Path, page: int | None = None) -> int:
    """Overwrite one page (0-based; default: the middle one) with garbage."""
    size = db.stat().st_size
    pages = size // PAGE
    assert pages >= 8, "the database should span several pages"
    page = pages // 2 if page is None else page
    with db.open("r+b") as fh:
        fh.seek(page * PAGE)
        fh.write(bytes([0xA5]) * PAGE)
    return page


def test_corruption_in_the_middle_is_detected_never_written_and_restored(tmp_path: Path) -> None:
    db = _analysed_home(tmp_path)
    backed = _cli(tmp_path, "db", "backup")
    assert backed.returncode == 0, backed.stderr
    assert len(backups(db)) == 1
    _damage_middle_page(db)
    assert check_database(db)  # SQLite itself sees the damage
    damaged = _digest(db)

    line = _one_line_error(_cli(tmp_path, "analyze", str(sample_replay()), "--quiet"))
    assert f"database {db} is damaged" in line
    assert "replaysage db restore" in line
    assert _digest(db) == damaged  # nothing was written into the malformed file
    assert not db.with_name(db.name + "-wal").exists() or db.with_name(db.name + "-wal").stat().st_size == 0
    with pytest.raises(DatabaseCorruptError):
        open_database(db)
    assert "replaysage db restore" in _one_line_error(_cli(tmp_path, "db", "check"))

    restored = _cli(tmp_path, "db", "restore")
    assert restored.returncode == 0, restored.stderr
    aside = [
        p
        for p in tmp_path.iterdir()
        if p.name.startswith("replaysage.sqlite3.damaged-") and not p.name.endswith(("-wal", "-shm"))
    ]
    assert len(aside) == 1
    assert _digest(aside[0]) == damaged  # the damaged file is kept, not deleted
    assert _cli(tmp_path, "db", "check", "--full").returncode == 0
    again = _cli(tmp_path, "analyze", str(sample_replay()), "--quiet")
    assert again.returncode == 0, again.stderr
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*) FROM analyses WHERE status = 'completed'").fetchone() == (2,)
    con.close()


def test_a_damaged_page_found_mid_session_stops_every_later_write(tmp_path: Path) -> None:
    db = _analysed_home(tmp_path)
    con = sqlite3.connect(db)
    root = con.execute("SELECT rootpage FROM sqlite_master WHERE name = 'analysis_stages'").fetchone()[0]
    con.close()
    store = open_database(db)
    try:
        _damage_middle_page(db, int(root) - 1)  # the stages table's page: the next load must read it
        store.engine.dispose()  # no page cache from before the damage
        from app.pipeline.repository import AnalysisRepository

        with pytest.raises(DatabaseCorruptError, match="db restore"):
            AnalysisRepository(store).load(1)
        damaged = _digest(db)
        with pytest.raises(DatabaseCorruptError), store.session() as s:
            s.add(AppMeta(key="after", value="damage"))
        assert _digest(db) == damaged
    finally:
        store.close()


def test_daily_backup_rotates_and_keeps_the_newest(tmp_path: Path) -> None:
    db = tmp_path / "store.sqlite3"
    store = open_database(db)
    with store.session() as s:
        s.add(AppMeta(key="k", value="v"))
    store.close()
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for day in range(10):
        assert daily_backup(db, keep=7, now=start + timedelta(days=day)) is not None
        assert daily_backup(db, keep=7, now=start + timedelta(days=day, hours=5)) is None  # once a day
    names = [p.name for p in backups(db)]
    assert names == [f"store-2026-01-{d:02d}.sqlite3" for d in range(10, 3, -1)]
    con = sqlite3.connect(backups(db)[0])
    assert con.execute("SELECT value FROM app_meta WHERE key = 'k'").fetchone() == ("v",)
    con.close()
    assert backup_now(db, keep=2).parent == db.parent / "backups"
    assert len(backups(db)) == 2


def test_a_key_in_the_base_url_is_sent_but_never_stored_or_shown(tmp_path: Path) -> None:
    from tests.support.scripted_server import Reply, ScriptedServer

    key = "sk-url-7f3a9c1e5b2d4680"
    user, password = "relay-user", "pw-9d8c7b6a5f4e"
    clean = '本窗口分析：双方按常规发展。\n[机器可读声明]\n```json\n{"unitClaims": []}\n```'
    with ScriptedServer(default=Reply.chat(clean, piece_chars=40)) as server:
        base = server.base_url.replace("http://", f"http://{user}:{password}@") + f"?api-key={key}&api-version=2"
        report = tmp_path / "report.md"
        done = _cli(
            tmp_path,
            "analyze",
            str(sample_replay()),
            "--base-url",
            base,
            "--model-id",
            "scripted-model",
            "--lang",
            "en",
            "--out",
            str(report),
            env={"REPLAYSAGE_API_KEY": ""},
        )
        assert done.returncode == 0, done.stderr
        sent = [r for r in server.requests if r.json]
        assert sent
        # on the wire: the key in the query, the user info as Basic auth, the other parameter untouched
        assert all(r.path == f"/v1/chat/completions?api-version=2&api-key={key}" for r in sent)
        import base64

        assert sent[0].headers["authorization"] == "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
    stored = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and p != report)
    shown = done.stdout + done.stderr + report.read_text(encoding="utf-8")
    for secret in (key, password):
        assert secret.encode() not in stored
        assert secret not in shown
    con = sqlite3.connect(tmp_path / "replaysage.sqlite3")
    label = con.execute("SELECT model_label FROM analyses").fetchone()[0]
    con.close()
    assert label == f"{server.base_url}?api-version=2 scripted-model"


def test_a_key_in_a_provider_url_moves_to_the_keyring(tmp_path: Path) -> None:
    import keyring

    from app.llm.factory import build_provider
    from app.secrets import SecretStore
    from app.settings import ModelProfileSettings, ProviderSettings, Settings
    from tests.keyrings import MemoryKeyring

    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    try:
        path = tmp_path / "settings.json"
        settings = Settings(path)
        settings.put_provider(
            ProviderSettings.from_json(
                {"name": "Relay", "base_url": "https://relay.example/v1?api-key=sk-secret-123456&region=eu"}
            )
        )
        settings.put_profile(ModelProfileSettings("relay-model", "Relay", "m"))
        settings.save()
        assert "sk-secret-123456" not in path.read_text(encoding="utf-8")
        assert settings.provider("Relay").base_url == "https://relay.example/v1?region=eu"
        creds = SecretStore().url_credentials("Relay")
        assert creds.params == (("api-key", "sk-secret-123456"),)
        provider = build_provider(Settings.load(path), "relay-model", secrets=SecretStore())
        assert "sk-secret" not in repr(provider)
        assert provider.url == "https://relay.example/v1/chat/completions?region=eu"  # type: ignore[attr-defined]
    finally:
        keyring.set_keyring(previous)
