"""Deadlines the user sets on ``analyze`` and ``batch`` (issue 29, failure 5), over real HTTP on 127.0.0.1.

A server that sends its headers and then nothing, or keep-alive comments forever, must end each request within the
flags' deadlines, the same with ``--base-url`` and with a profile; nothing here is timed: the stored reasons name
the deadline that ended each attempt, and the server counts the attempts.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from app.llm.errors import NetworkError, StalledError
from app.llm.openai_compat import RetryPolicy
from app.paths import sample_replay
from app.settings import ModelProfileSettings, ProviderSettings, Settings
from app.stream_limits import DEFAULT_LIMITS, StreamLimits
from tests.conftest import REPO_ROOT
from tests.support.scripted_server import Reply, ScriptedServer

PATIENT = StreamLimits(first_byte_s=3600.0, idle_s=3600.0, reply_s=3600.0, request_s=7200.0, run_s=0.0)
"""A provider configured to wait an hour: only the flags can make a run end soon."""


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "REPLAYSAGE_HOME": str(home), "REPLAYSAGE_API_KEY": "k", "REPLAYSAGE_LANG": "en"}
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _profile(home: Path, server: ScriptedServer) -> None:
    """A profile whose provider waits an hour for everything."""
    home.mkdir(parents=True, exist_ok=True)
    settings = Settings.load(home / "settings.json")
    settings.put_provider(ProviderSettings("Local", server.base_url, limits=PATIENT))
    settings.put_profile(ModelProfileSettings("scripted", "Local", "scripted-model", context_length=1_000_000))
    settings.save()


def _requests(home: Path) -> list[dict[str, Any]]:
    """Every stored request of the store's analyses: its stage, outcome and error text."""
    con = sqlite3.connect(home / "replaysage.sqlite3")
    con.row_factory = sqlite3.Row
    try:
        cols = {r[1] for r in con.execute("PRAGMA table_info(analysis_requests)")}
        assert cols, "the requests table moved"
        return [dict(r) for r in con.execute("SELECT * FROM analysis_requests ORDER BY id")]
    finally:
        con.close()


def _stages(home: Path) -> list[dict[str, Any]]:
    con = sqlite3.connect(home / "replaysage.sqlite3")
    con.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in con.execute("SELECT * FROM analysis_stages ORDER BY id")]
    finally:
        con.close()


BASE_URL = ("--base-url", "{url}", "--model-id", "scripted-model", "--context-length", "1000000")
PROFILE = ("--model", "scripted")


@pytest.mark.parametrize("how", ["base_url", "profile"])
@pytest.mark.parametrize("fault", ["headers_then_nothing", "keepalive_forever", "silent"])
def test_hanging_server_ends_each_request_at_the_first_byte_flag(how: str, fault: str, tmp_path: Path) -> None:
    reply = {
        "headers_then_nothing": Reply.hang("headers"),
        "keepalive_forever": Reply.chat("never", first_token_delay_s=3600.0, keepalive_s=0.02),
        "silent": Reply.hang("silent"),
    }[fault]
    home = tmp_path / "home"
    with ScriptedServer(default=reply) as server:
        if how == "profile":
            _profile(home, server)
        model = [a.replace("{url}", server.base_url) for a in (BASE_URL if how == "base_url" else PROFILE)]
        done = _cli(home, "analyze", str(sample_replay()), *model, "--first-byte-timeout", "0.4", "--quiet")
        attempts = [r for r in server.requests if r.method == "POST"]
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    stages = _stages(home)
    model_stages = [s for s in stages if s["kind"] != "summary"]
    assert model_stages
    assert {s["outcome"] for s in model_stages} == {"stalled"}
    # every request ended at the flag's deadline, never at the provider's hour nor at the 120 s default
    errors = [str(r["error"]) for r in _requests(home)]
    assert errors
    assert all("no first token within 0.4 s" in e for e in errors), errors
    # a stalled attempt is retried once, not five times: two attempts per request
    assert len(attempts) == 2 * len(errors)


def test_idle_and_request_flags_bound_a_reply_that_stalls_after_content(tmp_path: Path) -> None:
    home = tmp_path / "home"
    stall = Reply.chat("先看开局。" * 50, piece_chars=4, stall_after=2, keepalive_s=0.02)
    drip = Reply.chat("慢" * 500, piece_chars=1, tokens_per_s=5.0)
    with ScriptedServer(default=stall) as server:
        _profile(home, server)
        done = _cli(home, "analyze", str(sample_replay()), *PROFILE, "--idle-timeout", "0.5", "--quiet")
    assert done.returncode == 1, done.stderr
    errors = [str(r["error"]) for r in _requests(home)]
    assert errors
    assert all("no new content for 0.5 s" in e for e in errors), errors

    home2 = tmp_path / "home2"
    with ScriptedServer(default=drip) as server:
        model = [a.replace("{url}", server.base_url) for a in BASE_URL]
        done = _cli(home2, "analyze", str(sample_replay()), *model, "--request-timeout", "1.5", "--quiet")
    assert done.returncode == 1, done.stderr
    errors = [str(r["error"]) for r in _requests(home2)]
    assert errors
    assert all("the request took longer than 1.5 s" in e for e in errors), errors


def test_run_timeout_flag_stops_a_batch_whose_provider_waits_an_hour(tmp_path: Path) -> None:
    home = tmp_path / "home"
    folder = tmp_path / "replays"
    folder.mkdir()
    (folder / "game.RA3Replay").write_bytes(sample_replay().read_bytes())
    gate = threading.Event()  # never opened: the server sends keep-alives until the client goes
    with ScriptedServer(default=Reply.chat("never", gate=gate)) as server:
        _profile(home, server)
        try:
            done = _cli(home, "batch", str(folder), *PROFILE, "--run-timeout", "2", "--json")
        finally:
            gate.set()
    assert done.returncode == 1, done.stderr
    row = json.loads(done.stdout)["replays"][0]
    assert row["status"] == "partial", row
    stopped = [s for s in _stages(home) if s["outcome"] == "cancelled"]
    assert len(stopped) == 1
    assert "2 s" in str(stopped[0]["message"])


@pytest.mark.parametrize(
    ("flag", "value", "said"),
    [
        ("--idle-timeout", "0", "--idle-timeout must be a positive number of seconds, got 0"),
        ("--run-timeout", "-1", "--run-timeout must be a positive number of seconds or 0, got -1"),
        ("--first-byte-timeout", "nan", "--first-byte-timeout must be a positive number of seconds, got nan"),
    ],
)
@pytest.mark.parametrize("command", ["analyze", "batch"])
def test_bad_deadline_is_a_clear_error(command: str, flag: str, value: str, said: str, tmp_path: Path) -> None:
    done = _cli(tmp_path / "home", command, str(sample_replay()), flag, value)
    assert done.returncode == 2
    assert said in done.stderr
    assert "Traceback" not in done.stderr


def test_defaults_give_up_on_a_dead_server_within_minutes() -> None:
    policy = RetryPolicy()
    stalled = StalledError("p", "m", "no first token")
    # the first stall is retried, the second ends the request; other network errors keep their retries
    assert policy.delay(0, stalled, lambda lo, hi: hi, stalled=1) == 0.5
    assert policy.delay(1, stalled, lambda lo, hi: hi, stalled=2) is None
    assert policy.delay(1, NetworkError("p", "m", "reset"), lambda lo, hi: hi, stalled=1) == 1.0
    # headers then nothing: two first-token deadlines and one back-off, far below the old 15 minutes per request
    dead_server = policy.max_stalled_attempts * DEFAULT_LIMITS.first_byte_s + policy.cap_s
    assert dead_server <= 5 * 60
    assert DEFAULT_LIMITS.request_s <= 10 * 60
    assert 0 < DEFAULT_LIMITS.run_s <= 60 * 60


def test_a_profile_saved_with_the_old_defaults_gets_the_new_ones(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    old = {  # what schema 2 wrote for every provider: each limit spelled out, the old defaults included
        "connect_s": 10.0, "first_byte_s": 180.0, "idle_s": 120.0, "reply_s": 900.0, "request_s": 1800.0,
        "error_body_s": 10.0, "error_body_bytes": 65536, "max_attempts": 5, "run_s": 21600.0,
        "requests_per_minute": 0.0, "tokens_per_minute": 0.0,
    }  # fmt: skip
    chosen = {**old, "idle_s": 45.0, "max_attempts": 3}
    v2 = {
        "schema_version": 2,
        "providers": [
            {"name": "Old", "base_url": "http://127.0.0.1:9/v1", "limits": old},
            {"name": "Chosen", "base_url": "http://127.0.0.1:9/v1", "limits": chosen},
        ],
    }
    path.write_text(json.dumps(v2), encoding="utf-8")
    settings = Settings.load(path)
    # a profile then has the limits --base-url has (the defaults); what a user chose stays
    assert settings.provider("Old").limits == DEFAULT_LIMITS
    assert settings.provider("Chosen").limits == StreamLimits(idle_s=45.0, max_attempts=3)
    saved = {p["name"]: p["limits"] for p in json.loads(path.read_text(encoding="utf-8"))["providers"]}
    assert saved == {"Old": {}, "Chosen": {"idle_s": 45.0, "max_attempts": 3}}
    assert json.loads((tmp_path / "settings.json.v2.bak").read_text(encoding="utf-8")) == v2
