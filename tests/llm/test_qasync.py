"""The client under a real qasync loop (no async-generator hooks of its own: engineering notes §1.5)."""

from __future__ import annotations

import asyncio
import gc
import sys
from typing import Any

import pytest

from app.llm.base import ChatRequest, collect
from app.llm.events import TextDelta
from tests.llm.conftest import make_provider
from tests.support.scripted_server import Reply, ScriptedServer

pytestmark = pytest.mark.gui


def test_abandoned_and_cancelled_streams_under_qasync(qapp: Any, server: ScriptedServer) -> None:
    from ui.qtloop import GuiLoop  # the app's qasync loop: its Qt objects are deleted when it closes

    server.enqueue(Reply.chat("a" * 300, piece_chars=1, tokens_per_s=300))  # abandoned mid-way
    # cancelled mid-way: 100 s long, so a loaded machine cannot finish it before the cancel (then no close is seen)
    server.enqueue(Reply.chat("b" * 30_000, piece_chars=1, tokens_per_s=300))
    server.enqueue(Reply.chat("complete"))
    unraisable: list[Any] = []
    loop_errors: list[dict[str, Any]] = []
    old_unraisable = sys.unraisablehook
    old_hooks = sys.get_asyncgen_hooks()
    loop = GuiLoop(qapp)
    loop.set_exception_handler(lambda _loop, ctx: loop_errors.append(ctx))

    async def scenario() -> str:
        assert sys.get_asyncgen_hooks().finalizer is None  # qasync installed none
        provider = make_provider(server)
        stream = provider.stream(ChatRequest.simple("one"))
        async for ev in stream:
            if isinstance(ev, TextDelta):
                break  # a careless consumer: no aclose
        del stream
        gc.collect()

        async def consume() -> None:
            async with provider.stream(ChatRequest.simple("two")) as events:
                async for _ in events:
                    pass

        task = asyncio.ensure_future(consume())
        while server.requests[-1].deltas_sent < 3 if len(server.requests) >= 2 else True:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        result = await collect(provider.stream(ChatRequest.simple("three")))
        await provider.aclose()
        await asyncio.sleep(0.05)
        return result.text

    sys.unraisablehook = unraisable.append
    try:
        assert loop.run_until_complete(scenario()) == "complete"
        loop.run_until_complete(loop.shutdown_asyncgens())
        gc.collect()
    finally:
        loop.close()
        sys.unraisablehook = old_unraisable
        sys.set_asyncgen_hooks(*old_hooks)
    assert not unraisable, [u.exc_value for u in unraisable]
    assert not loop_errors, loop_errors
    assert server.wait_for(lambda: server.requests[1].client_closed)
