"""``replaysage provider test`` against the scripted server (real HTTP), JSON and human output."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.cli import main
from app.settings import ModelProfileSettings, ProviderSettings, Settings
from tests.support.scripted_server import ReceivedRequest, Reply, ScriptedServer

KEY = "sk-env-key-9876543210"


def chat_requests(server: ScriptedServer) -> list[ReceivedRequest]:
    """The chat requests among everything the server received (provider test also reads the model list)."""
    return [r for r in server.requests if r.path.endswith("/chat/completions")]


def test_provider_test_json(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("REPLAYSAGE_API_KEY", KEY)
    usage = {"prompt_tokens": 31, "completion_tokens": 12, "prompt_cache_hit_tokens": 0, "prompt_cache_miss_tokens": 31,
             "completion_tokens_details": {"reasoning_tokens": 5}}  # fmt: skip
    server.enqueue(Reply.chat("维和步兵。", "想一想", style="deepseek", usage=usage, model="deepseek-reasoner"))
    code = main(
        ["provider", "test", "--base-url", server.base_url, "--model", "deepseek-reasoner", "--json", "--lang", "zh"]
    )
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True
    assert report["text"] == "维和步兵。"
    assert (report["text_chars"], report["reasoning_chars"]) == (5, 3)
    assert report["usage"]["prompt_tokens"] == 31
    assert report["usage"]["reasoning_tokens"] == 5
    assert report["resolved_model"] == "deepseek-reasoner"
    assert report["finish_reason"] == "stop"
    assert report["ttft_s"] is not None
    received = chat_requests(server)[-1]
    assert received.headers["authorization"] == f"Bearer {KEY}"
    assert received.json["max_tokens"] == 256
    assert "红色警戒3" in received.text


def test_provider_test_profile_human_output(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("REPLAYSAGE_API_KEY", raising=False)
    settings = Settings.load()
    settings.put_provider(ProviderSettings("Local", server.base_url, stream=False))
    settings.put_profile(ModelProfileSettings("local-qwen", "Local", "qwen3:8b", context_length=32_768))
    settings.save()
    server.enqueue(Reply.chat("Peacekeeper.", "hmm", style="think"))
    assert main(["provider", "test", "local-qwen", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "Peacekeeper." in out
    assert "reasoning/text:  3 / 12 chars" in out
    assert chat_requests(server)[-1].json["stream"] is False
    assert "authorization" not in chat_requests(server)[-1].headers


def test_provider_test_401_is_clear_error(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("REPLAYSAGE_API_KEY", KEY)
    server.enqueue(Reply.error(401, f"Incorrect API key provided: {KEY}"))
    assert main(["provider", "test", "--base-url", server.base_url, "--model", "m1"]) == 2
    captured = capsys.readouterr()
    assert "authentication failed" in captured.err
    assert "m1" in captured.err
    assert KEY not in captured.err + captured.out
    assert len(server.requests) == 1


def test_provider_test_needs_target(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["provider", "test"]) == 2
    assert "profile" in capsys.readouterr().err


def test_provider_list_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["provider", "list", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["profiles"][0]["name"] == "offline"
    assert doc["profiles"][0]["rule_based"] is True


def test_probe_library_call_reports_failure_without_raising(server: ScriptedServer) -> None:
    import asyncio

    from app.i18n import Lang
    from app.llm.events import StreamFailed
    from app.llm.probe import probe
    from tests.llm.conftest import make_provider

    server.enqueue(Reply.error(404, "The model `nope` does not exist", code="model_not_found"))
    seen: list[object] = []

    async def scenario() -> dict[str, Any]:
        provider = make_provider(server)
        try:
            return (await probe(provider, Lang.EN, on_event=seen.append)).to_json()
        finally:
            await provider.aclose()

    report = asyncio.run(scenario())
    assert report["ok"] is False
    assert report["error"]["kind"] == "not_found"
    assert report["error"]["status"] == 404
    assert isinstance(seen[-1], StreamFailed)
    assert server.requests[-1].json["max_tokens"] == 256
