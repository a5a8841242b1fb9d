"""A reply of an OpenAI-compatible endpoint as events: deltas, ``<think>`` text, usage and the finish.

Why a module: decoding is the same for a stream and a whole JSON reply, and none of it depends on HTTP.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app import jsonlimits
from app.llm.errors import (
    NetworkError,
    ProtocolError,
    ProviderError,
)
from app.llm.events import (
    Finished,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    UsageReport,
)
from app.llm.openai_errors import ErrorReader
from app.llm.sse import ThinkSplitter
from app.safetext import storable_text


def usage_from_json(usage: Mapping[str, Any]) -> UsageReport:
    """Normalise a usage object (OpenAI and DeepSeek names); keep the whole object as ``raw``."""

    def num(value: Any) -> int:
        return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0

    prompt_details = usage.get("prompt_tokens_details")
    completion_details = usage.get("completion_tokens_details")
    cached = 0
    if isinstance(prompt_details, Mapping):
        cached = num(prompt_details.get("cached_tokens"))
    if not cached:
        cached = num(usage.get("prompt_cache_hit_tokens"))
    reasoning = 0
    if isinstance(completion_details, Mapping):
        reasoning = num(completion_details.get("reasoning_tokens"))
    if not reasoning:
        reasoning = num(usage.get("reasoning_tokens"))
    prompt = num(usage.get("prompt_tokens"))
    if not prompt and ("prompt_cache_hit_tokens" in usage or "prompt_cache_miss_tokens" in usage):
        prompt = num(usage.get("prompt_cache_hit_tokens")) + num(usage.get("prompt_cache_miss_tokens"))
    return UsageReport(
        prompt_tokens=prompt,
        completion_tokens=num(usage.get("completion_tokens")),
        reasoning_tokens=reasoning,
        cached_prompt_tokens=cached,
        raw=dict(usage),
    )


@dataclass(slots=True)
class Progress:
    """Mutable state of one request across its attempts."""

    started: float = field(default_factory=time.monotonic)
    attempts: int = 0
    stalled: int = 0
    delivered: int = 0
    first_delta_at: float | None = None
    attempt_sent_at: float = 0.0
    finish_reason: str | None = None
    done_seen: bool = False
    resolved_model: str = ""
    usage: Mapping[str, Any] | None = None
    think: ThinkSplitter = field(default_factory=ThinkSplitter)
    content_ended: bool = False
    last_delta_at: float | None = None


def _split(parts: list[tuple[bool, str]]) -> list[StreamEvent]:
    return [ReasoningDelta(t) if is_reasoning else TextDelta(t) for is_reasoning, t in parts]


def _status_of(obj: Mapping[str, Any]) -> int | None:
    err = obj.get("error")
    if isinstance(err, Mapping):
        for key in ("status", "code"):
            value = err.get(key)
            if isinstance(value, int) and 100 <= value < 600:
                return value
            if isinstance(value, str) and value.isdigit() and 100 <= int(value) < 600:
                return int(value)
    return None


class ReplyDecoder:
    """Turns a reply's payloads (SSE ``data:`` or one JSON body) into :mod:`app.llm.events`, tracking its progress.

    Args:
        name: the provider's display name (in protocol errors).
        model: the model id (in protocol errors).
        errors: how an error object in the reply becomes a typed error.
    """

    def __init__(self, name: str, model: str, errors: ErrorReader) -> None:
        self._name = name
        self._model = model
        self._errors = errors

    def incomplete_error(self, prog: Progress) -> ProviderError | None:
        """A stream that ended with neither ``[DONE]`` nor a finish reason was cut off."""
        if prog.done_seen or prog.finish_reason is not None:
            return None
        return NetworkError(self._name, self._model, "the stream ended before the reply was complete")

    def finished(self, prog: Progress, error: ProviderError | None = None) -> Finished:
        """The terminal event of a request: why it ended, its speed, and the error that interrupted it, if any."""
        end = time.monotonic()
        ttft = tps = None
        if prog.first_delta_at is not None:
            ttft = prog.first_delta_at - prog.attempt_sent_at
            span = end - prog.first_delta_at
            count = 0
            if prog.usage is not None and error is None:
                count = usage_from_json(prog.usage).completion_tokens
            if not count:
                count = prog.delivered
            if span > 0 and count > 1:
                tps = count / span
        reason = prog.finish_reason or "unknown"
        if error is not None:
            reason = "interrupted"
        return Finished(
            reason=reason,
            truncated=prog.finish_reason == "length",
            interrupted=error is not None,
            ttft_s=ttft,
            tokens_per_s=tps,
            resolved_model=prog.resolved_model,
            error=error,
            attempts=prog.attempts,
            elapsed_s=end - prog.started,
        )

    def handle_data(self, data: str, prog: Progress, *, at_eof: bool = False) -> list[StreamEvent]:
        """Events of one ``data:`` payload."""
        if data.strip() == "[DONE]":
            prog.done_seen = True
            return self.end_of_content(prog)
        try:
            obj = jsonlimits.loads(data)
        except ValueError as exc:
            if at_eof:  # a payload cut by the connection closing: the stream was interrupted
                raise NetworkError(self._name, self._model, "the stream was cut inside an event") from exc
            raise ProtocolError(
                self._name, self._model, f"malformed SSE data: {self._errors.scrub(data[:80])!r}"
            ) from exc
        if not isinstance(obj, Mapping):
            raise ProtocolError(
                self._name, self._model, f"SSE data is not a JSON object: {self._errors.scrub(data[:80])!r}"
            )
        if obj.get("error") is not None:
            raise self._errors.from_object(obj, _status_of(obj))
        return self._chunk_events(obj, prog)

    def _chunk_events(self, obj: Mapping[str, Any], prog: Progress) -> list[StreamEvent]:
        """Deltas of one chunk object; records model, finish reason and usage."""
        model = obj.get("model")
        if isinstance(model, str) and model:
            prog.resolved_model = storable_text(model)
        usage = obj.get("usage")
        if isinstance(usage, Mapping):
            prog.usage = usage
        out: list[StreamEvent] = []
        choices = obj.get("choices")
        if not isinstance(choices, list):
            return out
        for choice in choices:
            if not isinstance(choice, Mapping) or choice.get("index", 0) not in (0, None):
                continue
            delta = choice.get("delta")
            if delta is None:
                delta = choice.get("message")  # some servers stream whole messages
            if isinstance(delta, Mapping):
                reasoning = delta.get("reasoning_content")
                if reasoning is None:
                    reasoning = delta.get("reasoning")  # OpenRouter / vLLM name
                # a reply's text is made storable here, where it is decoded, once for every store after it
                if isinstance(reasoning, str) and reasoning:
                    out.append(ReasoningDelta(storable_text(reasoning)))
                content = delta.get("content")
                if isinstance(content, str) and content:
                    out.extend(_split(prog.think.feed(storable_text(content))))
            reason = choice.get("finish_reason")
            if isinstance(reason, str) and reason:
                prog.finish_reason = reason
        self._count(out, prog)
        return out

    def end_of_content(self, prog: Progress) -> list[StreamEvent]:
        """Flush held-back ``<think>`` text and report usage once (at ``[DONE]`` or EOF)."""
        if prog.content_ended:
            return []
        prog.content_ended = True
        out: list[StreamEvent] = list(_split(prog.think.close()))
        self._count(out, prog)
        if prog.usage is not None:
            out.append(usage_from_json(prog.usage))
        return out

    @staticmethod
    def _count(events: list[StreamEvent], prog: Progress) -> None:
        n = sum(1 for e in events if isinstance(e, TextDelta | ReasoningDelta))
        if n:
            prog.last_delta_at = time.monotonic()
            if prog.first_delta_at is None:
                prog.first_delta_at = prog.last_delta_at
        prog.delivered += n

    def from_completion(self, body: bytes, prog: Progress) -> list[StreamEvent]:
        """Events of a non-streamed reply (``stream: false``), the same types as a stream."""
        try:
            obj = jsonlimits.loads(body.decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise ProtocolError(self._name, self._model, "the response is not valid JSON") from exc
        if not isinstance(obj, Mapping):
            raise ProtocolError(self._name, self._model, "the response is not a JSON object")
        if obj.get("error") is not None:
            raise self._errors.from_object(obj, _status_of(obj))
        if not isinstance(obj.get("choices"), list):
            raise ProtocolError(self._name, self._model, "the response has no choices")
        events = self._chunk_events(obj, prog)
        prog.done_seen = True
        return events + self.end_of_content(prog)
