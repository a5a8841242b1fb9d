"""A stage's conversation: its first request, then the ``[回查]`` lookbacks it asks for (plan §5.7).

Why a class of its own: both the focus windows and the summary round talk this way, and the rules (a per-segment
allowance, the reply's length, the budget every served range must still fit) are the same for both.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.budget.errors import ContextLimitError
from app.budget.limits import (
    MAX_LOOKBACKS_PER_SEGMENT,
    lookback_tokens_label,
)
from app.budget.prompt import AssembledRequest
from app.claims.issues import Severity, ValidationIssue
from app.claims.lookback import find_lookbacks
from app.claims.timeparse import format_time
from app.i18n import tr
from app.llm.base import ChatMessage
from app.llm.events import Outcome
from app.pipeline import events as ev
from app.pipeline import prompts
from app.pipeline.run_core import RunCore
from app.pipeline.run_support import (
    ReplyIncompleteError,
    WindowState,
    prompt_text,
    to_chat,
)
from app.pipeline.streaming import RequestOutcome


class LookbackRounds(RunCore):
    """Opens a stage's conversation and serves the lookbacks its replies ask for."""

    async def _open(
        self,
        stage: ev.StageRef,
        req: AssembledRequest,
        breakdown: dict[str, int],
    ) -> tuple[WindowState, RequestOutcome]:
        """Start a stage's conversation with its first request.

        Raises:
            ReplyIncompleteError: the reply did not end by itself, or is empty (the stage is stored unfinished).
        """
        self.emit(ev.StageStarted(stage, breakdown, prompt_text(req.messages)))
        state = WindowState(req, to_chat(req.messages))
        outcome = await self._send(stage, state.messages, "initial", breakdown, raw_tokens=req.raw_tokens)
        state.logs.append(outcome.log)
        state.reasoning.append(outcome.reasoning)
        if not outcome.ok:
            raise ReplyIncompleteError(outcome, state.logs)
        return state, outcome

    async def _serve_lookbacks(
        self,
        stage: ev.StageRef,
        state: WindowState,
        outcome: RequestOutcome,
        breakdown: dict[str, int],
        *,
        limit: int | None = None,
    ) -> str:
        """Answer ``[回查]`` requests in the same conversation (plan §5.7); returns the reply to validate."""
        used = self._lookbacks_used.get(stage.segment, 0)
        allowance = (MAX_LOOKBACKS_PER_SEGMENT - used) if limit is None else limit
        text = outcome.text
        while True:
            found = find_lookbacks(text)
            if found.issues:
                self._add_issues(stage, state.issues, found.issues)
            if not found.ranges:
                return text
            served: list[str] = []
            pending: list[tuple[float, float, int]] = []
            for start, end in found.ranges:
                if allowance <= 0:
                    self._lookback_refused(
                        stage,
                        state,
                        start,
                        end,
                        reason=tr(
                            self.lang,
                            "more than {max_lookbacks_per_segment} lookbacks in this segment",
                            max_lookbacks_per_segment=MAX_LOOKBACKS_PER_SEGMENT,
                        ),
                    )
                    continue
                if start >= self.p.replay.duration_seconds:
                    self._lookback_refused(
                        stage,
                        state,
                        start,
                        end,
                        reason=tr(self.lang, "the range lies beyond the end of the replay"),
                    )
                    continue
                body = "\n".join(ln.text for ln in self.p.log.lines_between(start, end))
                tokens = self.p.plan.estimator.estimate_tokens(body) if body else 0
                limit_tokens = self.profile.spec.lookback_limit
                label = lookback_tokens_label(limit_tokens)
                if tokens > limit_tokens:
                    self._lookback_refused(
                        stage,
                        state,
                        start,
                        end,
                        reason=tr(
                            self.lang,
                            "the range is about {tokens:,} tokens, over the {label} limit",
                            tokens=tokens,
                            label=label,
                        ),
                        tokens=tokens,
                    )
                    continue
                piece = prompts.lookback_reply(
                    self.lang,
                    format_time(start),
                    format_time(end),
                    body or tr(self.lang, "(no orders)"),
                )
                try:  # every served range must still fit (plan §5.7: all lookbacks within budget)
                    self._guard_followup(
                        state,
                        [ChatMessage("assistant", text), ChatMessage("user", "\n\n".join([*served, piece]))],
                        "lookback",
                    )
                except ContextLimitError as exc:
                    self._lookback_refused(stage, state, start, end, reason=str(exc), tokens=tokens)
                    continue
                served.append(piece)
                pending.append((start, end, tokens))
                allowance -= 1
            if not served:
                return text
            for start, end, tokens in pending:
                self._lookbacks_used[stage.segment] = self._lookbacks_used.get(stage.segment, 0) + 1
                state.lookbacks.append((start, end, tokens, True, ""))
                self.emit(ev.LookbackServed(stage, start, end, tokens))
            # one user message for all ranges: some servers reject consecutive user messages
            appended = [ChatMessage("assistant", text), ChatMessage("user", "\n\n".join(served))]
            grown = self._guard_followup(state, appended, "lookback")
            state.messages = [*state.messages, *appended]
            follow = await self._send(
                stage, state.messages, "lookback", grown, served=[(start, end) for start, end, _tokens in pending]
            )
            state.logs.append(follow.log)
            state.reasoning.append(follow.reasoning)
            state.truncated = state.truncated or follow.truncated
            if follow.outcome is not Outcome.STOP:
                raise ReplyIncompleteError(follow, state.logs)
            if not follow.text.strip():
                return text  # keep the reply we had
            text = follow.text

    def _guard_followup(self, state: WindowState, new: Sequence[ChatMessage], name: str) -> dict[str, int]:
        """Guard the window's conversation grown by everything appended so far plus ``new``; its breakdown.

        Raises:
            ContextLimitError: the grown conversation would exceed 90% of the context length.
        """
        appended = [m.to_json() for m in [*state.messages[len(state.request.messages) :], *new]]
        self.assembler.check_followup(state.request, appended, stage=name)
        grown = self.assembler.followup_breakdown(state.request, appended)
        d = dict(grown.to_dict())
        d["budget"] = self.profile.budget
        d["context_length"] = self.profile.context_length
        return d

    def _lookback_refused(
        self, stage: ev.StageRef, state: WindowState, start: float, end: float, *, reason: str, tokens: int = 0
    ) -> None:
        state.lookbacks.append((start, end, tokens, False, reason))
        self._add_issues(
            stage,
            state.issues,
            [
                ValidationIssue(
                    Severity.INFO,
                    "LookbackRefused",
                    tr(
                        self.lang,
                        "lookback {start}~{end} not served: {reason}",
                        start=format_time(start),
                        end=format_time(end),
                        reason=reason,
                    ),
                    start,
                )
            ],
        )
