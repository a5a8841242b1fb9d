"""A runner that plays a fixed script of pipeline events into the GUI, for tests and benchmarks (not shipped)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from app.pipeline import events as ev

Emit = Callable[[ev.PipelineEvent], None]


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
