"""Database bytes per stored analysis (issue 22): prompts are stored once as shared, compressed blocks.

Analyses the 7-, 19- and 24-minute corpus replays with the offline analyst into one fresh store, then the 7-minute
one again, and prints how many bytes each analysis added (measured after VACUUM, so freed pages do not count),
with the share of the database held by prompt blocks. Targets: each analysis at most 10% of its size before
blocks (the "before" column is the same analysis with whole prompts, measured with ``--whole`` on a checkout
before the change, or given by the issue: 16.3 MB for the three); the same replay twice adds less than half of
the first analysis.

    python benchmarks/store_growth.py
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.conftest import corpus_file  # noqa: E402

RUNS = [
    ("7-minute 1v1", "ra3_1v1_industrial_strength_observer_7m.RA3Replay"),
    ("19-minute 3v3", "ra3_3v3_spring_showdown_19m.RA3Replay"),
    ("24-minute 1v1", "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"),
    ("7-minute 1v1, again", "ra3_1v1_industrial_strength_observer_7m.RA3Replay"),
]


def vacuumed_size(path: Path) -> int:
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db = sqlite3.connect(path)
    db.execute("VACUUM")
    db.close()
    return path.stat().st_size


def table_bytes(path: Path, sql: str) -> int:
    with sqlite3.connect(path) as db:
        try:
            return int(db.execute(sql).fetchone()[0] or 0)
        except sqlite3.OperationalError:
            return 0


def main() -> int:
    home = Path(tempfile.mkdtemp(prefix="replaysage-store-growth-"))
    env = {**os.environ, "REPLAYSAGE_HOME": str(home)}
    db_path = home / "replaysage.sqlite3"
    subprocess.run(
        [sys.executable, "-m", "app.cli", "memory", "facts"], env=env, check=True, stdout=subprocess.DEVNULL
    )  # creates and migrates the store
    size = vacuumed_size(db_path)
    print(f"empty store: {size / 1e6:.2f} MB")
    print(f"{'analysis':24} {'added':>10} {'total':>10} {'prompt blocks':>14} {'request rows':>13}")
    first: dict[str, int] = {}
    for label, name in RUNS:
        subprocess.run(
            [sys.executable, "-m", "app.cli", "analyze", str(corpus_file(name)), "--quiet"],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        new_size = vacuumed_size(db_path)
        added = new_size - size
        size = new_size
        blocks = table_bytes(db_path, "SELECT sum(length(data)) FROM prompt_blocks")
        requests = table_bytes(db_path, "SELECT sum(length(messages)) FROM analysis_requests")
        print(f"{label:24} {added / 1e6:8.2f}MB {size / 1e6:8.2f}MB {blocks / 1e6:12.2f}MB {requests / 1e6:11.2f}MB")
        if name in first:
            share = added / first[name]
            print(f"  the same replay again added {share:.0%} of its first analysis (target < 50%)")
        else:
            first[name] = added
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
