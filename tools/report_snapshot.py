"""Snapshot everything a behaviour-preserving refactor must leave unchanged, or compare two snapshots byte for byte.

Why (issue 32): splitting classes, moving definitions into one table and replacing prose parsing by typed
references must not change what a user gets. This writes, for every replay in ``tests/data/replays`` and
``../shared/replays`` (one copy of each distinct file), in ``zh`` and ``en``:

* the offline analyst's reports: ``<replay>.<lang>.fresh.json`` (``analyze --out``, from the run just finished)
  and ``.md`` / ``.html`` / ``.json`` written by ``replaysage report`` from the store (the reopened analysis);
* ``<replay>.<lang>.facts.json``: ``replaysage facts --json``;

plus ``verdicts.tsv``: the claims evaluation (``tests/support/claims_eval.all_verdicts``), one line per verdict
with source, exchange, kind, index, flagged and the issue codes. Usage::

    python tools/report_snapshot.py /tmp/base --source /tmp/base_tree   # an exported older tree
    python tools/report_snapshot.py /tmp/after --compare /tmp/base      # this checkout, then diff

Every command runs as ``python -m app.cli`` with its working directory at ``--source`` (default: this checkout)
and a throwaway ``REPLAYSAGE_HOME``, so the snapshot shows that tree's behaviour. ``--compare DIR`` prints every
file that differs or exists on one side only and exits 1 if any does.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPORA = (ROOT / "tests" / "data" / "replays", ROOT.parent / "shared" / "replays")
SUFFIXES = (".ra3replay", ".kwreplay", ".cnc3replay")
LANGS = ("zh", "en")

_VERDICTS = """
import sys
from pathlib import Path
from tests.support.claims_eval import all_verdicts
root, corpus = Path(sys.argv[1]), Path(sys.argv[2])
for v in all_verdicts(root, corpus):
    codes = ",".join(sorted(i.code for i in v.issues))
    print(f"{v.source}\\t{v.exchange}\\t{v.kind}\\t{v.index}\\t{int(v.flagged)}\\t{codes}")
"""


def replays(corpora: tuple[Path, ...] = CORPORA) -> list[Path]:
    """Every replay file of the corpora, one per distinct content (the in-repo copies repeat the shared ones)."""
    seen: dict[str, Path] = {}
    for corpus in corpora:
        for p in sorted(corpus.rglob("*")):
            if p.is_file() and p.suffix.lower() in SUFFIXES:
                seen.setdefault(hashlib.sha256(p.read_bytes()).hexdigest(), p)
    return sorted(seen.values(), key=lambda p: p.name)


def _run(args: list[str], source: Path, home: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "REPLAYSAGE_HOME": home, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(source)}
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args], cwd=source, env=env, capture_output=True, text=True, check=False
    )


def _one(replay: Path, lang: str, out: Path, source: Path) -> str:
    """Analyse one replay in one language and write its reports and facts; returns a status line."""
    stem = f"{replay.name}.{lang}"
    log: list[str] = []
    with tempfile.TemporaryDirectory(prefix="rs-snapshot-") as home:
        fresh = out / f"{stem}.fresh.json"
        proc = _run(["analyze", str(replay), "--lang", lang, "--quiet", "--out", str(fresh)], source, home)
        log.append(f"analyze: exit {proc.returncode}\n{proc.stdout}{proc.stderr}")
        if fresh.is_file():
            analysis_id = str(json.loads(fresh.read_text(encoding="utf-8"))["analysis_id"])
            for suffix in ("md", "html", "json"):
                target = out / f"{stem}.{suffix}"
                proc = _run(["report", analysis_id, "--lang", lang, "--out", str(target)], source, home)
                log.append(f"report .{suffix}: exit {proc.returncode}\n{proc.stderr}")
        proc = _run(["facts", str(replay), "--lang", lang, "--json"], source, home)
        (out / f"{stem}.facts.json").write_text(proc.stdout, encoding="utf-8")
        log.append(f"facts: exit {proc.returncode}\n{proc.stderr}")
    (out / f"{stem}.log").write_text("\n".join(log), encoding="utf-8")
    return f"{stem}: {'report' if fresh.is_file() else 'NO REPORT'}"


def write(out: Path, source: Path, jobs: int, match: str = "") -> int:
    """Write the snapshot of every replay (whose name contains ``match``) and the claims-evaluation verdicts."""
    out.mkdir(parents=True, exist_ok=True)
    tasks = [(r, lang) for r in replays() if match in r.name for lang in LANGS]
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for line in pool.map(lambda t: _one(t[0], t[1], out, source), tasks):
            print(line, flush=True)
    if not match:
        with tempfile.TemporaryDirectory(prefix="rs-snapshot-") as home:
            env = {**os.environ, "REPLAYSAGE_HOME": home, "PYTHONPATH": str(source)}
            corpus = next((c for c in reversed(CORPORA) if c.is_dir()), CORPORA[0])
            proc = subprocess.run(
                [sys.executable, "-c", _VERDICTS, str(source / "tests" / "data" / "claims_eval"), str(corpus)],
                cwd=source, env=env, capture_output=True, text=True, check=False,
            )  # fmt: skip
        (out / "verdicts.tsv").write_text(proc.stdout, encoding="utf-8")
        print(f"verdicts: {len(proc.stdout.splitlines())} lines (exit {proc.returncode}) {proc.stderr[-500:]}")
    return 0


def compare(before: Path, after: Path) -> int:
    """Print each snapshot file that differs (a unified diff of its first lines); 1 when any does."""
    from analyst_reports import compare_files  # the sibling tool (tools/ is on sys.path when a tool runs)

    names = {p.name for d in (before, after) for p in d.iterdir() if not p.name.endswith(".log")}
    return compare_files(before, after, names)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("out", type=Path, help="folder to write the snapshot to")
    ap.add_argument("--source", type=Path, default=ROOT, help="source tree to run (default: this checkout)")
    ap.add_argument("--compare", type=Path, metavar="DIR", help="after writing, compare with this snapshot")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--match", default="", help="only replays whose file name contains this (no verdicts)")
    args = ap.parse_args(argv)
    write(args.out, args.source.resolve(), args.jobs, args.match)
    return compare(args.compare, args.out) if args.compare else 0


if __name__ == "__main__":
    raise SystemExit(main())
