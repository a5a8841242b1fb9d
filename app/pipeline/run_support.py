"""What the parts of an analysis run share: its errors and their messages, hooks, totals, and text helpers.

Why a module: :mod:`app.pipeline.orchestrator` and the stage classes it is built from all need these, and they
need nothing from a run.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.budget.profile import ModelProfile
from app.budget.prompt import AssembledRequest
from app.claims.issues import ValidationIssue
from app.errors import KnownError
from app.i18n import Lang, pick, tr
from app.llm.base import ChatMessage
from app.llm.errors import ContextOverflowError
from app.llm.events import Outcome, UsageReport
from app.pipeline import events as ev
from app.pipeline.repository import (
    RequestLog,
)
from app.pipeline.streaming import RequestOutcome

FOUND_FACT_SENTENCES = 5
MAX_CORRECTIONS_PER_WINDOW = 10
"""Summary-round corrections kept per window (more become one Info issue): a reply is model output."""
ANALYSIS_EXCERPT_CHARS = 6_000
MIN_EXCERPT_CHARS = 300

Emit = Callable[[ev.PipelineEvent], None]


class ResumeMismatchError(KnownError):
    """A stored analysis no longer matches the plan, so it cannot be continued."""


class ContextRefusedError(KnownError):
    """The server refused a request for its length: the run stops, since every retry would be refused alike.

    Attributes:
        context_limit: The context length the server stated (None when it did not say).
        logs: The refused request, as stored with its stage.
    """

    def __init__(self, message: str, context_limit: int | None, logs: Sequence[RequestLog]) -> None:
        super().__init__(message)
        self.context_limit = context_limit
        self.logs = list(logs)


def context_refused_message(lang: Lang, error: ContextOverflowError, profile: ModelProfile, label: str) -> str:
    """Why the run stopped on a length refusal: the server's real limit and the setting that must change."""
    limit = error.context_limit
    servers_zh = "或在服务器上调大上下文（Ollama 的 num_ctx、llama.cpp 的 --ctx-size、vLLM 的 --max-model-len）"
    servers_en = "or give the server a larger context (Ollama num_ctx, llama.cpp --ctx-size, vLLM --max-model-len)"
    if limit is not None:
        return pick(
            lang,
            f"服务器因长度拒绝了请求（未重试）：它的上下文上限是 {limit:,} token，而模型配置 {label} 的 "
            f"context_length 是 {profile.context_length:,}。请把该配置的 context_length 改为 {limit:,}"
            f"（命令行：--context-length {limit}），{servers_zh}，然后重新分析。服务器原话：{error.detail}",
            f"the server refused a request for its length (not retried): its context is {limit:,} tokens, while "
            f"model profile {label} says context_length {profile.context_length:,}. Set that profile's "
            f"context_length to {limit:,} (command line: --context-length {limit}), {servers_en}, then analyse "
            f"again. The server said: {error.detail}",
        )
    return pick(
        lang,
        f"服务器因长度拒绝了请求（未重试），但没有说明它的上下文上限；模型配置 {label} 的 context_length 是 "
        f"{profile.context_length:,}。请用 `replaysage provider test` 查看服务器报告的上下文，把 context_length "
        f"调低到它（命令行：--context-length），{servers_zh}。服务器原话：{error.detail}",
        f"the server refused a request for its length (not retried) without stating its context; model profile "
        f"{label} says context_length {profile.context_length:,}. Run `replaysage provider test` to see the context "
        f"the server reports and lower context_length to it (command line: --context-length), {servers_en}. The "
        f"server said: {error.detail}",
    )


class ReplyIncompleteError(Exception):
    """A stage's reply did not end by itself (cut, stalled, truncated, failed): the stage stops, kept resumable."""

    def __init__(self, outcome: RequestOutcome, logs: Sequence[RequestLog]) -> None:
        super().__init__(outcome.outcome.value)
        self.outcome = outcome
        self.logs = list(logs)


def unfinished_outcome(outcome: RequestOutcome) -> Outcome:
    """The outcome to store for a reply that is not an answer: an empty reply that stopped is an error."""
    return Outcome.ERROR if outcome.outcome is Outcome.STOP else outcome.outcome


def incomplete_message(lang: Lang, outcome: RequestOutcome) -> str:
    """Why a reply is not an answer, naming the outcome and keeping the provider's own words."""
    cause = str(outcome.error) if outcome.error else ""
    n = len(outcome.text)
    match outcome.outcome:
        case Outcome.CUT:
            return tr(lang, "the reply was cut after {n} characters (partial text kept): {cause}", n=n, cause=cause)
        case Outcome.STALLED:
            return tr(lang, "the reply stalled ({n} characters kept): {cause}", n=n, cause=cause)
        case Outcome.LENGTH:
            return tr(lang, "the reply hit the output limit ({n} characters kept)", n=n)
        case _:
            return cause or tr(lang, "empty reply")


class RunHooks(Protocol):
    """Optional observers of a run (error wisdom, memory). Every method may be a no-op."""

    def instruction_extra(self, stage: ev.StageRef) -> str:
        """Extra text for a window instruction (e.g. known pitfalls of this model)."""
        ...

    def before_request(self, stage: ev.StageRef, params: dict[str, Any]) -> dict[str, Any]:
        """Check (and possibly fix) the parameters of a request before it is sent."""
        ...

    def after_request(self, stage: ev.StageRef, outcome: RequestOutcome) -> None:
        """Learn from a finished or failed request."""
        ...

    def after_validation(self, stage: ev.StageRef, issues: Sequence[ValidationIssue], text: str) -> None:
        """Learn from the validation issues of a stage's final text."""
        ...


@dataclass(slots=True)
class WindowState:
    """The conversation of one window: the assembled request plus what was appended to it."""

    request: AssembledRequest
    messages: list[ChatMessage]
    logs: list[RequestLog] = field(default_factory=list)
    outputs: list[tuple[str, str, str]] = field(default_factory=list)
    lookbacks: list[tuple[float, float, int, bool, str]] = field(default_factory=list)
    issues: list[tuple[ValidationIssue, bool]] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    truncated: bool = False


@dataclass(slots=True)
class RunTotals:
    """Token usage and cost summed over the run."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    cached_prompt_tokens: int = 0
    cost: float = 0.0
    requests: int = 0

    def add(self, usage: UsageReport | None, cost: float | None) -> None:
        """Fold in one request's usage."""
        self.requests += 1
        if usage is None:
            return
        self.prompt_tokens += usage.prompt_tokens
        self.completion_tokens += usage.completion_tokens
        self.reasoning_tokens += usage.reasoning_tokens
        self.cached_prompt_tokens += usage.cached_prompt_tokens
        self.cost += cost or 0.0

    def as_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "cached_prompt_tokens": self.cached_prompt_tokens,
            "cost": round(self.cost, 6),
            "requests": self.requests,
        }


def to_chat(messages: Sequence[dict[str, str]]) -> list[ChatMessage]:
    """An assembled request's messages as the provider takes them."""
    return [ChatMessage(m["role"], m["content"]) for m in messages]  # type: ignore[arg-type]


def breakdown_dict(req: AssembledRequest, budget: int, context_length: int) -> dict[str, int]:
    """A request's token breakdown with the budget and context it was planned for (shown and stored)."""
    d = dict(req.breakdown.to_dict())
    d["budget"] = budget
    d["context_length"] = context_length
    return d


_SENTENCE_END = re.compile(r"(?<=[。！？!?])|(?<=[.;；])(?=\s)|(?<=\.)$")
_HEADING = re.compile(r"^\s*(?:#{1,6}\s|\*\*[^*]+\*\*\s*$|[-=]{3,}\s*$)")


def first_sentences(text: str, n: int = FOUND_FACT_SENTENCES) -> str:
    """The first ``n`` sentences of a text, without headings, for a found-facts item.

    A sentence ends at Chinese end punctuation, or at ``.``/``;`` followed by a space or the end: a time such as
    ``1:12.13`` or a decimal never ends one.
    """
    body = " ".join(line.strip() for line in text.splitlines() if line.strip() and not _HEADING.match(line))
    body = " ".join(body.split())
    pieces = [p.strip() for p in _SENTENCE_END.split(body) if p.strip()]
    return " ".join(pieces[:n])


def excerpt(text: str, limit: int, lang: Lang) -> str:
    """``text`` cut at the last paragraph boundary within ``limit`` characters, with a note of what was cut.

    A first paragraph longer than the limit is cut after its last sentence that fits.
    """
    if len(text) <= limit:
        return text
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    kept: list[str] = []
    size = 0
    for p in paragraphs:
        if size + len(p) > limit:
            break
        kept.append(p)
        size += len(p) + 2
    if not kept:
        head = paragraphs[0][:limit]
        ends = [m.end() for m in re.finditer(r"[。！？!?]|[.;；](?=\s)", head)]
        kept = [head[: ends[-1]] if ends else head]
    shown = "\n\n".join(kept)
    cut = len(paragraphs) - len(kept)
    left = len(text) - len(shown)
    note = pick(
        lang,
        f"（此处省略约 {left:,} 字" + (f"，含后面 {cut} 段" if cut else "") + "）",
        f"(about {left:,} characters left out here" + (f", {cut} later paragraph(s)" if cut else "") + ")",
    )
    return shown + "\n" + note


def prompt_text(messages: Sequence[dict[str, str]]) -> str:
    """A request's messages as one text, each under its role (the stage's prompt as the view shows it)."""
    return "\n\n".join(f"[{m['role']}]\n{m['content']}" for m in messages)
