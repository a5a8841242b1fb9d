"""A provider's request and token rates, kept for every process that shares one ledger (issue 19).

Why even spacing: providers enforce "N per minute" in sub-minute slices (OpenAI documents that 60 requests per
minute may be enforced as one per second), so a burst of N at the top of a minute is refused anyway. Each request
therefore *reserves* the next free start (the generic cell rate algorithm: the ledger keeps when the next request
may start), waits until then, and its tokens push the token horizon by ``tokens / rate``; the real count from the
reply's usage corrects the estimate afterwards. A 429 pauses the provider for every process until its
``Retry-After`` has passed.

The ledger holds that state. :class:`LocalLedger` serves one process; the store's ledger (:mod:`app.store.rates`)
serves every process and machine on one database. This module never imports the store: the ledger is passed in.
"""

from __future__ import annotations

import asyncio
import functools
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from app.stream_limits import StreamLimits


@dataclass(slots=True)
class RateSlot:
    """The shared state of one provider's rate, as epoch seconds.

    Attributes:
        next_request_at: the earliest start of the next request.
        next_token_at: when the tokens already sent are paid off at the token rate.
        blocked_until: the server asked every client to wait until then (429 with ``Retry-After``).
    """

    next_request_at: float = 0.0
    next_token_at: float = 0.0
    blocked_until: float = 0.0

    def reserve(self, now: float, spacing_s: float, token_s: float) -> float:
        """Take the next free start at or after ``now``; returns it. The one place the rate arithmetic lives."""
        start = max(now, self.next_request_at, self.next_token_at, self.blocked_until)
        self.next_request_at = start + spacing_s
        self.next_token_at = start + token_s
        return start

    def adjust(self, token_s: float) -> float:
        """Move the token horizon by ``token_s`` (the real token count differed from the estimate); returns it."""
        self.next_token_at += token_s
        return self.next_token_at

    def pause(self, until: float) -> float:
        """Nobody starts a request before ``until``; returns the pause's end."""
        self.blocked_until = max(self.blocked_until, until)
        return self.blocked_until


class RateLedger(Protocol):
    """Where the :class:`RateSlot` of each provider lives; each call is one atomic read-modify-write."""

    def update(self, key: str, change: Callable[[RateSlot], float]) -> float:
        """Apply ``change`` to the slot of ``key`` atomically (create it when missing); returns its result."""
        ...


class LocalLedger:
    """Slots in this process's memory (one process only; the store's ledger spans processes)."""

    def __init__(self) -> None:
        self._slots: dict[str, RateSlot] = {}
        self._lock = threading.Lock()

    def update(self, key: str, change: Callable[[RateSlot], float]) -> float:
        """Apply ``change`` under a lock."""
        with self._lock:
            return change(self._slots.setdefault(key, RateSlot()))


PROCESS_LEDGER = LocalLedger()
"""The ledger a provider uses when nobody passes one (a single analysis in one process)."""


class RateGate:
    """Waits for a provider's turn before each attempt, for every process sharing ``ledger``.

    Args:
        key: what the rate belongs to (the provider's name in the settings).
        limits: the provider's limits; only ``requests_per_minute`` and ``tokens_per_minute`` matter here.
        ledger: the shared state.
        clock: epoch seconds (shared across processes, unlike ``time.monotonic``).
        sleep: the sleep coroutine (tests may record waits).
    """

    def __init__(
        self,
        key: str,
        limits: StreamLimits,
        ledger: RateLedger,
        *,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        self.key = key
        self.spacing_s = 60.0 / limits.requests_per_minute if limits.requests_per_minute > 0 else 0.0
        self.seconds_per_token = 60.0 / limits.tokens_per_minute if limits.tokens_per_minute > 0 else 0.0
        self._ledger = ledger
        self._clock = clock
        self._sleep = sleep

    @property
    def counts_tokens(self) -> bool:
        """True when a token rate is set (callers then estimate each request's tokens)."""
        return self.seconds_per_token > 0

    async def _update(self, change: Callable[[RateSlot], float]) -> float:
        # the store's ledger is a short write transaction: keep it off the event loop
        return await asyncio.to_thread(self._ledger.update, self.key, change)

    async def acquire(self, tokens: int = 0) -> float:
        """Reserve a start for a request of about ``tokens`` tokens and wait for it; returns the seconds waited.

        A pause announced after the reservation (another process got a 429) is honoured: the start is reserved
        again after it.
        """
        waited = 0.0
        token_s = tokens * self.seconds_per_token
        while True:
            now = self._clock()
            start = await self._update(
                functools.partial(RateSlot.reserve, now=now, spacing_s=self.spacing_s, token_s=token_s)
            )
            if start > now:
                await self._sleep(start - now)
                waited += start - now
            blocked = await self._update(lambda s: s.blocked_until)
            if blocked <= self._clock():
                return waited

    async def settle(self, estimated: int, actual: int) -> None:
        """Correct the token horizon once the reply reported its real token count."""
        if self.seconds_per_token and actual != estimated:
            await self._update(lambda s: s.adjust((actual - estimated) * self.seconds_per_token))

    async def pause(self, seconds: float) -> None:
        """The server refused for rate: nobody sharing the ledger starts a request for ``seconds``."""
        until = self._clock() + max(0.0, seconds)
        await self._update(lambda s: s.pause(until))


def rate_gate(key: str, limits: StreamLimits, ledger: RateLedger | None) -> RateGate | None:
    """The gate for a provider with rates configured (None without any); ``ledger`` None: this process only."""
    if limits.requests_per_minute <= 0 and limits.tokens_per_minute <= 0:
        return None
    return RateGate(key, limits, ledger if ledger is not None else PROCESS_LEDGER)
