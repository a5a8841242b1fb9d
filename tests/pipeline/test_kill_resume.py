"""A real process running ``replaysage analyze`` is killed mid-stream; every finished stage survives and resumes."""

from __future__ import annotations

import signal
import sqlite3
import time
from pathlib import Path

from app.claims.timeparse import format_time
from app.i18n import Lang
from tests.conftest import corpus_file
from tests.pipeline.test_scripted_runs import CLEAN, PROFILE, REPLAY, _last, is_window, start_analyze_cli
from tests.support.scripted_server import Reply, ScriptedServer

STAGE_QUERY = "SELECT key, status FROM analysis_stages ORDER BY ordinal"


def _stages(db: Path) -> dict[str, str]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return dict(con.execute(STAGE_QUERY).fetchall())
    except sqlite3.OperationalError:
        return {}
    finally:
        con.close()


def test_killed_run_keeps_finished_stages_and_resumes(tmp_path: Path) -> None:
    from app.pipeline.prepare import prepare_replay

    plan = prepare_replay(corpus_file(REPLAY), PROFILE, Lang.ZH).plan
    windows = plan.segments[0].windows
    assert len(windows) >= 3
    third = format_time(windows[2].start_seconds)
    server = ScriptedServer(default=Reply.chat(CLEAN, piece_chars=40)).start()
    try:
        # the third window streams slowly, so the kill lands mid-stream
        server.enqueue(Reply.chat(CLEAN * 20, piece_chars=5, tokens_per_s=20), match=is_window(third))
        db = tmp_path / "replaysage.sqlite3"
        proc = start_analyze_cli(server, tmp_path)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            hit = [r for r in server.requests if r.json and is_window(third)(r.json)]
            if hit and _stages(db).get("window:0:2") == "running":
                break
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        time.sleep(0.5)  # some deltas of the slow reply have arrived
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)

        stages = _stages(db)
        assert stages["summary"] == "done"
        assert stages["overview"] == "done"
        assert stages["window:0:0"] == "done"
        assert stages["window:0:1"] == "done"
        assert stages["window:0:2"] == "running"
        assert stages["summary_round"] == "pending"
        before = len(server.requests)

        resumed = start_analyze_cli(server, tmp_path, "--resume")
        out, err = resumed.communicate(timeout=120)
        assert resumed.returncode == 0, (out + err).decode()
        after = server.requests[before:]
        asked = [_last(r.json) for r in after if r.json]
        assert not any("这是总览轮" in a for a in asked)  # the overview was not asked again
        first_two = [format_time(w.start_seconds) for w in windows[:2]]
        assert not any(f"请重点分析 {t} 至" in a for a in asked for t in first_two)
        assert any(f"请重点分析 {third} 至" in a for a in asked)
        assert set(_stages(db).values()) == {"done"}
        con = sqlite3.connect(db)
        assert con.execute("SELECT COUNT(*), MIN(status) FROM analyses").fetchone() == (1, "completed")
        con.close()
    finally:
        server.stop()
