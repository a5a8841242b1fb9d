"""The v2 analysis run: summary → overview → every focus window of every segment → summary round (plan §5).

One :class:`AnalysisRun` drives one analysis. It emits typed events (:mod:`app.pipeline.events`) through a callback
and writes each stage to the store when it completes, so a crash keeps every finished stage and ``resume`` starts at
the next unfinished one. Budgets come from :mod:`app.budget` (the one place that decides them), retries from the
provider client (the one place that decides them), writes go through :class:`AnalysisRepository`.

The run is built from parts that each answer one question: :class:`~app.pipeline.run_core.RunCore` (the run's
state and its requests), :class:`~app.pipeline.lookback_rounds.LookbackRounds` (a stage's conversation),
:class:`~app.pipeline.window_stage.WindowStage` (a focus window) and
:class:`~app.pipeline.summary_round.SummaryRound`; this module adds the run's lifecycle (create or resume, the
lease, the deadline, cancellation and crashes) and the summary and overview stages.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from app import deadline
from app.budget.errors import ContextLimitError
from app.budget.prompt import segments_metadata
from app.claims.issues import Severity, ValidationIssue
from app.claims.parse import parse_claims
from app.claims.verdicts import annotated_claims
from app.errors import KnownError
from app.i18n import tr
from app.llm.events import Outcome, UsageReport
from app.pipeline import events as ev
from app.pipeline import prompts
from app.pipeline.checks import needs_repair
from app.pipeline.repository import (
    LEASE_HEARTBEAT_S,
    SETTLED,
    SKIPPED,
    StageResult,
)
from app.pipeline.run_support import (
    MAX_CORRECTIONS_PER_WINDOW,
    ContextRefusedError,
    ReplyIncompleteError,
    ResumeMismatchError,
    RunHooks,
    RunTotals,
    WindowState,
    breakdown_dict,
    context_refused_message,
    excerpt,
    first_sentences,
    incomplete_message,
    prompt_text,
    to_chat,
    unfinished_outcome,
)
from app.pipeline.streaming import RequestOutcome
from app.pipeline.summary_round import SummaryRound
from app.pipeline.window_stage import WindowStage

log = logging.getLogger("replaysage.pipeline")


class AnalysisRun(WindowStage, SummaryRound):
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
            except ReplyIncompleteError as inc:
                self._fail(
                    stage,
                    incomplete_message(self.lang, inc.outcome),
                    inc.outcome.text,
                    inc.logs,
                    outcome=unfinished_outcome(inc.outcome),
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

    def _summary_stage(self, stage: ev.StageRef) -> None:
        self.emit(ev.StageStarted(stage, {}, ""))
        self.emit(ev.TextDelta(stage, self.p.summary))
        self.repo.stage_done(self.analysis_id, stage, StageResult(text=self.p.summary))
        self.emit(ev.StageFinished(stage, self.p.summary))

    async def _overview(self, stage: ev.StageRef) -> None:
        """The overview round (plan §5.4): retried once when it fails, then checked and repaired like a window.

        Its text is checked (:func:`app.pipeline.checks.stage_issues`: the numbers of its text over the whole match,
        and a claims block it writes anyway); an issue above Info earns one repair in the overview's conversation,
        before any window uses it, so every later request carries the repaired text. A claims block is never passed
        on (issue 14): it is checked and stored with the stage, not fed forward.
        """
        instruction = prompts.overview_instruction(
            self.lang, segments_metadata(self.lang, self.segments), lookbacks=self._lookbacks_offered
        )
        try:
            req = self.assembler.overview(instruction)
        except ContextLimitError as exc:
            self._fail(stage, str(exc), "", [])
            return
        breakdown = breakdown_dict(req, self.profile.budget, self.profile.context_length)
        self.emit(ev.StageStarted(stage, breakdown, prompt_text(req.messages)))
        state = WindowState(req, to_chat(req.messages))
        outcome: RequestOutcome | None = None
        for attempt in range(2):  # plan §5.4: retry once, then continue without an overview
            outcome = await self._send(stage, state.messages, "initial" if attempt == 0 else "retry", breakdown)
            state.logs.append(outcome.log)
            if outcome.ok:
                break
        assert outcome is not None
        if not outcome.ok:
            reason = incomplete_message(self.lang, outcome)
            self._fail(
                stage,
                tr(self.lang, "overview failed, continuing without it: {reason}", reason=reason),
                outcome.text,
                state.logs,
                status=SKIPPED,
                outcome=unfinished_outcome(outcome),
            )
            return
        state.reasoning.append(outcome.reasoning)
        draft = outcome.text.strip()
        parsed = parse_claims(draft)
        display = parsed.display_text.strip()
        if parsed.marker_found:  # never feed a claims block forward (issue 14): it is checked and stored instead
            self.emit(ev.ClaimsParsed(stage, parsed.as_dict()))
            self._add_issues(
                stage,
                state.issues,
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
        issues = self._check(stage, parsed, draft)
        if issues:
            self._add_issues(stage, state.issues, issues)
        final_parsed, final_issues, revised = parsed, issues, False
        text = display
        if needs_repair(issues):
            state.outputs.append(("draft", draft, outcome.reasoning))
            _reply, final_parsed, final_issues, revised = await self._revise(
                stage, state, draft, display=display, parsed=parsed, issues=issues
            )
            if revised:
                text = final_parsed.display_text.strip()
            fatal = [i for i in final_issues if i.severity is Severity.FATAL] if revised else []
            if fatal:  # the repair's text is not shown: the original, with a warning on top (plan §10)
                text = prompts.fatal_after_revision_warning(self.lang, [i.code for i in fatal]) + "\n\n" + display
        self.assembler = self.assembler.with_overview(text)
        state.outputs.append(("final", text, "" if revised else outcome.reasoning))
        truncated = state.truncated or outcome.truncated
        self.repo.stage_done(
            self.analysis_id,
            stage,
            StageResult(
                text=text,
                reasoning="".join(state.reasoning),
                claims=annotated_claims(final_parsed, final_issues) if final_parsed.marker_found else {},
                revised=revised,
                requests=state.logs,
                outputs=state.outputs,
                truncated=truncated,
                issues=state.issues,
            ),
        )
        self.emit(ev.StageFinished(stage, text, revised, truncated))


__all__ = [
    "MAX_CORRECTIONS_PER_WINDOW",
    "AnalysisRun",
    "ContextRefusedError",
    "ResumeMismatchError",
    "RunHooks",
    "RunTotals",
    "context_refused_message",
    "excerpt",
    "first_sentences",
    "incomplete_message",
]
