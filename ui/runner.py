"""Where the GUI obtains analysis runs: the one wiring point between the views and :mod:`app.pipeline`.

A runner is anything with ``async run(replay_path, emit, *, profile, resume) -> analysis id``: it calls ``emit``
with :mod:`app.pipeline.events` events as the analysis goes and stops when its task is cancelled. The views never
know which runner they drive, so tests and benchmarks inject :class:`ScriptedRunner` and the app uses
:class:`PipelineRunner` (:func:`default_runner`).
"""

from __future__ import annotations

import asyncio
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


def default_runner(db: Database, settings_loader: Callable[[], object]) -> AnalysisRunner:
    """The runner the app uses (swap here to plug a different pipeline)."""
    return PipelineRunner(db, settings_loader)


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
