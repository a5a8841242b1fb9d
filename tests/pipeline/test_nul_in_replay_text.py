"""A NUL in replay text or in a model reply reaches no store (issue 29, failure 6).

PostgreSQL's text type cannot hold U+0000 (``psycopg.DataError: text fields cannot contain NUL``) while SQLite
can, so the same replay crashed ``analyze`` on a team store only. Text from replays is normalised once, where the
reader decodes it, and a model's text where the client decodes it: both backends then store the same value.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from app.pipeline.repository import AnalysisRepository
from app.replay import read_replay
from app.safetext import REPLACEMENT, storable_json, storable_text
from app.store import open_database
from app.store.db import ENV_DATABASE_URL, is_server_url
from tests.conftest import REPO_ROOT, corpus_file
from tests.support.scripted_server import Reply, ScriptedServer

MIRROR = "ra3_1v1_infinity_isle_allies_mirror_12m.RA3Replay"
"""Two humans, ``0010`` and ``nickname`` (settings text ``S=H0010,…:Hnickname,…``)."""


def _with_nul(tmp_path: Path) -> Path:
    """The mirror game with the second player's name ``ni\\0kname`` and a NUL in the map path: same length, so
    every offset of the file stays right."""
    data = corpus_file(MIRROR).read_bytes()
    at = data.index(b"Hnickname,")
    data = data[: at + 3] + b"\0" + data[at + 4 :]
    at = data.index(b"M=283data/maps/")
    data = data[: at + 6] + b"\0" + data[at + 7 :]
    path = tmp_path / "nul in a name.RA3Replay"
    path.write_bytes(data)
    return path


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "REPLAYSAGE_HOME": str(home), "REPLAYSAGE_API_KEY": "k"}
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _engine_url(store_url: str) -> str:
    return os.environ[ENV_DATABASE_URL] if is_server_url(store_url) else f"sqlite:///{store_url}"


def test_the_reader_turns_a_nul_in_names_into_the_replacement_character(tmp_path: Path) -> None:
    replay = read_replay(_with_nul(tmp_path))
    names = [s.name for s in replay.header.slots if s.is_player]
    assert names == ["0010", "ni\ufffdkname"]
    assert "\0" not in replay.header.map_path
    assert replay.header.map_path.startswith("d\ufffdta/maps/")
    # the writer keeps the file's own bytes: the settings text is not rewritten
    assert replay.header.settings_raw.count(b"\0") == 2


def test_storable_text() -> None:
    assert REPLACEMENT == "\ufffd"
    assert storable_text("a\0b\0") == "a\ufffdb\ufffd"
    assert storable_text("\ud800x") == "\ufffdx"  # a lone surrogate cannot be encoded for any store either
    assert storable_text("普通文字 plain\ttext\n") == "普通文字 plain\ttext\n"


def test_storable_json_reaches_every_string_at_any_depth() -> None:
    nested = "[" * 900 + r'"deep\u0000"' + "]" * 900
    doc = r'{"k\u0000": ["a\u0000", [["b\u0000"]], {"c": "d\u0000"}], "n": 1, "deep": ' + nested + "}"
    data = storable_json(doc)
    assert data["k\ufffd"] == ["a\ufffd", [["b\ufffd"]], {"c": "d\ufffd"}]
    assert data["n"] == 1
    inner = data["deep"]
    while isinstance(inner, list):
        inner = inner[0]
    assert inner == "deep\ufffd"
    assert storable_json(r'["top\u0000"]') == ["top\ufffd"]
    assert storable_json(r'"\ud800"') == "\ufffd"


def test_analyze_stores_a_replay_with_nul_in_a_name_on_both_backends(
    tmp_path: Path, store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not is_server_url(store_url):
        monkeypatch.setenv(ENV_DATABASE_URL, store_url)
    home = tmp_path / "home"
    replay = _with_nul(tmp_path)
    for _ in range(2):  # the second run reads the first one's memory of the player: the query that crashed
        done = _cli(home, "analyze", str(replay), "--quiet", "--lang", "en")
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
    engine = create_engine(_engine_url(store_url))
    try:
        with engine.connect() as conn:
            statuses = conn.execute(text("SELECT status FROM analyses ORDER BY id")).scalars().all()
            subjects = conn.execute(text("SELECT DISTINCT subject FROM memory_facts")).scalars().all()
    finally:
        engine.dispose()
    assert statuses == ["completed", "completed"]
    # the memory knows the player by the same name on both backends
    assert "player:ni\ufffdkname" in subjects
    assert not [s for s in subjects if "\0" in s]


def test_a_model_reply_with_nul_is_stored_on_both_backends(
    tmp_path: Path, store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not is_server_url(store_url):
        monkeypatch.setenv(ENV_DATABASE_URL, store_url)
    home = tmp_path / "home"
    # a raw NUL in the text, and NULs as JSON escapes inside the claims (parsed, they are NULs again)
    claims = r'{"unitClaims": [{"unitId": 7, "player": "nick\u0000name", "confidence": "lik\u0000ely"}], '
    claims += r'"eventClaims": [{"time": "1:00.00", "player": "0010\u0000", "kind": "po\u0000wer", "unitId": 5}]}'
    reply = "本窗口：\u0000双方发展。\n[机器可读声明]\n```json\n" + claims + "\n```"
    with ScriptedServer(default=Reply.chat(reply, reasoning="想\u0000一想", piece_chars=5)) as server:
        done = _cli(
            home,
            "analyze",
            str(corpus_file(MIRROR)),
            "--base-url",
            server.base_url,
            "--model-id",
            "scripted-model",
            "--context-length",
            "1000000",
            "--quiet",
        )
    assert "Traceback" not in done.stderr
    assert done.returncode == 0, done.stderr
    engine = create_engine(_engine_url(store_url))
    try:
        with engine.connect() as conn:
            [analysis_id] = conn.execute(text("SELECT id FROM analyses")).scalars().all()
            players = conn.execute(text("SELECT DISTINCT player FROM analysis_claims")).scalars().all()
    finally:
        engine.dispose()
    db = open_database()  # the store the fixture configured (texts are kept in packed blocks: read them as the app)
    try:
        rec = AnalysisRepository(db).load(analysis_id)
    finally:
        db.close()
    windows = [s for s in rec.stages if s.kind == "window"]
    assert windows
    for stage in windows:
        assert stage.text.startswith("本窗口：\ufffd双方发展。")
        assert stage.reasoning
        assert stage.reasoning.replace("想\ufffd一想", "") == ""  # one per request of the stage
    assert sorted(players) == ["0010\ufffd", "nick\ufffdname"]


def test_a_wisdom_file_with_nul_escapes_imports_on_both_backends(tmp_path: Path, store_url: str) -> None:
    from app.wisdom import ErrorWisdomManager

    spec = REPO_ROOT / "tests" / "wisdom" / "data" / "spec_examples.json"
    raw = spec.read_text(encoding="utf-8").replace("高开放性", r"高开放\u0000性", 1)
    assert r"\u0000" in raw
    path = tmp_path / "wisdom.json"
    path.write_text(raw, encoding="utf-8")
    db = open_database(store_url)
    try:
        manager = ErrorWisdomManager(db)
        assert manager.import_json(path)["imported"] == 2
        entry = manager.get_entry("ew_20260315_001")
    finally:
        db.close()
    assert entry.system_dimensions is not None
    assert entry.system_dimensions["人格特质影响"].startswith("高开放\ufffd性")
