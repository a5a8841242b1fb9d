"""Where the GUI obtains analysis runs: the one wiring point between the views and :mod:`app.pipeline`.

A runner is anything with ``async run(replay_path, emit, *, profile, resume) -> analysis id``: it calls ``emit``
with :mod:`app.pipeline.events` events as the analysis goes and stops when its task is cancelled. The views never
know which runner they drive, so tests and benchmarks inject a scripted one (``tests.support.scripted_runner``)
and the app uses :class:`ProcessRunner` (:func:`default_runner`), which runs :class:`PipelineRunner`'s work in a
worker process.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any, Protocol

from app.errors import KnownError
from app.pipeline import events as ev
from app.secrets import SecretStore
from app.settings import Settings
from ui.services import Database

Emit = Callable[[ev.PipelineEvent], None]


class AnalysisRunner(Protocol):
    """Runs one analysis, reporting typed events; cancelling the awaiting task stops it."""

    async def run(self, replay_path: Path, emit: Emit, *, profile: str, resume: bool = False) -> int | None:
        """Analyse ``replay_path`` with the model profile named ``profile``; returns the analysis id."""
        ...


class PipelineRunner:
    """The real pipeline on the caller's event loop: settings → provider (keyring key) → the pipeline service.

    Args:
        db: the store the analysis is written to.
        settings_loader: returns the current settings (re-read per run so a settings change applies at once).
    """

    def __init__(self, db: Database, settings_loader: Callable[[], object]) -> None:
        self.db = db
        self._settings = settings_loader

    async def run(self, replay_path: Path, emit: Emit, *, profile: str, resume: bool = False) -> int | None:
        """Run (or resume) an analysis through the pipeline service."""
        from app.pipeline.worker import run_with_settings

        return await run_with_settings(
            replay_path, settings=_settings(self._settings), profile=profile, db=self.db, emit=emit, resume=resume
        )


def _settings(loader: Callable[[], object]) -> Settings:
    settings = loader()
    if not isinstance(settings, Settings):
        raise TypeError(f"the settings loader returned {type(settings).__name__}, not Settings")
    return settings


class WorkerStoppedError(KnownError):
    """The analysis worker process ended in the middle of a run."""


class ProcessRunner:
    """Runs analyses in a worker process (:mod:`app.pipeline.worker`): the GUI's interpreter stays free.

    A worker thread of the GUI process shared the GIL with the window: the pipeline's pure-Python stretches
    (indexing, the offline analyst, validation) froze it for 70–110 ms at a time. The worker process is started
    once (:meth:`warm` starts it ahead of the first Analyze) and serves one run at a time; events come back in
    order through a reader thread and ``emit``, which the analysis view marshals onto the GUI thread. The API
    key is read from the keyring here and handed over with the order, so the worker never needs a keyring.

    Args:
        db: the store (its file is opened by the worker too; SQLite's WAL lets both read and write).
        settings_loader: returns the current settings, sent with each run.
        secrets: where API keys are kept.
    """

    def __init__(self, db: Database, settings_loader: Callable[[], object], secrets: SecretStore | None = None) -> None:
        if db.path is None and not db.server:
            raise ValueError("a worker process needs a database file or server, not an in-memory store")
        self.db_path = db.location  # a file, or the team server URL without its password
        self._settings = settings_loader
        self._secrets = secrets
        self._process: BaseProcess | None = None
        self._orders: Connection | None = None
        self._replies: Connection | None = None

    def warm(self) -> None:
        """Start the worker now (it takes about a second to import the pipeline) if it is not running."""
        if self._process is not None and self._process.is_alive():
            return
        self.close()
        ctx = multiprocessing.get_context("spawn")  # never fork a process that runs Qt
        orders_out, orders_in = ctx.Pipe(duplex=False)
        replies_out, replies_in = ctx.Pipe(duplex=False)
        from app.pipeline.worker import worker_main

        process = ctx.Process(
            target=worker_main, args=(orders_out, replies_in), name="replaysage-analysis", daemon=True
        )
        process.start()
        orders_out.close()
        replies_in.close()
        self._process, self._orders, self._replies = process, orders_in, replies_out

    async def run(self, replay_path: Path, emit: Emit, *, profile: str, resume: bool = False) -> int | None:
        """Send the run to the worker and relay its events; a cancel here cancels it there and waits."""
        from app.pipeline.worker import RunOrder

        settings = _settings(self._settings)
        prof = settings.profile(profile)
        key = None
        if not prof.rule_based:  # the keyring may be slow (a D-Bus call): not on the GUI thread
            from app.llm.factory import resolve_api_key

            secrets = self._secrets or SecretStore(settings.get("secret_fallback"))
            key = await asyncio.to_thread(resolve_api_key, settings.provider(prof.provider).name, secrets)
        self.warm()
        assert self._orders is not None
        assert self._replies is not None
        loop = asyncio.get_running_loop()
        outcome: asyncio.Future[tuple[Any, ...]] = loop.create_future()
        relay = threading.Thread(
            target=self._relay, args=(self._replies, emit, loop, outcome), name="replaysage-relay", daemon=True
        )
        relay.start()
        from app.secrets import session_keys

        # a key kept in this process's memory only (no keyring) must reach the worker too: through the pipe
        order = RunOrder(str(replay_path), profile, resume, settings, self.db_path, key, session_keys())
        self._orders.send(("run", order))
        try:
            result = await asyncio.shield(outcome)
        except asyncio.CancelledError:
            with contextlib.suppress(OSError):
                self._orders.send(("cancel",))
            # the worker stores the partial stage, then answers; a second cancel (Esc twice, Esc then F5, the
            # window's close) must not end this wait early, or this relay would still read the shared pipe when
            # the next run starts its own and could take that run's messages (or hand it this run's answer)
            joined = asyncio.ensure_future(asyncio.to_thread(relay.join, 60))
            while not joined.done():
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.shield(joined)
            if relay.is_alive():  # the worker hangs: stop it (its pipe's end also ends the relay)
                self.close()
            raise
        kind = result[0]
        if kind == "done":
            return int(result[1])
        if kind == "cancelled":
            raise asyncio.CancelledError
        if kind == "error":
            raise KnownError(str(result[1]))
        if kind == "stopped":
            process = self._process
            if process is not None:  # the pipe ends a moment before the process is reaped: wait for its exit code
                await asyncio.to_thread(process.join, 5)
            code = process.exitcode if process is not None else None
            self.close()
            raise WorkerStoppedError(
                f"the analysis worker stopped unexpectedly (exit code {code}); finished stages "
                "are stored and the analysis can be resumed"
            )
        raise RuntimeError(f"the analysis worker failed:\n{result[1]}")

    @staticmethod
    def _relay(
        replies: Connection, emit: Emit, loop: asyncio.AbstractEventLoop, outcome: asyncio.Future[tuple[Any, ...]]
    ) -> None:
        """Reader thread: pass events on until the run's last message (or the pipe's end)."""
        while True:
            try:
                message = replies.recv()
            except (EOFError, OSError):
                message = ("stopped",)
            if message[0] == "event":
                emit(message[1])
                continue
            if message[0] == "notice":  # the worker's credential notice: the front end's sink shows it
                from app.secrets import notify

                notify(message[1])
                continue

            def settle(m: tuple[Any, ...] = message) -> None:
                if not outcome.done():
                    outcome.set_result(m)

            with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits any more
                loop.call_soon_threadsafe(settle)
            return

    def close(self) -> None:
        """Stop the worker (a running analysis is cancelled and marked resumable first)."""
        process, orders = self._process, self._orders
        self._process = self._orders = None
        if orders is not None:
            with contextlib.suppress(OSError):
                orders.send(("stop",))
            orders.close()
        if process is not None:
            process.join(10)
            if process.is_alive():
                process.terminate()
                process.join(2)
        if self._replies is not None:
            self._replies.close()
            self._replies = None


class ThreadedRunner:
    """Runs another runner on its own event loop in a worker thread, so the GUI loop never waits for it.

    The pipeline does real work between its awaits (fact indexes, prompt assembly, validation, SQLite writes);
    on the GUI loop each of those would freeze the window for tens of milliseconds. Events come back through
    ``emit``, which the analysis view marshals onto the GUI thread in order. Cancelling the awaiting task
    cancels the run in the worker and waits until the pipeline has stored its partial stage.

    Args:
        inner: the runner to host.
    """

    def __init__(self, inner: AnalysisRunner) -> None:
        self.inner = inner
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def _worker_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None or self._thread is None or not self._thread.is_alive():
            loop = asyncio.new_event_loop()
            ready = threading.Event()

            def main() -> None:
                asyncio.set_event_loop(loop)
                loop.call_soon(ready.set)
                try:
                    loop.run_forever()  # run_forever installs the async-generator hooks (notes §1.5)
                finally:
                    loop.run_until_complete(loop.shutdown_asyncgens())
                    loop.close()

            self._thread = threading.Thread(target=main, name="replaysage-analysis", daemon=True)
            self._thread.start()
            ready.wait(10)
            self._loop = loop
        return self._loop

    async def run(self, replay_path: Path, emit: Emit, *, profile: str, resume: bool = False) -> int | None:
        """Run ``inner`` in the worker; a cancel here cancels it there and waits for it to wind down."""
        loop = self._worker_loop()
        done = threading.Event()

        async def body() -> int | None:
            try:
                return await self.inner.run(replay_path, emit, profile=profile, resume=resume)
            finally:
                done.set()

        future = asyncio.run_coroutine_threadsafe(body(), loop)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            future.cancel()
            await asyncio.to_thread(done.wait, 60)
            raise

    def close(self) -> None:
        """Stop the worker loop (pending runs were cancelled by their views)."""
        if self._loop is not None and self._thread is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
        self._loop = None
        self._thread = None


def default_runner(
    db: Database, settings_loader: Callable[[], object], secrets: SecretStore | None = None
) -> AnalysisRunner:
    """The runner the app uses: the real pipeline in a worker process (in a thread for an in-memory store)."""
    if db.path is None:
        return ThreadedRunner(PipelineRunner(db, settings_loader))
    return ProcessRunner(db, settings_loader, secrets)
