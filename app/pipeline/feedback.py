"""An analyst's feedback on a stored analysis, fed to both learning libraries.

Why one function: the same feedback must teach the memory and the error-wisdom library, whether it comes from
the GUI or from ``replaysage feedback``.

* Memory: a free statement (no ``--agree``/``--disagree``) is an explicit statement (weight 0.9), a preference
  of the analyst; a disagreement's text is scanned for reversal phrases ("太简略了"); ratings are recorded.
* Error wisdom, for a claim of a stage: when the validator flagged that claim, agreeing confirms the issue (a
  successful verification of its entry; a disputed issue, which taught nothing, is recorded now) and disagreeing
  retracts what the issue taught (its entry, the rules built on it, and the memory lessons of its code from this
  analysis: issue 28 §3); when the validator passed it, disagreeing records the model's wrong claim as a new
  cognitive entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from sqlalchemy.exc import NoResultFound

from app.claims.issues import Severity
from app.claims.parse import unit_id_of
from app.errors import KnownError
from app.store import Database

Verdict = Literal["agree", "disagree"] | None


class FeedbackError(KnownError):
    """The feedback names an analysis, stage or claim that does not exist, or has no analyst."""


@dataclass(frozen=True, slots=True)
class FeedbackResult:
    """What the feedback changed."""

    episode_id: int
    facts: tuple[int, ...]
    wisdom: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """JSON form (stable keys)."""
        return {"episode_id": self.episode_id, "facts": list(self.facts), "wisdom": self.wisdom}


def give_feedback(
    db: Database,
    analysis_id: int,
    text: str,
    *,
    analyst: str,
    stage: int | str | None = None,
    claim: str | None = None,
    verdict: Verdict = None,
    rating: int | None = None,
) -> FeedbackResult:
    """Record feedback on analysis ``analysis_id``.

    ``stage`` is the 1-based stage number shown by ``analyze``, or the stage's key (``window:0:1``: what the GUI
    knows a panel by).
    """
    from app.memory.model import FeedbackInput
    from app.memory.store import MemoryStore
    from app.pipeline.repository import AnalysisRepository

    if not analyst.strip():
        raise FeedbackError("feedback needs an analyst name: pass --analyst NAME or set analyst_name in the settings")
    if not text.strip() and verdict is None and rating is None:
        raise FeedbackError("feedback needs --text, --agree/--disagree or --rating")
    if claim is not None and stage is None:
        raise FeedbackError("--claim needs --stage (the claim's stage number)")
    try:
        record = AnalysisRepository(db).load(analysis_id)
    except NoResultFound as exc:
        raise FeedbackError(f"analysis {analysis_id} does not exist") from exc
    stage_key = None
    if stage is not None:
        stages = sorted(record.stages, key=lambda s: s.ordinal)
        if isinstance(stage, str):
            if stage not in {s.key for s in stages}:
                raise FeedbackError(f"analysis {analysis_id} has no stage {stage}")
            stage_key = stage
        elif not 1 <= stage <= len(stages):
            raise FeedbackError(f"analysis {analysis_id} has stages 1–{len(stages)}, not {stage}")
        else:
            stage_key = stages[stage - 1].key
    scope = "claim" if claim else ("stage" if stage_key else "report")
    fb = FeedbackInput(
        analyst=analyst.strip(),
        rating=rating,
        analysis_id=analysis_id,
        model=record.model_id or "",
        preference=text if verdict is None else "",
        correction=text if verdict == "disagree" else "",
        scope=scope,
    )
    result = MemoryStore(db).record_feedback(fb)
    wisdom: dict[str, Any] = {}
    if claim is not None and verdict is not None and stage_key is not None:
        stage_record = next(st for st in record.stages if st.key == stage_key)
        issues = _claim_issues(stage_record, claim)
        wisdom = _teach_wisdom(
            db,
            f"replay:{record.replay_sha256[:12]}",
            stage_key,
            claim,
            verdict=verdict,
            text=text,
            model=record.model_id or "",
            analyst=analyst.strip(),
            issues=issues,
        )
        if verdict == "disagree" and issues:
            wisdom["lessons_retracted"] = _retract_lessons(
                db, record, stage_key, claim, issues, analyst=analyst.strip(), note=text.strip()
            )
    facts = tuple(o.fact_id for o in result.outcomes if o.fact_id is not None)
    return FeedbackResult(result.episode_id, facts, wisdom)


def _of_claim(issue: Any, claim: str) -> bool:
    """Whether a stored issue is about ``claim``: an object id (``#762``) or an error-wisdom claim key."""
    from app.wisdom.gate import WisdomGate

    unit = unit_id_of(claim)
    if unit is not None:
        return bool(issue.unit_id == unit)
    return WisdomGate.claim_key(issue.code, issue.unit_id, issue.time_seconds, issue.message) == claim


def _claim_issues(stage: Any, claim: str) -> list[Any]:
    """The stored issues above Info of one claim of a stage: its final ones and those the model disputed."""
    return [
        i
        for i in stage.issues
        if i.severity > Severity.INFO
        and (i.after_revision == bool(stage.revised) or i.disputed)
        and _of_claim(i, claim)
    ]


def _retract_lessons(
    db: Database, record: Any, stage_key: str, claim: str, issues: Sequence[Any], *, analyst: str, note: str
) -> list[int]:
    """Take back the memory lessons of the claim's issue codes that no other undisputed issue of the run supports."""
    from app.memory.store import MemoryStore

    codes = {i.code for i in issues}
    still = {
        i.code
        for st in record.stages
        for i in st.issues
        if i.code in codes
        and i.severity > Severity.INFO
        and not i.disputed
        and (not i.after_revision or st.revised)
        and not (st.key == stage_key and _of_claim(i, claim))
    }
    return MemoryStore(db).retract_issue_lessons(record.id, codes - still, analyst, note)


def _teach_wisdom(
    db: Database,
    trace_id: str,
    stage_key: str,
    claim: str,
    *,
    verdict: str,
    text: str,
    model: str,
    analyst: str = "",
    issues: Sequence[Any] = (),
) -> dict[str, Any]:
    """Apply a ruling on a claim to the error-wisdom library.

    Disagreeing with a flagged claim's issue retracts the entry it taught (and the rules built on it); agreeing
    confirms it, and makes a disputed issue (which taught nothing) teach now. Disagreeing with a claim the validator
    passed records the model's wrong claim.
    """
    from app.wisdom.gate import WisdomGate
    from app.wisdom.manager import ErrorWisdomManager

    unit = unit_id_of(claim)
    key = f"unit:{unit}" if unit is not None else claim
    manager = ErrorWisdomManager(db)
    entry_id = manager.store.find_by_dedupe_key(f"{trace_id}|{stage_key}|{key}")
    note = text.strip()
    ruling = {"trace_id": trace_id, "stage": stage_key, "reviewer": analyst, "note": note}
    if entry_id is not None and verdict == "agree":
        manager.timeliness.register_confirmation(entry_id, **ruling)
        return {"entry": entry_id, "action": "confirmed"}
    if entry_id is not None:
        rules = manager.timeliness.register_retraction(entry_id, **ruling)
        return {"entry": entry_id, "action": "retracted", "rules_archived": rules}
    disputed = [i for i in issues if i.disputed]
    if verdict == "agree" and disputed:  # the person rules the disputed issue right: now it teaches
        worst = max(disputed, key=lambda i: i.severity)
        new_id = WisdomGate(manager).record_validation_issue(
            worst.code,
            Severity(worst.severity),
            model or None,
            None,
            stage_key,
            worst.message,
            trace_id=trace_id,
            unit_id=worst.unit_id,
            time_seconds=worst.time_seconds,
        )
        return {"entry": new_id, "action": "confirmed"}
    if verdict == "disagree" and not issues:
        new_id = WisdomGate(manager).record_validation_issue(
            "AnalystDisputed",
            "Warning",
            model or None,
            None,
            stage_key,
            # the library's 中文 (app.wisdom.wording renders it); the analyst's words are kept as written
            f"分析员否定了声明 {claim}" + (f"：{note}" if note else ""),
            trace_id=trace_id,
            unit_id=unit,
        )
        return {"entry": new_id, "action": "recorded"}
    return {"entry": None, "action": "retracted" if verdict == "disagree" else "none"}
