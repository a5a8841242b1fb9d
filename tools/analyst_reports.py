"""Write the offline analyst's reports for every corpus replay, or compare two such folders byte for byte.

Why: the offline analyst is deterministic, so a refactor of it must leave its reports unchanged. Run it once
before a change and once after, then compare::

    .venv/bin/python tools/analyst_reports.py write /tmp/analyst_before [--source DIR]
    .venv/bin/python tools/analyst_reports.py write /tmp/analyst_after
    .venv/bin/python tools/analyst_reports.py compare /tmp/analyst_before /tmp/analyst_after

``write`` runs ``replaysage analyze`` (as ``python -m app.cli`` from ``--source``, default this checkout, so an
exported older tree can produce the baseline) for each replay in ``zh`` and ``en`` with a throwaway
``REPLAYSAGE_HOME``, keeps the JSON report (all texts, claims, issues and token counts) and renders the Markdown
report from it. ``compare`` prints every file that differs and exits 1 if any does.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "replays"
SUFFIXES = (".ra3replay", ".kwreplay", ".cnc3replay")
LANGS = ("zh", "en")


def _replays(corpus: Path) -> list[Path]:
    return sorted(p for p in corpus.rglob("*") if p.suffix.lower() in SUFFIXES)


def _one(replay: Path, lang: str, out: Path, source: Path) -> str:
    """Analyse one replay in one language; returns a status line."""
    stem = f"{replay.stem}.{lang}"
    with tempfile.TemporaryDirectory(prefix="rs-analyst-") as home:
        env = {**os.environ, "REPLAYSAGE_HOME": home, "QT_QPA_PLATFORM": "offscreen"}
        json_path = out / f"{stem}.json"
        proc = subprocess.run(
            [sys.executable, "-m", "app.cli", "analyze", str(replay), "--lang", lang, "--quiet", "--out",
             str(json_path)],
            cwd=source, env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
    (out / f"{stem}.log").write_text(f"exit {proc.returncode}\n{proc.stdout}{proc.stderr}", encoding="utf-8")
    if not json_path.is_file():
        return f"{stem}: no report (exit {proc.returncode})"
    from app.i18n import Lang
    from app.pipeline.report import report_markdown

    data = json.loads(json_path.read_text(encoding="utf-8"))
    (out / f"{stem}.md").write_text(report_markdown(data, Lang.parse(lang)), encoding="utf-8")
    issues = sum(len(s["issues"]) for s in data["stages"])
    return f"{stem}: {data['status']}, {len(data['stages'])} stages, {issues} issue(s)"


def write(out: Path, corpus: Path, source: Path, jobs: int, match: str = "") -> int:
    """Write ``<replay>.<lang>.json/.md/.log`` for every corpus replay (whose name contains ``match``)."""
    out.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(source))  # render the Markdown with the same tree that wrote the JSON
    tasks = [(r, lang) for r in _replays(corpus) if match in r.name for lang in LANGS]
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for line in pool.map(lambda t: _one(t[0], t[1], out, source), tasks):
            print(line, flush=True)
    return 0


def compare(before: Path, after: Path) -> int:
    """Print each report that differs (a unified diff of the first lines); 1 when any does."""
    names = {p.name for d in (before, after) for pattern in ("*.json", "*.md") for p in d.glob(pattern)}
    return compare_files(before, after, names, "report files")


def compare_files(before: Path, after: Path, names: set[str], noun: str = "files") -> int:
    """Print each of ``names`` that differs between the two folders (a unified diff of its first lines); 1 when any
    does. Also used by ``tools/report_snapshot.py``."""
    differ = 0
    for name in sorted(names):
        a, b = before / name, after / name
        if not (a.is_file() and b.is_file()):
            print(f"{name}: only in {'before' if a.is_file() else 'after'}")
            differ += 1
        elif a.read_bytes() != b.read_bytes():
            differ += 1
            diff = difflib.unified_diff(
                a.read_text(encoding="utf-8").splitlines(),
                b.read_text(encoding="utf-8").splitlines(),
                "before",
                "after",
                lineterm="",
            )
            print(f"{name}: differs\n" + "\n".join(list(diff)[:40]))
    print(f"{len(names)} {noun} compared, {differ} differ")
    return 1 if differ else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("write", help="write the reports of every corpus replay")
    w.add_argument("out", type=Path)
    w.add_argument("--corpus", type=Path, default=CORPUS)
    w.add_argument("--source", type=Path, default=ROOT, help="source tree to run (default: this checkout)")
    w.add_argument("--jobs", type=int, default=2)
    w.add_argument("--match", default="", help="only replays whose file name contains this")
    c = sub.add_parser("compare", help="compare two report folders byte for byte")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "write":
        return write(args.out, args.corpus, args.source.resolve(), args.jobs, args.match)
    return compare(args.before, args.after)


if __name__ == "__main__":
    raise SystemExit(main())
