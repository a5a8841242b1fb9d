"""The v2 analysis run: summary → overview → every focus window of every segment → summary round (plan §5).

One :class:`AnalysisRun` drives one analysis. It emits typed events (:mod:`app.pipeline.events`) through a callback
and writes each stage to the store when it completes, so a crash keeps every finished stage and ``resume`` starts at
the next unfinished one. Budgets come from :mod:`app.budget` (the one place that decides them), retries from the
provider client (the one place that decides them), writes go through :class:`AnalysisRepository`.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from app import deadline
from app.budget.calibration import CalibrationStore
from app.budget.errors import ContextLimitError
from app.budget.limits import (
    MAX_LOOKBACKS_PER_SEGMENT,
    SUMMARY_ROUND_LOOKBACKS,
    lookback_tokens_label,
)
from app.budget.profile import ModelProfile
from app.budget.prompt import AssembledRequest, PromptAssembler, StablePrefix, fit_facts, segments_metadata
from app.budget.segment import Segment, Window
from app.claims.issues import Severity, ValidationIssue
from app.claims.lookback import find_lookbacks, strip_lookbacks
from app.claims.parse import ParsedClaims, parse_claims
from app.claims.revision import (
    WindowCorrection,
    apply_corrections,
    corrections_section,
    disputes,
    flagged_refs,
    mark_disputed,
    merge_revision,
    window_corrections,
    without_disputes,
)
from app.claims.timeparse import format_time
from app.claims.validate import ClaimValidator
from app.claims.verdicts import annotated_claims, quote_flagged
from app.errors import KnownError
from app.i18n import Lang, pick, tr
from app.llm.base import ChatMessage, ChatProvider
from app.llm.errors import ContextOverflowError
from app.llm.events import Outcome, UsageReport
from app.llm.stage import StageInfo, StageKindName, phase_named
from app.pipeline import events as ev
from app.pipeline import prompts
from app.pipeline.digest import WindowDigest, window_digest, withdraw_contradicted
from app.pipeline.prepare import PreparedReplay
from app.pipeline.repository import (
    LEASE_HEARTBEAT_S,
    SETTLED,
    SKIPPED,
    AnalysisRepository,
    RequestLog,
    StageResult,
    new_owner,
)
from app.pipeline.streaming import RequestOutcome, send

FOUND_FACT_SENTENCES = 5
MAX_CORRECTIONS_PER_WINDOW = 10
"""Summary-round corrections kept per window (more become one Info issue): a reply is model output."""
ANALYSIS_EXCERPT_CHARS = 6_000
MIN_EXCERPT_CHARS = 300

Emit = Callable[[ev.PipelineEvent], None]
log = logging.getLogger("replaysage.pipeline")


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


class _ReplyIncompleteError(Exception):
    """A stage's reply did not end by itself (cut, stalled, truncated, failed): the stage stops, kept resumable."""

    def __init__(self, outcome: RequestOutcome, logs: Sequence[RequestLog]) -> None:
        super().__init__(outcome.outcome.value)
        self.outcome = outcome
        self.logs = list(logs)


def _unfinished(outcome: RequestOutcome) -> Outcome:
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
class _WindowState:
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


def _to_chat(messages: Sequence[dict[str, str]]) -> list[ChatMessage]:
    return [ChatMessage(m["role"], m["content"]) for m in messages]  # type: ignore[arg-type]


def _breakdown_dict(req: AssembledRequest, budget: int, context_length: int) -> dict[str, int]:
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


class AnalysisRun:
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

    # ------------------------------------------------------------------ plan

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

    # ------------------------------------------------------------------ run

    async def run(self, *, resume_id: int | None = None, deadline_s: float = 0.0) -> int:
        """Run (or resume) the analysis; returns its id. Cancellation keeps every finished stage.

        ``deadline_s`` (0: none) bounds the whole run: when it passes, the running stage ends ``cancelled`` with
        what arrived, and the run is stored ``partial`` (resumable).
        """
        stages = self.planned_stages()
        done: dict[str, Any] = {}
        if resume_id is not None:
            self.analysis_id = resume_id
            rec = self.repo.load(resume_id)
            stored_keys = [s.key for s in rec.stages]
            if stored_keys != [s.key for s in stages]:
                raise ResumeMismatchError(
                    tr(
                        self.lang,
                        "analysis #{resume_id} was planned with other segments (knowledge, memory or model "
                        "settings changed since); it cannot be resumed, start a new analysis",
                        resume_id=resume_id,
                    )
                )
            done = {s.key: s for s in rec.stages if s.status in SETTLED}
            self.repo.acquire(resume_id, self.owner)
            self.repo.set_status(resume_id, "running")
        else:
            self.analysis_id = self.repo.create(
                replay_path=str(self.p.path),
                replay_sha256=self.p.sha256,
                replay_name=self.p.path.name,
                model_label=self.model_label,
                provider=self.provider.name,
                model_id=self.provider.model,
                lang=self.lang.value,
                plan=self.p.plan.to_json(),
                stages=stages,
                summary_text=self.p.summary,
                owner=self.owner,
            )
        self.emit(
            ev.RunStarted(
                self.analysis_id,
                str(self.p.path),
                self.model_label,
                tuple(stages),
                resumed=resume_id is not None,
                segments=tuple((s.own_start_seconds, s.end_seconds) for s in self.segments),
            )
        )
        heartbeat = asyncio.create_task(self._heartbeat())
        refused: ContextRefusedError | None = None
        try:
            # asyncio's timeout stops awaits; deadline.check() in the CPU-bound loops stops the rest (issue 29)
            async with asyncio.timeout(deadline_s or None):
                with deadline.limit(deadline_s or None):
                    await self._run_stages(stages, done)
        except ContextRefusedError as exc:  # the stage is stored failed; the run ends here, resumable
            refused = exc
        except asyncio.CancelledError:
            await asyncio.shield(asyncio.to_thread(self._cancelled))
            raise
        except TimeoutError:
            self._deadline_passed(deadline_s)
        except Exception as exc:  # the store says so (failed, resumable) rather than "running" forever
            self._crashed(exc)
            raise
        finally:
            heartbeat.cancel()
            await asyncio.shield(asyncio.to_thread(self.repo.release, self.analysis_id, self.owner))
        unfinished = self.repo.unfinished_stages(self.analysis_id)
        status = "completed" if not unfinished else "partial"  # partial runs stay resumable
        self.repo.finish(
            self.analysis_id, status, self.totals.as_dict(), "" if not unfinished else ", ".join(unfinished)
        )
        await asyncio.to_thread(self.repo.pack, self.analysis_id)  # one compressed pack of the run's texts
        # "done" means stored: read the run back as the next process will see it (issue 29)
        await asyncio.to_thread(self.repo.verify_stored, self.analysis_id, status, unfinished)
        self.emit(
            ev.RunFinished(
                self.analysis_id, status, self.totals.prompt_tokens, self.totals.completion_tokens, self.totals.cost
            )
        )
        if refused is not None:
            raise refused
        return self.analysis_id

    async def _heartbeat(self) -> None:
        """Refresh the run's lease while it runs (a crashed run's heartbeat goes stale: it is offered for resume)."""
        while True:
            await asyncio.sleep(LEASE_HEARTBEAT_S)
            await asyncio.to_thread(self.repo.heartbeat, self.analysis_id, self.owner)

    def _deadline_passed(self, deadline_s: float) -> None:
        if self._current is not None:
            stage, parts = self._current
            self._current = None
            self._fail(
                stage,
                tr(self.lang, "the run's deadline of {deadline_s:g} s passed; stopped", deadline_s=deadline_s),
                "".join(parts),
                [],
                outcome=Outcome.CANCELLED,
            )

    def _crashed(self, exc: Exception) -> None:
        """Store an error no stage handles: the running stage failed with it, the run failed (both stay resumable).

        A :class:`KnownError` (the store, a setting) keeps its own message; anything else is a bug, named by type.
        """
        msg = (
            str(exc)
            if isinstance(exc, KnownError)
            else tr(self.lang, "internal error ({name}); stopped, resumable", name=type(exc).__name__)
        )
        try:
            if self._current is not None:
                stage, parts = self._current
                self._current = None
                self._fail(stage, msg, "".join(parts), [])
            self.repo.finish(self.analysis_id, "failed", self.totals.as_dict(), msg)
        except Exception:  # the store itself may be what failed: the original error is the one to report
            log.exception("analysis %s: the internal error could not be stored", self.analysis_id)

    def _cancelled(self) -> None:
        if self._current is not None:
            stage, parts = self._current
            msg = tr(self.lang, "cancelled")
            self.repo.stage_failed(self.analysis_id, stage, msg, "".join(parts), outcome=Outcome.CANCELLED)
            self.emit(ev.StageFailed(stage, msg, "".join(parts), Outcome.CANCELLED))
        self.repo.finish(self.analysis_id, "cancelled", self.totals.as_dict())
        self.emit(
            ev.RunFinished(
                self.analysis_id,
                "cancelled",
                self.totals.prompt_tokens,
                self.totals.completion_tokens,
                self.totals.cost,
            )
        )

    async def _run_stages(self, stages: list[ev.StageRef], done: dict[str, Any]) -> None:
        for stage in stages:
            stored = done.get(stage.key)
            if stored is not None:
                self._replay_stored(stage, stored)
                continue
            self._current = (stage, [])
            self.repo.stage_started(self.analysis_id, stage)
            try:
                if stage.kind is ev.StageKind.SUMMARY:
                    self._summary_stage(stage)
                elif stage.kind is ev.StageKind.OVERVIEW:
                    await self._overview(stage)
                elif stage.kind is ev.StageKind.WINDOW:
                    await self._window(stage)
                else:
                    await self._summary_round(stage)
            except _ReplyIncompleteError as inc:
                self._fail(
                    stage,
                    incomplete_message(self.lang, inc.outcome),
                    inc.outcome.text,
                    inc.logs,
                    outcome=_unfinished(inc.outcome),
                )
            except ContextRefusedError as refused:
                self._current = None
                self._fail(stage, str(refused), "", refused.logs)
                raise
            self._current = None

    def _replay_stored(self, stage: ev.StageRef, stored: Any) -> None:
        """Show a stage finished in an earlier run and restore what later stages need from it."""
        for r in stored.requests:  # the run's totals include what the earlier run spent
            u = r.usage or {}
            report = UsageReport(int(u.get("prompt_tokens", 0) or 0), int(u.get("completion_tokens", 0) or 0))
            self.totals.add(report, self._cost(report))
        served = sum(1 for lb in stored.lookbacks if lb.served)
        if served and stage.segment >= 0:
            self._lookbacks_used[stage.segment] = self._lookbacks_used.get(stage.segment, 0) + served
        self.emit(ev.StageStarted(stage))
        self.emit(ev.StageFinished(stage, stored.text, bool(stored.revised), bool(stored.truncated)))
        if stage.kind is ev.StageKind.OVERVIEW and stored.text:
            self.assembler = self.assembler.with_overview(stored.text)
        if stage.kind is ev.StageKind.WINDOW:
            if stored.found_fact:
                self.found_facts.append(stored.found_fact)
            self.window_texts.append((stage, stored.text))

    # ------------------------------------------------------------------ stages

    def _summary_stage(self, stage: ev.StageRef) -> None:
        self.emit(ev.StageStarted(stage, {}, ""))
        self.emit(ev.TextDelta(stage, self.p.summary))
        self.repo.stage_done(self.analysis_id, stage, StageResult(text=self.p.summary))
        self.emit(ev.StageFinished(stage, self.p.summary))

    async def _overview(self, stage: ev.StageRef) -> None:
        instruction = prompts.overview_instruction(
            self.lang, segments_metadata(self.lang, self.segments), lookbacks=self._lookbacks_offered
        )
        try:
            req = self.assembler.overview(instruction)
        except ContextLimitError as exc:
            self._fail(stage, str(exc), "", [])
            return
        breakdown = _breakdown_dict(req, self.profile.budget, self.profile.context_length)
        self.emit(ev.StageStarted(stage, breakdown, _prompt_text(req.messages)))
        logs: list[RequestLog] = []
        outcome: RequestOutcome | None = None
        for attempt in range(2):  # plan §5.4: retry once, then continue without an overview
            outcome = await self._send(stage, _to_chat(req.messages), "initial" if attempt == 0 else "retry", breakdown)
            logs.append(outcome.log)
            if outcome.ok:
                break
        assert outcome is not None
        if not outcome.ok:
            reason = incomplete_message(self.lang, outcome)
            self._fail(
                stage,
                tr(self.lang, "overview failed, continuing without it: {reason}", reason=reason),
                outcome.text,
                logs,
                status=SKIPPED,
                outcome=_unfinished(outcome),
            )
            return
        text = outcome.text.strip()
        issues: list[tuple[ValidationIssue, bool]] = []
        parsed = parse_claims(text)
        if parsed.marker_found:  # never feed an unchecked claims block forward (issue 14)
            text = parsed.display_text.strip()
            self._add_issues(
                stage,
                issues,
                [
                    ValidationIssue(
                        Severity.INFO,
                        "OverviewClaimsStripped",
                        tr(
                            self.lang,
                            "the overview carries no claims: its [claims] block was removed and not passed on",
                        ),
                    )
                ],
            )
        self.assembler = self.assembler.with_overview(text)
        self.repo.stage_done(
            self.analysis_id,
            stage,
            StageResult(
                text=text,
                reasoning=outcome.reasoning,
                requests=logs,
                outputs=[("final", text, outcome.reasoning)],
                truncated=outcome.truncated,
                issues=issues,
            ),
        )
        self.emit(ev.StageFinished(stage, text, truncated=outcome.truncated))

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
        """The newest found facts that fit the run's found-facts reserve (plan §5.6)."""
        return fit_facts(self.found_facts, self.p.plan.found_facts_budget, self.p.plan.estimator)

    async def _window(self, stage: ev.StageRef) -> None:
        seg, win = self._segment_window(stage)
        extra = "\n\n".join(
            x
            for x in (
                self.hooks.instruction_extra(stage) if self.hooks else "",
                prompts.lookback_hint(self.lang, self.profile.spec.lookback_limit) if self._lookbacks_offered else "",
                prompts.window_claims_note(self.lang),
            )
            if x
        )
        try:
            req, cut = self.assembler.window_within_budget(
                seg, len(self.segments), win, self._facts_within_budget(), extra=extra
            )
        except ContextLimitError as exc:
            self._fail(stage, str(exc), "", [])
            return
        breakdown = _breakdown_dict(req, self.profile.budget, self.profile.context_length)
        breakdown["blocks_cut"] = cut
        state, outcome = await self._open(stage, req, breakdown)
        draft = await self._serve_lookbacks(stage, state, outcome, breakdown)
        state.outputs.append(("draft", draft, "".join(state.reasoning)))
        parsed = parse_claims(strip_lookbacks(draft))
        issues = self.validator.validate(parsed, draft, span=(stage.start_seconds, stage.end_seconds))
        self.emit(ev.ClaimsParsed(stage, parsed.as_dict()))
        self._add_issues(stage, state.issues, issues)
        display = strip_lookbacks(parsed.display_text if parsed.marker_found else draft)
        final_text, final_parsed, final_issues, revised = draft, parsed, issues, False
        if any(i.needs_revision for i in issues):
            final_text, final_parsed, final_issues, revised = await self._revise(
                stage, state, draft, display=display, parsed=parsed, issues=issues
            )
            if revised:
                display = final_parsed.display_text
        if self.hooks is not None:
            self.hooks.after_validation(stage, final_issues, final_text)
        fact = self._carry(stage, display, parsed, issues, final_parsed, final_issues)
        fatal = [i for i in final_issues if i.severity is Severity.FATAL] if revised else []
        if fatal:  # the revision's text is not shown: the original, with a warning on top (plan §10)
            display = prompts.fatal_after_revision_warning(self.lang, [i.code for i in fatal]) + "\n\n" + display
        self.found_facts.append(fact)
        self.window_texts.append((stage, display))
        state.outputs.append(("final", display, ""))
        self.repo.stage_done(
            self.analysis_id,
            stage,
            StageResult(
                text=display,
                reasoning="".join(state.reasoning),
                found_fact=fact,
                claims=annotated_claims(final_parsed, final_issues),
                revised=revised,
                truncated=state.truncated or outcome.truncated,
                requests=state.logs,
                outputs=state.outputs,
                issues=state.issues,
                lookbacks=state.lookbacks,
            ),
        )
        self.emit(ev.StageFinished(stage, display, revised, state.truncated or outcome.truncated))

    async def _open(
        self,
        stage: ev.StageRef,
        req: AssembledRequest,
        breakdown: dict[str, int],
    ) -> tuple[_WindowState, RequestOutcome]:
        """Start a stage's conversation with its first request.

        Raises:
            _ReplyIncompleteError: the reply did not end by itself, or is empty (the stage is stored unfinished).
        """
        self.emit(ev.StageStarted(stage, breakdown, _prompt_text(req.messages)))
        state = _WindowState(req, _to_chat(req.messages))
        outcome = await self._send(stage, state.messages, "initial", breakdown, raw_tokens=req.raw_tokens)
        state.logs.append(outcome.log)
        state.reasoning.append(outcome.reasoning)
        if not outcome.ok:
            raise _ReplyIncompleteError(outcome, state.logs)
        return state, outcome

    async def _serve_lookbacks(
        self,
        stage: ev.StageRef,
        state: _WindowState,
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
                raise _ReplyIncompleteError(follow, state.logs)
            if not follow.text.strip():
                return text  # keep the reply we had
            text = follow.text

    def _guard_followup(self, state: _WindowState, new: Sequence[ChatMessage], name: str) -> dict[str, int]:
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
        self, stage: ev.StageRef, state: _WindowState, start: float, end: float, *, reason: str, tokens: int = 0
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

    async def _revise(
        self,
        stage: ev.StageRef,
        state: _WindowState,
        draft: str,
        *,
        display: str,
        parsed: ParsedClaims,
        issues: list[ValidationIssue],
    ) -> tuple[str, ParsedClaims, list[ValidationIssue], bool]:
        """The one revision of a window (plan §10, issue 14): repair the flagged claims, keep everything else.

        The request quotes each flagged claim with the fact against it; the reply carries corrected sentences and
        corrected claims only. Claims that passed are merged back unchanged, so a revision never drops or weakens
        them. An empty revision keeps the original; so does one that is still Fatal (its text is not shown).
        """
        worth = [i for i in issues if i.needs_revision]
        self.emit(ev.RevisionStarted(stage, len(worth)))
        bad = flagged_refs(worth)
        kept = sum(len(getattr(parsed, a)) for a in ("unit_claims", "event_claims", "timeline_claims")) - len(bad)
        flagged_text = quote_flagged(parsed, worth, self.lang)
        msg = ChatMessage("user", prompts.revision_instruction(self.lang, flagged_text, kept))
        appended = [ChatMessage("assistant", draft), msg]
        try:
            breakdown = self._guard_followup(state, appended, "revision")
        except ContextLimitError as exc:
            self._add_issues(stage, state.issues, [ValidationIssue(Severity.INFO, "RevisionRefused", str(exc))])
            self.emit(ev.RevisionFinished(stage, kept_original=True))
            return draft, parsed, issues, False
        state.messages = [*state.messages, *appended]
        out = await self._send(stage, state.messages, "revision", breakdown, revision=True)
        state.logs.append(out.log)
        state.reasoning.append(out.reasoning)
        if not out.ok:  # an empty, cut or stalled revision keeps the complete draft
            self.emit(ev.RevisionFinished(stage, kept_original=True))
            return draft, parsed, issues, False
        state.truncated = state.truncated or out.truncated
        state.outputs.append(("revision", out.text, out.reasoning))
        revised = parse_claims(strip_lookbacks(out.text))
        merged = merge_revision(parsed, issues, revised)
        if corrections_section(out.text) or not without_disputes(revised.display_text).strip():
            text, unplaced = apply_corrections(display, out.text)
            merged.display_text = "\n\n".join([text, *unplaced]) if unplaced else text
        else:  # the model rewrote the analysis after all: take its text, the merge still keeps the claims
            merged.display_text = strip_lookbacks(revised.display_text)
        new_issues = self.validator.validate(
            merged, out.text, after_revision=True, span=(stage.start_seconds, stage.end_seconds)
        )
        reasons = disputes(out.text)
        if reasons:  # the draft's issues the model disputed and the check no longer confirms teach nothing
            marked = mark_disputed(parsed, issues, reasons, merged, new_issues)
            swap = {id(a): b for a, b in zip(issues, marked, strict=True) if a is not b}
            state.issues = [(swap.get(id(i), i), after) for i, after in state.issues]
        fatal = any(i.severity is Severity.FATAL for i in new_issues)
        if fatal:  # still Fatal: the stage shows the original analysis (with a warning, added by the caller)
            merged.display_text = display
        self.emit(ev.ClaimsParsed(stage, merged.as_dict()))
        self._add_issues(stage, state.issues, new_issues, after_revision=True)
        self.emit(ev.RevisionFinished(stage, kept_original=fatal))
        return out.text, merged, new_issues, True

    def _window_number(self, stage: ev.StageRef) -> int:
        """A window's 1-based number over the whole match (the ``N`` of its label)."""
        return 1 + sum(len(seg.windows) for seg in self.segments[: stage.segment]) + stage.window

    def _window_label(self, stage: ev.StageRef) -> str:
        """``窗口 N（段 S，a~b）`` / ``Window N (segment S, a~b)``: one name per unit of work (issue 21)."""
        n = self._window_number(stage)
        span = f"{format_time(stage.start_seconds)}~{format_time(stage.end_seconds)}"
        return tr(self.lang, "Window {n} (segment {segment}, {span})", n=n, segment=stage.segment + 1, span=span)

    def _carry(  # noqa: PLR0917 - the draft and the final claims with their issues
        self,
        stage: ev.StageRef,
        display: str,
        draft: ParsedClaims,
        draft_issues: Sequence[ValidationIssue],
        final: ParsedClaims,
        final_issues: Sequence[ValidationIssue],
    ) -> str:
        """A window's found-facts item (:mod:`app.pipeline.digest`), and earlier items a contradiction changed.

        An earlier window's item whose claim this window contradicts is rendered anew in the found facts and in the
        store, so no later request (nor a resumed run) carries it as validated.
        """
        digest = window_digest(
            self._window_label(stage),
            first_sentences(display),
            draft,
            draft_issues,
            final,
            final_issues,
            self.validator.canonical_type,
        )
        self.digests.append((stage, len(self.found_facts), digest))
        self.found_facts.append(digest.render(self.lang))
        for k in sorted(withdraw_contradicted([d for _s, _i, d in self.digests])):
            earlier, at, d = self.digests[k]
            self.found_facts[at] = d.render(self.lang)
            if earlier != stage:
                self.repo.update_stage_texts(self.analysis_id, earlier.key, found_fact=self.found_facts[at])
        return self.found_facts.pop()

    @property
    def _lookbacks_offered(self) -> bool:
        """Lookbacks make sense only when the match has more than one segment (issue 14)."""
        return len(self.segments) > 1

    def _summary_request(self) -> AssembledRequest:
        """The summary-round request with window analyses shortened until it fits the budget (plan §5.8).

        Each analysis is cut at a paragraph boundary, with a note of what was left out.

        Raises:
            ContextLimitError: even the shortest excerpts exceed 90% of the context length.
        """
        limit = ANALYSIS_EXCERPT_CHARS
        heads = [
            f"【{self._window_label(s)}】" if self.lang is Lang.ZH else f"[{self._window_label(s)}]"
            for s, _text in self.window_texts
        ]
        while True:
            analyses = "\n\n".join(
                f"{head}\n{excerpt(text, limit, self.lang)}"
                for head, (_s, text) in zip(heads, self.window_texts, strict=True)
            )
            instruction = prompts.summary_round_instruction(
                self.lang, analyses or tr(self.lang, "(none)"), lookbacks=self._lookbacks_offered
            )
            try:
                req = self.assembler.final(self._facts_within_budget(), instruction)
            except ContextLimitError:
                if limit <= MIN_EXCERPT_CHARS:
                    raise
                limit //= 2
                continue
            if req.verdict.ok or limit <= MIN_EXCERPT_CHARS:
                return req
            limit //= 2

    async def _summary_round(self, stage: ev.StageRef) -> None:
        try:
            req = self._summary_request()
        except ContextLimitError as exc:
            self._fail(stage, str(exc), "", [])
            return
        breakdown = _breakdown_dict(req, self.profile.budget, self.profile.context_length)
        state, outcome = await self._open(stage, req, breakdown)
        text = await self._serve_lookbacks(
            stage, state, outcome, breakdown, limit=SUMMARY_ROUND_LOOKBACKS if self._lookbacks_offered else 0
        )
        parsed = parse_claims(strip_lookbacks(text))
        issues = self.validator.validate(parsed, text) if parsed.marker_found else []
        if parsed.marker_found:
            self.emit(ev.ClaimsParsed(stage, parsed.as_dict()))
        if issues:
            self._add_issues(stage, state.issues, issues)
        display = strip_lookbacks(parsed.display_text if parsed.marker_found else text)
        state.outputs.append(("final", display, "".join(state.reasoning)))
        self.repo.stage_done(
            self.analysis_id,
            stage,
            StageResult(
                text=display,
                reasoning="".join(state.reasoning),
                claims=annotated_claims(parsed, issues),
                truncated=outcome.truncated,
                requests=state.logs,
                outputs=state.outputs,
                issues=state.issues,
                lookbacks=state.lookbacks,
            ),
        )
        self._record_corrections(text)
        self.emit(ev.StageFinished(stage, display, truncated=outcome.truncated))

    def _record_corrections(self, text: str) -> None:
        """Bring the summary round's corrections into the windows, then check passed claims against each other.

        Each correction becomes a Warning ``SummaryCorrection`` among the window's final issues (stored, and shown
        again with an :class:`ev.IssuesFound` for that window); corrections of a window the round did not see are
        ignored, and beyond :data:`MAX_CORRECTIONS_PER_WINDOW` of one window a single Info issue says how many
        were (plan §5.8, issue 17). The sentence a correction contradicts is marked in the window's text ("corrected
        in the summary: …"), and a passed claim of the window whose type the correction denies is flagged; so are
        passed claims of the whole analysis that cannot both hold (issue 28 §2).
        """
        from app.claims.consistency import (
            StageClaims,
            claims_contradicted,
            cross_claim_findings,
            mark_corrections,
        )

        by_number = {self._window_number(s): s for s, _text in self.window_texts}
        found: dict[int, list[ValidationIssue]] = {}
        taken: dict[int, list[WindowCorrection]] = {}
        cut: dict[int, int] = {}
        for c in window_corrections(text):
            if c.window in by_number and len(found.get(c.window, ())) >= MAX_CORRECTIONS_PER_WINDOW:
                cut[c.window] = cut.get(c.window, 0) + 1  # a reply is model output: a few per window are kept
            elif c.window in by_number:
                taken.setdefault(c.window, []).append(c)
                found.setdefault(c.window, []).append(
                    ValidationIssue(
                        Severity.WARNING,
                        "SummaryCorrection",
                        tr(self.lang, "Summary round correction: {text}", text=c.text),
                        time_seconds=c.time_seconds,
                        unit_id=c.unit_id,
                    )
                )
        for n, more in cut.items():
            found[n].append(
                ValidationIssue(
                    Severity.INFO,
                    "SummaryCorrectionsCut",
                    tr(
                        self.lang,
                        "{more} more summary-round correction(s) of this window beyond "
                        "{max_corrections_per_window} were ignored",
                        more=more,
                        max_corrections_per_window=MAX_CORRECTIONS_PER_WINDOW,
                    ),
                )
            )
        record = {st.key: st for st in self.repo.load(self.analysis_id).stages}
        label = {s.key: self._window_label(s) for s, _t in self.window_texts}
        label[ev.StageKind.SUMMARY_ROUND.value] = tr(self.lang, "Summary round")
        checked = [
            StageClaims(key, label[key], dict(record[key].claims or {}))
            for key in label
            if key in record and record[key].status == "done"
        ]
        claims = {c.key: c for c in checked}
        issues: dict[str, list[ValidationIssue]] = {by_number[n].key: list(v) for n, v in found.items()}
        texts: dict[str, str] = {}
        findings = cross_claim_findings(checked, self.validator.canonical_type, self.lang)
        for n, corrections in taken.items():
            key = by_number[n].key
            stored = record.get(key)
            if stored is None:
                continue
            marked, placed = mark_corrections(stored.text or "", corrections, self.lang)
            if placed:
                texts[key] = marked
            if key in claims:
                for c in corrections:
                    findings += claims_contradicted(
                        claims[key], c, self.validator.canonical_type, self.validator.type_names_in, self.lang
                    )
        verdicts: dict[str, dict[str, ValidationIssue]] = {}
        for f in findings:
            issues.setdefault(f.stage, []).append(f.issue)
            worst = verdicts.setdefault(f.stage, {}).get(f.ref)
            if worst is None or f.issue.severity > worst.severity:
                verdicts[f.stage][f.ref] = f.issue
        stages = {s.key: s for s, _t in self.window_texts}
        stages[ev.StageKind.SUMMARY_ROUND.value] = ev.StageRef(
            ev.StageKind.SUMMARY_ROUND, end_seconds=self.p.replay.duration_seconds
        )
        order = [s.key for s in self.planned_stages()]
        for key in sorted(issues, key=order.index):
            stage = stages[key]
            new_claims = None
            if key in verdicts and key in claims:
                new_claims = _with_verdicts(claims[key].claims, verdicts[key])
            self.repo.update_stage_texts(self.analysis_id, key, text=texts.get(key), claims=new_claims)
            revised, final = self.repo.add_stage_issues(self.analysis_id, key, issues[key])
            self.emit(ev.IssuesFound(stage, tuple(final), after_revision=revised))
            if key in texts:  # the view shows the marked text in place of the one it had
                st = record[key]
                self.emit(ev.StageFinished(stage, texts[key], bool(st.revised), bool(st.truncated)))


def _with_verdicts(claims: dict[str, Any], worst: dict[str, ValidationIssue]) -> dict[str, Any]:
    """Stored claims with the verdicts of newly flagged refs (``unit:0`` …) replaced by their worst new issue."""
    out = dict(claims)
    for kind, _attr in (("unit", 0), ("event", 0), ("timeline", 0)):
        key = f"{kind}Claims"
        listed = out.get(key)
        if not isinstance(listed, list):
            continue
        out[key] = [
            {**c, "verdict": f"{worst[f'{kind}:{n}'].severity.label} {worst[f'{kind}:{n}'].code}"}
            if isinstance(c, dict) and f"{kind}:{n}" in worst
            else c
            for n, c in enumerate(listed)
        ]
    return out


def _prompt_text(messages: Sequence[dict[str, str]]) -> str:
    return "\n\n".join(f"[{m['role']}]\n{m['content']}" for m in messages)
