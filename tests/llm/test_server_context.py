"""``provider test`` reads the context a server really runs with (issue 31), from fake servers on 127.0.0.1.

Each fake answers in one server's format (the shapes of vLLM's, llama.cpp's, LM Studio's and Ollama's documented
responses, trimmed to the fields that matter plus a few neighbours), and the probe's chat request gets a normal
reply, so the context comes from the metadata endpoints — or, for the last case, from the refusal itself.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.cli import main
from tests.support.scripted_server import Reply, ScriptedServer

VLLM = {
    ("GET", "/v1/models"): {
        "object": "list",
        "data": [
            {
                "id": "Qwen/Qwen2.5-7B-Instruct",
                "object": "model",
                "owned_by": "vllm",
                "root": "Qwen/Qwen2.5-7B-Instruct",
                "parent": None,
                "max_model_len": 32768,
            }
        ],
    }
}
GATEWAY = {  # OpenRouter-style hosted list: context_length on each model
    ("GET", "/v1/models"): {
        "data": [{"id": "other/model", "context_length": 8192}, {"id": "m", "context_length": 131072}]
    }
}
LLAMACPP = {
    ("GET", "/v1/models"): {
        "object": "list",
        "data": [{"id": "m", "object": "model", "owned_by": "llamacpp", "meta": {"n_ctx_train": 131072, "n_vocab": 1}}],
    },
    ("GET", "/props"): {"default_generation_settings": {"n_ctx": 8192, "temperature": 0.8}, "total_slots": 1},
}
LMSTUDIO = {
    ("GET", "/v1/models"): {"data": [{"id": "m", "object": "model", "owned_by": "organization_owner"}]},
    ("GET", "/api/v0/models/m"): {
        "id": "m",
        "object": "model",
        "type": "llm",
        "state": "loaded",
        "max_context_length": 32768,
        "loaded_context_length": 4096,
    },
}
OLLAMA_SET = {
    ("GET", "/v1/models"): {"object": "list", "data": [{"id": "m", "object": "model", "owned_by": "library"}]},
    ("POST", "/api/show"): {
        "parameters": 'num_ctx                        16384\nstop                           "<|im_end|>"',
        "model_info": {"general.architecture": "qwen2", "qwen2.context_length": 32768},
    },
}
OLLAMA_DEFAULT = {
    ("GET", "/v1/models"): OLLAMA_SET[("GET", "/v1/models")],
    ("POST", "/api/show"): {
        "parameters": 'stop                           "<|im_end|>"',
        "model_info": {"general.architecture": "qwen2", "qwen2.context_length": 32768},
    },
}


def provider_test(
    capsys: pytest.CaptureFixture[str], server: ScriptedServer, model: str, context: int
) -> tuple[int, dict[str, Any], str]:
    argv = ["provider", "test", "--base-url", server.base_url, "--model", model, "--context-length", str(context)]
    code = main([*argv, "--json", "--lang", "en"])
    out = capsys.readouterr()
    data: dict[str, Any] = json.loads(out.out)
    return code, data, out.err


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REPLAYSAGE_API_KEY", "scripted-secret")


Routes = dict[tuple[str, str], Any]
CASES: dict[str, tuple[Routes, str, int, str, int | None]] = {
    "vllm": (VLLM, "Qwen/Qwen2.5-7B-Instruct", 32768, "/v1/models max_model_len", None),
    "llama.cpp": (LLAMACPP, "m", 8192, "llama.cpp /props n_ctx", 131072),
    "lmstudio": (LMSTUDIO, "m", 4096, "LM Studio /api/v0/models loaded_context_length", 32768),
    "ollama": (OLLAMA_SET, "m", 16384, "Ollama /api/show num_ctx", 32768),
}


@pytest.mark.parametrize("server_kind", list(CASES))
def test_each_servers_context_is_read_and_a_smaller_one_warned_about(
    capsys: pytest.CaptureFixture[str], server_kind: str
) -> None:
    routes, model, context, source, trained = CASES[server_kind]
    with ScriptedServer(default=Reply.chat("GI。"), json_routes=routes) as server:
        code, data, _err = provider_test(capsys, server, model, 128_000)
        chats = [r for r in server.requests if r.path.endswith("/chat/completions")]
    assert code == 0
    assert data["ok"]
    assert len(chats) == 1  # reading the context sends no chat request of its own
    assert data["server_context"] == {
        "context_length": context,
        "source": source,
        "trained_context_length": trained,
        "ollama_default": False,
    }
    assert data["profile_context_length"] == 128_000
    assert f"{context:,}" in data["context_warning"]
    assert "128,000" in data["context_warning"]


def test_a_larger_server_context_is_no_warning(capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedServer(default=Reply.chat("GI。"), json_routes=GATEWAY) as server:
        _code, data, err = provider_test(capsys, server, "m", 128_000)
    assert data["server_context"]["context_length"] == 131072
    assert data["server_context"]["source"] == "/v1/models context_length"
    assert data["context_warning"] is None
    assert "warning" not in err


def test_ollama_without_num_ctx_is_warned_about_its_default(capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedServer(default=Reply.chat("GI。"), json_routes=OLLAMA_DEFAULT) as server:
        _code, data, _err = provider_test(capsys, server, "m", 128_000)
    assert data["server_context"]["ollama_default"] is True
    assert data["server_context"]["context_length"] is None
    assert data["server_context"]["trained_context_length"] == 32768
    assert "num_ctx" in data["context_warning"]
    assert "32,768" in data["context_warning"]


def test_a_refusal_stating_the_limit_gives_the_context(capsys: pytest.CaptureFixture[str]) -> None:
    # The probe (a short question, max_tokens 256) does not fit a 200-token server: vLLM's refusal names the limit.
    with ScriptedServer(default=Reply.chat("GI。"), context_limit=200) as server:
        code, data, _err = provider_test(capsys, server, "m", 128_000)
        chats = [r for r in server.requests if r.path.endswith("/chat/completions")]
    assert code == 2
    assert len(chats) == 1  # a length refusal is never retried
    assert data["error"]["kind"] == "context_overflow"
    assert data["server_context"]["context_length"] == 200
    assert data["server_context"]["source"] == "the server's refusal"
    assert "200" in data["context_warning"]


def test_human_output_names_the_context_and_warns(capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedServer(default=Reply.chat("GI。"), json_routes=VLLM) as server:
        argv = ["provider", "test", "--base-url", server.base_url, "--model", "Qwen/Qwen2.5-7B-Instruct"]
        assert main([*argv, "--context-length", "128000", "--lang", "en"]) == 0
    out = capsys.readouterr()
    assert "server context:  32,768 (/v1/models max_model_len)" in out.out
    assert "warning:" in out.err
    assert "32,768" in out.err
