"""What context a model server really runs with (issue 31): read from the server, compared with the profile.

A profile says 128K, but a local server often runs with less: Ollama uses a few thousand tokens unless ``num_ctx``
is set, llama.cpp its ``--ctx-size``, vLLM its ``--max-model-len``, LM Studio the length the model was loaded
with. Each says so in its own place, all read here with plain GETs/POSTs (no chat request, nothing billed):

* ``GET {base}/models`` — OpenAI-style list. vLLM puts ``max_model_len`` on each model, OpenRouter and several
  hosted gateways ``context_length``, LM Studio (v0 REST) ``loaded_context_length`` / ``max_context_length``,
  llama.cpp's server ``meta.n_ctx_train`` (what the model was trained for, not what the server runs with).
* ``GET {root}/props`` — llama.cpp's server: ``default_generation_settings.n_ctx`` (or ``n_ctx``), the running
  context.
* ``POST {root}/api/show`` with ``{"model": id}`` — Ollama: ``parameters`` holds ``num_ctx N`` when the model file
  sets it, ``model_info`` holds ``<arch>.context_length`` (the model's own maximum). Without ``num_ctx`` Ollama runs
  with its default (2,048 or 4,096 tokens, more only with ``OLLAMA_CONTEXT_LENGTH``), which is what the warning says.
* ``GET {root}/api/v0/models/{id}`` — LM Studio: ``loaded_context_length`` of a loaded model, else
  ``max_context_length``.
* A refused request: OpenAI-style errors state the limit ("maximum context length is N", see
  :func:`app.llm.errors.context_limit_in`).

``{root}`` is the base URL without a trailing ``/v1``. The first place that states the running context wins; a
model's trained maximum is kept apart (it is what the server *could* run with).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from app.i18n import Lang, tr

GetJson = Callable[[str], Awaitable[Any]]
"""GET a URL, return its parsed JSON (None when it is missing, not JSON or an error)."""
PostJson = Callable[[str, Mapping[str, Any]], Awaitable[Any]]
"""POST JSON to a URL, return its parsed JSON (None when it is missing, not JSON or an error)."""

_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class ServerContext:
    """The context a server reports for one model.

    Attributes:
        context_length: Tokens the server accepts per request (prompt + output) as it runs now; None = not stated.
        source: Where that number came from (``/v1/models max_model_len``, ``Ollama /api/show num_ctx``…).
        trained_length: The model's own maximum where the server states it apart (Ollama ``model_info``,
            llama.cpp ``n_ctx_train``, LM Studio ``max_context_length``); None = not stated.
        ollama_default: An Ollama model without ``num_ctx``: the server runs it with its small default.
    """

    context_length: int | None
    source: str
    trained_length: int | None = None
    ollama_default: bool = False

    def to_json(self) -> dict[str, Any]:
        """Stable JSON form."""
        return {
            "context_length": self.context_length,
            "source": self.source,
            "trained_context_length": self.trained_length,
            "ollama_default": self.ollama_default,
        }


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and value > 0:
        return value
    if isinstance(value, str) and value.strip().isdigit() and int(value) > 0:
        return int(value)
    return None


def root_url(base_url: str) -> str:
    """The server's root: the base URL without a trailing ``/v1`` (Ollama, llama.cpp and LM Studio APIs live there)."""
    url = base_url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


def from_models_list(doc: Any, model: str) -> ServerContext | None:
    """The context the ``/models`` list states for ``model`` (the only listed model when none matches)."""
    if not isinstance(doc, Mapping):
        return None
    items = doc.get("data")
    if not isinstance(items, list):
        items = doc.get("models")  # LM Studio v1 REST
    if not isinstance(items, list):
        return None
    entries = [e for e in items if isinstance(e, Mapping)]
    match = [e for e in entries if model in (e.get("id"), e.get("key"), e.get("name"), e.get("model"))]
    if not match and len(entries) == 1:
        match = entries
    if not match:
        return None
    e = match[0]
    raw_meta = e.get("meta")
    meta: Mapping[str, Any] = raw_meta if isinstance(raw_meta, Mapping) else {}
    trained = _int(e.get("max_context_length")) or _int(meta.get("n_ctx_train"))
    for key in ("max_model_len", "loaded_context_length", "context_length", "context_window"):
        value = _int(e.get(key))
        if value is not None:
            return ServerContext(value, f"/v1/models {key}", trained)
    if _int(meta.get("n_ctx")) is not None:
        return ServerContext(_int(meta.get("n_ctx")), "/v1/models meta.n_ctx", trained)
    if trained is not None:
        return ServerContext(None, "/v1/models", trained)
    return None


def from_llamacpp_props(doc: Any) -> int | None:
    """llama.cpp's running context from ``/props``."""
    if not isinstance(doc, Mapping):
        return None
    settings = doc.get("default_generation_settings")
    if isinstance(settings, Mapping) and _int(settings.get("n_ctx")) is not None:
        return _int(settings.get("n_ctx"))
    return _int(doc.get("n_ctx"))


def from_ollama_show(doc: Any) -> ServerContext | None:
    """Ollama's ``/api/show``: ``num_ctx`` from the parameters, the model's maximum from ``model_info``."""
    if not isinstance(doc, Mapping) or not ("model_info" in doc or "parameters" in doc or "modelfile" in doc):
        return None
    info = doc.get("model_info")
    trained = None
    if isinstance(info, Mapping):
        for key, value in info.items():
            if str(key).endswith(".context_length") and _int(value) is not None:
                trained = _int(value)
                break
    params = doc.get("parameters")
    match = _NUM_CTX.search(params) if isinstance(params, str) else None
    if match:
        return ServerContext(int(match.group(1)), "Ollama /api/show num_ctx", trained)
    return ServerContext(None, "Ollama /api/show", trained, ollama_default=True)


def from_lmstudio_model(doc: Any) -> ServerContext | None:
    """LM Studio's ``/api/v0/models/{id}``: the loaded length, else the model's maximum."""
    if not isinstance(doc, Mapping):
        return None
    loaded = _int(doc.get("loaded_context_length"))
    trained = _int(doc.get("max_context_length"))
    if loaded is not None:
        return ServerContext(loaded, "LM Studio /api/v0/models loaded_context_length", trained)
    if trained is not None:
        return ServerContext(trained, "LM Studio /api/v0/models max_context_length", trained)
    return None


async def read_server_context(
    base_url: str, model: str, get_json: GetJson, post_json: PostJson
) -> ServerContext | None:
    """Ask the server what context ``model`` runs with (see the module docstring); None when nothing says."""
    root = root_url(base_url)
    listed = from_models_list(await get_json(base_url.rstrip("/") + "/models"), model)
    if listed is not None and listed.context_length is not None:
        return listed
    trained = listed.trained_length if listed is not None else None
    n_ctx = from_llamacpp_props(await get_json(root + "/props"))
    if n_ctx is not None:
        return ServerContext(n_ctx, "llama.cpp /props n_ctx", trained)
    ollama = from_ollama_show(await post_json(root + "/api/show", {"model": model}))
    if ollama is not None:
        return ollama
    lmstudio = from_lmstudio_model(await get_json(f"{root}/api/v0/models/{model}"))
    if lmstudio is not None:
        return lmstudio
    return listed


def context_warning(server: ServerContext | None, profile_context: int | None, lang: Lang) -> str:
    """The warning when the server runs with less than the profile says ("" when it does not, or nothing is known)."""
    if server is None or not profile_context:
        return ""
    if server.ollama_default:
        known = f" ({server.trained_length:,})" if server.trained_length else ""
        return tr(
            lang,
            "Ollama sets no num_ctx for this model: it runs with its default of a few thousand "
            "tokens, not the profile's {profile_context:,}. Set PARAMETER num_ctx in the Modelfile "
            "(the model's maximum{known}) or start Ollama with OLLAMA_CONTEXT_LENGTH, and set the "
            "profile's context_length to the same number.",
            profile_context=profile_context,
            known=known,
        )
    if server.context_length is not None and server.context_length < profile_context:
        n = server.context_length
        return tr(
            lang,
            "the server reports a context of {n:,} tokens ({source}), below the profile's "
            "context_length {profile_context:,}: requests above {n:,} will be refused. Set "
            "context_length to {n:,}, or give the server a larger context.",
            n=n,
            source=server.source,
            profile_context=profile_context,
        )
    return ""
