"""``replaysage batch`` as a user runs it: real worker processes, a real SQLite store, real HTTP on 127.0.0.1."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from app.settings import ModelProfileSettings, ProviderSettings, Settings
from app.stream_limits import StreamLimits
from tests.conftest import REPO_ROOT, corpus_file
from tests.pipeline.test_scripted_runs import CLEAN
from tests.support.scripted_server import Reply, ScriptedServer

SMALL = ("kw_beacon.KWReplay", "kw_crane.KWReplay", "kw_bh.KWReplay", "kw_t59_2.KWReplay")
"""Four short Kane's Wrath games (a few requests each)."""
FOCUS = "请重点分析"
"""Words of a focus window's request (zh)."""


def _batch(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "REPLAYSAGE_HOME": str(home), "REPLAYSAGE_API_KEY": "k"}
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "batch", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _folder(root: Path, names: tuple[str, ...]) -> Path:
    """A tournament-like folder: replays at the top and in a nested round folder."""
    folder = root / "archive"
    (folder / "round 2").mkdir(parents=True)
    for i, name in enumerate(names):
        shutil.copy(corpus_file(name), folder / ("round 2" if i % 2 else "") / name)
    return folder


def _rows(done: subprocess.CompletedProcess[str]) -> dict[str, dict[str, Any]]:
    data = json.loads(done.stdout)
    return {Path(r["path"]).name: r for r in data["replays"]}


def test_offline_batch_reports_each_replay_skips_done_ones_and_fails_only_the_bad_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    folder = _folder(tmp_path, SMALL[:3])
    shutil.copy(corpus_file(SMALL[0]), folder / "round 2" / "same game again.KWReplay")
    (folder / "broken.RA3Replay").write_bytes(b"this is not a replay at all" * 10)
    (folder / "notes.txt").write_text("not a replay", encoding="utf-8")
    out = tmp_path / "reports"

    first = _batch(home, str(folder), "--jobs", "2", "--out", str(out), "--json")
    assert first.returncode == 1, first.stderr  # one bad file: the batch finishes, and says it failed
    rows = _rows(first)
    assert set(rows) == {*SMALL[:3], "same game again.KWReplay", "broken.RA3Replay"}  # recursive, replays only
    for name in SMALL[:3]:
        assert rows[name]["status"] == "completed", rows[name]
        assert rows[name]["stages_done"] == rows[name]["stages"] > 0
    assert rows["same game again.KWReplay"]["status"] == "duplicate"
    assert rows["broken.RA3Replay"]["status"] == "error"
    assert "broken.RA3Replay" in first.stderr
    assert rows["broken.RA3Replay"]["message"]
    reports = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.md"))
    assert reports == sorted(f"{'round 2/' if i % 2 else ''}{Path(n).stem}.md" for i, n in enumerate(SMALL[:3]))
    con = sqlite3.connect(home / "replaysage.sqlite3")
    assert con.execute("SELECT status, COUNT(*) FROM analyses GROUP BY status").fetchall() == [("completed", 3)]
    con.close()

    again = _batch(home, str(folder), "--jobs", "2", "--json")
    rows = _rows(again)
    assert {n: rows[n]["status"] for n in SMALL[:3]} == dict.fromkeys(SMALL[:3], "skipped")
    assert rows["broken.RA3Replay"]["status"] == "error"
    con = sqlite3.connect(home / "replaysage.sqlite3")
    assert con.execute("SELECT COUNT(*) FROM analyses").fetchone() == (3,)  # nothing was analysed twice
    con.close()

    forced = _batch(home, str(folder / "round 2" / SMALL[1]), "--force")
    assert forced.returncode == 0, forced.stderr
    assert "completed" in forced.stdout.splitlines()[1]  # the summary table's row


def _scripted_settings(home: Path, server: ScriptedServer, per_minute: float) -> None:
    settings = Settings.load(home / "settings.json")
    settings.put_provider(
        ProviderSettings("Local", server.base_url, limits=StreamLimits(requests_per_minute=per_minute))
    )
    settings.put_profile(ModelProfileSettings("scripted", "Local", "scripted-model", context_length=1_000_000))
    settings.save()


def test_rate_limited_server_every_replay_completes_and_no_window_goes_over_the_rate(tmp_path: Path) -> None:
    per_minute = 120.0
    spacing = 60.0 / per_minute
    window = 4 * spacing
    allowed = 5  # 4 spacings fit a window, plus one on its edge: what evenly spaced requests can do at most
    home = tmp_path / "home"
    home.mkdir()
    folder = _folder(tmp_path, SMALL)
    # the server enforces the configured rate the way providers do: over it, a 429 with Retry-After
    with ScriptedServer(default=Reply.chat(CLEAN, piece_chars=40), rate_limit=(allowed, window)) as server:
        _scripted_settings(home, server, per_minute)
        done = _batch(home, str(folder), "--model", "scripted", "--jobs", "3", "--json")
        requests = [r for r in server.requests if r.method == "POST"]
    assert done.returncode == 0, done.stderr
    rows = _rows(done)
    expected = {n: "truncated" if n == "kw_t59_2.KWReplay" else "completed" for n in SMALL}  # t59 is cut off
    assert {n: r["status"] for n, r in rows.items()} == expected
    arrivals = sorted(r.received_at for r in requests)
    assert len(arrivals) >= 2 * allowed  # enough requests for the windows to mean something
    busiest = max(sum(1 for t in arrivals if start <= t < start + window) for start in arrivals)
    assert busiest <= allowed, f"{busiest} requests within {window} s"
    assert not [r for r in requests if r.refused]  # the server never had to refuse one


def test_ctrl_c_stops_the_batch_keeps_what_is_done_and_a_rerun_resumes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    folder = _folder(tmp_path, SMALL[:2])
    gate = threading.Event()
    server = ScriptedServer(default=Reply.chat(CLEAN, piece_chars=40)).start()
    try:
        _scripted_settings(home, server, 0.0)
        settings = Settings.load(home / "settings.json")
        settings.set("analysis_language", "zh")
        settings.save()
        # the first focus window of either replay hangs (keep-alives only) until the test opens the gate
        server.enqueue(Reply.chat(CLEAN, gate=gate), match=FOCUS)
        env = {**os.environ, "REPLAYSAGE_HOME": str(home), "REPLAYSAGE_API_KEY": "k"}
        cmd = [sys.executable, "-m", "app.cli", "batch", str(folder), "--model", "scripted", "--jobs", "2", "--json"]
        proc = subprocess.Popen(cmd, cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

        def hung() -> bool:
            return any(FOCUS in r.text and r.deltas_sent == 0 and not r.completed for r in server.requests)

        assert server.wait_for(lambda: hung() or proc.poll() is not None, timeout=120), "the gated window never came"
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGINT)  # what Ctrl+C sends (the workers ignore it; the parent tells them to stop)
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 130, err
        assert "rerun the same command to resume" in err
        data = json.loads(out)
        assert data["interrupted"] is True
        assert {r["status"] for r in data["replays"]} <= {"completed", "interrupted"}
        con = sqlite3.connect(home / "replaysage.sqlite3")
        before = dict(con.execute("SELECT id, status FROM analyses").fetchall())
        overview_done = {
            aid
            for (aid,) in con.execute(
                "SELECT analysis_id FROM analysis_stages WHERE key = 'overview' AND status = 'done'"
            )
        }
        con.close()
        # the replay whose window hung was stopped mid-run: its finished stages are stored and it is resumable
        assert any(status == "cancelled" and aid in overview_done for aid, status in before.items())
        gate.set()
        asked_before = len(server.requests)

        again = _batch(home, str(folder), "--model", "scripted", "--jobs", "2", "--json")
        assert again.returncode == 0, again.stderr
        assert {r["status"] for r in json.loads(again.stdout)["replays"]} <= {"completed", "skipped"}
        con = sqlite3.connect(home / "replaysage.sqlite3")
        after = dict(con.execute("SELECT id, status FROM analyses").fetchall())
        con.close()
        assert len(after) == 2
        assert set(after.values()) == {"completed"}
        assert set(before) <= set(after)  # every interrupted analysis was resumed, none started over
        asked = [r.text for r in server.requests[asked_before:]]
        # an overview stored before Ctrl+C was not asked again: only replays without one asked for it
        assert sum("这是总览轮" in a for a in asked) == 2 - len(overview_done & set(before))
    finally:
        gate.set()
        server.stop()
