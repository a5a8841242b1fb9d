"""JSON from a model server that nests without bound is a malformed reply, never a RecursionError (issue 29).

``json.loads`` recurses once per level: 5,000 nested arrays raise RecursionError, which escaped every handler as
an internal error. Each place the client reads server JSON (a stream event, a whole completion, an error body)
refuses it as what it is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from app.jsonlimits import MAX_DEPTH, loads, nesting_depth
from app.llm.base import ChatMessage, ChatRequest, collect
from app.llm.errors import BadRequestError, ProtocolError
from app.llm.events import ChatResult
from tests.llm.conftest import make_provider
from tests.support.scripted_server import Reply, ScriptedServer

Run = Callable[[Any], Any]
NESTED = "[" * 5000 + "]" * 5000


async def _collect(server: ScriptedServer, request: ChatRequest | None = None) -> ChatResult:
    provider = make_provider(server)
    try:
        return await collect(provider.stream(request or ChatRequest.simple("分析这一段", max_tokens=512)))
    finally:
        await provider.aclose()


def test_a_stream_event_of_5000_nested_arrays_is_a_protocol_error(server: ScriptedServer, run: Run) -> None:
    server.enqueue(Reply.raw_sse([f"data: {NESTED}\n\n".encode(), b"data: [DONE]\n\n"]))
    result = run(_collect(server))
    assert isinstance(result.error, ProtocolError)
    assert "malformed SSE data" in str(result.error)


def test_a_whole_completion_nested_too_deep_is_a_protocol_error(server: ScriptedServer, run: Run) -> None:
    server.enqueue(Reply.raw(200, '{"choices": ' + NESTED + "}", "application/json"))
    result = run(_collect(server, ChatRequest((ChatMessage("user", "q"),), stream=False)))
    assert isinstance(result.error, ProtocolError)
    assert "not valid JSON" in str(result.error)


def test_an_error_body_nested_too_deep_is_kept_as_text(server: ScriptedServer, run: Run) -> None:
    server.enqueue(Reply.raw(400, '{"error": ' + NESTED + "}", "application/json"))
    result = run(_collect(server))
    assert isinstance(result.error, BadRequestError)
    assert 'request rejected (HTTP 400): {"error": [[[' in str(result.error)


@pytest.mark.parametrize(
    ("text", "depth"),
    [("[]", 1), ('{"a": [{"b": 1}]}', 3), ('"[[[["', 0), ('["\\"[[", [2]]', 2), ("[" * 10_000, 10_000)],
)
def test_nesting_depth_counts_brackets_outside_strings(text: str, depth: int) -> None:
    assert nesting_depth(text) == depth


def test_loads_refuses_deep_nesting_with_a_value_error_and_reads_the_rest() -> None:
    with pytest.raises(ValueError, match=f"the JSON nests 5000 levels deep \\(at most {MAX_DEPTH}\\)"):
        loads(NESTED)
    deep_but_allowed = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert nesting_depth(deep_but_allowed) == MAX_DEPTH
    assert loads(deep_but_allowed) is not None
    assert loads(b'{"x": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}') == {"x": "[" * 68}


def test_a_huge_event_line_fed_in_small_chunks_is_one_event() -> None:
    from app.llm.sse import SSEEvent, SSEParser

    payload = '{"x": "' + "长" * 400_000 + '"}'
    data = f"data: {payload}\r\n\r\n".encode()
    parser = SSEParser()
    events = [e for k in range(0, len(data), 1000) for e in parser.feed(data[k : k + 1000])]
    assert events == [SSEEvent(payload)]
    assert not parser.pending


def test_endless_leading_whitespace_then_think_is_split_once_decided() -> None:
    from app.llm.sse import ThinkSplitter

    splitter = ThinkSplitter()
    parts = [p for _ in range(100_000) for p in splitter.feed(" \n")]
    assert parts == []  # undecided: nothing emitted, everything kept
    parts += splitter.feed("<thi") + splitter.feed("nk>why</think>  answer")
    assert parts == [(True, "why"), (False, "answer")]
    blank = ThinkSplitter()
    assert [p for _ in range(1000) for p in blank.feed("\t")] == []
    assert blank.close() == []  # whitespace only: no answer
    text = ThinkSplitter()
    assert text.feed("  ") + text.feed("plain") == [(False, "  plain")]
