"""Reading a streamed response within deadlines: the read watchdog, draining to EOF, bounded error bodies.

Why a module: these are the async-generator hygiene rules of engineering notes §1.5 and the stall deadlines of
issue 29, independent of what the bytes mean.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator, Callable
from typing import Any, cast

import httpx

from app.stream_limits import StreamLimits

DRAIN_TIMEOUT_S = 2.0
"""How long to wait for EOF after ``[DONE]`` or an in-stream error before closing the connection ourselves."""


class DeadlinePassed(Exception):  # noqa: N818 - a signal between the watchdog and the read loop
    """The read deadline passed: a signal from the watchdog to the read loop, carrying why."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


class ReadWatchdog:
    """Ends a stream read whose deadline passes, with one timer per quiet stretch instead of one per chunk.

    The deadline moves with every content delta. ``asyncio.timeout`` around each read made and cancelled a loop
    timer per chunk, a Qt timer under qasync: about a quarter of the GUI process's time while a model streamed.
    Here a timer is armed at the deadline; when it fires and the deadline has moved on, it is armed again at the
    new one, and only a deadline that has really passed cancels the read (never code outside it).
    """

    def __init__(self, deadline: Callable[[], tuple[float, str]]) -> None:
        self._deadline = deadline
        self._task: asyncio.Task[Any] | None = None
        self._handle: asyncio.TimerHandle | None = None
        self._reading = False
        self._expired: str | None = None

    async def read(self, raw: AsyncGenerator[bytes, None]) -> bytes | None:
        """The next chunk (None at the end); raises :class:`DeadlinePassed` when the deadline passes first."""
        task = asyncio.current_task()
        if task is None:  # not in a task: no watchdog, the read waits as long as httpx's own timeouts allow
            return await anext(raw, None)
        self._task = task
        if self._handle is None:
            self._arm()
        cancelling = task.cancelling()
        self._reading = True
        try:
            return await anext(raw, None)
        except asyncio.CancelledError:
            if self._expired is not None and task.uncancel() <= cancelling:
                raise DeadlinePassed(self._expired) from None
            raise
        finally:
            self._reading = False

    def stop(self) -> None:
        """Disarm (the stream is done)."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _arm(self) -> None:
        at, _why = self._deadline()
        loop = asyncio.get_running_loop()
        self._handle = loop.call_at(loop.time() + max(0.0, at - time.monotonic()), self._check)

    def _check(self) -> None:
        self._handle = None
        if not self._reading:  # the next read arms it again
            return
        at, why = self._deadline()
        if time.monotonic() < at:
            self._arm()
            return
        self._expired = why
        if self._task is not None:
            self._task.cancel()


async def drain(raw: AsyncGenerator[bytes, None]) -> None:
    """Read what follows ``[DONE]`` or an error event to EOF, briefly (notes §1.5: let httpcore's generators end).

    A server that keeps the body open is cut after :data:`DRAIN_TIMEOUT_S`; the timeout's cancellation unwinds the
    generators inside the loop, so nothing is left for the garbage collector either way.
    """
    with contextlib.suppress(TimeoutError, httpx.HTTPError):
        async with asyncio.timeout(DRAIN_TIMEOUT_S):
            async for _ in raw:
                pass


async def read_limited(response: httpx.Response, limits: StreamLimits, seconds: float) -> bytes:
    """Read an error body: at most ``error_body_bytes``, for at most ``seconds``.

    ``seconds`` is ``error_body_s``, or less when the request's deadline comes first. A body that never ends (or
    is huge) is not read to its end: the response is closed afterwards, which drops the connection — cheaper than
    waiting for a server that keeps writing.
    """
    parts: list[bytes] = []
    size = 0
    raw = cast(AsyncGenerator[bytes, None], response.aiter_raw())
    try:
        async with asyncio.timeout(seconds):
            async for chunk in raw:
                parts.append(chunk)
                size += len(chunk)
                if size >= limits.error_body_bytes:
                    break
    except (TimeoutError, httpx.HTTPError):
        pass
    finally:
        await raw.aclose()
    return b"".join(parts)[: limits.error_body_bytes]
