"""The concrete :class:`~app.llm.base.EventStream` every provider returns, and async-generator hook safety.

Providers write their logic as one async generator; :class:`ChatStream` wraps it so that closing is explicit and
idempotent and nothing is left for the garbage collector to finalise outside the loop (engineering notes §1.5).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable
from types import TracebackType
from typing import Any, Self

from app.llm.events import Finished, StreamEvent, StreamFailed


def ensure_asyncgen_hooks() -> bool:
    """Install the running loop's async-generator hooks if none are installed; return True if installed now.

    asyncio's own ``run_forever`` installs them, qasync's does not; without them an abandoned generator inside
    httpcore is finalised synchronously and raises "async generator ignored GeneratorExit". The application should
    still ``await loop.shutdown_asyncgens()`` at exit.
    """
    hooks = sys.get_asyncgen_hooks()
    if hooks.finalizer is not None:
        return False
    loop = asyncio.get_running_loop()
    firstiter = getattr(loop, "_asyncgen_firstiter_hook", None)
    finalizer = getattr(loop, "_asyncgen_finalizer_hook", None)
    if firstiter is None or finalizer is None:
        return False
    sys.set_asyncgen_hooks(firstiter=firstiter, finalizer=finalizer)
    return True


class ChatStream:
    """The event stream of one request (an :class:`~app.llm.base.EventStream`).

    Not an async generator itself: it owns one and closes it explicitly, so a consumer that stops early (``break``,
    Stop button, task cancel) releases the connection at once and nothing is left for the garbage collector.
    """

    def __init__(self, gen: AsyncIterator[StreamEvent], aclose: Callable[[], Any]) -> None:
        self._gen = gen
        self._aclose_gen = aclose
        self._closed = False
        self._started = False

    def __aiter__(self) -> Self:
        """Iterate the events."""
        return self

    async def __anext__(self) -> StreamEvent:
        """The next event; closes the stream after the terminal event."""
        if self._closed:
            raise StopAsyncIteration
        if not self._started:
            # Hooks must exist before the generator's first step: Python binds the finalizer at that moment.
            self._started = True
            ensure_asyncgen_hooks()
        try:
            event = await self._gen.__anext__()
        except BaseException:
            await self.aclose()
            raise
        if isinstance(event, Finished | StreamFailed):
            await self.aclose()
        return event

    async def aclose(self) -> None:
        """Stop the request and release the connection (idempotent)."""
        if self._closed:
            return
        self._closed = True
        await self._aclose_gen()

    @property
    def closed(self) -> bool:
        """True once the stream ended or was closed."""
        return self._closed

    async def __aenter__(self) -> Self:
        """Enter: returns the stream itself."""
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Exit: closes the stream."""
        await self.aclose()
