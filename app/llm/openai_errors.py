"""What went wrong with a request to an OpenAI-compatible endpoint, as a typed error without secrets."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import httpx

from app import jsonlimits
from app.llm.errors import (
    AuthError,
    BadRequestError,
    ContextOverflowError,
    ModelNotFoundError,
    NetworkError,
    ProviderError,
    RateLimitError,
    ServerError,
    StalledError,
)
from app.llm.openai_http import parse_retry_after
from app.logs import redact
from app.safetext import storable_text
from app.urls import UrlCredentials

_DETAIL_LIMIT = 300
_KEY_PATTERN = re.compile(r"\b(sk|key|api)[-_][A-Za-z0-9_\-*.]{6,}", re.IGNORECASE)
_CONTEXT_MARKERS = (
    "context_length_exceeded",
    "context length",
    "maximum context",
    "context window",
    "too many tokens",
    "prompt is too long",
    "input is too long",
    "reduce the length",
    "context size",
    "exceed_context_size",
)
_TERMINAL_QUOTA_MARKERS = ("insufficient_quota", "billing", "exceeded your current quota", "insufficient balance")


class ErrorReader:
    """Turns what a server said went wrong into typed :mod:`app.llm.errors`, with keys and URL secrets removed.

    Args:
        name: the provider's display name (in every error).
        model: the model id (in every error).
        api_key: the bearer token, scrubbed from server texts (servers echo keys in 401 messages).
        url_credentials: the URL's secrets, scrubbed the same way.
    """

    def __init__(self, name: str, model: str, api_key: str | None, url_credentials: UrlCredentials) -> None:
        self._name = name
        self._model = model
        self._api_key = api_key
        self._url_credentials = url_credentials

    def scrub(self, text: str) -> str:
        """Trim a server message and remove anything that looks like a key (servers echo keys in 401 texts)."""
        if self._api_key:
            text = text.replace(self._api_key, "***")
        for secret in self._url_credentials.secrets():
            text = text.replace(secret, "***")
        text = redact(text)
        text = _KEY_PATTERN.sub(lambda m: m.group(1) + "-***", text)
        text = storable_text(" ".join(text.split()))
        return text[:_DETAIL_LIMIT] + ("…" if len(text) > _DETAIL_LIMIT else "")

    def from_object(self, obj: Any, status: int | None, retry_after: float | None = None) -> ProviderError:
        """Map a status and an error object (``{"error": {...}}`` or a string) to the right error type."""
        message, code = "", ""
        err = obj.get("error", obj) if isinstance(obj, Mapping) else obj
        if isinstance(err, Mapping):
            message = str(err.get("message") or err.get("detail") or "")
            code = " ".join(str(err.get(k) or "") for k in ("code", "type")).strip()
            if not message:
                message = json.dumps(dict(err), ensure_ascii=False)
            if isinstance(err.get("n_ctx"), int):  # llama.cpp server states its context beside the message
                message += f" (n_ctx {err['n_ctx']})"
        elif err is not None:
            message = str(err)
        detail = self.scrub(f"{message} [{code}]" if code else message) or "no details"
        haystack = f"{message} {code}".lower()
        args = (self._name, self._model, detail)
        if status in (401, 403):
            return AuthError(*args, status=status)
        if status == 404:
            return ModelNotFoundError(*args, status=status)
        if status == 429 or "rate_limit" in haystack or "rate limit" in haystack:
            terminal = any(m in haystack for m in _TERMINAL_QUOTA_MARKERS)
            return RateLimitError(*args, status=status, retryable=not terminal, retry_after_s=retry_after)
        if any(m in haystack for m in _CONTEXT_MARKERS):
            return ContextOverflowError(*args, status=status)
        if status is not None and (status in (408, 409) or status >= 500):
            return ServerError(*args, status=status, retry_after_s=retry_after)
        if status is not None and 400 <= status < 500:
            return BadRequestError(*args, status=status)
        return ServerError(*args, status=status, retry_after_s=retry_after)

    def from_response(self, response: httpx.Response, body: bytes) -> ProviderError:
        """The error of a response with status >= 400, from its body (JSON or text) and ``Retry-After``."""
        retry_after = parse_retry_after(response.headers)
        try:
            obj: Any = jsonlimits.loads(body.decode("utf-8", "replace"))
        except ValueError:
            text = body.decode("utf-8", "replace").strip()
            obj = {"error": {"message": text or response.reason_phrase}}
        return self.from_object(obj, response.status_code, retry_after)

    def network(self, exc: httpx.HTTPError) -> NetworkError:
        """A transport failure, named by its type, with nothing secret in it."""
        kind = type(exc).__name__
        return NetworkError(self._name, self._model, self.scrub(f"{kind}: {exc}" if str(exc) else kind))

    def stalled(self, why: str) -> StalledError:
        """The attempt passed a deadline (``why`` says which)."""
        return StalledError(self._name, self._model, why)
