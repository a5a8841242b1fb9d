"""HTTP for OpenAI-compatible endpoints: the shared client, the retry policy and the endpoint URL.

Why here: :mod:`app.llm.openai_compat` is the one place that decides retries (CONTRIBUTING); the policy it
applies and the client it sends with are plain values any caller may build.
"""

from __future__ import annotations

import asyncio
import email.utils
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass

import httpx

from app.llm.errors import (
    ProviderConfigError,
    ProviderError,
    StalledError,
)
from app.logs import redact
from app.stream_limits import DEFAULT_LIMITS

CONNECT_TIMEOUT_S = DEFAULT_LIMITS.connect_s
READ_TIMEOUT_S = DEFAULT_LIMITS.first_byte_s
"""Reasoning models can think for minutes before the first byte (notes §1.6). Our own deadlines
(:class:`~app.stream_limits.StreamLimits`) decide; httpx's read timeout is only a backstop."""


def make_http_client() -> httpx.AsyncClient:
    """A client with the app's timeouts (connect 10 s, read 180 s) — create one and share it among providers."""
    timeout = httpx.Timeout(connect=CONNECT_TIMEOUT_S, read=READ_TIMEOUT_S, write=30.0, pool=30.0)
    limits = httpx.Limits(max_connections=8, max_keepalive_connections=4)
    return httpx.AsyncClient(timeout=timeout, limits=limits, follow_redirects=False, trust_env=True)


_shared: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = weakref.WeakKeyDictionary()


def shared_http_client() -> httpx.AsyncClient:
    """The process-wide client for the running event loop (httpx pools are bound to one loop).

    Pass it as ``client=`` to every provider so they share one connection pool; close it with
    :func:`close_shared_http_client` at exit.
    """
    loop = asyncio.get_running_loop()
    client = _shared.get(loop)
    if client is None or client.is_closed:
        client = make_http_client()
        _shared[loop] = client
    return client


async def close_shared_http_client() -> None:
    """Close the running loop's shared client (call at application exit, before the loop stops)."""
    client = _shared.pop(asyncio.get_running_loop(), None)
    if client is not None:
        await client.aclose()


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """When and how long to wait before retrying a failed attempt (only before any content was delivered).

    Attributes:
        max_attempts: total HTTP attempts, the first included.
        base_s: first backoff step; attempt n (0-based) waits ``min(base_s · 2^n, cap_s)`` × jitter.
        cap_s: longest computed backoff.
        jitter: multiplicative jitter range.
        max_retry_after_s: a server asking to wait longer than this is not retried (the user sees the wait).
        max_stalled_attempts: attempts that may end by a deadline before any content. A stalled attempt already
            waited its whole deadline, and a server that sent headers and then nothing (or keep-alives forever)
            mostly does it again: five of them held one request for 15 minutes (issue 29).
    """

    max_attempts: int = 5
    base_s: float = 0.5
    cap_s: float = 8.0
    jitter: tuple[float, float] = (0.75, 1.0)
    max_retry_after_s: float = 60.0
    max_stalled_attempts: int = 2

    def delay(
        self, retry_index: int, error: ProviderError, rng: Callable[[float, float], float], *, stalled: int = 0
    ) -> float | None:
        """Seconds to wait before retry number ``retry_index`` (0-based), or None when not to retry.

        ``stalled`` counts the request's attempts so far that ended by a deadline (this one included).
        """
        if not error.retryable or retry_index + 1 >= self.max_attempts:
            return None
        if isinstance(error, StalledError) and stalled >= self.max_stalled_attempts:
            return None
        if error.retry_after_s is not None:
            if error.retry_after_s > self.max_retry_after_s:
                return None
            return max(0.0, error.retry_after_s)
        return min(self.base_s * float(2**retry_index), self.cap_s) * rng(*self.jitter)


def parse_retry_after(headers: httpx.Headers) -> float | None:
    """Seconds from ``retry-after-ms`` (preferred, fractional) or ``Retry-After`` (seconds or an HTTP date)."""
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, float(when.timestamp()) - time.time())


def chat_completions_url(base_url: str) -> str:
    """The endpoint for a base URL as users enter it (``https://api.openai.com/v1``, ``http://localhost:11434/v1``).

    Like the OpenAI SDK we append ``/chat/completions`` to the path; a path that already ends with it is used as
    is. A query string stays after the path (``…/v1?api-version=1`` → ``…/v1/chat/completions?api-version=1``).
    """
    from urllib.parse import urlsplit, urlunsplit

    url = base_url.strip()
    if not url:
        raise ProviderConfigError("the provider's base URL is empty")
    if not url.startswith(("http://", "https://")):
        raise ProviderConfigError(f"the provider's base URL must start with http:// or https://: {redact(url)!r}")
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    if not path.endswith("/chat/completions"):
        path += "/chat/completions"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, parts.fragment))
