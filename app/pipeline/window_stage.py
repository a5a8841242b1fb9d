"""One focus window of an analysis run: draft, lookbacks, the claim check, one revision, and its found fact.

Plan §5.5–§5.7 and §10: the window's reply is validated against the replay; flagged claims get one revision that
repairs only them; what the window established is carried to later windows as a found-facts item.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.budget.errors import ContextLimitError
from app.claims.issues import Severity, ValidationIssue
from app.claims.lookback import strip_lookbacks
from app.claims.parse import ParsedClaims, parse_claims
from app.claims.revision import (
    apply_corrections,
    corrections_section,
    disputes,
    flagged_refs,
    mark_disputed,
    merge_revision,
    without_disputes,
)
from app.claims.verdicts import annotated_claims, quote_flagged
from app.llm.base import ChatMessage
from app.pipeline import events as ev
from app.pipeline import prompts
from app.pipeline.checks import needs_repair
from app.pipeline.digest import window_digest, withdraw_contradicted
from app.pipeline.lookback_rounds import LookbackRounds
from app.pipeline.repository import (
    StageResult,
)
from app.pipeline.run_support import (
    WindowState,
    breakdown_dict,
    first_sentences,
)


class WindowStage(LookbackRounds):
    """Runs the focus-window stages of an analysis."""

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
        breakdown = breakdown_dict(req, self.profile.budget, self.profile.context_length)
        breakdown["blocks_cut"] = cut
        state, outcome = await self._open(stage, req, breakdown)
        draft = await self._serve_lookbacks(stage, state, outcome, breakdown)
        state.outputs.append(("draft", draft, "".join(state.reasoning)))
        parsed = parse_claims(strip_lookbacks(draft))
        issues = self._check(stage, parsed, draft)
        self.emit(ev.ClaimsParsed(stage, parsed.as_dict()))
        self._add_issues(stage, state.issues, issues)
        display = strip_lookbacks(parsed.display_text if parsed.marker_found else draft)
        final_text, final_parsed, final_issues, revised = draft, parsed, issues, False
        if needs_repair(issues):
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

    def _repair_instruction(self, stage: ev.StageRef, flagged_text: str, kept: int) -> str:
        """The repair request of a stage: a window's revision, or the overview's corrections (it carries no claims)."""
        if stage.kind is ev.StageKind.OVERVIEW:
            return prompts.overview_revision_instruction(self.lang, flagged_text)
        return prompts.revision_instruction(self.lang, flagged_text, kept)

    async def _revise(
        self,
        stage: ev.StageRef,
        state: WindowState,
        draft: str,
        *,
        display: str,
        parsed: ParsedClaims,
        issues: list[ValidationIssue],
    ) -> tuple[str, ParsedClaims, list[ValidationIssue], bool]:
        """The one revision of a window or the overview (plan §10, issue 14): repair what was flagged, keep the rest.

        The request quotes each flagged claim with the fact against it; the reply carries corrected sentences and
        corrected claims only. Claims that passed are merged back unchanged, so a revision never drops or weakens
        them. An empty revision keeps the original; so does one that is still Fatal (its text is not shown).
        """
        worth = [i for i in issues if i.needs_revision]
        self.emit(ev.RevisionStarted(stage, len(worth)))
        bad = flagged_refs(worth)
        kept = sum(len(getattr(parsed, a)) for a in ("unit_claims", "event_claims", "timeline_claims")) - len(bad)
        flagged_text = quote_flagged(parsed, worth, self.lang)
        msg = ChatMessage("user", self._repair_instruction(stage, flagged_text, kept))
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
        new_issues = self._check(stage, merged, out.text, after_revision=True)
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
