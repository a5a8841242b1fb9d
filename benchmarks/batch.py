"""``replaysage batch`` over 50 corpus replays with the offline analyst, ``--jobs 1`` against ``--jobs 4``.

Builds a folder of ``--count`` replays by cycling through the corpus (copies under distinct names; ``--force`` makes
every copy a full analysis, so the work per run is the same), then runs the real command in a fresh user-data
folder per job count and reports the wall time, the time per replay and the speed-up over one job.

The ceiling: every analysis is pure Python (parse, fact index, offline analyst, validation, SQLite writes), so a
worker process uses one core; the speed-up cannot exceed ``min(jobs, cores)`` and falls short of it by the workers'
start-up (each imports the app), the parent's hashing and planning, the store's single writer (SQLite serialises
writes), and whatever else the machine runs (the load average is printed before and after).

Usage: .venv/bin/python benchmarks/batch.py [--count 50] [--jobs 1 4]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.replay.files import REPLAY_SUFFIXES

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("REPLAYSAGE_CORPUS", ROOT.parent / "shared" / "replays"))


def build_folder(folder: Path, count: int) -> list[Path]:
    """``count`` replays copied from the corpus in turn (``copy-NN-name``)."""
    corpus = sorted(p for p in CORPUS.rglob("*") if p.suffix.lower() in REPLAY_SUFFIXES)
    if not corpus:
        raise SystemExit(f"no corpus replays under {CORPUS}")
    folder.mkdir(parents=True)
    copies = []
    for i in range(count):
        src = corpus[i % len(corpus)]
        dst = folder / f"copy-{i:02d}-{src.name}"
        shutil.copy(src, dst)
        copies.append(dst)
    return copies


def run(folder: Path, jobs: int, home: Path) -> tuple[float, dict[str, int]]:
    """One ``replaysage batch`` run; its wall time and how many replays ended in each status."""
    env = {**os.environ, "REPLAYSAGE_HOME": str(home)}
    cmd = [sys.executable, "-m", "app.cli", "batch", str(folder), "--jobs", str(jobs), "--force", "--json"]
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if not done.stdout.strip():
        raise SystemExit(f"batch --jobs {jobs} failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    statuses: dict[str, int] = {}
    for row in json.loads(done.stdout)["replays"]:
        statuses[row["status"]] = statuses.get(row["status"], 0) + 1
    return wall, statuses


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=50, help="replays in the folder (default 50)")
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 4], help="job counts to compare (default 1 4)")
    args = ap.parse_args()
    print(f"cores: {os.cpu_count()}, load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "replays"
        copies = build_folder(folder, args.count)
        size = sum(p.stat().st_size for p in copies) / 1e6
        print(f"{len(copies)} replays ({size:.1f} MB) from {CORPUS}")
        print(f"{'jobs':>4} {'wall s':>8} {'s/replay':>9} {'speed-up':>9}  statuses")
        base: float | None = None
        for jobs in args.jobs:
            home = Path(tmp) / f"home-{jobs}"
            home.mkdir()
            wall, statuses = run(folder, jobs, home)
            base = base if base is not None else wall
            counts = ", ".join(f"{n} {s}" for s, n in sorted(statuses.items()))
            print(f"{jobs:>4} {wall:>8.1f} {wall / len(copies):>9.2f} {base / wall:>8.2f}x  {counts}", flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
