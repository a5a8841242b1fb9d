"""The real streaming client over real HTTP against the scripted server: every format and every fault."""

from __future__ import annotations

import asyncio
import gc
import sys
import time
from collections.abc import Callable
from typing import Any

import pytest

from app.errors import KnownError
from app.llm.base import ChatMessage, ChatRequest, collect
from app.llm.errors import (
    AuthError,
    BadRequestError,
    ContextOverflowError,
    ModelNotFoundError,
    NetworkError,
    ProtocolError,
    RateLimitError,
    ServerError,
)
from app.llm.events import ChatResult, Finished, ReasoningDelta, Retrying, StreamFailed, TextDelta, UsageReport
from tests.llm.conftest import API_KEY, SleepRecorder, make_provider
from tests.support.scripted_server import Reply, ScriptedServer

Run = Callable[[Any], Any]
pytestmark = pytest.mark.filterwarnings("error::ResourceWarning")

REASONING = "先比较双方经济：苏联在 2:30 建了第二座矿场。"
ANSWER = "## 结论\n盟军的开局更稳，**Allied** opening was safer — 因为电厂先行。"


async def _collect(server: ScriptedServer, request: ChatRequest | None = None, **kwargs: Any) -> ChatResult:
    provider = make_provider(server, **kwargs)
    try:
        return await collect(provider.stream(request or ChatRequest.simple("分析这一段", max_tokens=512)))
    finally:
        await provider.aclose()


# -- formats ----------------------------------------------------------------------------------------------------


def test_openai_format_with_usage_chunk(server: ScriptedServer, run: Run) -> None:
    usage = {
        "prompt_tokens": 1200,
        "completion_tokens": 340,
        "total_tokens": 1540,
        "prompt_tokens_details": {"cached_tokens": 1024},
        "completion_tokens_details": {"reasoning_tokens": 120},
    }
    server.enqueue(Reply.chat(ANSWER, REASONING, style="openai", usage=usage, model="gpt-4o-2024-08-06"))
    result = run(_collect(server))
    assert result.text == ANSWER
    assert result.reasoning == REASONING
    assert result.usage == UsageReport(1200, 340, 120, 1024, usage)
    assert result.finished is not None
    assert result.finished.reason == "stop"
    assert not result.finished.truncated
    assert not result.finished.interrupted
    assert result.finished.resolved_model == "gpt-4o-2024-08-06"
    assert result.finished.ttft_s is not None
    assert result.finished.ttft_s >= 0
    assert result.finished.attempts == 1


def test_deepseek_format_cache_fields_and_keepalives(server: ScriptedServer, run: Run) -> None:
    # DeepSeek's own names only: the cache hit count must come from prompt_cache_hit_tokens.
    usage = {
        "prompt_tokens": 900,
        "completion_tokens": 75,
        "total_tokens": 975,
        "prompt_cache_hit_tokens": 640,
        "prompt_cache_miss_tokens": 260,
        "completion_tokens_details": {"reasoning_tokens": 50},
    }
    server.enqueue(
        Reply.chat(ANSWER, REASONING, style="deepseek", usage=usage, model="deepseek-reasoner", first_token_delay_s=0.2)
    )
    result = run(_collect(server))
    assert (result.reasoning, result.text) == (REASONING, ANSWER)
    assert result.usage is not None
    assert (result.usage.prompt_tokens, result.usage.cached_prompt_tokens) == (900, 640)
    assert result.usage.reasoning_tokens == 50
    assert dict(result.usage.raw) == usage  # the whole object is kept
    assert result.finished is not None
    assert result.finished.resolved_model == "deepseek-reasoner"
    # the first token waited behind keep-alive comments, which must not have produced deltas
    assert result.finished.ttft_s is not None
    assert result.finished.ttft_s >= 0.2


def test_reasoning_arrives_before_text_in_event_order(server: ScriptedServer, run: Run) -> None:
    server.enqueue(Reply.chat("abcdef", "xyz", style="deepseek", piece_chars=1))

    async def scenario() -> list[Any]:
        provider = make_provider(server)
        events = []
        async with provider.stream(ChatRequest.simple("q")) as stream:
            async for ev in stream:
                events.append(ev)
        await provider.aclose()
        return events

    events = run(scenario())
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["ReasoningDelta"] * 3 + ["TextDelta"] * 6 + ["UsageReport", "Finished"]
    assert [e.text for e in events if isinstance(e, TextDelta)] == list("abcdef")


def test_think_tags_split_across_chunks(server: ScriptedServer, run: Run) -> None:
    for piece_chars in (1, 2, 3, 5):
        server.enqueue(Reply.chat(ANSWER, REASONING, style="think", piece_chars=piece_chars))
        result = run(_collect(server))
        assert result.reasoning == REASONING, piece_chars
        assert result.text == ANSWER, piece_chars


def test_length_finish_is_truncated(server: ScriptedServer, run: Run) -> None:
    server.enqueue(Reply.chat("partial answ", "long thinking", finish_reason="length"))
    result = run(_collect(server))
    assert result.finished is not None
    assert result.finished.truncated
    assert result.finished.reason == "length"
    assert not result.finished.interrupted
    assert result.text == "partial answ"


def test_non_streaming_reply_uses_same_events(server: ScriptedServer, run: Run) -> None:
    usage = {"prompt_tokens": 10, "completion_tokens": 7, "prompt_cache_hit_tokens": 4, "prompt_cache_miss_tokens": 6}
    server.enqueue(Reply.chat(ANSWER, REASONING, style="deepseek", usage=usage, model="deepseek-chat"))
    request = ChatRequest((ChatMessage("user", "q"),), stream=False)
    result = run(_collect(server, request))
    assert (result.reasoning, result.text) == (REASONING, ANSWER)
    assert result.usage is not None
    assert (result.usage.prompt_tokens, result.usage.completion_tokens, result.usage.cached_prompt_tokens) == (10, 7, 4)
    assert result.finished is not None
    assert result.finished.reason == "stop"
    assert result.finished.resolved_model == "deepseek-chat"
    assert server.requests[-1].json["stream"] is False
    assert "stream_options" not in server.requests[-1].json


def test_non_streaming_think_tags(server: ScriptedServer, run: Run) -> None:
    server.enqueue(Reply.chat("answer", "why", style="think"))
    result = run(_collect(server, ChatRequest((ChatMessage("user", "q"),), stream=False)))
    assert (result.reasoning, result.text) == ("why", "answer")


def test_request_body_and_headers(server: ScriptedServer, run: Run) -> None:
    server.enqueue(Reply.chat("ok"))
    request = ChatRequest(
        (ChatMessage("system", "你是分析师"), ChatMessage("assistant", "上一轮"), ChatMessage("user", "继续")),
        max_tokens=256,
        temperature=0.3,
    )
    run(_collect(server, request, extra_headers={"HTTP-Referer": "https://replaysage.local"}))
    received = server.requests[-1]
    assert received.path == "/v1/chat/completions"
    assert received.headers["authorization"] == f"Bearer {API_KEY}"
    assert received.headers["http-referer"] == "https://replaysage.local"
    body = received.json
    assert body["model"] == "scripted-model"
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["max_tokens"] == 256
    assert body["temperature"] == 0.3
    # only role and content travel: reasoning is never echoed back
    assert body["messages"] == [
        {"role": "system", "content": "你是分析师"},
        {"role": "assistant", "content": "上一轮"},
        {"role": "user", "content": "继续"},
    ]


def test_sse_written_one_byte_at_a_time(server: ScriptedServer, run: Run) -> None:
    body = (
        ': keep-alive\r\n\r\ndata: {"model":"m1","choices":[{"index":0,"delta":{"content":"世界"}}]}\r\n\r\n'
        'data: {"choices":[{"index":0,"delta":{"content":"!"},"finish_reason":"stop"}]}\r\n\r\ndata: [DONE]\r\n\r\n'
    ).encode()
    server.enqueue(Reply.raw_sse([body[i : i + 1] for i in range(len(body))]))
    result = run(_collect(server))
    assert result.text == "世界!"
    assert result.finished is not None
    assert result.finished.reason == "stop"
    assert result.finished.resolved_model == "m1"


# -- faults before content: retried ---------------------------------------------------------------------------


def test_429_waits_what_retry_after_says(server: ScriptedServer, run: Run) -> None:
    server.enqueue(Reply.error(429, "slow down", retry_after=0.3), Reply.chat("after the wait"))
    sleeper = SleepRecorder()
    result = run(_collect(server, sleep=sleeper))
    assert result.text == "after the wait"
    assert sleeper.delays == [0.3]
    first, second = server.requests[-2:]
    assert second.received_at - first.received_at >= 0.3
    assert result.finished is not None
    assert result.finished.attempts == 2


def test_retry_after_ms_takes_precedence(server: ScriptedServer, run: Run) -> None:
    server.enqueue(Reply.error(429, retry_after=30, retry_after_ms=150), Reply.chat("ok"))
    sleeper = SleepRecorder()
    result = run(_collect(server, sleep=sleeper))
    assert result.text == "ok"
    assert sleeper.delays == [0.15]


def test_retrying_event_reported(server: ScriptedServer, run: Run) -> None:
    server.enqueue(Reply.error(503, "busy"), Reply.chat("ok"))

    async def scenario() -> list[Any]:
        provider = make_provider(server, rng=lambda low, high: high)
        out = [ev async for ev in provider.stream(ChatRequest.simple("q"))]
        await provider.aclose()
        return out

    events = run(scenario())
    retry = events[0]
    assert isinstance(retry, Retrying)
    assert isinstance(retry.error, ServerError)
    assert retry.error.status == 503
    assert retry.delay_s == pytest.approx(0.01)  # base_s × 2^0 × jitter 1.0 from the test policy
    assert isinstance(events[-1], Finished)


def test_backoff_formula_caps_and_jitters() -> None:
    from app.llm.openai_compat import RetryPolicy

    policy = RetryPolicy(max_attempts=10)
    err = ServerError("p", "m", "x")
    # min(0.5·2^n, 8) × jitter, jitter pinned to the range ends
    assert [policy.delay(n, err, lambda lo, hi: hi) for n in range(6)] == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0]
    assert policy.delay(2, err, lambda lo, hi: lo) == pytest.approx(2.0 * 0.75)
    assert policy.delay(9, err, lambda lo, hi: hi) is None  # attempts exhausted
    assert policy.delay(0, AuthError("p", "m", "x"), lambda lo, hi: hi) is None


def test_500_then_success(server: ScriptedServer, run: Run) -> None:
    server.enqueue(Reply.error(500), Reply.error(502), Reply.chat("third time"))
    result = run(_collect(server))
    assert result.text == "third time"
    assert result.finished is not None
    assert result.finished.attempts == 3


def test_500_exhausts_retries(server: ScriptedServer, run: Run) -> None:
    server.enqueue(*[Reply.error(500, "boom")] * 5)
    result = run(_collect(server))
    assert result.failed is not None
    assert isinstance(result.failed.error, ServerError)
    assert result.failed.attempts == 5
    assert len(server.requests) == 5


def test_cut_before_content_is_retried(server: ScriptedServer, run: Run) -> None:
    server.enqueue(Reply.chat("never shown", cut_after=0), Reply.chat("second"))
    result = run(_collect(server))
    assert result.text == "second"
    assert len(server.requests) == 2


def test_error_event_before_content_is_retried(server: ScriptedServer, run: Run) -> None:
    server.enqueue(Reply.chat("x", error_after=0), Reply.chat("recovered"))
    result = run(_collect(server))
    assert result.text == "recovered"
    assert result.finished is not None
    assert result.finished.attempts == 2


def test_connection_refused_is_network_error(run: Run) -> None:
    from app.llm.openai_compat import OpenAICompatProvider, RetryPolicy

    with ScriptedServer() as srv:
        url = srv.base_url
    provider = OpenAICompatProvider("Gone", url, "m", retry=RetryPolicy(max_attempts=2, base_s=0.01))

    async def scenario() -> ChatResult:
        try:
            return await collect(provider.stream(ChatRequest.simple("q")))
        finally:
            await provider.aclose()

    result = run(scenario())
    assert result.failed is not None
    assert isinstance(result.failed.error, NetworkError)
    assert result.failed.attempts == 2


# -- faults after content: interrupted, nothing lost --------------------------------------------------------------


def test_cut_stream_keeps_partial_output(server: ScriptedServer, run: Run) -> None:
    server.enqueue(Reply.chat("0123456789abcdef", "think", piece_chars=2, cut_after=5), Reply.chat("must not be used"))
    result = run(_collect(server))
    # pieces: "th","in","k" (reasoning) then "01","23" → 5 deltas before the cut
    assert result.reasoning == "think"
    assert result.text == "0123"
    assert result.finished is not None
    assert result.finished.interrupted
    assert result.finished.reason == "interrupted"
    assert isinstance(result.finished.error, NetworkError)
    assert result.usage is None  # the usage chunk never came
    assert len(server.requests) == 1  # not retried after content
    assert server.pending == 1


def test_error_event_mid_stream_keeps_partial_output(server: ScriptedServer, run: Run) -> None:
    error = {"message": "Internal error during generation", "type": "server_error", "code": 500}
    server.enqueue(Reply.chat("abcdefghij", piece_chars=3, error_after=2, error=error))
    result = run(_collect(server))
    assert result.text == "abcdef"
    assert result.finished is not None
    assert result.finished.interrupted
    assert isinstance(result.finished.error, ServerError)
    assert "Internal error during generation" in str(result.finished.error)
    assert len(server.requests) == 1


def test_stream_without_done_or_finish_reason_is_interrupted(server: ScriptedServer, run: Run) -> None:
    server.enqueue(Reply.raw_sse([b'data: {"choices":[{"index":0,"delta":{"content":"half"}}]}\n\n']))
    result = run(_collect(server))
    assert result.text == "half"
    assert result.finished is not None
    assert result.finished.interrupted


def test_finish_reason_without_done_is_complete(server: ScriptedServer, run: Run) -> None:
    server.enqueue(Reply.chat("whole", include_done=False))
    result = run(_collect(server))
    assert result.text == "whole"
    assert result.ok


# -- faults never retried ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("status", "kind"), [(401, AuthError), (403, AuthError), (404, ModelNotFoundError)])
def test_auth_and_not_found_not_retried(server: ScriptedServer, run: Run, status: int, kind: type) -> None:
    server.enqueue(Reply.error(status, f"Incorrect API key provided: {API_KEY}", code="invalid_api_key"))
    server.enqueue(Reply.chat("must not be used"))
    result = run(_collect(server))
    assert result.failed is not None
    err = result.failed.error
    assert isinstance(err, kind)
    assert isinstance(err, KnownError)
    assert len(server.requests) == 1
    message = str(err)
    assert "Scripted" in message
    assert "scripted-model" in message
    assert API_KEY not in message
    assert API_KEY[8:] not in message
    assert API_KEY not in repr(err)


def test_require_key_rejects_wrong_key(run: Run) -> None:
    with ScriptedServer(require_key="sk-right-key-000000") as srv:
        srv.enqueue(Reply.chat("hi"))
        result = run(_collect(srv))
        assert isinstance(result.error, AuthError)
        assert len(srv.requests) == 1
        result = run(_collect(srv, api_key="sk-right-key-000000"))
        assert result.text == "hi"


def test_context_overflow(server: ScriptedServer, run: Run) -> None:
    msg = "This model's maximum context length is 65536 tokens. However, you requested 70000 tokens."
    server.enqueue(Reply.error(400, msg, code="context_length_exceeded"))
    result = run(_collect(server))
    assert isinstance(result.error, ContextOverflowError)
    assert len(server.requests) == 1


def test_other_400_is_bad_request(server: ScriptedServer, run: Run) -> None:
    server.enqueue(Reply.error(400, "temperature must be between 0 and 2"))
    result = run(_collect(server))
    assert isinstance(result.error, BadRequestError)


def test_quota_exhausted_429_not_retried(server: ScriptedServer, run: Run) -> None:
    server.enqueue(Reply.error(429, "You exceeded your current quota", code="insufficient_quota"))
    result = run(_collect(server))
    assert isinstance(result.error, RateLimitError)
    assert len(server.requests) == 1


def test_malformed_sse_is_protocol_error(server: ScriptedServer, run: Run) -> None:
    server.enqueue(Reply.raw_sse([b"data: {not json}\n\n", b"data: [DONE]\n\n"]))
    result = run(_collect(server))
    assert isinstance(result.error, ProtocolError)
    assert len(server.requests) == 1


def test_malformed_after_content_keeps_text(server: ScriptedServer, run: Run) -> None:
    server.enqueue(
        Reply.raw_sse([b'data: {"choices":[{"index":0,"delta":{"content":"kept"}}]}\n\n', b"data: {oops\n\n"])
    )
    result = run(_collect(server))
    assert result.text == "kept"
    assert result.finished is not None
    assert result.finished.interrupted
    assert isinstance(result.finished.error, ProtocolError)


def test_html_page_is_protocol_error(server: ScriptedServer, run: Run) -> None:
    server.enqueue(Reply.raw(200, "<html>login</html>", "text/html"))
    result = run(_collect(server))
    assert isinstance(result.error, ProtocolError)
    assert "base URL" in str(result.error)


# -- cancellation and generator hygiene ----------------------------------------------------------------------------


def test_cancellation_stops_the_request(server: ScriptedServer, run: Run) -> None:
    text = "x" * 6000
    server.enqueue(Reply.chat(text, piece_chars=1, tokens_per_s=100))  # 60 s if not stopped: outlasts the client
    received: list[str] = []

    async def consume() -> None:
        provider = make_provider(server)
        try:
            async with provider.stream(ChatRequest.simple("q")) as stream:
                async for ev in stream:
                    if isinstance(ev, TextDelta):
                        received.append(ev.text)
        finally:
            await provider.aclose()

    async def scenario() -> None:
        task = asyncio.create_task(consume())
        while len(received) < 5:
            await asyncio.sleep(0.005)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    run(scenario())
    assert server.wait_for(lambda: server.requests[-1].client_closed, timeout=30.0)
    req = server.requests[-1]
    assert not req.completed
    assert req.deltas_sent < len(text)
    assert "".join(received) == "x" * len(received)  # everything received was delivered, in order


def test_break_and_aclose_release_connection(server: ScriptedServer, run: Run) -> None:
    # The reply must outlast the client: at 200 pieces/s, 400 pieces ended within 2 s, and on a loaded machine the
    # server finished writing before the client broke off, so it never saw a close (a stress run failed so).
    server.enqueue(Reply.chat("y" * 40_000, piece_chars=1, tokens_per_s=200))

    async def scenario() -> ChatResult:
        provider = make_provider(server)
        stream = provider.stream(ChatRequest.simple("q"))
        result = ChatResult()
        async for ev in stream:
            result.add(ev)
            if result.text_deltas == 3:
                break
        await stream.aclose()
        await stream.aclose()  # idempotent
        await provider.aclose()
        return result

    result = run(scenario())
    assert result.text == "yyy"
    assert server.wait_for(lambda: server.requests[-1].client_closed, timeout=30.0)


def test_no_generator_exit_errors_without_loop_hooks(server: ScriptedServer, run: Run) -> None:
    """qasync installs no async-generator hooks; abandoning a stream must still not trip GeneratorExit."""
    server.enqueue(Reply.chat("z" * 200, piece_chars=1, tokens_per_s=400), Reply.chat("done"))
    unraisable: list[Any] = []
    old_hook = sys.unraisablehook

    async def scenario() -> str:
        sys.set_asyncgen_hooks(firstiter=None, finalizer=None)  # what a qasync loop looks like
        provider = make_provider(server)
        stream = provider.stream(ChatRequest.simple("q"))
        async for ev in stream:
            if isinstance(ev, TextDelta):
                break  # abandon without aclose (a careless consumer)
        del stream
        gc.collect()
        await asyncio.sleep(0.05)
        result = await collect(provider.stream(ChatRequest.simple("again")))
        await provider.aclose()
        return result.text

    sys.unraisablehook = unraisable.append
    try:
        assert run(scenario()) == "done"
        gc.collect()
    finally:
        sys.unraisablehook = old_hook
    assert not unraisable, [u.exc_value for u in unraisable]


def test_events_are_frozen() -> None:
    from dataclasses import FrozenInstanceError

    delta = TextDelta("a")
    with pytest.raises(FrozenInstanceError):
        delta.text = "b"  # type: ignore[misc]
    assert ReasoningDelta("r") == ReasoningDelta("r")
    assert isinstance(StreamFailed(AuthError("p", "m", "d")).error, KnownError)


# -- timeouts ----------------------------------------------------------------------------------------------------


def test_read_timeout_before_content_is_retried(server: ScriptedServer, run: Run) -> None:
    from app.stream_limits import StreamLimits

    server.enqueue(Reply.chat("late", first_token_delay_s=1.5, keepalive_s=5.0), Reply.chat("on time"))
    result = run(_collect(server, limits=StreamLimits(first_byte_s=0.3)))
    assert result.text == "on time"
    assert result.finished is not None
    assert result.finished.attempts == 2
    assert server.wait_for(lambda: server.requests[0].client_closed)


def test_a_slow_first_token_within_its_deadline_is_waited_for(server: ScriptedServer, run: Run) -> None:
    from app.stream_limits import StreamLimits

    server.enqueue(Reply.chat("patient", first_token_delay_s=0.8, keepalive_s=0.1))
    result = run(_collect(server, limits=StreamLimits(first_byte_s=30.0, idle_s=0.4)))
    assert result.text == "patient"
    assert result.finished is not None
    assert result.finished.attempts == 1


def test_body_held_open_after_done_is_closed_by_client(
    server: ScriptedServer, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.llm import openai_compat

    monkeypatch.setattr(openai_compat, "DRAIN_TIMEOUT_S", 0.2)
    server.enqueue(Reply.chat("complete", hold_open_s=30.0))
    result = run(_collect(server))
    assert result.ok
    assert result.text == "complete"
    assert result.usage is not None
    assert server.wait_for(lambda: server.requests[-1].client_closed, timeout=30.0)


# -- the scripted server's queue ---------------------------------------------------------------------------------


def test_replies_matched_on_request_content(server: ScriptedServer, run: Run) -> None:
    server.enqueue(Reply.chat("for the summary"), match="总结")
    server.enqueue(Reply.chat("for anything"))

    async def scenario() -> tuple[str, str]:
        first = await _collect(server, ChatRequest.simple("第一段分析"))
        second = await _collect(server, ChatRequest.simple("请写总结"))
        return first.text, second.text

    assert run(scenario()) == ("for anything", "for the summary")
    assert [r.text for r in server.requests] == ["第一段分析", "请写总结"]
    assert server.pending == 0


def test_unscripted_request_gets_a_clear_500(server: ScriptedServer, run: Run) -> None:
    from app.llm.openai_compat import RetryPolicy

    result = run(_collect(server, retry=RetryPolicy(max_attempts=1)))
    assert isinstance(result.error, ServerError)
    assert len(server.requests) == 1
    assert "no reply queued" in str(result.error)


def test_server_rejecting_stream_options_is_asked_again_without(server: ScriptedServer, run: Run) -> None:
    server.enqueue(Reply.error(400, "Unrecognized request argument supplied: stream_options"), Reply.chat("fine"))
    result = run(_collect(server))
    assert result.text == "fine"
    assert result.usage is None  # without include_usage the server sends no usage chunk
    first, second = server.requests[-2:]
    assert "stream_options" in first.json
    assert "stream_options" not in second.json
    assert result.finished is not None
    assert result.finished.attempts == 1


def test_content_slower_than_nothing_but_within_the_idle_limit_is_never_cut(server: ScriptedServer, run: Run) -> None:
    """The idle deadline moves with each delta: 12 deltas 0.2 s apart outlast a 0.35 s limit many times over."""
    from app.stream_limits import StreamLimits

    text = "一二三四五六七八九十甲乙"
    server.enqueue(Reply.chat(text, piece_chars=1, tokens_per_s=5.0))
    result = run(_collect(server, limits=StreamLimits(first_byte_s=5.0, idle_s=0.35)))
    assert result.text == text
    assert result.failed is None
    assert result.finished is not None
    assert result.finished.attempts == 1


def test_content_that_stops_is_ended_soon_after_the_idle_limit(server: ScriptedServer, run: Run) -> None:
    """Keep-alive comments do not move the deadline; the read ends once no content came for ``idle_s``."""
    from app.llm.errors import StalledError
    from app.llm.openai_compat import RetryPolicy
    from app.stream_limits import StreamLimits

    server.enqueue(Reply.chat("甲乙丙丁戊己", piece_chars=1, stall_after=2, keepalive_s=0.05))
    started = time.monotonic()
    result = run(_collect(server, limits=StreamLimits(first_byte_s=5.0, idle_s=0.4), retry=RetryPolicy(max_attempts=1)))
    elapsed = time.monotonic() - started
    assert result.text == "甲乙"  # kept: the reply is interrupted, not failed
    assert result.finished is not None
    assert result.finished.interrupted
    assert isinstance(result.finished.error, StalledError)
    assert "no new content for 0.4 s" in str(result.finished.error)
    assert 0.4 <= result.finished.elapsed_s < 3.0
    assert elapsed < 5.0
