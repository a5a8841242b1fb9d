"""The offline analyst as a :class:`~app.llm.base.ChatProvider`: composes a round's reply and streams it.

It is labelled rule-based everywhere: ``rule_based`` is True, the display name says so and every reply starts by
saying it was written by rules, not by a language model. Output is deterministic: the same replay and request
give the same bytes.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncGenerator, Sequence
from typing import TYPE_CHECKING

from app.analyst import texts
from app.analyst.overview import OverviewRound
from app.analyst.summary import SummaryRound
from app.analyst.window import WindowRound
from app.i18n import Lang
from app.llm.base import ChatMessage, ChatRequest, EventStream
from app.llm.errors import ProviderError
from app.llm.events import Finished, StreamEvent, StreamFailed, TextDelta, UsageReport
from app.llm.streams import ChatStream

if TYPE_CHECKING:
    from app.budget.plan import RunPlan
    from app.facts import CompactLog, ReplayFactIndex

OFFLINE_MODEL = "offline"
DISPLAY_NAME = "离线规则分析 / Offline rule-based analyst"
DEFAULT_CHUNK_CHARS = 32
"""Characters per streamed delta: small enough to look like a model stream, large enough to stay cheap."""

_CJK = re.compile(r"[\u4e00-\u9fff]")


class Writer(WindowRound, OverviewRound, SummaryRound):
    """Every round's texts and claims of one language from one replay's facts."""


def _language_of(request: ChatRequest) -> Lang:
    """The reply language of a request without stage data or bound language: Chinese when it is written so."""
    users = [m.content for m in request.messages if m.role == "user"]
    first = users[0] if users else ""
    return Lang.ZH if _CJK.search(first[-4000:]) else Lang.EN


class OfflineAnalyst:
    """The rule-based analyst (a :class:`~app.llm.base.ChatProvider`).

    ``OfflineAnalyst()`` (what the provider factory builds) can only introduce itself; the pipeline binds the
    replay with :meth:`bind` before a run.

    Args:
        index: the replay's fact index.
        log: the level-1 compact log (used to describe served lookback ranges).
        plan: the run plan (segment and window ranges come from it).
        lang: the reply language; None follows the instruction's language.
        chunk_chars: characters per streamed :class:`TextDelta`.
        delay_s: pause between chunks, for demos (0 only yields to the event loop).
    """

    rule_based = True

    def __init__(
        self,
        index: ReplayFactIndex | None = None,
        log: CompactLog | None = None,
        plan: RunPlan | None = None,
        lang: Lang | None = None,
        *,
        chunk_chars: int = DEFAULT_CHUNK_CHARS,
        delay_s: float = 0.0,
    ) -> None:
        self._index = index
        self._log = log
        self._plan = plan
        self._lang = lang
        self._chunk = max(1, chunk_chars)
        self._delay = max(0.0, delay_s)
        self._writers: dict[Lang, Writer] = {}
        self._token_cache: dict[str, int] = {}

    def __repr__(self) -> str:
        bound = "bound" if self._index is not None else "unbound"
        return f"OfflineAnalyst({bound}, rule-based)"

    @property
    def name(self) -> str:
        """Display name: says that this is rules, not a language model."""
        return DISPLAY_NAME

    @property
    def model(self) -> str:
        """Model id (``offline``)."""
        return OFFLINE_MODEL

    @property
    def index(self) -> ReplayFactIndex | None:
        """The bound fact index (None until :meth:`bind`)."""
        return self._index

    def bind(
        self,
        index: ReplayFactIndex,
        log: CompactLog | None = None,
        plan: RunPlan | None = None,
        lang: Lang | None = None,
    ) -> OfflineAnalyst:
        """A copy of this analyst that analyses one replay (what ``app.pipeline.service.bind_offline`` calls)."""
        return OfflineAnalyst(
            index, log, plan, lang if lang is not None else self._lang, chunk_chars=self._chunk, delay_s=self._delay
        )

    async def aclose(self) -> None:
        """Nothing to release (no connection, no files)."""

    def stream(self, request: ChatRequest) -> EventStream:
        """Compose the reply for ``request`` and stream it in chunks."""
        gen = self._run(request)
        return ChatStream(gen, gen.aclose)

    def compose(self, request: ChatRequest) -> str:
        """The whole reply text (deterministic for a given replay and request).

        The round comes from the request's :class:`~app.llm.stage.StageInfo`, never from the prompt's wording; a
        request without one (a connection test) gets the introduction, or a short match brief once bound.
        """
        stage = request.stage
        lang = self._lang or (stage.lang if stage is not None and stage.lang is not None else _language_of(request))
        if self._index is None:
            return texts.intro(lang)
        writer = self._writers.get(lang)
        if writer is None:
            writer = self._writers[lang] = Writer(self._index, self._log, self._plan, lang)
        if stage is None:
            return writer.match_brief()
        if stage.kind == "window":
            return writer.window(stage)
        if stage.kind == "overview":
            return writer.overview()
        return writer.summary_round()

    def _prompt_tokens(self, messages: Sequence[ChatMessage]) -> int:
        from app.tokens import MESSAGE_OVERHEAD_TOKENS, REPLY_PRIMING_TOKENS, count_tokens

        total = REPLY_PRIMING_TOKENS
        for m in messages:
            n = self._token_cache.get(m.content)
            if n is None:
                n = count_tokens(m.content)
                if len(self._token_cache) > 256:
                    self._token_cache.clear()
                self._token_cache[m.content] = n
            total += n + MESSAGE_OVERHEAD_TOKENS
        return total

    async def _run(self, request: ChatRequest) -> AsyncGenerator[StreamEvent, None]:
        from app.tokens import count_tokens

        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            text = self.compose(request)
            prompt_tokens = self._prompt_tokens(request.messages)
            completion_tokens = count_tokens(text)
        except Exception as exc:  # a rule bug must not crash the run: it fails like a request would
            yield StreamFailed(ProviderError(DISPLAY_NAME, OFFLINE_MODEL, f"rule-based analyst failed: {exc!r}"))
            return
        first: float | None = None
        for i in range(0, len(text), self._chunk):
            if first is None:
                first = loop.time()
            yield TextDelta(text[i : i + self._chunk])
            await asyncio.sleep(self._delay)  # 0 still yields, so a Stop button and other tasks get a turn
        end = loop.time()
        yield UsageReport(
            prompt_tokens,
            completion_tokens,
            raw={
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
                "rule_based": True,
            },
        )
        span = end - first if first is not None else 0.0
        yield Finished(
            reason="stop",
            ttft_s=(first - started) if first is not None else None,
            tokens_per_s=completion_tokens / span if span > 0 else None,
            resolved_model=OFFLINE_MODEL,
            elapsed_s=end - started,
        )
