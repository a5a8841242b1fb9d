"""Which text of a stage's reply is checked, and when a repair round is sent (plan §5.4, §5.5, §5.8, §7.7, §10).

One place for both questions, so the pipeline and the evaluation (``tests/support/prose_eval.py``) check the same
text the same way:

* a focus window's reply: its claims and the numbers of its text, within the window's focus period;
* the overview: it carries no claims (its prompt says so), yet it is the first text a user reads and every later
  request repeats it, so the numbers of its text (counts, times, durations) are checked over the whole match; a
  claims block it writes anyway is checked like a window's (and still not passed on);
* the summary round: its claims block, when it writes one.

A window's or the overview's issue above Info earns one repair round, in the stage's own conversation (plan §7.7,
§10: a severity above Info requires a revision). The overview is repaired before any window uses it, so its repaired
text is the one every later request carries. The summary round is not repaired: it is the last stage, and its
corrections go back into the windows (plan §5.8).
"""

from __future__ import annotations

from collections.abc import Sequence

from app.claims.issues import ValidationIssue
from app.claims.parse import ParsedClaims
from app.claims.validate import ClaimValidator
from app.pipeline.events import StageKind


def stage_issues(
    validator: ClaimValidator,
    kind: StageKind,
    parsed: ParsedClaims,
    text: str,
    *,
    span: tuple[float, float] | None = None,
    after_revision: bool = False,
) -> list[ValidationIssue]:
    """The issues of one reply of a stage of ``kind``, as the pipeline checks it.

    Args:
        validator: The run's validator.
        kind: The stage the reply belongs to.
        parsed: The reply's claims and display text (after a revision: the merged claims and corrected text).
        text: The reply as the model wrote it.
        span: A window's focus period (None for whole-match stages: counts are bounded by the match).
        after_revision: Whether ``parsed`` is a repaired reply (a window that still has no claims is then Fatal).
    """
    if kind is StageKind.OVERVIEW and not parsed.marker_found:
        # no claims, as the overview's prompt asks: only the numbers of its text (validate() would stop at
        # "the reply has no [claims] block", which is no fault of an overview)
        return validator.prose.check(parsed.display_text) if parsed.display_text.strip() else []
    if kind is StageKind.SUMMARY_ROUND and not parsed.marker_found:
        return []
    whole = kind is not StageKind.WINDOW
    return validator.validate(parsed, text, after_revision=after_revision, span=None if whole else span)


def needs_repair(issues: Sequence[ValidationIssue]) -> bool:
    """Whether a window's or the overview's reply gets its one repair round: an issue above Info (plan §7.7, §10)."""
    return any(i.needs_revision for i in issues)
