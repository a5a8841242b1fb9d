"""One short probe request to check that an endpoint works (``replaysage provider test`` and the settings page).

It reports what a user needs to judge an endpoint: did it answer, how fast the first token came, tokens per
second, the usage the server reports and how the reply split between reasoning and text — and, through
:func:`check_connection` (the one function ``provider test`` and the settings page's Test connection share), the
context the server really runs with, with a warning when it is below the profile's (issue 31).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.i18n import Lang, pick
from app.llm.base import ChatProvider, ChatRequest
from app.llm.errors import BadRequestError, ContextOverflowError
from app.llm.events import ChatResult, StreamEvent
from app.llm.server_context import ServerContext, context_warning

PROBE_ZH = "用一句话回答：红色警戒3里盟军的基础步兵叫什么？"
PROBE_EN = "Answer in one sentence: what is the Allied basic infantry unit in Red Alert 3 called?"


@dataclass(frozen=True, slots=True)
class ProbeReport:
    """The outcome of a probe; :meth:`to_json` is the stable ``--json`` document."""

    provider: str
    model: str
    rule_based: bool
    result: ChatResult
    server_context: ServerContext | None = None
    profile_context: int | None = None
    lang: Lang = Lang.EN

    @property
    def context_warning(self) -> str:
        """Why the server's real context is below the profile's ("" when it is not, or nothing is known)."""
        return context_warning(self.server_context, self.profile_context, self.lang)

    @property
    def ok(self) -> bool:
        """True when the endpoint answered completely."""
        return self.result.ok

    def to_json(self) -> dict[str, Any]:
        """Stable, machine-readable form (keys never change meaning)."""
        r = self.result
        fin = r.finished
        usage = r.usage
        error = r.error
        return {
            "ok": r.ok,
            "provider": self.provider,
            "model": self.model,
            "rule_based": self.rule_based,
            "resolved_model": fin.resolved_model if fin else "",
            "finish_reason": fin.reason if fin else None,
            "truncated": bool(fin and fin.truncated),
            "interrupted": bool(fin and fin.interrupted),
            "attempts": fin.attempts if fin else (r.failed.attempts if r.failed else 0),
            "ttft_s": round(fin.ttft_s, 4) if fin and fin.ttft_s is not None else None,
            "tokens_per_s": round(fin.tokens_per_s, 2) if fin and fin.tokens_per_s is not None else None,
            "elapsed_s": round(fin.elapsed_s, 4) if fin else None,
            "text_chars": len(r.text),
            "reasoning_chars": len(r.reasoning),
            "text_deltas": r.text_deltas,
            "reasoning_deltas": r.reasoning_deltas,
            "text": r.text,
            "usage": None
            if usage is None
            else {
                "prompt_tokens": usage.prompt_tokens,
                "completion_tokens": usage.completion_tokens,
                "reasoning_tokens": usage.reasoning_tokens,
                "cached_prompt_tokens": usage.cached_prompt_tokens,
                "raw": dict(usage.raw),
            },
            "error": None if error is None else {"kind": error.kind, "status": error.status, "message": str(error)},
            "profile_context_length": self.profile_context,
            "server_context": None if self.server_context is None else self.server_context.to_json(),
            "context_warning": self.context_warning or None,
        }


def probe_request(lang: Lang, *, max_tokens: int = 256, stream: bool | None = None) -> ChatRequest:
    """The probe question (short; ``max_tokens`` leaves reasoning models room to think)."""
    request = ChatRequest.simple(pick(lang, PROBE_ZH, PROBE_EN), max_tokens=max_tokens)
    return ChatRequest(request.messages, max_tokens=max_tokens, stream=stream, tag="probe")


async def probe(
    provider: ChatProvider,
    lang: Lang,
    *,
    max_tokens: int = 256,
    stream: bool | None = None,
    on_event: Callable[[StreamEvent], None] | None = None,
) -> ProbeReport:
    """Send the probe through ``provider`` (not closed here) and report; never raises for provider failures."""
    result = ChatResult()
    async with provider.stream(probe_request(lang, max_tokens=max_tokens, stream=stream)) as events:
        async for event in events:
            result.add(event)
            if on_event is not None:
                on_event(event)
    return ProbeReport(provider.name, provider.model, bool(getattr(provider, "rule_based", False)), result)


async def check_connection(
    provider: ChatProvider,
    lang: Lang,
    *,
    profile_context: int | None = None,
    max_tokens: int = 256,
    stream: bool | None = None,
    on_event: Callable[[StreamEvent], None] | None = None,
) -> ProbeReport:
    """The probe plus the server's real context, compared with ``profile_context`` (the profile's context_length).

    The context comes from what the server reports (:meth:`server_context` of providers that have one), or from
    the probe's own refusal when it stated a limit. Never raises for provider failures.
    """
    report = await probe(provider, lang, max_tokens=max_tokens, stream=stream, on_event=on_event)
    server: ServerContext | None = None
    error = report.result.error
    if isinstance(error, ContextOverflowError) and error.context_limit is not None:
        server = ServerContext(error.context_limit, "the server's refusal")
    reader = getattr(provider, "server_context", None)
    answered = error is None or isinstance(error, ContextOverflowError | BadRequestError)  # not 401/404/unreachable
    if server is None and callable(reader) and not report.rule_based and answered:
        server = await reader()
    return ProbeReport(
        report.provider, report.model, report.rule_based, report.result, server, profile_context or None, lang
    )
