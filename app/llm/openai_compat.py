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
import random
import time
from collections.abc import AsyncGenerator, Callable, Mapping
from typing import Any, cast

import httpx

from app.llm.base import ChatRequest, EventStream
from app.llm.errors import (
    BadRequestError,
    ProtocolError,
    ProviderConfigError,
    ProviderError,
    RateLimitError,
    StalledError,
)
from app.llm.events import (
    Retrying,
    StreamEvent,
    StreamFailed,
)
from app.llm.openai_errors import ErrorReader
from app.llm.openai_http import (
    CONNECT_TIMEOUT_S,
    READ_TIMEOUT_S,
    RetryPolicy,
    chat_completions_url,
    close_shared_http_client,
    make_http_client,
    parse_retry_after,
    shared_http_client,
)
from app.llm.openai_reply import Progress, ReplyDecoder, usage_from_json
from app.llm.ratelimit import RateGate
from app.llm.server_context import ServerContext
from app.llm.sse import SSEParser, ThinkSplitter
from app.llm.streams import ChatStream
from app.llm.timed_reads import DRAIN_TIMEOUT_S, DeadlinePassed, ReadWatchdog, drain, read_limited
from app.stream_limits import DEFAULT_LIMITS, StreamLimits
from app.urls import UrlCredentials, split_url_credentials


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
        self._errors = ErrorReader(self._name, self._model, self._api_key, self._url_credentials)
        self._reply = ReplyDecoder(self._name, self._model, self._errors)

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

    def _deadline(self, prog: Progress, request_deadline: float) -> tuple[float, str]:
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
        prog = Progress()
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
                    raise self._errors.stalled(why) from None
                if response.status_code >= 400:
                    body_s = min(lim.error_body_s, max(0.0, request_deadline - time.monotonic()))
                    raise self._errors.from_response(response, await read_limited(response, lim, body_s))
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
                        raise self._errors.stalled(why) from None
                    for event in self._reply.from_completion(raw_body, prog):
                        yield event
                else:
                    raise ProtocolError(
                        self._name, self._model, f"unexpected content type {ctype!r} (is the base URL right?)"
                    )
            except ProviderError as exc:
                error = exc
            except httpx.HTTPError as exc:
                error = self._errors.network(exc)
            finally:
                if response is not None:
                    await response.aclose()
            if error is None:
                error = self._reply.incomplete_error(prog)
                if error is None:
                    if self._gate is not None and prog.usage is not None:
                        used = usage_from_json(prog.usage)
                        await self._gate.settle(tokens, used.prompt_tokens + used.completion_tokens)
                    yield self._reply.finished(prog)
                    return
            if prog.delivered:
                yield self._reply.finished(prog, error)
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

    async def _read_sse(
        self, response: httpx.Response, prog: Progress, request_deadline: float
    ) -> AsyncGenerator[StreamEvent, None]:
        """Parse one SSE body into events; reads to EOF so httpcore's generators end naturally.

        Each read waits at most until the attempt's current deadline (:meth:`_deadline`): only content deltas move
        it, so a server sending keep-alive comments forever stalls like one sending nothing.
        """
        parser = SSEParser()
        failure: ProviderError | None = None
        raw = cast(AsyncGenerator[bytes, None], response.aiter_raw())
        watchdog = ReadWatchdog(lambda: self._deadline(prog, request_deadline))
        try:
            while True:
                at, why = self._deadline(prog, request_deadline)
                if time.monotonic() >= at:
                    raise self._errors.stalled(why)
                try:
                    chunk = await watchdog.read(raw)
                except DeadlinePassed as passed:
                    raise self._errors.stalled(passed.why) from None
                if chunk is None:
                    break
                for sse in parser.feed(chunk):
                    try:
                        events = self._reply.handle_data(sse.data, prog)
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
                        events = self._reply.handle_data(sse.data, prog, at_eof=True)
                    except ProviderError as exc:
                        failure = exc
                        break
                    for event in events:
                        yield event
            if failure is not None or prog.done_seen:
                await drain(raw)
        finally:
            watchdog.stop()
            await raw.aclose()
        if failure is not None:
            raise failure
        for event in self._reply.end_of_content(prog):
            yield event


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


__all__ = [
    "CONNECT_TIMEOUT_S",
    "DRAIN_TIMEOUT_S",
    "READ_TIMEOUT_S",
    "OpenAICompatProvider",
    "RetryPolicy",
    "chat_completions_url",
    "close_shared_http_client",
    "make_http_client",
    "parse_retry_after",
    "shared_http_client",
    "usage_from_json",
]
