"""Several real ``replaysage analyze`` processes on one SQLite file, and two racing ``--resume`` runs.

Before BEGIN IMMEDIATE and the run lease, two runs on the same user data failed 7 times out of 7 with ``database
is locked``, and two ``--resume`` runs both continued the same analysis. Real subprocesses, the offline analyst,
corpus replays; the database is read back with plain sqlite3.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, corpus_file
from tests.pipeline.test_scripted_runs import (
    CLEAN,
    _first_window_start,
    analyze_env,
    is_window,
    start_analyze_cli,
)
from tests.support.scripted_server import Reply, ScriptedServer
from tests.support.typed import as_int

REPLAYS = (
    "ra3_1v1_infinity_isle_allies_mirror_12m.RA3Replay",
    "ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay",
    "ra3_1v1_infinity_isle_observers_12m.RA3Replay",
    "ra3_1v1_industrial_strength_observer_7m.RA3Replay",
)


def _offline(home: Path, replay: str) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "app.cli", "analyze", str(corpus_file(replay)), "--lang", "zh", "--quiet"]
    return subprocess.Popen(cmd, cwd=REPO_ROOT, env=analyze_env(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


@pytest.mark.parametrize("count", [2, 4])
def test_concurrent_offline_analyses_on_one_database_all_complete(count: int, tmp_path: Path) -> None:
    procs = [_offline(tmp_path, REPLAYS[i % len(REPLAYS)]) for i in range(count)]
    results: list[tuple[int, str, str]] = []
    for p in procs:
        code = p.wait(300)
        raw_out, raw_err = p.communicate()
        results.append((code, raw_out.decode(), raw_err.decode()))
    for code, _out, err in results:
        assert code == 0, err
        assert "Traceback" not in err
        assert "locked" not in err
    db = tmp_path / "replaysage.sqlite3"
    analyses = _rows(db, "SELECT id, status, owner FROM analyses ORDER BY id")
    assert [(status, owner) for _id, status, owner in analyses] == [("completed", "")] * count
    # every analysis has each planned stage exactly once, all done with a normal stop
    per = _rows(
        db,
        "SELECT analysis_id, COUNT(*), COUNT(DISTINCT key), SUM(status = 'done' AND outcome = 'stop') "
        "FROM analysis_stages GROUP BY analysis_id",
    )
    assert len(per) == count
    assert all(n == distinct == done for _a, n, distinct, done in per)
    planned = sorted(int(out.split("/")[1].split()[0]) for _c, out, _e in results)  # "analysis #3: 9/9 stages"
    assert sorted(as_int(n) for _a, n, _d, _s in per) == planned


def test_two_concurrent_resumes_take_the_lease_exactly_once(tmp_path: Path) -> None:
    first = is_window(_first_window_start())
    with ScriptedServer(default=Reply.chat(CLEAN, piece_chars=40)) as server:
        server.enqueue(Reply.chat(CLEAN, piece_chars=4, cut_after=2), match=first)
        cut = start_analyze_cli(server, tmp_path)
        assert cut.wait(300) == 1, cut.communicate()[1].decode()  # window:0:0 was cut: the analysis is partial
        db = tmp_path / "replaysage.sqlite3"
        assert _rows(db, "SELECT status FROM analyses") == [("partial",)]

        # the resumed window is held open until the race is decided, so both processes overlap for sure
        gate = threading.Event()
        server.enqueue(Reply.chat(CLEAN, piece_chars=40, gate=gate), match=first)
        before = len(server.requests)
        racers = [start_analyze_cli(server, tmp_path, "--resume") for _ in range(2)]
        loser = None
        while loser is None:
            for p in racers:
                try:
                    p.wait(0.2)
                except subprocess.TimeoutExpired:
                    continue
                loser = p
                break
        gate.set()
        winner = racers[1] if loser is racers[0] else racers[0]
        assert winner.wait(300) == 0, winner.communicate()[1].decode()
        lost_err = loser.communicate()[1].decode()
        assert loser.returncode == 2, lost_err
        assert "analysis #1 is being run by another process" in lost_err
        assert "Traceback" not in lost_err
        asked = [r for r in server.requests[before:] if r.json]
        assert len(asked) == 1  # the one unfinished window, asked once
        assert first(asked[0].json)
    assert _rows(db, "SELECT id, status, owner FROM analyses") == [(1, "completed", "")]
    assert _rows(db, "SELECT COUNT(*) FROM analysis_stages WHERE status != 'done'") == [(0,)]


def test_lease_of_a_live_process_is_refused_and_of_a_crashed_one_taken(store_url: str) -> None:
    import socket
    from datetime import timedelta

    from app.pipeline.events import StageKind, StageRef
    from app.pipeline.records import AnalysisRecord, utcnow
    from app.pipeline.repository import LEASE_STALE_S, AnalysisRepository, LeaseHeldError, new_owner
    from app.store import open_database

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # reaped: its pid names no process now
    host = socket.gethostname()
    db = open_database(store_url)
    try:
        repo = AnalysisRepository(db)
        aid = repo.create(
            replay_path="r",
            replay_sha256="0" * 64,
            replay_name="r",
            model_label="m",
            provider="p",
            model_id="m",
            lang="zh",
            plan={},
            stages=[StageRef(StageKind.SUMMARY)],
            summary_text="",
            owner=f"{host}:{os.getpid()}:other",
        )  # this process, another run: alive
        with pytest.raises(LeaseHeldError, match=f"pid {os.getpid()}"):
            repo.acquire(aid, new_owner())

        def hold(owner: str, age_s: float) -> None:
            with db.session() as s:
                rec = s.get_one(AnalysisRecord, aid)
                rec.owner, rec.heartbeat_at = owner, utcnow() - timedelta(seconds=age_s)

        hold(f"{host}:{gone.pid}:crashed", 0)  # fresh heartbeat, but the process is gone
        repo.acquire(aid, mine := new_owner())
        hold("elsewhere:123:x", 1)  # another machine, fresh heartbeat: alive as far as we can tell
        with pytest.raises(LeaseHeldError):
            repo.acquire(aid, mine)
        hold("elsewhere:123:x", LEASE_STALE_S + 5)  # its heartbeat went stale: crashed
        repo.acquire(aid, mine)
        repo.release(aid, mine)
        assert repo.load(aid).owner == ""
    finally:
        db.close()
