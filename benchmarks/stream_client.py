"""Streaming client throughput: deltas parsed and dispatched per second (target ≥ 2,000/s), plus cancel latency.

Runs the real client over real HTTP against the scripted server on 127.0.0.1:
  1. unthrottled streams of 20,000 one-character deltas in each wire format → deltas/s end to end;
  2. SSE + JSON parsing alone on the same bytes → the parser's ceiling;
  3. a 200 tok/s stream → whether the consumer keeps pace (lag of the last delta);
  4. cancellation: time from task.cancel() to the task finishing, and until the server sees the disconnect.

Usage: .venv/bin/python benchmarks/stream_client.py [--deltas N]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.support: the scripted server

from app.llm.base import ChatRequest
from app.llm.events import Finished, ReasoningDelta, TextDelta
from app.llm.openai_compat import OpenAICompatProvider
from app.llm.sse import SSEParser
from tests.support.scripted_server import Reply, ScriptedServer

TARGET = 2000.0


async def stream_once(server: ScriptedServer, reply: Reply) -> tuple[int, float, Finished | None]:
    server.enqueue(reply)
    provider = OpenAICompatProvider("bench", server.base_url, "scripted-model")
    sink: list[str] = []  # dispatch = hand each delta to a consumer
    finished = None
    count = 0
    start = time.perf_counter()
    async with provider.stream(ChatRequest.simple("bench")) as stream:
        async for ev in stream:
            if isinstance(ev, TextDelta | ReasoningDelta):
                sink.append(ev.text)
                count += 1
            elif isinstance(ev, Finished):
                finished = ev
    elapsed = time.perf_counter() - start
    await provider.aclose()
    return count, elapsed, finished


def parse_only(n: int) -> float:
    chunks = [
        f"data: {json.dumps({'choices': [{'index': 0, 'delta': {'content': 'x'}}]})}\n\n".encode() for _ in range(n)
    ]
    data = b"".join(chunks)
    start = time.perf_counter()
    parser = SSEParser()
    got = 0
    for i in range(0, len(data), 4096):
        for ev in parser.feed(data[i : i + 4096]):
            obj = json.loads(ev.data)
            got += len(obj["choices"][0]["delta"]["content"])
    elapsed = time.perf_counter() - start
    assert got == n
    return n / elapsed


async def cancel_latency(server: ScriptedServer) -> tuple[float, float]:
    server.enqueue(Reply.chat("c" * 2000, piece_chars=1, tokens_per_s=100))
    provider = OpenAICompatProvider("bench", server.base_url, "scripted-model")
    seen = 0

    async def consume() -> None:
        nonlocal seen
        async with provider.stream(ChatRequest.simple("cancel me")) as stream:
            async for ev in stream:
                if isinstance(ev, TextDelta):
                    seen += 1

    task = asyncio.create_task(consume())
    while seen < 5:
        await asyncio.sleep(0.001)
    t0 = time.perf_counter()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    task_done = time.perf_counter() - t0
    while not server.requests[-1].client_closed and time.perf_counter() - t0 < 5:
        await asyncio.sleep(0.001)
    server_saw = time.perf_counter() - t0
    await provider.aclose()
    return task_done, server_saw


async def main(n: int) -> None:
    with ScriptedServer() as server:
        print(f"deltas per run: {n:,}")
        worst = float("inf")
        for style in ("openai", "deepseek", "think"):
            reasoning = "r" * (n // 4) if style != "openai" else ""
            text = "t" * (n - len(reasoning))
            count, elapsed, fin = await stream_once(server, Reply.chat(text, reasoning, style=style, piece_chars=1))
            rate = count / elapsed
            worst = min(worst, rate)
            reason = fin.reason if fin else None
            print(f"  {style:9s}: {count:,} deltas in {elapsed:.3f} s = {rate:,.0f} deltas/s (finish {reason})")
        print(f"parse only (SSE + JSON): {parse_only(n):,.0f} deltas/s")
        rate_target = 200.0
        count, elapsed, fin = await stream_once(server, Reply.chat("p" * 600, piece_chars=1, tokens_per_s=rate_target))
        ideal = count / rate_target
        print(
            f"200 tok/s stream: {count} deltas in {elapsed:.3f} s (ideal {ideal:.3f} s, lag {elapsed - ideal:+.3f} s)"
        )
        task_done, server_saw = await cancel_latency(server)
        print(f"cancel: task finished {task_done * 1000:.1f} ms after cancel(); server saw disconnect after "
              f"{server_saw * 1000:.1f} ms (target ≤ 200 ms)")  # fmt: skip
        verdict = "PASS" if worst >= TARGET else "FAIL"
        print(f"end-to-end minimum {worst:,.0f} deltas/s vs target {TARGET:,.0f}: {verdict}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--deltas", type=int, default=20000)
    asyncio.run(main(ap.parse_args().deltas))
