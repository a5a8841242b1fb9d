"""The analysis worker process: real offline runs in a child process, cancel, resume, and a worker that dies.

No Qt here: the runner is the GUI's wiring point but speaks only :mod:`app.pipeline.events`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from app.pipeline import events as ev
from app.pipeline.prepare import file_sha256
from app.pipeline.repository import AnalysisRepository
from app.pipeline.worker import RunOrder
from app.settings import OFFLINE_PROFILE, Settings
from app.store import open_database
from tests.conftest import corpus_file
from ui.runner import ProcessRunner, WorkerStoppedError

Worker = tuple[ProcessRunner, AnalysisRepository]

LONG_1V1 = "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"


@contextmanager
def _worker_over(store: Path | str) -> Iterator[Worker]:
    """A process runner over a real store, and that store's repository; the worker is stopped after."""
    db = open_database(store)
    settings = Settings.load()
    runner = ProcessRunner(db, lambda: settings)
    try:
        yield runner, AnalysisRepository(db)
    finally:
        runner.close()
        db.close()


@pytest.fixture
def worker(tmp_path: Path) -> Iterator[Worker]:
    """A process runner over a store file."""
    with _worker_over(tmp_path / "store.db") as w:
        yield w


@pytest.fixture
def worker_on_each_backend(store_url: str) -> Iterator[Worker]:
    """A process runner over a SQLite file, then over the team database on PostgreSQL."""
    with _worker_over(store_url) as w:
        yield w


def started(events: list[ev.PipelineEvent]) -> ev.RunStarted:
    """The run's first event, which is always its RunStarted."""
    first = events[0]
    assert isinstance(first, ev.RunStarted)
    return first


async def _run_until(
    runner: ProcessRunner,
    replay: Path,
    events: list[ev.PipelineEvent],
    stop_when: type[ev.PipelineEvent],
    *,
    resume: bool = False,
) -> asyncio.Task[int | None]:
    """Start a run and return its task once an event of type ``stop_when`` has arrived."""
    arrived = asyncio.Event()
    loop = asyncio.get_running_loop()

    def emit(e: ev.PipelineEvent) -> None:  # called on the relay thread
        events.append(e)
        if isinstance(e, stop_when):
            loop.call_soon_threadsafe(arrived.set)

    task = asyncio.ensure_future(runner.run(replay, emit, profile=OFFLINE_PROFILE, resume=resume))
    waiter = asyncio.ensure_future(arrived.wait())
    await asyncio.wait([task, waiter], timeout=120, return_when=asyncio.FIRST_COMPLETED)
    waiter.cancel()
    return task


def test_cancel_in_the_worker_keeps_finished_stages_and_resume_completes(worker: Worker) -> None:
    replay = corpus_file(LONG_1V1)
    runner, repo = worker

    async def scenario() -> None:
        events: list[ev.PipelineEvent] = []
        task = await _run_until(runner, replay, events, ev.StageFinished)
        assert not task.done(), "the 24-minute analysis has more than one stage"
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # the worker's own pipeline marked the run: its RunFinished came through before the run ended
        assert isinstance(events[0], ev.RunStarted)
        assert isinstance(events[-1], ev.RunFinished)
        assert events[-1].status == "cancelled"
        analysis_id = started(events).analysis_id
        rec = repo.load(analysis_id)
        assert rec.status == "cancelled"
        assert repo.resumable(file_sha256(replay), OFFLINE_PROFILE) == analysis_id
        finished = {e.stage.key for e in events if isinstance(e, ev.StageFinished)}
        assert finished <= {s.key for s in rec.stages if s.status == "done"}
        requests_before = {s.key: len(s.requests) for s in rec.stages if s.key in finished}
        # resume in the same worker: the same analysis completes
        resumed: list[ev.PipelineEvent] = []
        assert await runner.run(replay, resumed.append, profile=OFFLINE_PROFILE, resume=True) == analysis_id
        assert repo.load(analysis_id).status == "completed"
        after = {s.key: len(s.requests) for s in repo.load(analysis_id).stages if s.key in finished}
        assert after == requests_before, "stages done before the cancel are not asked again"
        assert isinstance(resumed[0], ev.RunStarted)
        assert resumed[0].resumed

    asyncio.run(scenario())


def test_a_worker_that_dies_is_a_clear_error_and_the_run_resumes(worker_on_each_backend: Worker) -> None:
    """On the team database too: a new worker process resumes what the killed one left (its lease died with it)."""
    replay = corpus_file(LONG_1V1)
    runner, repo = worker_on_each_backend

    async def scenario() -> None:
        events: list[ev.PipelineEvent] = []
        task = await _run_until(runner, replay, events, ev.StageFinished)
        process = runner._process
        assert process is not None
        process.kill()
        with pytest.raises(WorkerStoppedError, match=r"stopped unexpectedly \(exit code -9\)"):
            await task
        analysis_id = started(events).analysis_id
        assert isinstance(events[0], ev.RunStarted)
        assert repo.load(analysis_id).status == "running"  # nobody could mark it: the process was killed
        # a new worker starts on the next run and finishes the interrupted analysis
        assert await runner.run(replay, lambda _e: None, profile=OFFLINE_PROFILE, resume=True) == analysis_id
        assert runner._process is not None
        assert runner._process is not process
        assert repo.load(analysis_id).status == "completed"

    asyncio.run(scenario())


def test_a_bad_replay_is_reported_by_name_from_the_worker(tmp_path: Path, worker: Worker) -> None:
    bad = tmp_path / "broken.RA3Replay"
    bad.write_bytes(b"this is not a replay" * 20)
    runner, _repo = worker
    from app.errors import KnownError

    with pytest.raises(KnownError, match=r"broken\.RA3Replay"):
        asyncio.run(runner.run(bad, lambda _e: None, profile=OFFLINE_PROFILE))
    # the worker survives a user error and serves the next run
    assert runner._process is not None
    assert runner._process.is_alive()


def test_the_order_never_shows_its_key() -> None:
    order = RunOrder("a.RA3Replay", "remote", False, Settings(Path("unused.json")), "x.db", "sk-secret-123")
    assert "sk-secret-123" not in repr(order)
    assert "***" in repr(order)


def test_a_cancel_that_arrives_with_the_order_is_still_answered(tmp_path: Path) -> None:
    # the order and the cancel reach the worker's loop in the same turn: the run's task is cancelled before
    # its first step, and the front end's relay must still get the run's last message
    import multiprocessing

    from app.pipeline.worker import _Worker

    orders_out, orders_in = multiprocessing.Pipe(duplex=False)
    replies_out, replies_in = multiprocessing.Pipe(duplex=False)
    worker = _Worker(orders_out, replies_in)
    order = RunOrder(str(corpus_file(LONG_1V1)), OFFLINE_PROFILE, False, Settings.load(), str(tmp_path / "s.db"))
    try:
        worker.obey(("run", order))
        worker.obey(("cancel",))
        assert worker.task is not None
        with pytest.raises(asyncio.CancelledError):
            worker.loop.run_until_complete(worker.task)
        worker.loop.run_until_complete(asyncio.sleep(0))  # the task's done callbacks
        assert replies_out.poll(0), "no answer: the relay would wait for it until its 60 s timeout"
        assert replies_out.recv() == ("cancelled",)
    finally:
        worker.loop.close()
        for c in (orders_out, orders_in, replies_out, replies_in):
            c.close()


def test_a_second_cancel_still_waits_for_the_worker_to_answer(worker: Worker) -> None:
    # Esc twice (or Esc then F5, or closing the window) cancels the awaiting task again while it waits for the
    # worker: the run must still end only once its relay has stopped reading the shared pipe
    import threading

    replay = corpus_file(LONG_1V1)
    runner, repo = worker

    async def scenario() -> None:
        events: list[ev.PipelineEvent] = []
        task = await _run_until(runner, replay, events, ev.StageFinished)
        assert not task.done()
        task.cancel()
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert not [t for t in threading.enumerate() if t.name == "replaysage-relay"], (
            "a relay of the cancelled run still reads the pipe the next run will use"
        )
        assert repo.load(started(events).analysis_id).status == "cancelled"
        assert (
            await runner.run(replay, lambda _e: None, profile=OFFLINE_PROFILE, resume=True)
            == started(events).analysis_id
        )

    asyncio.run(scenario())


def test_ctrl_c_in_the_terminal_leaves_the_run_to_the_front_end(worker: Worker) -> None:
    # Ctrl+C signals the whole foreground process group: the GUI quits cleanly on it, the worker must not die
    import os
    import signal

    replay = corpus_file(LONG_1V1)
    runner, repo = worker

    async def scenario() -> None:
        events: list[ev.PipelineEvent] = []
        task = await _run_until(runner, replay, events, ev.StageFinished)
        assert not task.done()
        assert runner._process is not None
        assert runner._process.pid is not None
        os.kill(runner._process.pid, signal.SIGINT)
        assert await task == started(events).analysis_id
        assert repo.load(started(events).analysis_id).status == "completed"

    asyncio.run(scenario())


def test_the_worker_runs_below_the_window_priority(worker: Worker) -> None:
    """On a two-core laptop a busy worker must not keep the GUI thread waiting for a CPU."""
    import os
    import time

    from app.pipeline.worker import WORKER_NICENESS

    runner, _repo = worker
    runner.warm()
    assert runner._process is not None
    pid = runner._process.pid
    assert pid is not None
    expected = min(19, os.getpriority(os.PRIO_PROCESS, 0) + WORKER_NICENESS)
    for _ in range(50):  # the worker lowers itself as its first step
        if os.getpriority(os.PRIO_PROCESS, pid) == expected:
            break
        time.sleep(0.1)
    assert os.getpriority(os.PRIO_PROCESS, pid) == expected


def test_without_a_keyring_session_keys_reach_the_worker_and_its_notices_come_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 29 (11): a key entered in the GUI for this session only, and a base URL's key that loading the settings
    kept in memory only, both reach the worker process (another process: its memory starts empty) through the pipe,
    and nothing writes them anywhere; what the worker has to say about a credential comes back to the front end."""
    import json

    import keyring
    from keyring.backends import fail

    import app.secrets
    from app.secrets import ENV_API_KEY, Notice, SecretStore, set_notice_sink
    from app.settings import settings_path
    from tests.pipeline.test_scripted_runs import CLEAN
    from tests.support.scripted_server import Reply, ScriptedServer

    typed_key, url_key = "sk-typed-in-the-dialog-0123", "gw-url-key-456789"
    monkeypatch.delenv(ENV_API_KEY, raising=False)
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")  # the worker has none either
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())  # type: ignore[no-untyped-call]  # keyring's backends are untyped
    shown: list[str] = []
    set_notice_sink(shown.append)
    try:
        with ScriptedServer(default=Reply.chat(CLEAN, piece_chars=40)) as server:
            path = settings_path()
            path.parent.mkdir(parents=True, exist_ok=True)
            gateways = [
                {"name": "Typed", "base_url": server.base_url, "extra_headers": {}, "stream": True},
                {"name": "InUrl", "base_url": f"{server.base_url}?api-key={url_key}", "extra_headers": {}},
            ]
            profiles = [
                {"name": n.lower(), "provider": n, "model_id": "m", "context_length": 1_000_000, "max_tokens": 1000}
                for n in ("Typed", "InUrl")
            ]
            path.write_text(json.dumps({"schema_version": 2, "providers": gateways, "profiles": profiles}), "utf-8")
            settings = Settings.load()  # takes the URL's key out of the file, into this process's memory
            secrets = SecretStore("session")
            secrets.set("Typed", typed_key)  # what the settings dialog does with a key typed in
            assert len(app.secrets._SESSION) == 2
            db = open_database(tmp_path / "store.db")
            runner = ProcessRunner(db, lambda: settings, secrets)
            replay = corpus_file("kw_crane.KWReplay")
            try:
                assert asyncio.run(runner.run(replay, lambda _e: None, profile="typed")) is not None
                typed = [r for r in server.requests if r.method == "POST"]
                assert typed
                assert all(r.headers.get("authorization") == f"Bearer {typed_key}" for r in typed)
                assert asyncio.run(runner.run(replay, lambda _e: None, profile="inurl")) is not None
                in_url = [r for r in server.requests[len(typed) :] if r.method == "POST"]
                assert in_url
                assert all(url_key in r.path for r in in_url), "the worker sent the base URL without its key"
                # a key the front end no longer holds is gone from the worker too; the worker says so, and the
                # front end hears it
                app.secrets._SESSION.clear()
                shown.clear()
                before = len(server.requests)
                asyncio.run(runner.run(replay, lambda _e: None, profile="typed"))
                assert not [r for r in server.requests[before:] if r.headers.get("authorization")]
            finally:
                runner.close()
                db.close()
    finally:
        set_notice_sink(None)
        keyring.set_keyring(previous)
    assert any(isinstance(n, Notice) and "'Typed'" in n.en and "'Typed'" in n.zh for n in shown), shown
    files = [p for p in [*tmp_path.rglob("*"), *path.parent.rglob("*")] if p.is_file()]
    for key in (typed_key, url_key):
        assert not [p for p in files if key.encode() in p.read_bytes()]
