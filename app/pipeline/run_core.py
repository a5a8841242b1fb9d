"""The state of one analysis run and the requests it sends: what every stage of the run builds on.

A run's stages (:mod:`app.pipeline.window_stage`, :mod:`app.pipeline.summary_round`) share the prompt assembler,
the found facts, the totals and the event stream; this class owns them, sends each request (hooks, calibration,
cost) and stores a stage's issues and failures.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.budget.calibration import CalibrationStore
from app.budget.prompt import PromptAssembler, StablePrefix
from app.budget.segment import Segment, Window
from app.claims.issues import ValidationIssue
from app.claims.parse import ParsedClaims
from app.claims.timeparse import format_time
from app.claims.validate import ClaimValidator
from app.errors import KnownError
from app.i18n import Lang, tr
from app.llm.base import ChatMessage, ChatProvider
from app.llm.errors import ContextOverflowError
from app.llm.events import Outcome, UsageReport
from app.llm.stage import StageInfo, StageKindName, phase_named
from app.pipeline import events as ev
from app.pipeline.checks import stage_issues
from app.pipeline.digest import WindowDigest, fit_digests
from app.pipeline.prepare import PreparedReplay
from app.pipeline.repository import (
    AnalysisRepository,
    RequestLog,
    new_owner,
)
from app.pipeline.run_support import (
    ContextRefusedError,
    Emit,
    RunHooks,
    RunTotals,
    context_refused_message,
)
from app.pipeline.streaming import RequestOutcome, send


class RunCore:
    """One analysis of one prepared replay with one provider.

    Args:
        prepared: The replay with its facts, log, summary and plan.
        provider: Where replies come from (a model endpoint or the rule-based offline analyst).
        repo: The store.
        lang: Analysis language.
        emit: Receives every event, in order.
        model_label: How the model is shown and matched for resume (e.g. ``offline`` or ``profile/model``).
        hooks: Optional error-wisdom / memory observers.
        calibration: Where real prompt usage refines the token estimate (skipped for the rule-based analyst).
    """

    def __init__(
        self,
        prepared: PreparedReplay,
        provider: ChatProvider,
        repo: AnalysisRepository,
        *,
        lang: Lang,
        emit: Emit,
        model_label: str,
        hooks: RunHooks | None = None,
        calibration: CalibrationStore | None = None,
    ) -> None:
        self.p = prepared
        self.provider = provider
        self.repo = repo
        self.lang = lang
        self._emit = emit
        self.model_label = model_label
        self.hooks = hooks
        self.calibration = None if provider.rule_based else calibration
        self.profile = prepared.plan.profile
        self.validator = ClaimValidator(prepared.index, lang)
        self.totals = RunTotals()
        self.found_facts: list[str] = []
        self.digests: list[tuple[ev.StageRef, int, WindowDigest]] = []  # (window, index in found_facts, digest)
        self.window_texts: list[tuple[ev.StageRef, str]] = []
        self.analysis_id = 0
        self.assembler = PromptAssembler(
            self.profile,
            prepared.plan.estimator,
            lang,
            StablePrefix(prepared.system, prepared.summary),
            prepared.slice_knowledge,
        )
        self._current: tuple[ev.StageRef, list[str]] | None = None
        self._lookbacks_used: dict[int, int] = {}  # segment → lookbacks served (MAX_LOOKBACKS_PER_SEGMENT)
        self.owner = new_owner()  # the run lease: no other process resumes this analysis while we run it

    @property
    def segments(self) -> list[Segment]:
        """The planned segments."""
        return self.p.plan.segments

    def planned_stages(self) -> list[ev.StageRef]:
        """Every stage of the run, in order."""
        duration = self.p.replay.duration_seconds
        stages = [
            ev.StageRef(ev.StageKind.SUMMARY, end_seconds=duration),
            ev.StageRef(ev.StageKind.OVERVIEW, end_seconds=duration),
        ]
        for seg in self.segments:
            for w in seg.windows:
                stages.append(ev.StageRef(ev.StageKind.WINDOW, seg.index, w.index, w.start_seconds, w.end_seconds))
        stages.append(ev.StageRef(ev.StageKind.SUMMARY_ROUND, end_seconds=duration))
        return stages

    def emit(self, event: ev.PipelineEvent) -> None:
        """Forward an event (and keep the partial text of the running stage)."""
        if isinstance(event, ev.TextDelta) and self._current is not None and self._current[0] == event.stage:
            self._current[1].append(event.text)
        self._emit(event)

    def _cost(self, usage: UsageReport) -> float:
        return self.profile.cost(usage.prompt_tokens, usage.cached_prompt_tokens, usage.completion_tokens)

    def _stage_info(self, stage: ev.StageRef, purpose: str, served: Sequence[tuple[float, float]]) -> StageInfo:
        """What a request asks for, as data for rule-based providers (never sent on the wire)."""
        phase = phase_named(purpose)
        if stage.kind is not ev.StageKind.WINDOW:
            kind: StageKindName = "overview" if stage.kind is ev.StageKind.OVERVIEW else "summary_round"
            return StageInfo(kind, phase, served=tuple(served), lang=self.lang)
        seg, win = self._segment_window(stage)
        return StageInfo(
            "window",
            phase,
            seg.index,
            win.index,
            (win.start_seconds, win.end_seconds),
            (seg.start_seconds, seg.end_seconds),
            tuple(served),
            self.lang,
        )

    async def _send(
        self,
        stage: ev.StageRef,
        messages: list[ChatMessage],
        purpose: str,
        breakdown: dict[str, int],
        *,
        revision: bool = False,
        raw_tokens: int = 0,
        served: Sequence[tuple[float, float]] = (),
    ) -> RequestOutcome:
        params: dict[str, Any] = {
            "max_tokens": self.profile.max_tokens,
            "purpose": purpose,
            "estimated_prompt_tokens": breakdown.get("total", 0) - breakdown.get("reserve", 0),
            "context_length": self.profile.context_length,
            "model": self.provider.model,
        }
        if self.hooks is not None:
            try:
                params = self.hooks.before_request(stage, params)
            except KnownError as exc:  # a prevention rule refused the request: nothing is sent
                return RequestOutcome(
                    error=exc, log=RequestLog(purpose, [m.to_json() for m in messages], dict(breakdown), error=str(exc))
                )
        outcome = await send(
            self.provider,
            messages,
            stage=stage,
            purpose=purpose,
            emit=self.emit,
            max_tokens=int(params.get("max_tokens", self.profile.max_tokens)),
            breakdown=breakdown,
            revision=revision,
            price=self._cost,
            info=self._stage_info(stage, purpose, served),
        )
        self.totals.add(outcome.usage, self._cost(outcome.usage) if outcome.usage else None)
        if self.calibration is not None and raw_tokens and outcome.usage and outcome.usage.prompt_tokens:
            self.calibration.record(self.profile.key, raw_tokens, outcome.usage.prompt_tokens)
        if self.hooks is not None:
            self.hooks.after_request(stage, outcome)
        if isinstance(outcome.error, ContextOverflowError):
            error = outcome.error
            message = context_refused_message(self.lang, error, self.profile, self.model_label)
            raise ContextRefusedError(message, error.context_limit, [outcome.log])
        return outcome

    def _check(
        self, stage: ev.StageRef, parsed: ParsedClaims, text: str, *, after_revision: bool = False
    ) -> list[ValidationIssue]:
        """The issues of a stage's reply (:func:`app.pipeline.checks.stage_issues`: what is checked, and where)."""
        span = (stage.start_seconds, stage.end_seconds) if stage.kind is ev.StageKind.WINDOW else None
        return stage_issues(self.validator, stage.kind, parsed, text, span=span, after_revision=after_revision)

    def _add_issues(
        self,
        stage: ev.StageRef,
        held: list[tuple[ValidationIssue, bool]],
        new: Sequence[ValidationIssue],
        *,
        after_revision: bool = False,
    ) -> None:
        """Add issues to a stage's stored list and show them.

        The event carries every issue of the phase held so far (the list the store keeps), so a live run shows what
        its reopening shows: the overview's stripped-claims note and refused lookbacks were stored without an event
        and appeared only when reopened (issue 30, item 9).
        """
        held.extend((i, after_revision) for i in new)
        phase = tuple(i for i, after in held if after is after_revision)
        self.emit(ev.IssuesFound(stage, phase, after_revision=after_revision))

    def _fail(
        self,
        stage: ev.StageRef,
        message: str,
        partial: str,
        logs: Sequence[RequestLog],
        *,
        status: str = "failed",
        outcome: Outcome = Outcome.ERROR,
    ) -> None:
        self.repo.stage_failed(self.analysis_id, stage, message, partial, logs, status=status, outcome=outcome)
        self.emit(ev.StageFailed(stage, message, partial, outcome))

    def _segment_window(self, stage: ev.StageRef) -> tuple[Segment, Window]:
        seg = self.segments[stage.segment]
        return seg, seg.windows[stage.window]

    def _facts_within_budget(self) -> list[str]:
        """Every window's found facts within the run's found-facts reserve (plan §5.6, issue 28 §2).

        A short reserve compresses the items, oldest hardest (:func:`app.pipeline.digest.fit_digests`), instead of
        leaving the earliest windows out: the summary round at 32K sees every window.
        """
        items: list[WindowDigest | str] = list(self.found_facts)
        for _stage, at, digest in self.digests:
            if at < len(items):
                items[at] = digest
        return fit_digests(items, self.p.plan.found_facts_budget, self.p.plan.estimator, self.lang)

    def _window_number(self, stage: ev.StageRef) -> int:
        """A window's 1-based number over the whole match (the ``N`` of its label)."""
        return 1 + sum(len(seg.windows) for seg in self.segments[: stage.segment]) + stage.window

    def _window_label(self, stage: ev.StageRef) -> str:
        """``窗口 N（段 S，a~b）`` / ``Window N (segment S, a~b)``: one name per unit of work (issue 21)."""
        n = self._window_number(stage)
        span = f"{format_time(stage.start_seconds)}~{format_time(stage.end_seconds)}"
        return tr(self.lang, "Window {n} (segment {segment}, {span})", n=n, segment=stage.segment + 1, span=span)

    @property
    def _lookbacks_offered(self) -> bool:
        """Lookbacks make sense only when the match has more than one segment (issue 14)."""
        return len(self.segments) > 1
