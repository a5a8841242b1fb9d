"""SSE and <think> parsing fed at every possible split point."""

from __future__ import annotations

import itertools
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from app.llm.sse import SSEEvent, SSEParser, ThinkSplitter

STREAM = (
    ": keep-alive\r\n\r\n"
    'data: {"x": "héllo 世界"}\r\n\r\n'
    "event: ping\n"
    "data: first line\n"
    "data: second line\n"
    "\n"
    ":comment without blank\n"
    "data:no-space\r"
    "\r"
    "id: 7\nretry: 100\ndata: [DONE]\n\n"
).encode()
EXPECTED = [
    SSEEvent('{"x": "héllo 世界"}'),
    SSEEvent("first line\nsecond line", "ping"),
    SSEEvent("no-space"),
    SSEEvent("[DONE]"),
]


def feed_split(parser: SSEParser, data: bytes, cuts: list[int]) -> list[SSEEvent]:
    out: list[SSEEvent] = []
    prev = 0
    for cut in [*sorted(cuts), len(data)]:
        out.extend(parser.feed(data[prev:cut]))
        prev = cut
    out.extend(parser.close())
    return out


def test_sse_whole_stream() -> None:
    parser = SSEParser()
    assert feed_split(parser, STREAM, []) == EXPECTED
    assert parser.comments == 2


def test_sse_every_single_split_point() -> None:
    # Includes splits inside the 3-byte UTF-8 characters and between CR and LF.
    for cut in range(len(STREAM) + 1):
        assert feed_split(SSEParser(), STREAM, [cut]) == EXPECTED, cut


def test_sse_byte_by_byte() -> None:
    assert feed_split(SSEParser(), STREAM, list(range(len(STREAM)))) == EXPECTED


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(STREAM)), max_size=12))
def test_sse_random_splits(cuts: list[int]) -> None:
    assert feed_split(SSEParser(), STREAM, cuts) == EXPECTED


def test_sse_final_event_without_blank_line_is_flushed_at_close() -> None:
    parser = SSEParser()
    assert parser.feed(b'data: {"a": 1}') == []
    assert parser.pending
    assert parser.close() == [SSEEvent('{"a": 1}')]


def test_sse_json_payload_roundtrip() -> None:
    payload = {"choices": [{"delta": {"content": "a\nb"}}]}
    data = f"data: {json.dumps(payload)}\n\n".encode()
    (event,) = SSEParser().feed(data)
    assert json.loads(event.data) == payload


def think_parts(pieces: list[str]) -> tuple[str, str]:
    splitter = ThinkSplitter()
    reasoning: list[str] = []
    text: list[str] = []
    for piece in pieces:
        for is_reasoning, part in splitter.feed(piece):
            assert part
            (reasoning if is_reasoning else text).append(part)
    for is_reasoning, part in splitter.close():
        (reasoning if is_reasoning else text).append(part)
    return "".join(reasoning), "".join(text)


def test_think_every_split_point() -> None:
    content = "\n<think>先想 a<b </thin and more</think>\n\nAnswer: x<think>y"
    for cut in range(len(content) + 1):
        assert think_parts([content[:cut], content[cut:]]) == ("先想 a<b </thin and more", "Answer: x<think>y"), cut


def test_think_char_by_char() -> None:
    content = "<think>r</think>text"
    assert think_parts(list(content)) == ("r", "text")


def test_think_not_at_start_is_text() -> None:
    assert think_parts(["Hello <think>no</think>"]) == ("", "Hello <think>no</think>")


def test_think_unclosed_stays_reasoning() -> None:
    assert think_parts(["<think>still thinking", " </thi"]) == ("still thinking </thi", "")


def test_think_prefix_only_content_is_text() -> None:
    assert think_parts(["<thi"]) == ("", "<thi")


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=40), max_size=8))
def test_think_random_splits(cuts: list[int]) -> None:
    content = "<think>abc </think> def</think>\n\nxyz"
    bounds = [0, *sorted(c % (len(content) + 1) for c in cuts), len(content)]
    pieces = [content[a:b] for a, b in itertools.pairwise(bounds)]
    reasoning, text = think_parts(pieces)
    assert reasoning == "abc "
    assert text == "def</think>\n\nxyz"
