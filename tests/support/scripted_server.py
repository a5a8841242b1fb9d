"""A scripted OpenAI-compatible HTTP server on 127.0.0.1 for tests, benchmarks and offline demos.

It speaks real HTTP/1.1 (chunked SSE bodies, keep-alive) from a background thread with its own asyncio loop, so
sync tests, asyncio tests and the Qt event loop can all use it. Replies are queued per request::

    with ScriptedServer() as server:
        server.enqueue(Reply.chat("你好", reasoning="先想一想", style="deepseek"))
        server.enqueue(Reply.error(429, retry_after=0.2), match="第二轮")   # only for a request containing that text
        provider = OpenAICompatProvider("scripted", server.base_url, "scripted-model")
        ...
        server.requests[0].json["messages"]  # what the client sent

Transcripts follow the real wire formats: OpenAI's final usage chunk with ``choices: []``, DeepSeek's
``reasoning_content`` deltas, ``prompt_cache_hit_tokens`` and ``: keep-alive`` comments, ``<think>`` tags in
content. Faults: any HTTP error status with ``Retry-After`` / ``retry-after-ms``, a stream cut mid-way, an error
object inside the stream, malformed SSE, a slow first token, a fixed token rate, a server that never answers or
sends its headers and then nothing (:meth:`Reply.hang`), and a rate limit
(``rate_limit=(n, window_s)``: a chat request beyond ``n`` accepted in the last ``window_s`` gets a 429 with
``Retry-After``). Run ``python -m
tests.support.scripted_server`` for a demo endpoint.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Literal, Self

Style = Literal["openai", "deepseek", "think"]
Matcher = Callable[[Mapping[str, Any]], bool]

_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
            408: "Request Timeout", 409: "Conflict", 429: "Too Many Requests", 500: "Internal Server Error",
            502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout"}  # fmt: skip


def split_pieces(text: str, size: int) -> list[str]:
    """Cut ``text`` into pieces of ``size`` characters (tags and multi-byte characters land across pieces)."""
    return [text[i : i + size] for i in range(0, len(text), max(1, size))]


@dataclass(frozen=True, slots=True)
class ChatScript:
    """A model reply to stream (or to return whole when the request has ``stream: false``).

    Attributes:
        text: the answer.
        reasoning: reasoning text (sent as ``reasoning_content`` for ``deepseek``/``openai``, in ``<think>`` for
            ``think``).
        style: wire format: ``openai`` (usage chunk with ``choices: []``), ``deepseek`` (reasoning_content,
            usage in the final chunk with cache-hit fields, keep-alive comments) or ``think`` (tags in content).
        piece_chars: characters per delta.
        finish_reason: e.g. ``stop`` or ``length``.
        usage: the usage object to send; None sends a plausible one, ``{}`` sends none.
        model: the resolved model name the server reports.
        tokens_per_s: pace of deltas (None: as fast as possible).
        first_token_delay_s: silence before the first delta (keep-alive comments every ``keepalive_s`` meanwhile).
        keepalive_s: interval of ``: keep-alive`` comments during the first-token delay.
        cut_after: close the connection abruptly after this many deltas (no end of body).
        error_after: send an error event after this many deltas, then end the stream.
        error: the error object for ``error_after``.
        include_done: end with ``data: [DONE]``.
        crlf: use CRLF line endings.
        hold_open_s: keep the body open this long after the last event (a server that never ends its body).
        stall_after: after this many deltas send nothing but keep-alive comments (every ``keepalive_s``) until the
            client goes away: a reply that stalls after content.
        gate: hold the first delta (sending keep-alives) until this event is set — a test decides when it goes on.
    """

    text: str = ""
    reasoning: str = ""
    style: Style = "openai"
    piece_chars: int = 3
    finish_reason: str = "stop"
    usage: Mapping[str, Any] | None = None
    model: str = "scripted-model"
    tokens_per_s: float | None = None
    first_token_delay_s: float = 0.0
    keepalive_s: float = 0.05
    cut_after: int | None = None
    error_after: int | None = None
    error: Mapping[str, Any] = field(
        default_factory=lambda: {"message": "upstream overloaded", "type": "server_error", "code": "overloaded"}
    )
    include_done: bool = True
    crlf: bool = False
    hold_open_s: float = 0.0
    stall_after: int | None = None
    gate: threading.Event | None = field(default=None, compare=False)

    def pieces(self) -> list[tuple[bool, str]]:
        """The deltas as ``(is_reasoning, text)``; for ``think`` the tags are part of the content pieces."""
        if self.style == "think":
            content = (f"<think>{self.reasoning}</think>\n\n" if self.reasoning else "") + self.text
            return [(False, p) for p in split_pieces(content, self.piece_chars)]
        return [(True, p) for p in split_pieces(self.reasoning, self.piece_chars)] + [
            (False, p) for p in split_pieces(self.text, self.piece_chars)
        ]

    def usage_object(self, prompt_tokens: int) -> dict[str, Any] | None:
        """The usage to report (explicit, or computed in the style's field names)."""
        if self.usage is not None:
            return dict(self.usage) or None
        pieces = self.pieces()
        reasoning = sum(1 for r, _ in pieces if r) if self.style != "think" else 0
        completion = len(pieces)
        if self.style == "deepseek":
            hit = prompt_tokens // 2
            return {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion,
                "total_tokens": prompt_tokens + completion,
                "prompt_cache_hit_tokens": hit,
                "prompt_cache_miss_tokens": prompt_tokens - hit,
                "completion_tokens_details": {"reasoning_tokens": reasoning},
            }
        return {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion,
            "total_tokens": prompt_tokens + completion,
            "prompt_tokens_details": {"cached_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": reasoning},
        }


@dataclass(frozen=True, slots=True)
class Reply:
    """One scripted HTTP response: a chat transcript, an error, or raw bytes.

    Build with :meth:`chat`, :meth:`error`, :meth:`raw_sse` or :meth:`raw`.
    """

    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes = b""
    chat_script: ChatScript | None = None
    sse_chunks: tuple[bytes, ...] | None = None
    delay_s: float = 0.0
    endless: bool = False
    hangs: Literal["", "silent", "headers"] = ""
    drip_s: float = 0.002

    @classmethod
    def chat(cls, text: str = "", reasoning: str = "", **options: Any) -> Reply:
        """A model reply; ``options`` are :class:`ChatScript` fields."""
        return cls(chat_script=ChatScript(text=text, reasoning=reasoning, **options))

    @classmethod
    def error(
        cls,
        status: int,
        message: str = "",
        *,
        retry_after: float | str | None = None,
        retry_after_ms: float | None = None,
        code: str | None = None,
        err_type: str | None = None,
        delay_s: float = 0.0,
    ) -> Reply:
        """An HTTP error with an OpenAI-style JSON body and optional retry headers."""
        headers: dict[str, str] = {"Content-Type": "application/json"}
        if retry_after is not None:
            headers["Retry-After"] = str(retry_after)
        if retry_after_ms is not None:
            headers["retry-after-ms"] = str(retry_after_ms)
        err = {"message": message or _REASONS.get(status, "error"), "type": err_type or "error", "code": code}
        body = json.dumps({"error": err}).encode()
        return cls(status=status, headers=headers, body=body, delay_s=delay_s)

    @classmethod
    def raw_sse(cls, chunks: Sequence[bytes | str]) -> Reply:
        """A ``text/event-stream`` body written exactly as given, one write per item (malformed input tests)."""
        data = tuple(c.encode() if isinstance(c, str) else c for c in chunks)
        return cls(sse_chunks=data)

    @classmethod
    def endless_error(cls, status: int = 500, every_s: float = 0.002) -> Reply:
        """An error status whose body never ends (a line of text every ``every_s``, until the client leaves)."""
        return cls(status=status, headers={"Content-Type": "text/plain"}, endless=True, drip_s=every_s)

    @classmethod
    def hang(cls, after: Literal["silent", "headers"] = "headers") -> Reply:
        """A server that hangs until the client goes away: ``silent`` sends nothing at all (not even a status
        line); ``headers`` sends a 200 ``text/event-stream`` head and then not one byte of its body."""
        return cls(hangs=after)

    @classmethod
    def raw(cls, status: int, body: bytes | str, content_type: str = "text/plain") -> Reply:
        """Any status, body and content type."""
        payload = body.encode() if isinstance(body, str) else body
        return cls(status=status, headers={"Content-Type": content_type}, body=payload)


@dataclass(slots=True)
class ReceivedRequest:
    """A request the server received, and how its reply went.

    Attributes:
        method: HTTP method.
        path: request path.
        headers: lower-cased header names.
        json: the parsed JSON body (empty dict when not JSON).
        received_at: ``time.monotonic()`` when the request was complete.
        deltas_sent: content deltas written before the reply ended.
        completed: the reply was written to its end.
        client_closed: the client went away before the reply ended.
        refused: the server's rate limit answered it with a 429.
    """

    method: str
    path: str
    headers: dict[str, str]
    json: dict[str, Any]
    received_at: float
    deltas_sent: int = 0
    completed: bool = False
    client_closed: bool = False
    refused: bool = False

    @property
    def text(self) -> str:
        """All message contents joined (what matchers see)."""
        msgs = self.json.get("messages")
        if not isinstance(msgs, list):
            return ""
        return "\n".join(str(m.get("content", "")) for m in msgs if isinstance(m, dict))


def request_tokens(body: Mapping[str, Any]) -> int:
    """Prompt tokens of a chat request as the server counts them: cl100k of each message plus OpenAI's framing."""
    from app.tokens import MESSAGE_OVERHEAD_TOKENS, REPLY_PRIMING_TOKENS, count_tokens

    msgs = body.get("messages")
    if not isinstance(msgs, list):
        return 0
    contents = [str(m.get("content", "")) for m in msgs if isinstance(m, dict)]
    return sum(count_tokens(c) + MESSAGE_OVERHEAD_TOKENS for c in contents) + REPLY_PRIMING_TOKENS


def _over_context(body: Mapping[str, Any], limit: int) -> Reply | None:
    """vLLM's refusal (OpenAI's wording) when the messages plus max_tokens exceed ``limit``; None when they fit."""
    prompt = request_tokens(body)
    completion = int(body.get("max_tokens") or body.get("max_completion_tokens") or 0)
    if prompt + completion <= limit:
        return None
    message = (
        f"This model's maximum context length is {limit} tokens. However, you requested {prompt + completion} "
        f"tokens ({prompt} in the messages, {completion} in the completion). Please reduce the length of the "
        "messages or completion."
    )
    return Reply.error(400, message, err_type="BadRequestError", code="400")


class _ClientGoneError(Exception):
    """The client closed the connection while we were writing."""


class ScriptedServer:
    """The scripted server. Use as a context manager (sync) or call :meth:`start` / :meth:`stop`.

    Args:
        port: 0 for an ephemeral port.
        default: reply used when no queued reply matches (None: a 500 explaining that nothing was queued).
        require_key: when set, requests without ``Authorization: Bearer <require_key>`` get a 401.
        rate_limit: ``(n, window_s)``: at most ``n`` chat requests accepted in any ``window_s`` seconds; one more
            gets a 429 whose ``Retry-After`` says when the oldest leaves the window (as real providers answer).
        context_limit: the model's context in tokens: a chat request whose messages (cl100k, with the chat
            framing: :func:`request_tokens`) plus its ``max_tokens`` exceed it gets vLLM's 400 "This model's
            maximum context length is N tokens…" (the OpenAI wording), as a server with a smaller context answers.
        json_routes: ``{(method, path): document}``: JSON answers for other endpoints (``("GET", "/v1/models")``,
            ``("POST", "/api/show")``, ``("GET", "/props")``…), as vLLM, Ollama, llama.cpp or LM Studio answer them;
            any other path but the chat endpoint gets a 404.
    """

    def __init__(
        self,
        port: int = 0,
        *,
        default: Reply | None = None,
        require_key: str | None = None,
        rate_limit: tuple[int, float] | None = None,
        context_limit: int | None = None,
        json_routes: Mapping[tuple[str, str], Any] | None = None,
    ) -> None:
        self._port = port
        self.context_limit = context_limit
        self.json_routes = dict(json_routes or {})
        self.default = default
        self.require_key = require_key
        self.rate_limit = rate_limit
        self._queue: list[tuple[Reply, Matcher | None]] = []
        self._lock = threading.Lock()
        self.requests: list[ReceivedRequest] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._startup_error: BaseException | None = None

    # -- public API -----------------------------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The bound port (after :meth:`start`)."""
        return self._port

    @property
    def base_url(self) -> str:
        """The base URL to configure a provider with (``http://127.0.0.1:PORT/v1``)."""
        return f"http://127.0.0.1:{self._port}/v1"

    def enqueue(self, *replies: Reply, match: str | Matcher | None = None) -> None:
        """Queue replies for the next requests (FIFO); with ``match`` only for requests it accepts.

        ``match`` is a substring of the joined message contents, or a predicate over the request JSON.
        """
        matcher: Matcher | None
        if isinstance(match, str):
            needle = match

            def matcher(body: Mapping[str, Any]) -> bool:
                msgs = body.get("messages")
                if not isinstance(msgs, list):
                    return False
                return any(needle in str(m.get("content", "")) for m in msgs if isinstance(m, dict))

        else:
            matcher = match
        with self._lock:
            self._queue.extend((r, matcher) for r in replies)

    @property
    def pending(self) -> int:
        """Replies still queued."""
        with self._lock:
            return len(self._queue)

    def clear(self) -> None:
        """Drop queued replies and the request log."""
        with self._lock:
            self._queue.clear()
            self.requests.clear()

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 30.0) -> bool:
        """Poll ``predicate`` (e.g. "the client has gone") until true or ``timeout``; thread-safe, for tests.

        The bound is generous (it returns as soon as the predicate holds): on a loaded 2-core machine a client's
        close took longer than 5 s to reach the server's thread.
        """
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return True
            time.sleep(0.01)
        return predicate()

    def start(self) -> Self:
        """Start serving in a background thread; returns when the port is bound."""
        if self._thread is not None:
            return self
        self._thread = threading.Thread(target=self._thread_main, name="scripted-llm-server", daemon=True)
        self._thread.start()
        self._ready.wait(10)
        if self._startup_error is not None:
            raise RuntimeError(f"scripted server failed to start: {self._startup_error}")
        return self

    def stop(self) -> None:
        """Stop serving and join the thread (idempotent)."""
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stop.set)
        if self._thread is not None:
            self._thread.join(10)
            self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- serving --------------------------------------------------------------------------------------------

    def _thread_main(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as exc:  # reported to start()
            self._startup_error = exc
            self._ready.set()

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self._port)
        self._port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        try:
            await self._stop.wait()
        finally:
            self._server.close()
            for task in list(self._tasks):
                task.cancel()
            if self._tasks:
                await asyncio.gather(*self._tasks, return_exceptions=True)
            await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            while True:
                request = await _read_request(reader)
                if request is None:
                    break
                keep_alive = await self._respond(request, reader, writer)
                if not keep_alive:
                    break
        except (ConnectionError, _ClientGoneError, asyncio.IncompleteReadError):
            pass
        except asyncio.CancelledError:
            pass
        finally:
            if task is not None:
                self._tasks.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    def _take(self, body: Mapping[str, Any]) -> Reply | None:
        with self._lock:
            for i, (reply, matcher) in enumerate(self._queue):
                if matcher is None or matcher(body):
                    del self._queue[i]
                    return reply
        return self.default

    async def _respond(self, req: ReceivedRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        with self._lock:
            self.requests.append(req)
        route = (req.method, req.path.split("?", 1)[0].rstrip("/"))
        if route in self.json_routes:
            body = json.dumps(self.json_routes[route]).encode()
            await _write_simple(writer, 200, {"Content-Type": "application/json"}, body)
            req.completed = True
            return True
        if req.method == "GET" and req.path.rstrip("/").endswith("/models"):
            body = json.dumps({"object": "list", "data": [{"id": "scripted-model", "object": "model"}]}).encode()
            await _write_simple(writer, 200, {"Content-Type": "application/json"}, body)
            req.completed = True
            return True
        if req.method != "POST" or not req.path.split("?", 1)[0].rstrip("/").endswith("/chat/completions"):
            await _write_simple(writer, 404, {"Content-Type": "application/json"},
                                json.dumps({"error": {"message": f"no route {req.path}"}}).encode())  # fmt: skip
            req.completed = True
            return True
        wait = self._over_rate(req)
        if self.require_key is not None and req.headers.get("authorization") != f"Bearer {self.require_key}":
            reply: Reply | None = Reply.error(401, "Incorrect API key provided", code="invalid_api_key")
        elif wait is not None:
            req.refused = True
            reply = Reply.error(429, "Rate limit reached for requests", retry_after=f"{wait:.3f}", code="rate_limit")
        elif self.context_limit is not None and (over := _over_context(req.json, self.context_limit)) is not None:
            req.refused = True
            reply = over
        else:
            reply = self._take(req.json)
        if reply is None:
            reply = Reply.error(500, "scripted server: no reply queued for this request", code="no_script")
        if reply.delay_s:
            await asyncio.sleep(reply.delay_s)
        if reply.chat_script is not None:
            if req.json.get("stream"):
                await self._stream_chat(reply.chat_script, req, reader, writer)
            else:
                body = json.dumps(_completion_object(reply.chat_script, req)).encode()
                await _write_simple(writer, 200, {"Content-Type": "application/json"}, body)
                req.completed = True
            return not (reply.chat_script.cut_after is not None)
        if reply.endless:
            await _write_endless(writer, reply, req)
            return False
        if reply.hangs:
            if reply.hangs == "headers":
                await _write_head(writer, 200, {"Content-Type": "text/event-stream"}, chunked=True)
            gone = asyncio.Event()
            await _watch_eof(reader, gone)  # returns when the client closes the connection
            req.client_closed = True
            return False
        if reply.sse_chunks is not None:
            await _write_head(writer, 200, {"Content-Type": "text/event-stream"}, chunked=True)
            for chunk in reply.sse_chunks:
                await _write_chunk(writer, chunk)
            await _write_chunk(writer, b"")
            req.completed = True
            return True
        await _write_simple(writer, reply.status, dict(reply.headers), reply.body)
        req.completed = True
        return True

    def _over_rate(self, req: ReceivedRequest) -> float | None:
        """Seconds until ``req`` would fit the rate limit, or None when it fits (then it counts as accepted)."""
        if self.rate_limit is None:
            return None
        n, window = self.rate_limit
        with self._lock:
            accepted = [r.received_at for r in self.requests if not r.refused and r is not req and r.method == "POST"]
        recent = sorted(t for t in accepted if t > req.received_at - window)
        if len(recent) < n:
            return None
        return max(0.001, recent[-n] + window - req.received_at)

    async def _stream_chat(
        self, script: ChatScript, req: ReceivedRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        nl = "\r\n" if script.crlf else "\n"
        gone = asyncio.Event()
        watcher = asyncio.create_task(_watch_eof(reader, gone))
        try:
            await _write_head(writer, 200, {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"},
                              chunked=True)  # fmt: skip
            cid = f"chatcmpl-scripted-{len(self.requests)}"
            created = int(time.time())

            def chunk(delta: Mapping[str, Any] | None, finish: str | None = None, **extra: Any) -> bytes:
                obj: dict[str, Any] = {"id": cid, "object": "chat.completion.chunk", "created": created,
                                       "model": script.model}  # fmt: skip
                obj["choices"] = [] if delta is None else [{"index": 0, "delta": dict(delta), "finish_reason": finish}]
                obj.update(extra)
                return f"data: {json.dumps(obj, ensure_ascii=False)}{nl}{nl}".encode()

            async def send(data: bytes) -> None:
                if gone.is_set():
                    raise _ClientGoneError
                await _write_chunk(writer, data)

            await send(chunk({"role": "assistant", "content": ""}))
            waited = 0.0
            while waited < script.first_token_delay_s:
                step = min(script.keepalive_s, script.first_token_delay_s - waited)
                await _sleep_or_gone(step, gone)
                waited += step
                await send(f": keep-alive{nl}{nl}".encode())
            if script.gate is not None:
                await _wait_gate(script, send, gone, nl)
            interval = 1.0 / script.tokens_per_s if script.tokens_per_s else 0.0
            started = time.monotonic()
            for n, (is_reasoning, piece) in enumerate(script.pieces()):
                if script.cut_after is not None and n >= script.cut_after:
                    writer.transport.abort()  # connection cut mid-body: no terminating chunk
                    raise _ClientGoneError
                if script.stall_after is not None and n >= script.stall_after:
                    await _stall_forever(script, send, gone, nl)
                if script.error_after is not None and n >= script.error_after:
                    await send(f"data: {json.dumps({'error': dict(script.error)})}{nl}{nl}".encode())
                    await send(b"")
                    req.completed = True
                    return
                if interval:
                    await _sleep_or_gone(max(0.0, started + n * interval - time.monotonic()), gone)
                if is_reasoning:
                    delta = {"content": None, "reasoning_content": piece}
                elif script.style == "deepseek":
                    delta = {"content": piece, "reasoning_content": None}
                else:
                    delta = {"content": piece}
                await send(chunk(delta))
                req.deltas_sent += 1
            usage = script.usage_object(_prompt_tokens(req))
            include_usage = bool((req.json.get("stream_options") or {}).get("include_usage"))
            if script.style == "deepseek" and usage is not None and include_usage:
                await send(chunk({"content": "", "reasoning_content": None}, script.finish_reason, usage=usage))
            else:
                await send(chunk({}, script.finish_reason))
                if usage is not None and include_usage:
                    await send(chunk(None, usage=usage))
            if script.include_done:
                await send(f"data: [DONE]{nl}{nl}".encode())
            if script.hold_open_s:
                await _sleep_or_gone(script.hold_open_s, gone)
            await send(b"")
            req.completed = True
        except (_ClientGoneError, ConnectionError):
            if gone.is_set():
                req.client_closed = True
            raise _ClientGoneError from None
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher


async def _stall_forever(script: ChatScript, send: Callable[[bytes], Any], gone: asyncio.Event, nl: str) -> None:
    """Send only keep-alive comments until the client goes away (raises :class:`_ClientGoneError` then)."""
    while True:
        await _sleep_or_gone(script.keepalive_s, gone)
        await send(f": keep-alive{nl}{nl}".encode())


async def _wait_gate(script: ChatScript, send: Callable[[bytes], Any], gone: asyncio.Event, nl: str) -> None:
    """Keep-alive comments until the script's gate opens (raises :class:`_ClientGoneError` if the client leaves)."""
    assert script.gate is not None
    while not script.gate.is_set():
        await _sleep_or_gone(0.02, gone)
        await send(f": keep-alive{nl}{nl}".encode())


async def _write_endless(writer: asyncio.StreamWriter, reply: Reply, req: ReceivedRequest) -> None:
    """An error head, then a chunked body that never ends; returns when the client has gone."""
    await _write_head(writer, reply.status, dict(reply.headers), chunked=True)
    line = b"upstream error: still writing the details of this error " * 20 + b"\n"
    try:
        while not writer.transport.is_closing():
            await _write_chunk(writer, line)
            await asyncio.sleep(reply.drip_s)
    except ConnectionError:
        pass
    req.client_closed = True


async def _watch_eof(reader: asyncio.StreamReader, gone: asyncio.Event) -> None:
    """Set ``gone`` when the client closes its side (a streaming client sends nothing more)."""
    with contextlib.suppress(ConnectionError):
        while await reader.read(4096):
            pass
    gone.set()


async def _sleep_or_gone(seconds: float, gone: asyncio.Event) -> None:
    if seconds <= 0:
        if gone.is_set():
            raise _ClientGoneError
        return
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(gone.wait(), seconds)
    if gone.is_set():
        raise _ClientGoneError


def _prompt_tokens(req: ReceivedRequest) -> int:
    """A rough prompt size (characters / 4) so generated usage looks plausible; tests pass explicit usage."""
    return max(1, len(req.text) // 4)


def _completion_object(script: ChatScript, req: ReceivedRequest) -> dict[str, Any]:
    pieces = script.pieces()
    content = "".join(p for r, p in pieces if not r)
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if script.style != "think" and script.reasoning:
        message["reasoning_content"] = script.reasoning
    obj: dict[str, Any] = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": script.model,
        "choices": [{"index": 0, "message": message, "finish_reason": script.finish_reason}],
    }
    usage = script.usage_object(_prompt_tokens(req))
    if usage is not None:
        obj["usage"] = usage
    req.deltas_sent = len(pieces)
    return obj


async def _read_request(reader: asyncio.StreamReader) -> ReceivedRequest | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    except asyncio.LimitOverrunError:
        return None
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) < 2:
        return None
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0") or 0)
    raw = await reader.readexactly(length) if length else b""
    try:
        body = json.loads(raw) if raw else {}
    except ValueError:
        body = {}
    return ReceivedRequest(
        method=parts[0], path=parts[1], headers=headers, json=body if isinstance(body, dict) else {},
        received_at=time.monotonic(),
    )  # fmt: skip


async def _write_head(writer: asyncio.StreamWriter, status: int, headers: Mapping[str, str], *, chunked: bool) -> None:
    lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}"]
    lines.extend(f"{k}: {v}" for k, v in headers.items())
    if chunked:
        lines.append("Transfer-Encoding: chunked")
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
    await writer.drain()


async def _write_chunk(writer: asyncio.StreamWriter, data: bytes) -> None:
    writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
    await writer.drain()


async def _write_simple(writer: asyncio.StreamWriter, status: int, headers: dict[str, str], body: bytes) -> None:
    headers = {**headers, "Content-Length": str(len(body))}
    await _write_head(writer, status, headers, chunked=False)
    writer.write(body)
    await writer.drain()


def demo_reply(rate: float | None, style: Style = "deepseek") -> Reply:
    """A bilingual demo reply (reasoning, then Markdown text) for manual UI checks."""
    reasoning = "先看第一次交战：双方在 3:10 左右于中路接触。 Checking the first fight near 3:10 in the middle. " * 4
    text = (
        "## 本段分析 / Segment analysis\n\n"
        + "- 建造顺序紧凑，电厂与兵营衔接良好。 Build order was tight; power and barracks were well chained.\n" * 20
    )
    return Reply.chat(text, reasoning, style=style, tokens_per_s=rate, piece_chars=4)


def main(argv: Sequence[str] | None = None) -> int:
    """Serve demo replies until interrupted (``python -m tests.support.scripted_server --rate 200``)."""
    parser = argparse.ArgumentParser(prog="python -m tests.support.scripted_server", description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=0, help="port (0: ephemeral)")
    parser.add_argument("--rate", type=float, default=200.0, help="deltas per second (0: unlimited)")
    parser.add_argument("--style", choices=["openai", "deepseek", "think"], default="deepseek")
    args = parser.parse_args(argv)
    server = ScriptedServer(args.port, default=demo_reply(args.rate or None, args.style))
    with server:
        print(f"scripted OpenAI-compatible server at {server.base_url} (model: scripted-model); Ctrl+C stops")
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
