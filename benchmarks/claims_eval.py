"""Claim-checking evaluation numbers (issue 14): per claim kind precision and recall of the validator, and the
share of true claims that passed but a revision weakened (raw model revision vs after the merge that keeps them).

A "positive" is a flagged claim (an issue above Info); a wrong claim is what should be flagged. Precision = wrong
among flagged; recall = flagged among wrong. Data: ``tests/data/claims_eval/`` (planted.jsonl + case folders).

Labels are true, false or undecidable (``truth: null``); undecidable claims are left out of precision and recall and
shown in their own column.

Blind history (issue 28): a case whose case.json says ``"blind": true`` and that has no line in
``blind_history.jsonl`` yet gets its score appended there the first time this benchmark scores it (with the date and
the commit), before any rule is changed for it; lines already there are never rewritten. The per-case table shows
that first score beside the current one. ``--no-record`` scores without appending.

Prose checks (issue 28 §2): the sentences of ``<case>/prose.jsonl`` (wrong counts, times and durations, most of them
planted, and true sentences with numbers) are checked as the pipeline checks a reply, in the exchange's window
(``tests/support/prose_eval.py``); precision and recall per kind are printed after the claims numbers, with the
first score (``prose_history.jsonl``: appended once, before any prose rule was changed, never rewritten). Target: at
least 90% of the planted wrong counts and times flagged, no true sentence flagged.

Targets (issue 14): no true claim flagged; recall ≥ 95% per kind; no validated claim weakened.

Usage: ``.venv/bin/python benchmarks/claims_eval.py [--data DIR] [--corpus DIR] [--no-record]``
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.claims_eval import Verdict, Weakening, all_verdicts, case_dirs, case_weakening  # noqa: E402
from tests.support.claims_history import KIND_ORDER, append_first, first_scores, fmt_pr, score, scores_by_kind  # noqa: E402
from tests.support.prose_eval import PROSE_KINDS, ProseVerdict, all_prose_verdicts, prose_score  # noqa: E402

HISTORY = "blind_history.jsonl"
PROSE_HISTORY = "prose_history.jsonl"


def _git(*args: str) -> str:
    out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
    return out.stdout.strip()


def record_first_scores(data: Path, verdicts: list[Verdict]) -> list[dict[str, Any]]:
    """Append a history line for every blind case that has none yet (its first score); returns the new lines."""
    rows: list[dict[str, Any]] = []
    commit = _git("rev-parse", "HEAD")
    app_changes = bool(_git("status", "--porcelain", "--", "app"))
    for case in case_dirs(data):
        meta = json.loads((case / "case.json").read_text(encoding="utf-8"))
        vs = [v for v in verdicts if v.source == case.name]
        if not meta.get("blind") or not vs:
            continue
        rows.append(
            {
                "case": case.name,
                "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%MZ"),
                "commit": commit,
                "app_changes": app_changes,
                "method": "benchmarks/claims_eval.py on the case as committed, before any rule change for it",
                "kinds": scores_by_kind(vs),
            }
        )
    return append_first(data / HISTORY, rows)


def print_cases(data: Path, verdicts: list[Verdict]) -> None:
    """Per case and kind: first blind score (precision/recall) beside the current one."""
    first = first_scores(data / HISTORY)
    print(f"\n{'case':<24} {'kind':<9} {'first P/R':>11} {'now P/R':>11} {'undecidable':>11}  first scored")
    for case in case_dirs(data):
        vs = [v for v in verdicts if v.source == case.name]
        if not vs:
            continue
        row = first.get(case.name)
        for kind in KIND_ORDER:
            if kind != "all" and not any(v.kind == kind for v in vs):
                continue
            now = score(vs, kind)
            then = fmt_pr(row["kinds"].get(kind)) if row else "n/a"
            when = f"{row['date']} @ {str(row['commit'])[:9]}" if row and kind == "all" else ""
            if not row and kind == "all":
                when = "not blind (development case)"
            print(f"{case.name:<24} {kind:<9} {then:>11} {fmt_pr(now):>11} {now['undecidable']:>11}  {when}")


def record_prose_first(data: Path, verdicts: list[ProseVerdict]) -> list[dict[str, Any]]:
    """Append the prose checker's first score: once for the set (key "prose"), then once per case added later.

    A case whose prose.jsonl came after the first line gets its own line (key ``prose:<case>``), scored by the
    checker as committed before any prose rule is changed for it; lines already there are never rewritten.
    """
    path = data / PROSE_HISTORY
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    covered = {c for line in lines if line.strip() for c in json.loads(line).get("cases", [])}
    method = (
        "benchmarks/claims_eval.py: app.claims.prose as committed, every prose.jsonl sentence in its "
        "exchange's reply and window, before any prose rule was changed"
    )
    groups: list[tuple[str, list[ProseVerdict]]] = []
    if not lines:
        groups.append(("prose", verdicts))
    else:
        for case in sorted({v.source for v in verdicts} - covered):
            groups.append((f"prose:{case}", [v for v in verdicts if v.source == case]))
    rows = [
        {
            "case": key,
            "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%MZ"),
            "commit": _git("rev-parse", "HEAD"),
            "app_changes": bool(_git("status", "--porcelain", "--", "app")),
            "method": method if key == "prose" else method + " for this case",
            "cases": sorted({v.source for v in vs}),
            "kinds": {k: prose_score(vs, k) for k in (*PROSE_KINDS, "all")},
        }
        for key, vs in groups
    ]
    return append_first(path, rows)


def print_prose(data: Path, verdicts: list[ProseVerdict], unlabelled: int) -> None:
    """Per kind: planted wrong sentences caught, false alarms, precision/recall now and at the first score."""
    first = first_scores(data / PROSE_HISTORY).get("prose")
    print(
        f"\n{'prose':<9} {'sentences':>9} {'true':>5} {'wrong':>5} {'planted':>7} {'caught':>6} "
        f"{'false alarms':>12} {'precision':>9} {'recall':>7} {'planted recall':>14} {'first P/R':>10}"
    )
    for kind in (*PROSE_KINDS, "all"):
        s = prose_score(verdicts, kind)
        if not s["sentences"]:
            continue
        precision = f"{s['precision']:.1%}" if s["precision"] is not None else "n/a"
        recall = f"{s['recall']:.1%}" if s["recall"] is not None else "n/a"
        planted = f"{s['planted_caught']}/{s['planted']}"
        then = fmt_pr(first["kinds"].get(kind)) if first else "n/a"
        print(
            f"{kind:<9} {s['sentences']:>9} {s['true']:>5} {s['wrong']:>5} {s['planted']:>7} {s['caught']:>6} "
            f"{s['false_alarms']:>12} {precision:>9} {recall:>7} {planted:>14} {then:>10}"
        )
    if first:
        print(f"prose first scored {first['date']} @ {str(first['commit'])[:9]}")
    print(f"prose issues on sentences no label names: {unlabelled}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=ROOT / "tests" / "data" / "claims_eval")
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "replays")
    ap.add_argument("--no-record", action="store_true", help="do not append first scores to the blind history")
    args = ap.parse_args()
    verdicts = all_verdicts(args.data, args.corpus)
    if not args.no_record:
        for row in record_first_scores(args.data, verdicts):
            print(f"blind history: first score of {row['case']} recorded ({fmt_pr(row['kinds']['all'])} P/R)")
    print(
        f"{'source':<24} {'kind':<9} {'claims':>6} {'true':>5} {'wrong':>5} {'undecidable':>11} {'flagged':>7} "
        f"{'false alarms':>12} {'precision':>9} {'recall':>7}"
    )
    sources = sorted({v.source for v in verdicts})
    for source in [*sources, "all"]:
        for kind in KIND_ORDER:
            vs = [v for v in verdicts if (source in ("all", v.source)) and (kind in ("all", v.kind))]
            if not vs:
                continue
            s = score(vs)
            precision = f"{s['precision']:.1%}" if s["precision"] is not None else "n/a"
            recall = f"{s['recall']:.1%}" if s["recall"] is not None else "n/a"
            print(
                f"{source:<24} {kind:<9} {s['claims']:>6} {s['true']:>5} {s['wrong']:>5} {s['undecidable']:>11} "
                f"{s['flagged']:>7} {s['false_alarms']:>12} {precision:>9} {recall:>7}"
            )
    print_cases(args.data, verdicts)
    prose, unlabelled = all_prose_verdicts(args.data, args.corpus)
    if not args.no_record:
        for _row in record_prose_first(args.data, prose):
            print("prose history: first score recorded")
    print_prose(args.data, prose, len(unlabelled))
    total = Weakening()
    for case in case_dirs(args.data):
        w = case_weakening(case, args.corpus)
        total.passed_true += w.passed_true
        total.weakened_raw += w.weakened_raw
        total.weakened_merged += w.weakened_merged
    if total.passed_true:
        print(
            f"revisions: {total.passed_true} true claims passed before a revision; weakened by the model's "
            f"revision {total.weakened_raw} ({total.weakened_raw / total.passed_true:.1%}), after the merge "
            f"{total.weakened_merged} ({total.weakened_merged / total.passed_true:.1%})"
        )
    else:
        print("revisions: no revision exchanges in the data")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
