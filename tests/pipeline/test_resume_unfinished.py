"""Only a stage that really finished is settled: an overview that failed is asked again on resume (issue 29).

The overview is the one stage the run goes on without (plan §5.4). It is stored ``skipped`` with its outcome; the
run is then ``partial``, not ``completed``, so ``--resume`` finds the same analysis and asks the overview again,
as often as it takes, without starting a new analysis.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.pipeline.test_scripted_runs import CLEAN, _last, is_overview, start_analyze_cli
from tests.pipeline.test_stream_faults import ATTEMPTS
from tests.pipeline.test_stream_faults import _run as faulty_run
from tests.support.scripted_server import Reply, ScriptedServer

OVERVIEW = "整局概述：双方盟军镜像，节奏平稳。"
# name: (the overview's reply, served for every attempt of both overview requests, the stored outcome)
OVERVIEW_FAULTS = {
    "cut": (Reply.chat(OVERVIEW * 10, piece_chars=4, cut_after=3), "cut"),
    "stalled": (Reply.chat(OVERVIEW * 10, piece_chars=4, stall_after=3, keepalive_s=30.0), "stalled"),
    "length": (Reply.chat(OVERVIEW, finish_reason="length"), "length"),
    "error": (Reply.error(500, "internal error"), "error"),
    "rate_limited": (Reply.error(429, "slow down", retry_after=0), "error"),
}


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    srv = ScriptedServer(default=Reply.chat(CLEAN, piece_chars=40)).start()
    yield srv
    srv.stop()


def _overview_asked(server: ScriptedServer, since: int = 0) -> int:
    return sum(1 for r in server.requests[since:] if r.json and is_overview(r.json))


@pytest.mark.parametrize("fault", sorted(OVERVIEW_FAULTS))
def test_a_failed_overview_keeps_the_run_resumable_and_resume_asks_it_again(
    fault: str, server: ScriptedServer, tmp_path: Path
) -> None:
    reply, outcome = OVERVIEW_FAULTS[fault]
    server.enqueue(*[reply] * (2 * ATTEMPTS), match=is_overview)  # both requests of the overview, every attempt
    db = tmp_path / "store.sqlite3"
    rec, _ = faulty_run(server.base_url, db)

    overview = next(s for s in rec.stages if s.kind == "overview")
    assert (overview.status, overview.outcome) == ("skipped", outcome)
    assert [r.purpose for r in overview.requests] == ["initial", "retry"]
    assert all(s.status == "done" for s in rec.stages if s.kind != "overview")  # the run went on without it
    assert rec.status == "partial"  # but it is not complete: the overview is missing
    assert rec.message == "overview"

    server.clear()  # the server is healed: every request gets a clean reply
    resumed, _ = faulty_run(server.base_url, db, resume=True)
    assert resumed.id == rec.id
    assert _overview_asked(server) == 1
    asked = [_last(r.json) for r in server.requests if r.json]
    assert len(asked) == 1  # only the overview: every other stage was done
    again = next(s for s in resumed.stages if s.kind == "overview")
    assert (again.status, again.outcome) == ("done", "stop")
    assert again.text == "本窗口分析：双方按常规发展。"  # the healed server's answer, without its claims block
    assert resumed.status == "completed"
    assert all(s.status == "done" for s in resumed.stages)


def test_a_second_resume_continues_the_same_analysis_from_the_command_line(
    server: ScriptedServer, tmp_path: Path
) -> None:
    refused = Reply.error(429, "slow down", retry_after=0)
    server.enqueue(*[refused] * 50, match=is_overview)  # every overview attempt of the first two runs
    first = start_analyze_cli(server, tmp_path)
    out, err = (b.decode() for b in first.communicate(timeout=300))
    assert first.returncode == 1, err
    assert "(overview error)" in out

    second = start_analyze_cli(server, tmp_path, "--resume")
    out, err = (b.decode() for b in second.communicate(timeout=300))
    assert second.returncode == 1, err  # the overview still fails: still not done
    assert "(overview error)" in out

    server.clear()
    third = start_analyze_cli(server, tmp_path, "--resume")
    out, err = (b.decode() for b in third.communicate(timeout=300))
    assert third.returncode == 0, err
    assert "(overview" not in out
    assert _overview_asked(server) == 1

    con = sqlite3.connect(tmp_path / "replaysage.sqlite3")
    try:
        rows = con.execute("SELECT id, status FROM analyses").fetchall()
        stages = dict(con.execute("SELECT key, status FROM analysis_stages").fetchall())
    finally:
        con.close()
    assert [status for _id, status in rows] == ["completed"]  # one analysis, resumed twice, never restarted
    assert set(stages.values()) == {"done"}
