"""Every stream fault against the real pipeline over real HTTP: the right stage outcome, visible retries, resume.

One window of a real replay gets the fault (as many times as the client attempts it, so retries cannot hide it);
every other request gets a clean reply. Deadlines are small so each fault ends quickly; nothing here is timed.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.i18n import Lang
from app.llm.openai_compat import OpenAICompatProvider, RetryPolicy
from app.pipeline import events as ev
from app.pipeline.records import AnalysisRecord
from app.stream_limits import StreamLimits
from tests.pipeline.test_scripted_runs import (
    CLEAN,
    _first_window_start,
    _prepared,
    is_window,
    start_analyze_cli,
)
from tests.pipeline.test_scripted_runs import _run as scripted_run
from tests.support.scripted_server import Reply, ScriptedServer

ATTEMPTS = 2
LIMITS = StreamLimits(
    first_byte_s=0.6, idle_s=0.6, reply_s=20.0, request_s=30.0, error_body_s=0.5, max_attempts=ATTEMPTS
)
PARTIAL = "盟军开局先造了电厂，随后"  # what arrives before a cut or a stall


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    srv = ScriptedServer(default=Reply.chat(CLEAN, piece_chars=40)).start()
    yield srv
    srv.stop()


def _run(
    base_url: str,
    db_path: Path,
    *,
    resume: bool = False,
    limits: StreamLimits = LIMITS,
    deadline_s: float | None = None,
) -> tuple[AnalysisRecord, list[ev.PipelineEvent]]:
    provider = OpenAICompatProvider(
        "scripted",
        base_url,
        "scripted-model",
        api_key="k",
        limits=limits,
        retry=RetryPolicy(max_attempts=ATTEMPTS, base_s=0.05, cap_s=0.1),
    )
    return scripted_run(None, db_path, resume=resume, provider=provider, learn=False, deadline_s=deadline_s)


FIRST = "window:0:0"
FAULTS = {
    # name: (reply, how many times it is served, expected outcome, partial text kept, retried)
    "cut": (Reply.chat(PARTIAL + "后面的内容永远不会到达" * 5, piece_chars=4, cut_after=3), 1, "cut", True, False),
    "stall_before_content": (
        Reply.chat(CLEAN, first_token_delay_s=60.0, keepalive_s=30.0),
        ATTEMPTS,
        "stalled",
        False,
        True,
    ),
    "stall_after_content": (
        Reply.chat(PARTIAL + "……" * 20, piece_chars=4, stall_after=3, keepalive_s=30.0),
        1,
        "stalled",
        True,
        False,
    ),
    "keepalive_forever": (
        Reply.chat(CLEAN, first_token_delay_s=3600.0, keepalive_s=0.02),
        ATTEMPTS,
        "stalled",
        False,
        True,
    ),
    "endless_error_body": (Reply.endless_error(502), ATTEMPTS, "error", False, True),
    "http_500": (Reply.error(500, "internal error"), ATTEMPTS, "error", False, True),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_stream_fault_gives_outcome_retry_message_and_resume(
    fault: str, server: ScriptedServer, tmp_path: Path
) -> None:
    reply, times, outcome, keeps_partial, retried = FAULTS[fault]
    server.enqueue(*[reply] * times, match=is_window(_first_window_start()))
    db = tmp_path / "store.sqlite3"
    rec, events = _run(server.base_url, db)

    stage = next(s for s in rec.stages if s.key == FIRST)
    assert (stage.status, stage.outcome) == ("failed", outcome)
    assert rec.status == "partial"  # not completed: the stage stays resumable
    assert all(s.status == "done" and s.outcome == "stop" for s in rec.stages if s.key != FIRST)
    failed = [e for e in events if isinstance(e, ev.StageFailed)]
    assert [(e.stage.key, e.outcome) for e in failed] == [(FIRST, outcome)]
    partial = [o.text for o in stage.outputs if o.role == "partial"]
    if keeps_partial:
        # the server sent 3 pieces of 4 characters before it broke: exactly those are kept, marked partial
        assert partial == [PARTIAL[:12]]
        assert stage.text == ""  # never stored as the stage's answer
    else:
        assert partial == []
    retries = [e for e in events if isinstance(e, ev.RetryScheduled)]
    if retried:
        assert [(e.stage.key, e.attempt, e.max_attempts) for e in retries] == [(FIRST, 1, ATTEMPTS)]
        message = retries[0].describe(Lang.EN)
        assert message.startswith(f"retry 2/{ATTEMPTS} in ")
        if fault in ("http_500", "endless_error_body"):
            assert message.endswith(": HTTP 500" if fault == "http_500" else ": HTTP 502")
        else:
            assert message.endswith(": the server stalled")
    else:
        assert retries == []  # content had been shown: the request is not repeated, the stage is resumable

    asked_before = len(server.requests)
    resumed, _ = _run(server.base_url, db, resume=True)
    assert resumed.id == rec.id
    assert resumed.status == "completed"
    assert all((s.status, s.outcome) == ("done", "stop") for s in resumed.stages)
    again = [r for r in server.requests[asked_before:] if r.json]
    # only the faulty window is asked again: every other stage was done
    assert len(again) == 1
    assert is_window(_first_window_start())(again[0].json)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_refused_connection_fails_every_model_stage_visibly_then_resumes(
    server: ScriptedServer, tmp_path: Path
) -> None:
    db = tmp_path / "store.sqlite3"
    rec, events = _run(f"http://127.0.0.1:{_closed_port()}/v1", db)
    model_stages = [s for s in rec.stages if s.kind != "summary"]
    assert {(s.status, s.outcome) for s in model_stages if s.kind != "overview"} == {("failed", "error")}
    overview = next(s for s in rec.stages if s.kind == "overview")
    assert (overview.status, overview.outcome) == ("skipped", "error")  # plan §5.4: the run goes on without it
    retries = [e for e in events if isinstance(e, ev.RetryScheduled)]
    assert retries
    assert all(e.describe(Lang.EN).endswith(": network error") for e in retries)
    assert rec.status == "partial"

    resumed, _ = _run(server.base_url, db, resume=True)
    assert resumed.id == rec.id
    assert resumed.status == "completed"
    # the skipped overview is asked again too: only a stage that really finished is settled (issue 29)
    model_stages = [s for s in resumed.stages if s.kind != "summary"]
    assert all((s.status, s.outcome) == ("done", "stop") for s in model_stages)


def test_cli_prints_retries_and_outcomes_and_exits_non_zero_until_resumed(
    server: ScriptedServer, tmp_path: Path
) -> None:
    from app.claims.timeparse import format_time

    second = format_time(_prepared().plan.segments[0].windows[1].start_seconds)
    server.enqueue(Reply.error(503, "busy"), match=is_window(_first_window_start()))
    server.enqueue(Reply.chat(PARTIAL * 4, piece_chars=4, cut_after=3), match=is_window(second))
    proc = start_analyze_cli(server, tmp_path, quiet=False)
    out, err = (b.decode() for b in proc.communicate(timeout=300))
    assert proc.returncode == 1, err
    assert "第 2/5 次重试" in err
    assert "：HTTP 503" in err
    assert "cut: 回复在 12 个字符后中断" in err
    assert "(window:0:1 cut)" in out
    assert "Traceback" not in err

    again = start_analyze_cli(server, tmp_path, "--resume", quiet=False)
    out, err = (b.decode() for b in again.communicate(timeout=300))
    assert again.returncode == 0, err
    assert "(window" not in out


def test_run_deadline_ends_the_running_stage_cancelled_and_the_run_resumable(
    server: ScriptedServer, tmp_path: Path
) -> None:
    import threading

    gate = threading.Event()  # never opened: the first window waits (with keep-alives) past the run's deadline
    server.enqueue(Reply.chat(CLEAN, gate=gate), match=is_window(_first_window_start()))
    db = tmp_path / "store.sqlite3"
    patient = StreamLimits(first_byte_s=600.0, idle_s=600.0, reply_s=600.0, request_s=600.0)
    try:
        rec, events = _run(server.base_url, db, limits=patient, deadline_s=5.0)
    finally:
        gate.set()
    stage = next(s for s in rec.stages if s.key == FIRST)
    assert (stage.status, stage.outcome) == ("failed", "cancelled")
    assert stage.message == "超过本次分析的时限（5 秒），已停止"
    assert rec.status == "partial"
    later = [s for s in rec.stages if s.ordinal > stage.ordinal]
    assert later
    assert all(s.status == "pending" for s in later)  # the run stopped there
    finished = [e for e in events if isinstance(e, ev.RunFinished)]
    assert [e.status for e in finished] == ["partial"]

    resumed, _ = _run(server.base_url, db, resume=True)
    assert resumed.status == "completed"
    assert all((s.status, s.outcome) == ("done", "stop") for s in resumed.stages)
