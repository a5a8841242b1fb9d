"""How a prose finding reads: a warning that quotes the sentence, what it said and the fact (issue 28 §2).

The count, time and duration checks of :mod:`app.claims.prose` report through :func:`prose_issue` (codes
``ProseCount``, ``ProseTime``, ``ProseDuration``).
"""

from __future__ import annotations

from app.claims.issues import Severity, ValidationIssue
from app.i18n import Lang, tr


def prose_issue(
    lang: Lang, code: str, sentence: str, said: str, fact: str, *, t: float | None = None
) -> ValidationIssue:
    """A warning that ``said`` in ``sentence`` disagrees with ``fact`` (``t``: the time it is about)."""
    message = tr(
        lang,
        "a number in the text disagrees with the facts: '{said}' in \"{sentence}\"; fact: {fact}",
        said=said,
        sentence=sentence,
        fact=fact,
    )
    return ValidationIssue(Severity.WARNING, code, message, time_seconds=t, fact=fact, quote=sentence)
