"""Fixtures for provider tests: the scripted server over real HTTP, a strict asyncio runner, an in-memory keyring."""

from __future__ import annotations

import asyncio
import gc
import warnings
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from app.llm.openai_compat import OpenAICompatProvider, RetryPolicy
from tests.keyrings import MemoryKeyring, memory_keyring_installed
from tests.support.scripted_server import ScriptedServer

T = TypeVar("T")
API_KEY = "sk-test-0123456789abcdef"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Unclosed sockets or clients in provider tests are failures, not noise."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.filterwarnings("error::ResourceWarning"))


@pytest.fixture(autouse=True)
def memory_keyring() -> Iterator[MemoryKeyring]:
    with memory_keyring_installed() as backend:
        yield backend


@pytest.fixture(scope="module")
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as srv:
        yield srv


@pytest.fixture(autouse=True)
def _fresh_server_state(request: pytest.FixtureRequest) -> None:
    if "server" in request.fixturenames:
        request.getfixturevalue("server").clear()


LoopProblems = list[dict[str, Any]]


@pytest.fixture
def run() -> Iterator[Callable[[Coroutine[Any, Any, T]], T]]:
    """Run a coroutine on a fresh loop; fail on any loop-reported error or resource warning.

    "async generator ignored GeneratorExit" and unclosed transports surface either through the loop's exception
    handler (collected here), as ResourceWarning (turned into errors), or as unraisable exceptions (pytest is
    configured to fail on those).
    """
    problems: LoopProblems = []

    def runner(coro: Coroutine[Any, Any, T]) -> T:
        with warnings.catch_warnings():
            warnings.simplefilter("error", ResourceWarning)
            with asyncio.Runner() as r:
                loop = r.get_loop()
                loop.set_exception_handler(lambda _loop, ctx: problems.append(ctx))
                result = r.run(coro)
            gc.collect()
        return result

    yield runner
    gc.collect()
    assert not problems, f"event loop reported problems: {problems}"


def make_provider(server: ScriptedServer, **kwargs: Any) -> OpenAICompatProvider:
    """A provider for the scripted server, with recorded (but real) retry sleeps."""
    kwargs.setdefault("api_key", API_KEY)
    kwargs.setdefault("retry", RetryPolicy(base_s=0.01, cap_s=0.05))
    return OpenAICompatProvider("Scripted", server.base_url, "scripted-model", **kwargs)


class SleepRecorder:
    """An ``asyncio.sleep`` replacement that records every requested delay and really sleeps."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
        await asyncio.sleep(seconds)
