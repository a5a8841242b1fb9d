"""Streaming client for OpenAI-compatible ``/chat/completions`` endpoints (OpenAI, DeepSeek, OpenRouter, Ollama…).

This module is the one place that decides retries (CONTRIBUTING): 408/409/429/5xx and connection failures are
retried — honouring ``retry-after-ms`` / ``Retry-After``, else ``min(0.5·2^n, 8 s)`` × jitter 0.75–1.0 — but only
while nothing has been shown. With a provider rate configured, every attempt first waits for its turn at the
:class:`~app.llm.ratelimit.RateGate`, and a 429 pauses every process that shares the gate's ledger. Once a delta
was delivered a failure ends the reply as *interrupted* and every received delta stays delivered: retrying then
would duplicate or contradict visible text.

Async-generator hygiene (engineering notes §1.5): qasync installs no async-generator hooks, so an httpx stream
abandoned mid-way is finalised outside the loop. We therefore (1) read every response to its natural end when we
can (``[DONE]`` is followed by EOF), (2) close what we hold explicitly on cancel or error, and (3) install the
running loop's hooks once if none are installed (:func:`ensure_asyncgen_hooks`).
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import json
import random
import re
import time
import weakref
from collections.abc import AsyncGenerator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import httpx

from app import jsonlimits
from app.llm.base import ChatRequest, EventStream
from app.llm.errors import (
    AuthError,
    BadRequestError,
    ContextOverflowError,
    ModelNotFoundError,
    NetworkError,
    ProtocolError,
    ProviderConfigError,
    ProviderError,
    RateLimitError,
    ServerError,
    StalledError,
)
from app.llm.events import (
    Finished,
    ReasoningDelta,
    Retrying,
    StreamEvent,
    StreamFailed,
    TextDelta,
    UsageReport,
)
from app.llm.ratelimit import RateGate
from app.llm.server_context import ServerContext
from app.llm.sse import SSEParser, ThinkSplitter
from app.llm.streams import ChatStream
from app.logs import redact
from app.safetext import storable_text
from app.stream_limits import DEFAULT_LIMITS, StreamLimits
from app.urls import UrlCredentials, split_url_credentials

CONNECT_TIMEOUT_S = DEFAULT_LIMITS.connect_s
READ_TIMEOUT_S = DEFAULT_LIMITS.first_byte_s
"""Reasoning models can think for minutes before the first byte (notes §1.6). Our own deadlines
(:class:`~app.stream_limits.StreamLimits`) decide; httpx's read timeout is only a backstop."""

DRAIN_TIMEOUT_S = 2.0
"""How long to wait for EOF after ``[DONE]`` or an in-stream error before closing the connection ourselves."""
_DETAIL_LIMIT = 300
_KEY_PATTERN = re.compile(r"\b(sk|key|api)[-_][A-Za-z0-9_\-*.]{6,}", re.IGNORECASE)
_CONTEXT_MARKERS = (
    "context_length_exceeded",
    "context length",
    "maximum context",
    "context window",
    "too many tokens",
    "prompt is too long",
    "input is too long",
    "reduce the length",
    "context size",
    "exceed_context_size",
)
_TERMINAL_QUOTA_MARKERS = ("insufficient_quota", "billing", "exceeded your current quota", "insufficient balance")


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


def usage_from_json(usage: Mapping[str, Any]) -> UsageReport:
    """Normalise a usage object (OpenAI and DeepSeek names); keep the whole object as ``raw``."""

    def num(value: Any) -> int:
        return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0

    prompt_details = usage.get("prompt_tokens_details")
    completion_details = usage.get("completion_tokens_details")
    cached = 0
    if isinstance(prompt_details, Mapping):
        cached = num(prompt_details.get("cached_tokens"))
    if not cached:
        cached = num(usage.get("prompt_cache_hit_tokens"))
    reasoning = 0
    if isinstance(completion_details, Mapping):
        reasoning = num(completion_details.get("reasoning_tokens"))
    if not reasoning:
        reasoning = num(usage.get("reasoning_tokens"))
    prompt = num(usage.get("prompt_tokens"))
    if not prompt and ("prompt_cache_hit_tokens" in usage or "prompt_cache_miss_tokens" in usage):
        prompt = num(usage.get("prompt_cache_hit_tokens")) + num(usage.get("prompt_cache_miss_tokens"))
    return UsageReport(
        prompt_tokens=prompt,
        completion_tokens=num(usage.get("completion_tokens")),
        reasoning_tokens=reasoning,
        cached_prompt_tokens=cached,
        raw=dict(usage),
    )


@dataclass(slots=True)
class _Progress:
    """Mutable state of one request across its attempts."""

    started: float = field(default_factory=time.monotonic)
    attempts: int = 0
    stalled: int = 0
    delivered: int = 0
    first_delta_at: float | None = None
    attempt_sent_at: float = 0.0
    finish_reason: str | None = None
    done_seen: bool = False
    resolved_model: str = ""
    usage: Mapping[str, Any] | None = None
    think: ThinkSplitter = field(default_factory=ThinkSplitter)
    content_ended: bool = False
    last_delta_at: float | None = None


class _DeadlinePassed(Exception):  # noqa: N818 - a signal between the watchdog and the read loop
    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


class _ReadWatchdog:
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
        """The next chunk (None at the end); raises :class:`_DeadlinePassed` when the deadline passes first."""
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
                raise _DeadlinePassed(self._expired) from None
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


class OpenAICompatProvider:
    """A :class:`~app.llm.base.ChatProvider` for one OpenAI-compatible endpoint and model.

    Args:
        name: display name (profile name), used in errors.
        base_url: e.g. ``https://api.deepseek.com/v1``; ``/chat/completions`` is appended. Credentials inside it
            (``?api-key=…``, ``user:pass@``) are split off: sent on the wire only, never shown (:mod:`app.urls`).
        model: model id to request.
        api_key: bearer token, or None for local servers without auth. Masked in ``repr``, never logged.
        extra_headers: added to every request (e.g. OpenRouter's ``HTTP-Referer``).
        stream: default for requests that leave ``ChatRequest.stream`` unset.
        max_tokens: default output limit for requests that leave it unset (None: server default).
        client: a shared :class:`httpx.AsyncClient`; when None the provider creates one and closes it in ``aclose``.
        retry: the retry policy (default: ``limits.max_attempts`` attempts).
        limits: deadlines of connect, first token, gaps between deltas, the reply, the request with retries.
        url_credentials: credentials for the URL kept apart (from the keyring), merged with any in ``base_url``.
        rng: jitter source ``(low, high) -> float`` (tests pass a fixed one).
        sleep: the sleep coroutine (tests may record waits).
        rate_gate: the provider's request and token rates, shared across processes (None: no limit).
    """

    rule_based = False

    def __init__(
        self,
        name: str,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        extra_headers: Mapping[str, str] | None = None,
        stream: bool = True,
        max_tokens: int | None = None,
        client: httpx.AsyncClient | None = None,
        retry: RetryPolicy | None = None,
        limits: StreamLimits | None = None,
        url_credentials: UrlCredentials | None = None,
        rng: Callable[[float, float], float] = random.uniform,
        sleep: Callable[[float], Any] = asyncio.sleep,
        rate_gate: RateGate | None = None,
    ) -> None:
        if not model.strip():
            raise ProviderConfigError(f"provider {name!r} has no model id")
        self._name = name
        clean, inline = split_url_credentials(base_url)
        self._url_credentials = inline.merged(url_credentials or UrlCredentials())
        self._url = chat_completions_url(clean)
        self._model = model.strip()
        self._api_key = api_key or None
        self._extra_headers = dict(extra_headers or {})
        self._stream_default = stream
        self._max_tokens = max_tokens
        self._client = client
        self._owns_client = client is None
        self._limits = limits or DEFAULT_LIMITS
        self._retry = retry or RetryPolicy(max_attempts=self._limits.max_attempts)
        self._rng = rng
        self._sleep = sleep
        self._gate = rate_gate

    def __repr__(self) -> str:
        key = "set" if self._api_key else "none"
        return f"OpenAICompatProvider(name={self._name!r}, url={self._url!r}, model={self._model!r}, api_key=<{key}>)"

    @property
    def name(self) -> str:
        """Display name of the provider."""
        return self._name

    @property
    def model(self) -> str:
        """Model id requested."""
        return self._model

    @property
    def url(self) -> str:
        """The chat completions endpoint."""
        return self._url

    @property
    def limits(self) -> StreamLimits:
        """The deadlines this provider enforces (the run deadline among them)."""
        return self._limits

    async def aclose(self) -> None:
        """Close the HTTP client if this provider created it."""
        if self._owns_client and self._client is not None:
            await self._client.aclose()
            self._client = None

    async def server_context(self) -> ServerContext | None:
        """The context the server reports for this model (``app.llm.server_context``); None when nothing says.

        Plain GETs/POSTs with a short timeout, no chat request. Query strings of the base URL are not carried over
        (they belong to the chat endpoint); the key goes in the same header as for chat requests.
        """
        from urllib.parse import urlsplit, urlunsplit

        from app.llm.server_context import read_server_context

        parts = urlsplit(self._url)
        base = urlunsplit((parts.scheme, parts.netloc, parts.path[: -len("/chat/completions")], "", ""))
        headers = {k: v for k, v in self._headers(False).items() if k != "Content-Type"}

        async def fetch(method: str, url: str, body: Mapping[str, Any] | None) -> Any:
            try:
                response = await self._http().request(
                    method, url, headers=headers, json=dict(body) if body is not None else None, timeout=10.0
                )
                if response.status_code != 200:
                    return None
                return response.json()
            except (httpx.HTTPError, ValueError):
                return None

        async def get_json(url: str) -> Any:
            return await fetch("GET", url, None)

        async def post_json(url: str, body: Mapping[str, Any]) -> Any:
            return await fetch("POST", url, body)

        return await read_server_context(base, self._model, get_json, post_json)

    def stream(self, request: ChatRequest) -> EventStream:
        """Start the request; see :mod:`app.llm.events` for the event contract."""
        gen = self._run(request)
        return ChatStream(gen, gen.aclose)

    # -- request building -------------------------------------------------------------------------------------

    def _body(self, request: ChatRequest, streaming: bool) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self._model,
            "messages": [m.to_json() for m in request.messages],
            "stream": streaming,
        }
        if streaming:
            body["stream_options"] = {"include_usage": True}
        max_tokens = request.max_tokens if request.max_tokens is not None else self._max_tokens
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if request.send_tag and request.tag:
            body["user"] = request.tag
        body.update(request.extra_body)
        return body

    def _headers(self, streaming: bool) -> dict[str, str]:
        accept = "text/event-stream" if streaming else "application/json"
        headers = {"Content-Type": "application/json", "Accept": accept}
        headers.update(self._extra_headers)
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        elif self._url_credentials.username or self._url_credentials.password:
            import base64

            pair = f"{self._url_credentials.username}:{self._url_credentials.password}".encode()
            headers["Authorization"] = "Basic " + base64.b64encode(pair).decode("ascii")
        return headers

    def _wire_url(self) -> str:
        """The endpoint as sent: with the URL's secret query parameters put back (never shown or stored)."""
        if not self._url_credentials.params:
            return self._url
        from urllib.parse import urlencode

        sep = "&" if "?" in self._url else "?"
        return self._url + sep + urlencode(self._url_credentials.params)

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = make_http_client()
            self._owns_client = True
        return self._client

    # -- errors ---------------------------------------------------------------------------------------------

    def _scrub(self, text: str) -> str:
        """Trim a server message and remove anything that looks like a key (servers echo keys in 401 texts)."""
        if self._api_key:
            text = text.replace(self._api_key, "***")
        for secret in self._url_credentials.secrets():
            text = text.replace(secret, "***")
        text = redact(text)
        text = _KEY_PATTERN.sub(lambda m: m.group(1) + "-***", text)
        text = storable_text(" ".join(text.split()))
        return text[:_DETAIL_LIMIT] + ("…" if len(text) > _DETAIL_LIMIT else "")

    def _error_from_object(self, obj: Any, status: int | None, retry_after: float | None = None) -> ProviderError:
        """Map a status and an error object (``{"error": {...}}`` or a string) to the right error type."""
        message, code = "", ""
        err = obj.get("error", obj) if isinstance(obj, Mapping) else obj
        if isinstance(err, Mapping):
            message = str(err.get("message") or err.get("detail") or "")
            code = " ".join(str(err.get(k) or "") for k in ("code", "type")).strip()
            if not message:
                message = json.dumps(dict(err), ensure_ascii=False)
            if isinstance(err.get("n_ctx"), int):  # llama.cpp server states its context beside the message
                message += f" (n_ctx {err['n_ctx']})"
        elif err is not None:
            message = str(err)
        detail = self._scrub(f"{message} [{code}]" if code else message) or "no details"
        haystack = f"{message} {code}".lower()
        args = (self._name, self._model, detail)
        if status in (401, 403):
            return AuthError(*args, status=status)
        if status == 404:
            return ModelNotFoundError(*args, status=status)
        if status == 429 or "rate_limit" in haystack or "rate limit" in haystack:
            terminal = any(m in haystack for m in _TERMINAL_QUOTA_MARKERS)
            return RateLimitError(*args, status=status, retryable=not terminal, retry_after_s=retry_after)
        if any(m in haystack for m in _CONTEXT_MARKERS):
            return ContextOverflowError(*args, status=status)
        if status is not None and (status in (408, 409) or status >= 500):
            return ServerError(*args, status=status, retry_after_s=retry_after)
        if status is not None and 400 <= status < 500:
            return BadRequestError(*args, status=status)
        return ServerError(*args, status=status, retry_after_s=retry_after)

    def _http_error(self, response: httpx.Response, body: bytes) -> ProviderError:
        retry_after = parse_retry_after(response.headers)
        try:
            obj: Any = jsonlimits.loads(body.decode("utf-8", "replace"))
        except ValueError:
            text = body.decode("utf-8", "replace").strip()
            obj = {"error": {"message": text or response.reason_phrase}}
        return self._error_from_object(obj, response.status_code, retry_after)

    def _network_error(self, exc: httpx.HTTPError) -> NetworkError:
        kind = type(exc).__name__
        return NetworkError(self._name, self._model, self._scrub(f"{kind}: {exc}" if str(exc) else kind))

    # -- the request loop -------------------------------------------------------------------------------------

    def _deadline(self, prog: _Progress, request_deadline: float) -> tuple[float, str]:
        """When the running attempt must have progressed, and what it means if it has not."""
        lim = self._limits
        reply_end = prog.attempt_sent_at + lim.reply_s
        if prog.last_delta_at is None:
            step, why = prog.attempt_sent_at + lim.first_byte_s, f"no first token within {lim.first_byte_s:g} s"
        else:
            step, why = prog.last_delta_at + lim.idle_s, f"no new content for {lim.idle_s:g} s"
        if reply_end < step:
            step, why = reply_end, f"the reply took longer than {lim.reply_s:g} s"
        if request_deadline < step:
            step, why = request_deadline, f"the request took longer than {lim.request_s:g} s"
        return step, why

    def _stalled(self, why: str) -> StalledError:
        return StalledError(self._name, self._model, why)

    async def _run(self, request: ChatRequest) -> AsyncGenerator[StreamEvent, None]:
        """One request with retries; yields events and exactly one terminal event."""
        streaming = self._stream_default if request.stream is None else request.stream
        body = self._body(request, streaming)
        headers = self._headers(streaming)
        http = self._http()  # built before timing starts: creating a client loads CA certificates (~0.2 s)
        lim = self._limits
        timeout = httpx.Timeout(
            connect=lim.connect_s, read=max(lim.first_byte_s, lim.idle_s) + 5.0, write=30.0, pool=30.0
        )
        tokens = _estimated_tokens(body) if self._gate is not None and self._gate.counts_tokens else 0
        if self._gate is not None:
            await self._gate.acquire(tokens)  # waiting for the turn is not part of the request's deadline
        prog = _Progress()
        request_deadline = prog.started + lim.request_s
        while True:
            if self._gate is not None and prog.attempts:
                await self._gate.acquire(tokens)
            prog.attempts += 1
            prog.attempt_sent_at = time.monotonic()
            error: ProviderError | None = None
            response: httpx.Response | None = None
            try:
                req = http.build_request("POST", self._wire_url(), json=body, headers=headers, timeout=timeout)
                at, why = self._deadline(prog, request_deadline)
                try:
                    async with asyncio.timeout(max(0.0, at - time.monotonic())):
                        response = await http.send(req, stream=True)
                except TimeoutError:
                    raise self._stalled(why) from None
                if response.status_code >= 400:
                    body_s = min(lim.error_body_s, max(0.0, request_deadline - time.monotonic()))
                    raise self._http_error(response, await _read_limited(response, lim, body_s))
                ctype = response.headers.get("content-type", "").lower()
                if "text/event-stream" in ctype:
                    sse_events = self._read_sse(response, prog, request_deadline)
                    try:
                        async for event in sse_events:
                            yield event
                    finally:
                        await sse_events.aclose()  # never leave our own generator to the GC
                elif "json" in ctype or not ctype:
                    at, why = self._deadline(prog, request_deadline)
                    try:
                        async with asyncio.timeout(max(0.0, at - time.monotonic())):
                            raw_body = await response.aread()
                    except TimeoutError:
                        raise self._stalled(why) from None
                    for event in self._from_completion(raw_body, prog):
                        yield event
                else:
                    raise ProtocolError(
                        self._name, self._model, f"unexpected content type {ctype!r} (is the base URL right?)"
                    )
            except ProviderError as exc:
                error = exc
            except httpx.HTTPError as exc:
                error = self._network_error(exc)
            finally:
                if response is not None:
                    await response.aclose()
            if error is None:
                error = self._incomplete_error(prog)
                if error is None:
                    if self._gate is not None and prog.usage is not None:
                        used = usage_from_json(prog.usage)
                        await self._gate.settle(tokens, used.prompt_tokens + used.completion_tokens)
                    yield self._finished(prog)
                    return
            if prog.delivered:
                yield self._finished(prog, error)
                return
            if _rejects_stream_options(error, body):
                # Older servers (some Azure API versions, old local servers) refuse the usage option with a 400:
                # drop it once and ask again at once — the reply then simply comes without a usage chunk.
                body = {k: v for k, v in body.items() if k != "stream_options"}
                prog.attempts -= 1
                continue
            if isinstance(error, StalledError):
                prog.stalled += 1
            delay = self._retry.delay(prog.attempts - 1, error, self._rng, stalled=prog.stalled)
            if delay is not None and time.monotonic() + delay >= request_deadline:
                delay = None  # the wait would end after the request's deadline: give up now, visibly
            if self._gate is not None and isinstance(error, RateLimitError):
                wait = error.retry_after_s if error.retry_after_s is not None else delay
                await self._gate.pause(wait or 0.0)  # every process sharing the ledger waits, not only this one
            if delay is None:
                yield StreamFailed(error, attempts=prog.attempts)
                return
            yield Retrying(prog.attempts, delay, error, self._retry.max_attempts)
            await self._sleep(delay)
            prog.usage = None
            prog.finish_reason = None
            prog.done_seen = False
            prog.think = ThinkSplitter()
            prog.content_ended = False
            prog.last_delta_at = None

    def _incomplete_error(self, prog: _Progress) -> ProviderError | None:
        """A stream that ended with neither ``[DONE]`` nor a finish reason was cut off."""
        if prog.done_seen or prog.finish_reason is not None:
            return None
        return NetworkError(self._name, self._model, "the stream ended before the reply was complete")

    def _finished(self, prog: _Progress, error: ProviderError | None = None) -> Finished:
        end = time.monotonic()
        ttft = tps = None
        if prog.first_delta_at is not None:
            ttft = prog.first_delta_at - prog.attempt_sent_at
            span = end - prog.first_delta_at
            count = 0
            if prog.usage is not None and error is None:
                count = usage_from_json(prog.usage).completion_tokens
            if not count:
                count = prog.delivered
            if span > 0 and count > 1:
                tps = count / span
        reason = prog.finish_reason or "unknown"
        if error is not None:
            reason = "interrupted"
        return Finished(
            reason=reason,
            truncated=prog.finish_reason == "length",
            interrupted=error is not None,
            ttft_s=ttft,
            tokens_per_s=tps,
            resolved_model=prog.resolved_model,
            error=error,
            attempts=prog.attempts,
            elapsed_s=end - prog.started,
        )

    async def _read_sse(
        self, response: httpx.Response, prog: _Progress, request_deadline: float
    ) -> AsyncGenerator[StreamEvent, None]:
        """Parse one SSE body into events; reads to EOF so httpcore's generators end naturally.

        Each read waits at most until the attempt's current deadline (:meth:`_deadline`): only content deltas move
        it, so a server sending keep-alive comments forever stalls like one sending nothing.
        """
        parser = SSEParser()
        failure: ProviderError | None = None
        raw = cast(AsyncGenerator[bytes, None], response.aiter_raw())
        watchdog = _ReadWatchdog(lambda: self._deadline(prog, request_deadline))
        try:
            while True:
                at, why = self._deadline(prog, request_deadline)
                if time.monotonic() >= at:
                    raise self._stalled(why)
                try:
                    chunk = await watchdog.read(raw)
                except _DeadlinePassed as passed:
                    raise self._stalled(passed.why) from None
                if chunk is None:
                    break
                for sse in parser.feed(chunk):
                    try:
                        events = self._handle_data(sse.data, prog)
                    except ProviderError as exc:
                        failure = exc
                        break
                    for event in events:
                        yield event
                    if prog.done_seen:
                        break
                if failure is not None or prog.done_seen:
                    break
            if failure is None and not prog.done_seen:  # EOF without [DONE]: a last event may lack its blank line
                for sse in parser.close():
                    try:
                        events = self._handle_data(sse.data, prog, at_eof=True)
                    except ProviderError as exc:
                        failure = exc
                        break
                    for event in events:
                        yield event
            if failure is not None or prog.done_seen:
                await _drain(raw)
        finally:
            watchdog.stop()
            await raw.aclose()
        if failure is not None:
            raise failure
        for event in self._end_of_content(prog):
            yield event

    def _handle_data(self, data: str, prog: _Progress, *, at_eof: bool = False) -> list[StreamEvent]:
        """Events of one ``data:`` payload."""
        if data.strip() == "[DONE]":
            prog.done_seen = True
            return self._end_of_content(prog)
        try:
            obj = jsonlimits.loads(data)
        except ValueError as exc:
            if at_eof:  # a payload cut by the connection closing: the stream was interrupted
                raise NetworkError(self._name, self._model, "the stream was cut inside an event") from exc
            raise ProtocolError(self._name, self._model, f"malformed SSE data: {self._scrub(data[:80])!r}") from exc
        if not isinstance(obj, Mapping):
            raise ProtocolError(self._name, self._model, f"SSE data is not a JSON object: {self._scrub(data[:80])!r}")
        if obj.get("error") is not None:
            raise self._error_from_object(obj, _status_of(obj))
        return self._chunk_events(obj, prog)

    def _chunk_events(self, obj: Mapping[str, Any], prog: _Progress) -> list[StreamEvent]:
        """Deltas of one chunk object; records model, finish reason and usage."""
        model = obj.get("model")
        if isinstance(model, str) and model:
            prog.resolved_model = storable_text(model)
        usage = obj.get("usage")
        if isinstance(usage, Mapping):
            prog.usage = usage
        out: list[StreamEvent] = []
        choices = obj.get("choices")
        if not isinstance(choices, list):
            return out
        for choice in choices:
            if not isinstance(choice, Mapping) or choice.get("index", 0) not in (0, None):
                continue
            delta = choice.get("delta")
            if delta is None:
                delta = choice.get("message")  # some servers stream whole messages
            if isinstance(delta, Mapping):
                reasoning = delta.get("reasoning_content")
                if reasoning is None:
                    reasoning = delta.get("reasoning")  # OpenRouter / vLLM name
                # a reply's text is made storable here, where it is decoded, once for every store after it
                if isinstance(reasoning, str) and reasoning:
                    out.append(ReasoningDelta(storable_text(reasoning)))
                content = delta.get("content")
                if isinstance(content, str) and content:
                    out.extend(_split(prog.think.feed(storable_text(content))))
            reason = choice.get("finish_reason")
            if isinstance(reason, str) and reason:
                prog.finish_reason = reason
        self._count(out, prog)
        return out

    def _end_of_content(self, prog: _Progress) -> list[StreamEvent]:
        """Flush held-back ``<think>`` text and report usage once (at ``[DONE]`` or EOF)."""
        if prog.content_ended:
            return []
        prog.content_ended = True
        out: list[StreamEvent] = list(_split(prog.think.close()))
        self._count(out, prog)
        if prog.usage is not None:
            out.append(usage_from_json(prog.usage))
        return out

    @staticmethod
    def _count(events: list[StreamEvent], prog: _Progress) -> None:
        n = sum(1 for e in events if isinstance(e, TextDelta | ReasoningDelta))
        if n:
            prog.last_delta_at = time.monotonic()
            if prog.first_delta_at is None:
                prog.first_delta_at = prog.last_delta_at
        prog.delivered += n

    def _from_completion(self, body: bytes, prog: _Progress) -> list[StreamEvent]:
        """Events of a non-streamed reply (``stream: false``), the same types as a stream."""
        try:
            obj = jsonlimits.loads(body.decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise ProtocolError(self._name, self._model, "the response is not valid JSON") from exc
        if not isinstance(obj, Mapping):
            raise ProtocolError(self._name, self._model, "the response is not a JSON object")
        if obj.get("error") is not None:
            raise self._error_from_object(obj, _status_of(obj))
        if not isinstance(obj.get("choices"), list):
            raise ProtocolError(self._name, self._model, "the response has no choices")
        events = self._chunk_events(obj, prog)
        prog.done_seen = True
        return events + self._end_of_content(prog)


def _rejects_stream_options(error: ProviderError, body: Mapping[str, Any]) -> bool:
    """True for a 400 that names ``stream_options`` while our body still carries it."""
    return isinstance(error, BadRequestError) and "stream_options" in body and "stream_options" in error.detail.lower()


def _estimated_tokens(body: Mapping[str, Any]) -> int:
    """A request's prompt tokens as counted before sending (the reply's usage corrects it afterwards)."""
    from app.tokens import count_tokens

    messages = body.get("messages")
    texts = (
        [str(m.get("content", "")) for m in messages if isinstance(m, Mapping)] if isinstance(messages, list) else []
    )
    return sum(count_tokens(t) for t in texts)


def _split(parts: list[tuple[bool, str]]) -> list[StreamEvent]:
    return [ReasoningDelta(t) if is_reasoning else TextDelta(t) for is_reasoning, t in parts]


def _status_of(obj: Mapping[str, Any]) -> int | None:
    err = obj.get("error")
    if isinstance(err, Mapping):
        for key in ("status", "code"):
            value = err.get(key)
            if isinstance(value, int) and 100 <= value < 600:
                return value
            if isinstance(value, str) and value.isdigit() and 100 <= int(value) < 600:
                return int(value)
    return None


async def _drain(raw: AsyncGenerator[bytes, None]) -> None:
    """Read what follows ``[DONE]`` or an error event to EOF, briefly (notes §1.5: let httpcore's generators end).

    A server that keeps the body open is cut after :data:`DRAIN_TIMEOUT_S`; the timeout's cancellation unwinds the
    generators inside the loop, so nothing is left for the garbage collector either way.
    """
    with contextlib.suppress(TimeoutError, httpx.HTTPError):
        async with asyncio.timeout(DRAIN_TIMEOUT_S):
            async for _ in raw:
                pass


async def _read_limited(response: httpx.Response, limits: StreamLimits, seconds: float) -> bytes:
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
