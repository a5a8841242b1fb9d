"""Credentials leave the settings file, and what cannot be kept is said (issue 29, failure 11).

Real settings files, the real CLI entry point, the real keyring library (an in-memory backend, or its *fail*
backend for a machine without a keyring) and a real HTTP server on 127.0.0.1 that records what it received.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backends import fail

import app.secrets
from app.cli import main
from app.secrets import ENV_API_KEY, TEAM_DATABASE, url_credentials_account
from app.settings import Settings, settings_path
from app.store.db import server_url
from tests.keyrings import memory_keyring_installed
from tests.support import postgres as pg
from tests.support.scripted_server import Reply, ScriptedServer

PASSWORD = "t3am-Pa55word"
KEY = "gw-key-0123456789abcdef"


@pytest.fixture
def no_keyring() -> Iterator[None]:
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())  # type: ignore[no-untyped-call]  # keyring's backends are untyped
    app.secrets._SESSION.clear()
    try:
        yield
    finally:
        keyring.set_keyring(previous)
        app.secrets._SESSION.clear()


def _write_settings(doc: dict[str, object]) -> Path:
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"schema_version": 2, **doc}), encoding="utf-8")
    return path


def test_a_password_written_into_the_team_database_setting_moves_to_the_keyring() -> None:
    """The file as a person edits it: the first load takes the password out, and the URL still works from it."""
    url = f"postgresql+psycopg://coach:{PASSWORD}@db.example:5432/team"
    path = _write_settings({"team_database_url": url})
    with memory_keyring_installed() as ring:
        settings = Settings.load()
        assert PASSWORD not in path.read_text(encoding="utf-8")
        assert settings.get("team_database_url") == "postgresql+psycopg://db.example:5432/team"
        assert json.loads(ring.store[("ReplaySage", f"provider:{url_credentials_account(TEAM_DATABASE)}")]) == {
            "username": "coach",
            "password": PASSWORD,
            "params": [],
        }
        resolved = server_url(Settings.load().get("team_database_url"))
        assert (resolved.username, resolved.password, resolved.host) == ("coach", PASSWORD, "db.example")


@pytest.mark.postgres
def test_successful_team_runs_leave_no_password_in_the_settings(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reported case: runs against the team server succeed, and the password is not left in settings.json."""
    from sqlalchemy.engine import make_url

    monkeypatch.delenv("REPLAYSAGE_DATABASE_URL", raising=False)
    with pg.fresh_database(pg.test_server_url()) as url, memory_keyring_installed():
        full = make_url(url)
        assert full.password
        path = _write_settings({"team_database_url": full.render_as_string(hide_password=False)})
        for argv in (["db", "upgrade"], ["db", "status", "--json"], ["db", "status", "--json"]):
            assert main(argv) == 0  # the later runs find the password in the keyring only
            out = capsys.readouterr()
            for text in (out.out, out.err, path.read_text(encoding="utf-8")):
                assert full.password not in text
        assert json.loads(out.out)["state"] == "up to date"


def _gateway_settings(base_url: str) -> Path:
    return _write_settings(
        {
            "providers": [{"name": "Gateway", "base_url": base_url, "extra_headers": {}, "stream": True}],
            "profiles": [
                {
                    "name": "gw",
                    "provider": "Gateway",
                    "model_id": "m",
                    "context_length": 1_000_000,
                    "max_tokens": 1000,
                    "reasoning": False,
                }
            ],
        }
    )


def test_without_a_keyring_a_key_in_the_base_url_is_used_once_and_its_loss_is_said(
    no_keyring: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(ENV_API_KEY, raising=False)
    with ScriptedServer() as server:
        path = _gateway_settings(f"{server.base_url}?api-key={KEY}")
        server.enqueue(Reply.chat("ok"))
        assert main(["provider", "test", "gw", "--json"]) == 0
        first = capsys.readouterr()
        chat = [r for r in server.requests if "/chat/completions" in r.path]  # not the probes of its limits
        assert KEY in chat[-1].path  # this run still sends it
        assert KEY not in path.read_text(encoding="utf-8")  # and the file no longer holds it
        assert "memory only" in first.err
        assert ENV_API_KEY in first.err
        assert KEY not in first.err + first.out

        app.secrets._SESSION.clear()  # the next process: nothing was kept
        server.enqueue(Reply.chat("ok"))
        asked_before = len(server.requests)
        main(["provider", "test", "gw", "--json"])
        second = capsys.readouterr()
        assert not [r for r in server.requests[asked_before:] if KEY in r.path]
        assert "the API key of provider 'Gateway' was not found" in second.err
        assert ENV_API_KEY in second.err

        monkeypatch.setenv(ENV_API_KEY, KEY)  # where the notice says to put it: sent, and nothing to say
        server.enqueue(Reply.chat("ok"))
        assert main(["provider", "test", "gw", "--json"]) == 0
        third = capsys.readouterr()
        assert server.requests[-1].headers.get("authorization") == f"Bearer {KEY}"
        assert "warning" not in third.err


def test_usage_errors_never_echo_a_password(capsys: pytest.CaptureFixture[str]) -> None:
    url = f"postgresql+psycopg://replaysage:{PASSWORD}@127.0.0.1:5432/team?sslkey=x&password={PASSWORD}"
    for argv in (
        ["db", "status", "--db", url],  # the option after the action: "unrecognized arguments"
        ["db", "--db", url, "nosuchaction"],
        ["batch", "--jobs", url, "x"],  # an invalid value is echoed too
        ["analyze", "f.RA3Replay", "--base-url", f"https://u:{PASSWORD}@gw.example/v1", "--bogus"],
    ):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert "error:" in err
        assert PASSWORD not in err, argv
    from ui.app import _parser  # the desktop entry point's own options

    with pytest.raises(SystemExit):
        _parser().parse_args(["--log-level", url])  # "invalid choice: '<the URL>'"
    err = capsys.readouterr().err
    assert "invalid choice" in err
    assert PASSWORD not in err


def test_a_batch_without_a_keyring_hands_the_url_key_to_its_workers(tmp_path: Path) -> None:
    """The workers are other processes: the key the command holds in memory reaches them (through the pool's pipe)."""
    import os
    import shutil
    import subprocess
    import sys

    from tests.conftest import REPO_ROOT, corpus_file
    from tests.pipeline.test_scripted_runs import CLEAN

    home, folder = tmp_path / "home", tmp_path / "games"
    folder.mkdir()
    shutil.copy(corpus_file("kw_crane.KWReplay"), folder / "kw_crane.KWReplay")
    env = {k: v for k, v in os.environ.items() if k != ENV_API_KEY}
    env |= {"REPLAYSAGE_HOME": str(home), "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    with ScriptedServer(default=Reply.chat(CLEAN, piece_chars=40)) as server:
        os.environ["REPLAYSAGE_HOME"], previous = str(home), os.environ["REPLAYSAGE_HOME"]
        try:
            path = _gateway_settings(f"{server.base_url}?api-key={KEY}")
        finally:
            os.environ["REPLAYSAGE_HOME"] = previous
        done = subprocess.run(
            [sys.executable, "-m", "app.cli", "batch", str(folder), "--model", "gw", "--json"],
            cwd=REPO_ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        posts = [r for r in server.requests if r.method == "POST"]
    assert done.returncode == 0, done.stderr
    assert posts
    assert all(KEY in r.path for r in posts)
    assert "memory only" in done.stderr
    assert KEY not in path.read_text(encoding="utf-8") + done.stderr + done.stdout
