"""The summary round of an analysis run, and the corrections it brings back into the windows (plan §5.8)."""

from __future__ import annotations

from typing import Any

from app.budget.errors import ContextLimitError
from app.budget.limits import (
    SUMMARY_ROUND_LOOKBACKS,
)
from app.budget.prompt import AssembledRequest
from app.claims.issues import Severity, ValidationIssue
from app.claims.lookback import strip_lookbacks
from app.claims.parse import parse_claims
from app.claims.revision import (
    WindowCorrection,
    window_corrections,
)
from app.claims.verdicts import annotated_claims
from app.i18n import Lang, tr
from app.pipeline import events as ev
from app.pipeline import prompts
from app.pipeline.lookback_rounds import LookbackRounds
from app.pipeline.repository import (
    StageResult,
)
from app.pipeline.run_support import (
    ANALYSIS_EXCERPT_CHARS,
    MAX_CORRECTIONS_PER_WINDOW,
    MIN_EXCERPT_CHARS,
    breakdown_dict,
    excerpt,
)


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


class SummaryRound(LookbackRounds):
    """Runs the summary round and records its corrections and cross-claim findings in the windows."""

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
        breakdown = breakdown_dict(req, self.profile.budget, self.profile.context_length)
        state, outcome = await self._open(stage, req, breakdown)
        text = await self._serve_lookbacks(
            stage, state, outcome, breakdown, limit=SUMMARY_ROUND_LOOKBACKS if self._lookbacks_offered else 0
        )
        parsed = parse_claims(strip_lookbacks(text))
        issues = self._check(stage, parsed, text)
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
        # a claims block the overview wrote anyway is checked and stored with it (never passed on): its passed claims
        # are claims of this analysis too, so no object keeps two passed types across it and the windows
        label[ev.StageKind.OVERVIEW.value] = tr(self.lang, "Overview")
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
        for kind in (ev.StageKind.SUMMARY_ROUND, ev.StageKind.OVERVIEW):
            stages[kind.value] = ev.StageRef(kind, end_seconds=self.p.replay.duration_seconds)
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
