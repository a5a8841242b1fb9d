"""A run's deadline, checked by CPU-bound work over model output so that the time limit stops it too.

``asyncio.timeout`` interrupts a coroutine only where it awaits; parsing, validating and recording a huge reply
never awaits, so a run's deadline alone cannot stop it (issue 29: 15 minutes at 100% CPU past a deadline). The run
sets its deadline here with :func:`limit`; loops over model output call :func:`check` once per item, which raises
:class:`DeadlinePassedError` (a :class:`TimeoutError`, so the run ends the way an expired ``asyncio.timeout`` ends
it). The deadline lives in a context variable: it follows the run into its tasks and threads, and nothing else.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_deadline: ContextVar[float | None] = ContextVar("replaysage_deadline", default=None)


class DeadlinePassedError(TimeoutError):
    """The run's deadline passed during CPU-bound work."""


@contextmanager
def limit(seconds: float | None) -> Iterator[None]:
    """Work inside ends by ``seconds`` from now (None or 0: no limit of its own; an outer limit still holds)."""
    outer = _deadline.get()
    mine = time.monotonic() + seconds if seconds else None
    token = _deadline.set(min(t for t in (outer, mine) if t is not None) if (outer or mine) else None)
    try:
        yield
    finally:
        _deadline.reset(token)


def check() -> None:
    """Raise :class:`DeadlinePassedError` when the current deadline has passed (cheap: call it per item).

    Raises:
        DeadlinePassedError: it has.
    """
    at = _deadline.get()
    if at is not None and time.monotonic() > at:
        raise DeadlinePassedError("the run's deadline passed")
