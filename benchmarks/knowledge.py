"""Knowledge loading speed: first ``hash_names(mod)`` (JSON parse + hashing every name), cached calls, prompt render.

Target (issue 7): building a mod's hash → name table takes < 20 ms; later calls are cache hits. Each cold
measurement runs in a fresh interpreter so no cache or import is warm.

Usage: ``.venv/bin/python benchmarks/knowledge.py [--runs N]``
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

TARGET_MS = 20.0
_COLD = """
import time
import app.knowledge.loader, app.knowledge.names  # imports are not part of the table build
t = time.perf_counter()
table = app.knowledge.names.hash_names({mod!r})
print((time.perf_counter() - t) * 1000, len(table))
"""


def cold_ms(mod: str) -> tuple[float, int]:
    """Table build time in a fresh interpreter (imports excluded)."""
    out = subprocess.run(
        [sys.executable, "-c", _COLD.format(mod=mod)], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return float(out[0]), int(out[1])


def main() -> int:
    """Print cold/warm timings per mod and whether the target holds."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    from app.i18n import Lang
    from app.knowledge.loader import load_knowledge
    from app.knowledge.names import hash_names
    from app.knowledge.render import render_prompt

    ok = True
    for mod in ("RA3", "corona"):
        runs = [cold_ms(mod) for _ in range(args.runs)]
        cold = statistics.median(ms for ms, _ in runs)
        hash_names(mod)
        t = time.perf_counter()
        for _ in range(1000):
            hash_names(mod)
        warm_us = (time.perf_counter() - t) * 1000
        k = load_knowledge(mod)
        t = time.perf_counter()
        text = render_prompt(k, set(k.factions), Lang.ZH)
        render_ms = (time.perf_counter() - t) * 1000
        ok = ok and cold < TARGET_MS
        print(
            f"{mod:7} names={runs[0][1]:4}  cold table {cold:6.2f} ms (median of {args.runs})  "
            f"cached call {warm_us:.3f} us  render all factions {render_ms:6.2f} ms ({len(text)} chars)"
        )
    print(f"target: cold table < {TARGET_MS:.0f} ms -> {'OK' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
