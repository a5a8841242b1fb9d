"""Where the GUI obtains analysis runs: the one wiring point between the views and :mod:`app.pipeline`.

A runner is anything with ``async run(replay_path, emit, *, profile, resume) -> analysis id``: it calls ``emit``
with :mod:`app.pipeline.events` events as the analysis goes and stops when its task is cancelled. The views never
know which runner they drive, so tests and benchmarks inject :class:`ScriptedRunner` and the app uses
:class:`PipelineRunner` (:func:`default_runner`).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from app.pipeline import events as ev
from app.store.db import Database

Emit = Callable[[ev.PipelineEvent], None]


class AnalysisRunner(Protocol):
    """Runs one analysis, reporting typed events; cancelling the awaiting task stops it."""

    async def run(self, replay_path: Path, emit: Emit, *, profile: str, resume: bool = False) -> int | None:
        """Analyse ``replay_path`` with the model profile named ``profile``; returns the analysis id."""
        ...


class PipelineRunner:
    """The real pipeline: settings → provider (keyring key) → :func:`app.pipeline.service.run_analysis`.

    Args:
        db: the store the analysis is written to.
        settings_loader: returns the current settings (re-read per run so a settings change applies at once).
    """

    def __init__(self, db: Database, settings_loader: Callable[[], object]) -> None:
        self.db = db
        self._settings = settings_loader

    async def run(self, replay_path: Path, emit: Emit, *, profile: str, resume: bool = False) -> int | None:
        """Run (or resume) an analysis through the pipeline service."""
        from app.llm.factory import build_provider
        from app.pipeline.service import ModelChoice, run_analysis
        from app.settings import Settings

        settings = self._settings()
        assert isinstance(settings, Settings)
        prof = settings.profile(profile)
        client = None
        if not prof.rule_based:  # building an HTTP client loads the TLS trust store: not on the GUI thread
            from app.llm.openai_compat import make_http_client

            client = await asyncio.to_thread(make_http_client)
        provider = build_provider(settings, prof, client=client)
        knowledge = settings.get("user_knowledge_file") or None
        try:
            return await run_analysis(replay_path, db=self.db, provider=provider,
                                      choice=ModelChoice.from_settings(prof), lang=settings.analysis_lang(),
                                      emit=emit, resume=resume, user_knowledge=knowledge)
        finally:
            await provider.aclose()
            if client is not None:
                await client.aclose()


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


def default_runner(db: Database, settings_loader: Callable[[], object]) -> AnalysisRunner:
    """The runner the app uses: the real pipeline in a worker thread (swap here to plug a different one)."""
    return ThreadedRunner(PipelineRunner(db, settings_loader))


@dataclass(frozen=True, slots=True)
class Pause:
    """A scripted pause of ``seconds`` between events (lets the GUI breathe like a real stream)."""

    seconds: float


Step = ev.PipelineEvent | Pause
"""One item of a script."""


class ScriptedRunner:
    """Plays a fixed list of events (and :class:`Pause` items) into the view, for tests and benchmarks.

    Args:
        script: events and pauses, in order; or a callable returning them for the replay path.
        analysis_id: the id returned at the end.
    """

    def __init__(self, script: Sequence[Step] | Callable[[Path], Iterable[Step]], analysis_id: int = 1) -> None:
        self.script = script
        self.analysis_id = analysis_id
        self.emitted = 0
        self.runs = 0

    async def run(self, replay_path: Path, emit: Emit, *, profile: str, resume: bool = False) -> int | None:
        """Emit the script; a cancel stops it where it is (like the real pipeline, which then emits RunFinished)."""
        self.runs += 1
        items = self.script(replay_path) if callable(self.script) else self.script
        last: ev.RunStarted | None = None
        try:
            for item in items:
                if isinstance(item, Pause):
                    await asyncio.sleep(item.seconds)
                    continue
                if isinstance(item, ev.RunStarted):
                    last = item
                emit(item)
                self.emitted += 1
                await asyncio.sleep(0)
        except asyncio.CancelledError:
            emit(ev.RunFinished(last.analysis_id if last else self.analysis_id, "cancelled"))
            raise
        return self.analysis_id
