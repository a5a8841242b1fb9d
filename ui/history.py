"""Reopening stored analyses: a stored record becomes the same event stream a live run emits.

The analysis view therefore has one way to show an analysis, live or past, and the budget bar of a reopened
stage shows exactly the stored request breakdown.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from app.i18n import Lang, tr
from app.pipeline import events as ev
from app.pipeline.repository import UNFINISHED_RUN_STATES, issue_of, lease_alive, stage_ref_of
from app.pipeline.run_status import status_words


def record_events(rec: Any) -> Iterator[ev.PipelineEvent]:
    """Events that rebuild the view of a stored :class:`app.pipeline.records.AnalysisRecord`."""
    stages = [stage_ref_of(s) for s in rec.stages]
    plan = rec.plan if isinstance(rec.plan, dict) else {}
    segments = tuple(
        (float(s.get("own_start_seconds") or s.get("start_seconds") or 0.0), float(s.get("end_seconds") or 0.0))
        for s in plan.get("segments", [])
        if isinstance(s, dict)
    )
    yield ev.RunStarted(rec.id, rec.replay_path, rec.model_label, tuple(stages), segments=segments)
    for srec, ref in zip(rec.stages, stages, strict=True):
        if srec.status == "pending":
            continue
        requests = list(srec.requests)
        if not requests:
            yield ev.StageStarted(ref)
        for req in requests:
            prompt = "\n\n".join(f"[{m.get('role', '')}]\n{m.get('content', '')}" for m in req.messages or [])
            yield ev.StageStarted(
                ref, {k: int(v) for k, v in (req.breakdown or {}).items() if isinstance(v, int | float)}, prompt
            )
            usage = req.usage or {}
            if usage:
                yield ev.UsageUpdated(
                    ref,
                    int(usage.get("prompt_tokens", 0)),
                    int(usage.get("completion_tokens", 0)),
                    int(usage.get("reasoning_tokens", 0)),
                    int(usage.get("cached_prompt_tokens", 0)),
                    req.ttft_seconds,
                    req.tokens_per_second,
                    usage.get("cost"),
                    req.resolved_model,
                )
        if srec.reasoning:
            yield ev.ReasoningDelta(ref, srec.reasoning)
        drafts = [o for o in srec.outputs if o.role == "draft"]
        if srec.revised and drafts:
            yield ev.TextDelta(ref, drafts[0].text)
            yield ev.RevisionStarted(ref, 0)
        for lb in srec.lookbacks:
            if lb.served:
                yield ev.LookbackServed(ref, lb.start_seconds, lb.end_seconds, lb.tokens)
        if srec.claims:
            yield ev.ClaimsParsed(ref, dict(srec.claims))
        for after in (False, True):  # the draft's issues, then (for a revised stage) those left after it
            chosen = [i for i in srec.issues if i.after_revision == after]
            if chosen or (after and srec.revised):
                yield ev.IssuesFound(
                    ref,
                    tuple(issue_of(i) for i in chosen),
                    after_revision=after,
                )
        if srec.status == "done":
            yield ev.StageFinished(ref, srec.text, bool(srec.revised), bool(srec.truncated))
        else:
            partial = [o.text for o in srec.outputs if o.role == "partial"]
            yield ev.StageFailed(
                ref, srec.message or srec.status, srec.text or (partial[-1] if partial else ""), srec.outcome or "error"
            )
    totals = rec.totals or {}
    yield ev.RunFinished(
        rec.id,
        rec.status if rec.status in ("completed", "partial", "cancelled", "failed") else "cancelled",
        int(totals.get("prompt_tokens", 0)),
        int(totals.get("completion_tokens", 0)),
        totals.get("cost"),
        rec.message,
    )


def model_words(model_label: str, lang: Lang) -> str:
    """The model a past analysis ran with: the built-in analyst by its shown name, a profile by its own name."""
    from app.settings import OFFLINE_PROFILE

    return tr(lang, "offline analyst") if model_label == OFFLINE_PROFILE else model_label


def history_items(records: list[Any], lang: Lang = Lang.EN) -> list[tuple[int, str, bool]]:
    """``(id, label, resumable)`` for the view's past-analyses picker, newest first, worded in ``lang``."""
    out = []
    for r in records:
        when = r.created_at.strftime("%Y-%m-%d %H:%M") if r.created_at else ""
        busy = lease_alive(r.owner, r.heartbeat_at)  # running in another process (or in this one) right now
        status = status_words(r.status, lang)
        if busy:
            if r.status != "running":  # resumed right now: "interrupted · running"; a running one says so itself
                status += tr(lang, " · running")
        elif r.status == "running":
            status = tr(lang, "stale (resumable)")
        label = f"#{r.id} {when} {model_words(r.model_label, lang)} · {status}"
        out.append((r.id, label, r.status in UNFINISHED_RUN_STATES and not busy))
    return out
