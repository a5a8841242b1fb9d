"""Whole-process start-up of the command line, against a bare interpreter on the same machine.

Targets (issue 18): ``replaysage --help`` ≤ 150 ms and ``replaysage inspect --json`` of the 2.2 MB 3v3 ≤ 300 ms,
each also reported as a ratio to ``python -c pass``. Every command runs REPEAT times; the median and the best are
printed (the best is the least disturbed by other load on the machine), with the median CPU time (user + system)
of the process, which other load inflates less than the wall time, and the load average the run saw.

Each command runs once untimed first, with bytecode writing allowed: an installed copy has its ``.pyc`` files
(pip compiles them at install, PyInstaller bundles them), while a source checkout run with
``PYTHONDONTWRITEBYTECODE`` set would compile every project module on every start (~0.1 s) and measure that
instead.

    python benchmarks/cli_startup.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.conftest import corpus_file  # noqa: E402

SCRIPT = Path(sys.executable).with_name("replaysage")


def timed(argv: list[str], repeat: int) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of ``repeat`` runs of ``argv`` (after one untimed run that writes the bytecode)."""
    env = {**os.environ, "REPLAYSAGE_HOME": "/tmp/replaysage-cli-startup"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
    walls, cpus = [], []
    for _ in range(repeat):
        before = os.times()
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
        walls.append(time.perf_counter() - start)
        after = os.times()
        cpus.append(after.children_user - before.children_user + after.children_system - before.children_system)
    return walls, cpus


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    three_v_three = str(corpus_file("ra3_3v3_spring_showdown_19m.RA3Replay"))
    cases = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "replaysage --help": [str(SCRIPT), "--help"],
        "replaysage inspect --json (3v3, 2.2 MB)": [str(SCRIPT), "inspect", "--json", three_v_three],
        "replaysage facts --json (3v3)": [str(SCRIPT), "facts", "--json", three_v_three],
        "replaysage plan --json (3v3, 1M)": [
            str(SCRIPT),
            "plan",
            three_v_three,
            "--context-length",
            "1000000",
            "--json",
        ],
    }
    targets = {"replaysage --help": 0.150, "replaysage inspect --json (3v3, 2.2 MB)": 0.300}
    base: float | None = None
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'command':42} {'median':>9} {'best':>9} {'× bare':>7} {'cpu':>9}  target")
    for name, argv in cases.items():
        try:
            runs, cpus = timed(argv, args.repeat)
        except subprocess.CalledProcessError as exc:
            print(f"{name:42} failed: exit {exc.returncode}")
            continue
        median, best = statistics.median(runs), min(runs)
        base = base if base is not None else median
        target = targets.get(name)
        verdict = "" if target is None else f"≤ {target * 1000:.0f} ms: {'ok' if median <= target else 'MISSED'}"
        cpu = statistics.median(cpus) * 1000
        print(f"{name:42} {median * 1000:7.0f}ms {best * 1000:7.0f}ms {median / base:6.1f}× {cpu:7.0f}ms  {verdict}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
