"""Send one request of a stage and turn the provider's stream into pipeline events.

Retries of failed HTTP attempts are the provider client's job (the one place that decides retries); this
module only forwards deltas, keeps everything received, and records the request as it will be stored.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from app.errors import KnownError
from app.llm.base import ChatMessage, ChatProvider, ChatRequest
from app.llm.events import Finished, Outcome, ReasoningDelta, Retrying, StreamFailed, TextDelta, UsageReport
from app.llm.stage import StageInfo
from app.pipeline import events as ev
from app.pipeline.repository import RequestLog

Emit = Callable[[ev.PipelineEvent], None]


@dataclass(slots=True)
class RequestOutcome:
    """What one request produced.

    Attributes:
        text: every answer delta received (also when interrupted).
        reasoning: every reasoning delta received.
        usage: the server's usage report, if any.
        finished: the terminal event when the reply ended (possibly interrupted), else None.
        error: the failure: before any content (nothing shown) or after (interrupted).
        log: the request as stored.
    """

    text: str = ""
    reasoning: str = ""
    usage: UsageReport | None = None
    finished: Finished | None = None
    failed: StreamFailed | None = None
    error: KnownError | None = None
    log: RequestLog = field(default_factory=lambda: RequestLog("initial", []))

    @property
    def outcome(self) -> Outcome:
        """How the reply ended; a request refused before sending, or a stream without an end, is an error."""
        if self.finished is not None:
            return self.finished.outcome
        return self.failed.outcome if self.failed is not None else Outcome.ERROR

    @property
    def ok(self) -> bool:
        """True when the model ended its reply by itself (not cut, stalled, truncated) with some text."""
        return self.outcome is Outcome.STOP and bool(self.text.strip())

    @property
    def truncated(self) -> bool:
        """True when the output limit cut the reply."""
        return self.finished is not None and self.finished.truncated


async def send(
    provider: ChatProvider,
    messages: list[ChatMessage],
    *,
    stage: ev.StageRef,
    purpose: str,
    emit: Emit,
    max_tokens: int | None,
    breakdown: dict[str, int],
    revision: bool = False,
    price: Callable[[UsageReport], float] | None = None,
    info: StageInfo | None = None,
) -> RequestOutcome:
    """Stream one request, emitting deltas, retries and usage; never raises for provider failures.

    ``info`` states which stage the request belongs to (for rule-based providers; never sent).
    """
    request = ChatRequest(messages=tuple(messages), max_tokens=max_tokens, tag=stage.key, stage=info)
    out = RequestOutcome(log=RequestLog(purpose, [m.to_json() for m in messages], dict(breakdown)))
    text: list[str] = []
    reasoning: list[str] = []
    started = time.monotonic()
    async with provider.stream(request) as stream:
        async for event in stream:
            match event:
                case TextDelta(text=t):
                    text.append(t)
                    emit(ev.TextDelta(stage, t, revision))
                case ReasoningDelta(text=t):
                    reasoning.append(t)
                    emit(ev.ReasoningDelta(stage, t))
                case UsageReport():
                    out.usage = event
                case Finished():
                    out.finished = event
                    out.error = event.error
                case StreamFailed(error=error):
                    out.failed = event
                    out.error = error
                case Retrying():
                    emit(ev.RetryScheduled(stage, event.attempt, event.max_attempts, event.delay_s, event.error.short))
    out.text = "".join(text)
    out.reasoning = "".join(reasoning)
    log = out.log
    log.duration_seconds = time.monotonic() - started
    if out.usage is not None:
        log.usage = dict(out.usage.raw) or {
            "prompt_tokens": out.usage.prompt_tokens,
            "completion_tokens": out.usage.completion_tokens,
        }
    if out.finished is not None:
        log.ttft_seconds = out.finished.ttft_s
        log.tokens_per_second = out.finished.tokens_per_s
        log.resolved_model = out.finished.resolved_model
        log.finish_reason = out.finished.reason
    if out.error is not None:
        log.error = str(out.error)
    if out.usage is not None:
        u = out.usage
        emit(
            ev.UsageUpdated(
                stage,
                u.prompt_tokens,
                u.completion_tokens,
                u.reasoning_tokens,
                u.cached_prompt_tokens,
                log.ttft_seconds,
                log.tokens_per_second,
                price(u) if price else None,
                log.resolved_model,
            )
        )
    return out
