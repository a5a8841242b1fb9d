"""Planned prompt tokens vs the old full-log design, cacheable share, and parse + plan time, on the RA3 corpus.

For every RA3 corpus replay and a 32K, 64K, 128K, 200K and 1M profile (tier-default budgets, the default max_tokens:
8192, or context / 8 below 64K; system prompt at the tier's reference size — the plan's 20K from 200K up; uncalibrated
×1.2 estimates):

* planned: total prompt tokens of the planned run (overview + one request per focus window + summary round);
* naive: the same rounds, each carrying the full level-1 compact log instead of a slice / metadata (old design);
* cacheable: share of planned prompt tokens that repeat a prefix of an earlier request of the run;
* per analysed minute (issue 31): planned prompt tokens divided by the replay's minutes, without caching (every
  token billed) and with it (only the tokens that are not a repeated prefix).

Targets (issue 4): ≥ 60% cacheable on the 24-minute 1v1 with the 1M profile; parse + plan of the longest corpus
replay ≤ 1 s. Time is measured cold (a fresh interpreter: imports, tiktoken load, parse, index, logs, summary,
plan) and warm (median of in-process repeats).

Usage: ``.venv/bin/python benchmarks/plan.py [--lang zh|en] [--runs N]``
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.budget.calibration import Calibration  # noqa: E402
from app.budget.errors import ReplayTooLongError  # noqa: E402
from app.budget.from_replay import plan_replay_file  # noqa: E402
from app.budget.profile import ModelProfile, default_max_tokens  # noqa: E402
from app.i18n import Lang  # noqa: E402

CORPUS = ROOT.parent / "shared" / "replays" / "ra3"
PROFILES = {"32K": 32_768, "64K": 64_000, "128K": 128_000, "200K": 200_000, "1M": 1_000_000}
TARGET_FILE = "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"
TARGET_SHARE = 0.60
TARGET_SECONDS = 1.0

COLD = """
import sys, time
t = time.perf_counter()
sys.path.insert(0, {root!r})
from app.budget.calibration import Calibration  # noqa: E402
from app.budget.from_replay import plan_replay_file  # noqa: E402
from app.budget.profile import ModelProfile  # noqa: E402
from app.i18n import Lang  # noqa: E402
plan_replay_file({path!r}, ModelProfile(context_length=1_000_000), lang=Lang({lang!r}), calibration=Calibration())
print(time.perf_counter() - t)
"""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lang", default="zh")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    lang = Lang.parse(args.lang)
    files = sorted(CORPUS.glob("*.RA3Replay"))
    print(
        "| replay | profile | slices | windows | requests | planned prompt | naive prompt | planned/naive | "
        "cacheable | compaction |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    ok_share = None
    per_minute: dict[str, dict[str, tuple[int, int, float]]] = {}
    for f in files:
        for name, length in PROFILES.items():
            profile = ModelProfile(context_length=length, max_tokens=default_max_tokens(length))
            try:
                plan = plan_replay_file(f, profile, lang=lang, calibration=Calibration())
            except ReplayTooLongError as exc:
                print(f"| {f.stem} | {name} | – | – | – | – | – | – | – | refused: {exc} |")
                continue
            data = plan.to_json()
            t = data["totals"]
            c = data["compaction"]
            windows = sum(len(s["windows"]) for s in data["segments"])
            comp = f"step {c['step']}" + (" relaxed" if c["relaxed"] else "")
            print(
                f"| {f.stem} | {name} | {len(data['segments'])} | {windows} | {t['requests']} | "
                f"{t['prompt_tokens']:,} | {t['naive_prompt_tokens']:,} | "
                f"{t['prompt_tokens'] / t['naive_prompt_tokens']:.2f} | {t['cacheable_share']:.1%} | {comp} |"
            )
            minutes = max(data["segments"][-1]["end_seconds"], 1.0) / 60
            uncached = t["prompt_tokens"] - t["cacheable_tokens"]
            per_minute.setdefault(f.stem, {})[name] = (t["prompt_tokens"], uncached, minutes)
            if f.name == TARGET_FILE and name == "1M":
                ok_share = t["cacheable_share"]
    print()
    print("Prompt tokens per analysed minute (without caching / with caching: only tokens that are no repeated prefix)")
    print()
    print("| replay | minutes | " + " | ".join(PROFILES) + " |")
    print("|---|---:|" + "---:|" * len(PROFILES))
    totals = {name: [0, 0, 0.0] for name in PROFILES}
    for stem, row in per_minute.items():
        minutes = next(iter(row.values()))[2]
        cells = []
        for name in PROFILES:
            if name not in row:
                cells.append("–")
                continue
            prompt, uncached, m = row[name]
            cells.append(f"{prompt / m:,.0f} / {uncached / m:,.0f}")
            totals[name][0] += prompt
            totals[name][1] += uncached
            totals[name][2] += m
        print(f"| {stem} | {minutes:.1f} | " + " | ".join(cells) + " |")
    cells = [f"{p / m:,.0f} / {u / m:,.0f}" if m else "–" for p, u, m in totals.values()]
    print("| **all replays** | | " + " | ".join(cells) + " |")
    print()
    if ok_share is not None:
        verdict = "OK" if ok_share >= TARGET_SHARE else "MISSED"
        print(f"target: {TARGET_FILE} at 1M cacheable {ok_share:.1%} (>= {TARGET_SHARE:.0%}) {verdict}")

    longest = max(files, key=lambda p: p.stat().st_size)
    by_name = [p for p in files if p.name == TARGET_FILE]
    for path in dict.fromkeys([*by_name, longest]):
        cold = [
            float(
                subprocess.run(
                    [sys.executable, "-c", COLD.format(root=str(ROOT), path=str(path), lang=lang.value)],
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout.strip()
            )
            for _ in range(args.runs)
        ]
        warm = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            plan_replay_file(path, ModelProfile(context_length=1_000_000), lang=lang, calibration=Calibration())
            warm.append(time.perf_counter() - t0)
        c, w = statistics.median(cold), statistics.median(warm)
        verdict = "OK" if c <= TARGET_SECONDS else "MISSED"
        print(
            f"parse + plan {path.name} (1M): cold {c * 1000:.0f} ms (fresh interpreter incl. imports and tiktoken "
            f"load), warm {w * 1000:.0f} ms; target <= {TARGET_SECONDS:.0f} s cold {verdict}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
