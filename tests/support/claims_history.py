"""The blind history of the claims evaluation (issue 28 §4): each blind case's FIRST score, kept for good.

Why: the evaluation cases are also the development set, so once rules are fitted to a case its current score says
little. The score a case gets the first time it is scored, before any rule is changed for it, is the honest number.
``blind_history.jsonl`` keeps one line per blind case with that score; lines are only ever appended (the benchmark
appends a case that has no line yet and never rewrites one; ``tests/test_claims_history.py`` checks the file against
its git history).

A line: ``{"case", "date", "commit", "app_changes", "method", "kinds": {"unit"|"event"|"timeline"|"all": {...}}}``
where each kind holds ``claims``, ``true``, ``wrong``, ``undecidable``, ``flagged``, ``caught``, ``false_alarms``,
``precision`` and ``recall`` (``null`` when undefined). ``commit`` is the commit whose code scored the case,
``app_changes`` says whether ``app/`` had uncommitted changes then.

This module is pure (no ``app`` imports), so a score can be computed with an older checkout's validator too.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

KIND_ORDER = ("unit", "event", "timeline", "all")


def _truth(v: Any) -> bool | None:
    truth = v.truth
    return None if truth is None else bool(truth)


def score(verdicts: Sequence[Any], kind: str = "all") -> dict[str, Any]:
    """Counts, precision and recall of one kind ("all" for every kind); undecidable labels are counted apart.

    ``verdicts`` are objects with ``kind``, ``truth`` and ``flagged`` (this and older harnesses' ``Verdict``).
    """
    vs = [v for v in verdicts if kind in ("all", v.kind)]
    decided = [v for v in vs if _truth(v) is not None]
    wrong = [v for v in decided if _truth(v) is False]
    flagged = [v for v in decided if v.flagged]
    caught = [v for v in wrong if v.flagged]
    return {
        "claims": len(vs),
        "true": len(decided) - len(wrong),
        "wrong": len(wrong),
        "undecidable": len(vs) - len(decided),
        "undecidable_flagged": sum(1 for v in vs if _truth(v) is None and v.flagged),
        "flagged": len(flagged),
        "caught": len(caught),
        "false_alarms": len(flagged) - len(caught),
        "precision": round(len(caught) / len(flagged), 4) if flagged else None,
        "recall": round(len(caught) / len(wrong), 4) if wrong else None,
    }


def scores_by_kind(verdicts: Sequence[Any]) -> dict[str, dict[str, Any]]:
    """:func:`score` for unit, event, timeline and all (kinds with no claim left out, except all)."""
    return {k: score(verdicts, k) for k in KIND_ORDER if k == "all" or any(v.kind == k for v in verdicts)}


def read_history(path: Path) -> list[dict[str, Any]]:
    """Every line of the history file (empty when it does not exist)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def first_scores(path: Path) -> dict[str, dict[str, Any]]:
    """The first (and only) history line of each case, by case name."""
    out: dict[str, dict[str, Any]] = {}
    for row in read_history(path):
        out.setdefault(str(row["case"]), row)
    return out


def append_first(path: Path, rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Append the rows whose case has no line yet; existing bytes are never touched. Returns what was appended."""
    known = set(first_scores(path))
    new: list[dict[str, Any]] = []
    for r in rows:
        if str(r["case"]) not in known:
            known.add(str(r["case"]))
            new.append(r)
    if not new:
        return []
    old = path.read_bytes() if path.exists() else b""
    with path.open("ab") as f:
        if old and not old.endswith(b"\n"):
            f.write(b"\n")
        for r in new:
            f.write(json.dumps(r, ensure_ascii=False, sort_keys=False).encode("utf-8") + b"\n")
    return new


def fmt_pr(kind_score: dict[str, Any] | None) -> str:
    """``P/R`` as two decimals ("-" when undefined), e.g. ``0.50/0.67``."""
    if kind_score is None:
        return "-"

    def one(x: float | None) -> str:
        return "-" if x is None else f"{x:.2f}"

    return f"{one(kind_score.get('precision'))}/{one(kind_score.get('recall'))}"
