"""Database bytes per stored analysis (issue 22): every large text is stored once, in shared compressed blocks.

Analyses the 7-, 19- and 24-minute corpus replays with the offline analyst into one fresh store, then the 7-minute
one again, and prints how many bytes each analysis added (measured after VACUUM, so freed pages do not count),
next to its size before blocks, and the pages held by the blocks and their packs. Targets: each analysis at most
10% of its size before blocks; the same replay twice adds less than half of the first analysis.

"Before" is the wave-1 store (whole prompts and texts in their rows), measured by this benchmark on the checkout
before prompts became blocks: 0.66, 8.63 and 6.70 MB per analysis (16.3 MB for the three with the empty store,
as issue 22 reports).

    python benchmarks/store_growth.py [--tables]    (--tables: the largest tables after each analysis)
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
    ("7-minute 1v1", "ra3_1v1_industrial_strength_observer_7m.RA3Replay", 0.66e6),
    ("19-minute 3v3", "ra3_3v3_spring_showdown_19m.RA3Replay", 8.63e6),
    ("24-minute 1v1", "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay", 6.70e6),
    ("7-minute 1v1, again", "ra3_1v1_industrial_strength_observer_7m.RA3Replay", 0.0),
]
"""(label, corpus file, bytes the analysis added before blocks; 0: not measured then)."""


def vacuumed_size(path: Path) -> int:
    """Bytes of the database after VACUUM: its pages (the file itself shrinks only once every connection closed)."""
    db = sqlite3.connect(path)
    try:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.execute("VACUUM")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = int(db.execute("PRAGMA page_count").fetchone()[0])
        return pages * int(db.execute("PRAGMA page_size").fetchone()[0])
    finally:
        db.close()


def table_bytes(path: Path, sql: str) -> int:
    with sqlite3.connect(path) as db:
        try:
            return int(db.execute(sql).fetchone()[0] or 0)
        except sqlite3.OperationalError:
            return 0


def largest_tables(path: Path, count: int = 8) -> list[tuple[str, int]]:
    """The tables and indexes holding the most pages (SQLite's ``dbstat``)."""
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT ?", (count,))
        return [(str(n), int(b)) for n, b in rows]


def main() -> int:
    verbose = "--tables" in sys.argv[1:]
    home = Path(tempfile.mkdtemp(prefix="replaysage-store-growth-"))
    env = {**os.environ, "REPLAYSAGE_HOME": str(home)}
    db_path = home / "replaysage.sqlite3"
    subprocess.run(
        [sys.executable, "-m", "app.cli", "memory", "facts"], env=env, check=True, stdout=subprocess.DEVNULL
    )  # creates and migrates the store
    size = vacuumed_size(db_path)
    print(f"empty store: {size / 1e6:.2f} MB")
    print(f"{'analysis':24} {'before':>9} {'added':>9} {'share':>6} {'total':>9} {'blocks':>9} {'packs':>9}")
    first: dict[str, int] = {}
    for label, name, before in RUNS:
        subprocess.run(
            [sys.executable, "-m", "app.cli", "analyze", str(corpus_file(name)), "--quiet"],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        new_size = vacuumed_size(db_path)
        added = new_size - size
        size = new_size
        blocks = table_bytes(db_path, "SELECT sum(pgsize) FROM dbstat WHERE name = 'text_blocks'")
        packs = table_bytes(db_path, "SELECT sum(pgsize) FROM dbstat WHERE name = 'block_packs'")
        share = f"{added / before:6.1%}" if before else " " * 6
        shown = f"{before / 1e6:7.2f}MB" if before else " " * 9
        print(
            f"{label:24} {shown} {added / 1e6:7.3f}MB {share} {size / 1e6:7.2f}MB "
            f"{blocks / 1e6:7.3f}MB {packs / 1e6:7.3f}MB"
        )
        if verbose:
            print("   ", ", ".join(f"{t} {b / 1e3:.0f} KB" for t, b in largest_tables(db_path)))
        if name in first:
            print(f"  the same replay again added {added / first[name]:.0%} of its first analysis (target < 50%)")
        else:
            first[name] = added
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
