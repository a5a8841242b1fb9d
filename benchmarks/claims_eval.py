"""Claim-checking evaluation numbers (issue 14): per claim kind precision and recall of the validator, and the
share of true claims that passed but a revision weakened (raw model revision vs after the merge that keeps them).

A "positive" is a flagged claim (an issue above Info); a wrong claim is what should be flagged. Precision = wrong
among flagged; recall = flagged among wrong. Data: ``tests/data/claims_eval/`` (planted.jsonl + case folders).

Targets (issue 14): no true claim flagged; recall ≥ 95% per kind; no validated claim weakened.

Usage: ``.venv/bin/python benchmarks/claims_eval.py [--data DIR] [--corpus DIR]``
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.claims_eval import Weakening, all_verdicts, case_dirs, case_weakening  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=ROOT / "tests" / "data" / "claims_eval")
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "replays")
    args = ap.parse_args()
    verdicts = all_verdicts(args.data, args.corpus)
    print(
        f"{'source':<10} {'kind':<9} {'claims':>6} {'true':>5} {'wrong':>5} {'flagged':>7} "
        f"{'false alarms':>12} {'precision':>9} {'recall':>7}"
    )
    sources = sorted({v.source for v in verdicts})
    for source in [*sources, "all"]:
        for kind in ("unit", "event", "timeline", "all"):
            vs = [v for v in verdicts if (source in ("all", v.source)) and (kind in ("all", v.kind))]
            if not vs:
                continue
            wrong = [v for v in vs if not v.truth]
            flagged = [v for v in vs if v.flagged]
            caught = [v for v in wrong if v.flagged]
            alarms = [v for v in flagged if v.truth]
            precision = f"{len(caught) / len(flagged):.1%}" if flagged else "n/a"
            recall = f"{len(caught) / len(wrong):.1%}" if wrong else "n/a"
            print(
                f"{source:<10} {kind:<9} {len(vs):>6} {len(vs) - len(wrong):>5} {len(wrong):>5} {len(flagged):>7} "
                f"{len(alarms):>12} {precision:>9} {recall:>7}"
            )
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
