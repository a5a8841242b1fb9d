"""Typed events of one streamed model reply: what the pipeline, the CLI and the UI consume.

A stream yields any number of :class:`TextDelta` / :class:`ReasoningDelta` (and :class:`Retrying` before the
first delta), at most one :class:`UsageReport`, and ends with exactly one terminal event:

* :class:`Finished` — the reply ended. ``interrupted`` is True when the connection broke or the server sent an
  error *after* content arrived: everything received was delivered and is kept, ``error`` says why, and the
  consumer may offer a regenerate. ``truncated`` is True for ``finish_reason == "length"``.
* :class:`StreamFailed` — the request failed before any delta was delivered (after the allowed retries, or at
  once for 401/403/404/400). Nothing was shown, so nothing is lost.

Consumers never parse JSON; they ``match`` on these frozen dataclasses. A consumer that stops early (user pressed
Stop) must close the stream (``await stream.aclose()`` or ``async with stream``); no terminal event follows then.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.llm.errors import ProviderError, StalledError

NORMAL_FINISH_REASONS = frozenset({"stop", "eos", "end_turn", "stop_sequence", "unknown"})
"""Finish reasons of a reply that ended by itself (``unknown``: the server sent ``[DONE]`` without a reason)."""


class Outcome(enum.StrEnum):
    """How a reply ended. Only :attr:`STOP` is a finished answer; every other outcome leaves its stage resumable."""

    STOP = "stop"  # the model ended its answer
    LENGTH = "length"  # the output limit cut it
    CUT = "cut"  # the connection broke after content
    STALLED = "stalled"  # a deadline passed (no first token, no content for too long, too long a reply)
    ERROR = "error"  # the request failed (HTTP error, refused connection, invalid reply, content filter)
    CANCELLED = "cancelled"  # the user or the run deadline stopped it


def outcome_of_error(error: BaseException | None) -> Outcome:
    """The outcome a failure stands for: stalled for a passed deadline, else error."""
    return Outcome.STALLED if isinstance(error, StalledError) else Outcome.ERROR


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of the answer text, in arrival order (``<think>`` sections already split off)."""

    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """A piece of reasoning ("thinking") text: shown and counted, never sent back to the model."""

    text: str


@dataclass(frozen=True, slots=True)
class UsageReport:
    """Token usage reported by the server (OpenAI and DeepSeek field names normalised).

    Attributes:
        prompt_tokens: input tokens billed.
        completion_tokens: output tokens, reasoning included (as the servers report it).
        reasoning_tokens: the reasoning part of ``completion_tokens`` (``completion_tokens_details.reasoning_tokens``);
            0 when the server does not say.
        cached_prompt_tokens: input tokens served from the prompt cache (``prompt_tokens_details.cached_tokens`` or
            DeepSeek's ``prompt_cache_hit_tokens``).
        raw: the whole usage object as received, stored verbatim.
    """

    prompt_tokens: int
    completion_tokens: int
    reasoning_tokens: int = 0
    cached_prompt_tokens: int = 0
    raw: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Retrying:
    """A failed attempt (before any content) will be retried after ``delay_s`` seconds; for a status line."""

    attempt: int
    delay_s: float
    error: ProviderError
    max_attempts: int = 0


@dataclass(frozen=True, slots=True)
class Finished:
    """The reply ended (terminal event).

    Attributes:
        reason: the server's ``finish_reason`` (``stop``, ``length``, ``content_filter``…), ``interrupted`` when the
            stream broke after content, or ``unknown`` when the stream ended without one.
        truncated: True when the output limit cut the reply (``finish_reason == "length"``).
        interrupted: True when the stream broke after content; ``error`` holds the cause.
        ttft_s: seconds from sending the request (last attempt) to the first delta, None if none arrived.
        tokens_per_s: completion tokens per second after the first delta (from usage, else from the delta count),
            None when it cannot be measured.
        resolved_model: the model id the server says it used (may differ from the requested alias).
        error: the failure behind ``interrupted``, else None.
        attempts: number of HTTP attempts made (1 without retries).
        elapsed_s: seconds from the first attempt to the end.
    """

    reason: str
    truncated: bool = False
    interrupted: bool = False
    ttft_s: float | None = None
    tokens_per_s: float | None = None
    resolved_model: str = ""
    error: ProviderError | None = None
    attempts: int = 1
    elapsed_s: float = 0.0

    @property
    def outcome(self) -> Outcome:
        """How the reply ended (see :class:`Outcome`)."""
        if self.interrupted:
            return Outcome.STALLED if isinstance(self.error, StalledError) else Outcome.CUT
        if self.truncated:
            return Outcome.LENGTH
        return Outcome.STOP if self.reason in NORMAL_FINISH_REASONS else Outcome.ERROR


@dataclass(frozen=True, slots=True)
class StreamFailed:
    """The request failed before any delta was delivered (terminal event).

    Attributes:
        error: what failed; its message names provider and model, never the key.
        attempts: number of HTTP attempts made.
    """

    error: ProviderError
    attempts: int = 1

    @property
    def outcome(self) -> Outcome:
        """Stalled when a deadline passed, else error."""
        return outcome_of_error(self.error)


StreamEvent = TextDelta | ReasoningDelta | UsageReport | Retrying | Finished | StreamFailed
"""Every event a :class:`~app.llm.base.ChatProvider` stream can yield."""


@dataclass(slots=True)
class ChatResult:
    """Everything one stream delivered, accumulated (see :func:`app.llm.base.collect`).

    ``text`` and ``reasoning`` hold every delta received, also when the stream was interrupted.
    """

    usage: UsageReport | None = None
    finished: Finished | None = None
    failed: StreamFailed | None = None
    text_deltas: int = 0
    reasoning_deltas: int = 0
    _text: list[str] = field(default_factory=list, repr=False)
    _reasoning: list[str] = field(default_factory=list, repr=False)

    @property
    def text(self) -> str:
        """The answer text received (joined lazily: appending thousands of deltas stays linear)."""
        return "".join(self._text)

    @property
    def reasoning(self) -> str:
        """The reasoning text received."""
        return "".join(self._reasoning)

    @property
    def ok(self) -> bool:
        """True when the reply ended normally (not failed, not interrupted)."""
        return self.finished is not None and not self.finished.interrupted

    @property
    def outcome(self) -> Outcome:
        """How the reply ended (error when the stream ended with no terminal event)."""
        if self.finished is not None:
            return self.finished.outcome
        return self.failed.outcome if self.failed is not None else Outcome.ERROR

    @property
    def error(self) -> ProviderError | None:
        """The failure, whether before content (failed) or after (interrupted), else None."""
        if self.failed is not None:
            return self.failed.error
        return self.finished.error if self.finished is not None else None

    def add(self, event: StreamEvent) -> None:
        """Fold one event into the result."""
        match event:
            case TextDelta(text=t):
                self._text.append(t)
                self.text_deltas += 1
            case ReasoningDelta(text=t):
                self._reasoning.append(t)
                self.reasoning_deltas += 1
            case UsageReport():
                self.usage = event
            case Finished():
                self.finished = event
            case StreamFailed():
                self.failed = event
            case Retrying():
                pass
