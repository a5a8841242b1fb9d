"""Presets of common OpenAI-compatible endpoints for the settings dialog (hosted services and local servers).

A preset only fills the forms: every value stays editable, and nothing is saved until the user saves or presses
OK. Context lengths are the models' published windows at the time of writing (local servers: the usual default
of the server's recommended models); check your model's card when it matters.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Preset:
    """One endpoint and a model it serves.

    Attributes:
        label: shown in the preset picker.
        provider: provider name the form gets.
        base_url: the OpenAI-compatible base URL (``/chat/completions`` is appended).
        model_id: model id sent to the endpoint.
        context_length: the model's context window in tokens.
        max_tokens: a sensible output limit.
        reasoning: the model emits reasoning text.
    """

    label: str
    provider: str
    base_url: str
    model_id: str
    context_length: int
    max_tokens: int = 8192
    reasoning: bool = False


PRESETS: tuple[Preset, ...] = (
    Preset("DeepSeek · deepseek-chat (128K)", "DeepSeek", "https://api.deepseek.com/v1", "deepseek-chat", 128_000),
    Preset(
        "DeepSeek · deepseek-reasoner (128K)",
        "DeepSeek",
        "https://api.deepseek.com/v1",
        "deepseek-reasoner",
        128_000,
        16_000,
        True,
    ),
    Preset("OpenAI · gpt-4.1 (1M)", "OpenAI", "https://api.openai.com/v1", "gpt-4.1", 1_047_576),
    Preset("OpenAI · gpt-4o-mini (128K)", "OpenAI", "https://api.openai.com/v1", "gpt-4o-mini", 128_000),
    Preset(
        "Qwen (DashScope) · qwen-plus (128K)",
        "DashScope",
        "https://dashscope.aliyuncs.com/compatible-mode/v1",
        "qwen-plus",
        131_072,
    ),
    Preset("Moonshot · kimi-k2 (128K)", "Moonshot", "https://api.moonshot.cn/v1", "kimi-k2-0711-preview", 131_072),
    Preset(
        "OpenRouter · any model (set its context)",
        "OpenRouter",
        "https://openrouter.ai/api/v1",
        "deepseek/deepseek-chat",
        128_000,
    ),
    Preset("Ollama (local) · qwen2.5 (32K)", "Ollama", "http://127.0.0.1:11434/v1", "qwen2.5:14b", 32_768),
    Preset("LM Studio (local) (32K)", "LM Studio", "http://127.0.0.1:1234/v1", "local-model", 32_768),
    Preset("llama.cpp server (local) (32K)", "llama.cpp", "http://127.0.0.1:8080/v1", "local-model", 32_768),
    Preset("vLLM (local) (128K)", "vLLM", "http://127.0.0.1:8000/v1", "local-model", 131_072),
)
"""The presets in picker order: hosted services first, then local servers."""
