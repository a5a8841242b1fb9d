"""Pure helpers of the client: URLs, Retry-After, usage normalisation, the shared client."""

from __future__ import annotations

import asyncio
import email.utils
import time

import httpx
import pytest

from app.llm.errors import ProviderConfigError
from app.llm.openai_compat import (
    chat_completions_url,
    close_shared_http_client,
    parse_retry_after,
    shared_http_client,
    usage_from_json,
)


@pytest.mark.parametrize(
    ("base", "url"),
    [
        ("https://api.openai.com/v1", "https://api.openai.com/v1/chat/completions"),
        ("https://api.deepseek.com/v1/", "https://api.deepseek.com/v1/chat/completions"),
        ("http://localhost:11434/v1", "http://localhost:11434/v1/chat/completions"),
        ("https://x.example/v1/chat/completions", "https://x.example/v1/chat/completions"),
    ],
)
def test_chat_completions_url(base: str, url: str) -> None:
    assert chat_completions_url(base) == url


@pytest.mark.parametrize("bad", ["", "   ", "api.openai.com/v1", "ftp://x"])
def test_bad_base_url(bad: str) -> None:
    with pytest.raises(ProviderConfigError):
        chat_completions_url(bad)


def test_retry_after_forms() -> None:
    assert parse_retry_after(httpx.Headers({"Retry-After": "7"})) == 7.0
    assert parse_retry_after(httpx.Headers({"retry-after-ms": "250", "Retry-After": "7"})) == 0.25
    assert parse_retry_after(httpx.Headers({})) is None
    assert parse_retry_after(httpx.Headers({"Retry-After": "soon"})) is None
    date = email.utils.formatdate(time.time() + 30, usegmt=True)
    seconds = parse_retry_after(httpx.Headers({"Retry-After": date}))
    assert seconds is not None
    assert 25 <= seconds <= 31


def test_usage_openai_names() -> None:
    raw = {"prompt_tokens": 2000, "completion_tokens": 500, "total_tokens": 2500,
           "prompt_tokens_details": {"cached_tokens": 1536, "audio_tokens": 0},
           "completion_tokens_details": {"reasoning_tokens": 320, "accepted_prediction_tokens": 0}}  # fmt: skip
    u = usage_from_json(raw)
    assert (u.prompt_tokens, u.completion_tokens, u.reasoning_tokens, u.cached_prompt_tokens) == (2000, 500, 320, 1536)
    assert u.raw == raw


def test_usage_deepseek_names_without_prompt_total() -> None:
    u = usage_from_json({"completion_tokens": 9, "prompt_cache_hit_tokens": 64, "prompt_cache_miss_tokens": 36})
    assert (u.prompt_tokens, u.cached_prompt_tokens, u.completion_tokens, u.reasoning_tokens) == (100, 64, 9, 0)


def test_usage_ignores_junk_values() -> None:
    u = usage_from_json({"prompt_tokens": "12", "completion_tokens": True, "prompt_tokens_details": None})
    assert (u.prompt_tokens, u.completion_tokens, u.cached_prompt_tokens) == (0, 0, 0)


def test_shared_client_is_per_loop_and_closable() -> None:
    async def scenario() -> tuple[bool, bool]:
        a = shared_http_client()
        same = a is shared_http_client()
        await close_shared_http_client()
        return same, a.is_closed

    assert asyncio.run(scenario()) == (True, True)
