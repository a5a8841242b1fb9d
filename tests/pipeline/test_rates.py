"""Provider rates shared by processes: the slot arithmetic, the store's ledger across real processes, 429 pauses."""

from __future__ import annotations

import asyncio
import dataclasses
import multiprocessing
from pathlib import Path

import pytest

from app.llm.base import ChatRequest, collect
from app.llm.openai_compat import OpenAICompatProvider
from app.llm.ratelimit import LocalLedger, RateGate, RateSlot, rate_gate
from app.pipeline.rates import StoreLedger
from app.store import open_database
from app.stream_limits import StreamLimits
from tests.support.scripted_server import Reply, ScriptedServer

SPACING = 0.5  # 120 requests per minute


def test_slot_spaces_requests_and_pays_tokens_off_at_the_token_rate() -> None:
    slot = RateSlot()
    assert [slot.reserve(100.0, SPACING, 0.0) for _ in range(3)] == [100.0, 100.5, 101.0]
    assert slot.reserve(105.0, SPACING, 0.0) == 105.0  # idle time is not saved up into a burst
    # 6000 tokens at 60000 per minute take 6 s to pay off: the next request starts after them
    tokens = RateSlot()
    assert tokens.reserve(0.0, 0.0, 6000 * 60 / 60000) == 0.0
    assert dataclasses.replace(tokens).reserve(0.0, 0.0, 0.0) == 6.0  # a copy: the next start
    tokens.adjust(-3.0)  # the reply used 3000 tokens fewer than estimated
    assert tokens.reserve(0.0, 0.0, 0.0) == 3.0
    paused = RateSlot()
    paused.pause(50.0)
    paused.pause(20.0)  # a shorter pause never shortens a longer one
    assert paused.reserve(10.0, SPACING, 0.0) == 50.0


def test_no_gate_without_a_rate_and_spacing_from_the_configured_rate() -> None:
    assert rate_gate("p", StreamLimits(), None) is None
    gate = rate_gate("p", StreamLimits(requests_per_minute=120, tokens_per_minute=60_000), LocalLedger())
    assert gate is not None
    assert gate.spacing_s == SPACING
    assert gate.seconds_per_token == 0.001


def _reserve_many(db_path: str, count: int, out: multiprocessing.Queue[list[float]]) -> None:
    db = open_database(db_path)
    ledger = StoreLedger(db)
    out.put([ledger.update("Local", lambda s: s.reserve(1000.0, SPACING, 0.0)) for _ in range(count)])
    db.close()


def test_processes_sharing_the_store_never_take_the_same_start(tmp_path: Path) -> None:
    db_path = str(tmp_path / "shared.sqlite3")
    open_database(db_path).close()
    ctx = multiprocessing.get_context("spawn")
    out: multiprocessing.Queue[list[float]] = ctx.Queue()
    procs = [ctx.Process(target=_reserve_many, args=(db_path, 10, out)) for _ in range(4)]
    for p in procs:
        p.start()
    starts = [t for _ in procs for t in out.get(timeout=120)]
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    # every start is the next free one: 40 distinct starts exactly one spacing apart, whoever took them
    assert sorted(starts) == [1000.0 + SPACING * k for k in range(40)]


def test_a_429_pauses_every_process_on_the_ledger(tmp_path: Path) -> None:
    """Provider A gets a 429 with Retry-After; B (another store connection, as another process) waits it out too."""
    retry_after = 0.6
    limits = StreamLimits(requests_per_minute=6000)
    with ScriptedServer(default=Reply.chat("好")) as server:
        server.enqueue(Reply.error(429, "Rate limit reached", retry_after=retry_after))

        async def main() -> None:
            dbs = [open_database(tmp_path / "store.sqlite3") for _ in range(2)]
            a, b = (
                OpenAICompatProvider(
                    "Local",
                    server.base_url,
                    "scripted-model",
                    limits=limits,
                    rate_gate=RateGate("Local", limits, StoreLedger(db)),
                )
                for db in dbs
            )
            try:
                first = asyncio.create_task(collect(a.stream(ChatRequest.simple("一"))))
                ledger = StoreLedger(dbs[1])
                async with asyncio.timeout(30):
                    while ledger.update("Local", lambda s: s.blocked_until) == 0.0:  # A has read the 429, paused
                        await asyncio.sleep(0.01)
                second = await collect(b.stream(ChatRequest.simple("二")))
                assert second.text == "好"
                assert (await first).text == "好"
            finally:
                await a.aclose()
                await b.aclose()
                for db in dbs:
                    db.close()

        asyncio.run(main())
        refused_at = server.requests[0].received_at
        later = [r.received_at for r in server.requests[1:]]
    assert len(later) == 2
    # neither A's retry nor B's first request came before the server's Retry-After had passed
    assert min(later) >= refused_at + retry_after - 0.01


def test_each_request_waits_its_turn_and_a_pause_announced_meanwhile_holds() -> None:
    """The gate sleeps until the reserved start, and reserves again when a pause came in while it slept."""
    now = [0.0]
    slept: list[float] = []
    ledger = LocalLedger()

    async def fake_sleep(seconds: float) -> None:
        if not slept:  # another process got a 429 while this one waited for its turn
            ledger.update("p", lambda s: s.pause(2.0))
        slept.append(seconds)
        now[0] += seconds

    gate = RateGate("p", StreamLimits(requests_per_minute=120), ledger, clock=lambda: now[0], sleep=fake_sleep)

    async def main() -> None:
        await gate.acquire()  # the first request goes at once
        await gate.acquire()  # its turn at 0.5, then the pause until 2.0

    asyncio.run(main())
    assert slept == [SPACING, 2.0 - SPACING]
    assert now[0] == 2.0


def test_the_token_rate_counts_what_the_server_reported_as_used() -> None:
    """The reply's usage (prompt + completion) decides when the next request may start, not the estimate."""
    slept: list[float] = []

    async def record(seconds: float) -> None:
        slept.append(seconds)

    limits = StreamLimits(tokens_per_minute=60_000)  # one token per millisecond
    gate = RateGate("Local", limits, LocalLedger(), clock=lambda: 0.0, sleep=record)
    usage = {"prompt_tokens": 5000, "completion_tokens": 1000, "total_tokens": 6000}
    with ScriptedServer(default=Reply.chat("好", usage=usage)) as server:

        async def main() -> None:
            provider = OpenAICompatProvider("Local", server.base_url, "scripted-model", limits=limits, rate_gate=gate)
            try:
                for text in ("一", "二"):
                    assert (await collect(provider.stream(ChatRequest.simple(text)))).text == "好"
            finally:
                await provider.aclose()

        asyncio.run(main())
    assert slept == [pytest.approx(6.0)]  # the second request waited for the first one's 6000 tokens at 1000 per second
