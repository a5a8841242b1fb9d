"""Offline analysis of the 24-minute 1v1 end to end (target ≤ 10 s), with per-stage prompt tokens.

Runs exactly what ``replaysage analyze`` runs with the built-in ``offline`` profile: parse, fact index, compact log,
summary, plan (``prepare_replay``), then every stage through the orchestrator with the rule-based analyst (claims
validated, lookbacks served, everything written to a real SQLite file in a temporary folder). Prints the wall time
of each phase, and for every stage its requests' prompt/completion tokens (cl100k, as the analyst reports them),
deltas streamed and validation issues.

Usage: .venv/bin/python benchmarks/offline.py [--replay NAME] [--lang zh|en]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.analyst.provider import OfflineAnalyst
from app.i18n import Lang
from app.pipeline import events as ev
from app.pipeline.prepare import prepare_replay
from app.pipeline.repository import AnalysisRepository
from app.pipeline.service import ModelChoice, run_analysis
from app.settings import BUILTIN_OFFLINE
from app.store import open_database

TARGET_S = 10.0
CORPUS = Path(os.environ.get("REPLAYSAGE_CORPUS", Path(__file__).resolve().parent.parent.parent / "shared" / "replays"))
DEFAULT = "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replay", default=DEFAULT)
    ap.add_argument("--lang", default="zh", choices=["zh", "en"])
    args = ap.parse_args()
    path = CORPUS / "ra3" / args.replay
    if not path.is_file():
        print(f"corpus replay not found: {path}", file=sys.stderr)
        return 2
    lang = Lang(args.lang)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["REPLAYSAGE_HOME"] = tmp  # never touch the real profile
        choice = ModelChoice.from_settings(BUILTIN_OFFLINE)
        db = open_database(Path(tmp) / "bench.sqlite3")
        deltas: dict[str, int] = {}

        def emit(e: ev.PipelineEvent) -> None:
            if isinstance(e, ev.TextDelta):
                deltas[e.stage.key] = deltas.get(e.stage.key, 0) + 1

        async def run() -> tuple[int, float, float]:
            t0 = time.perf_counter()
            prepared = await asyncio.to_thread(prepare_replay, path, choice.profile, lang)
            t1 = time.perf_counter()
            provider = OfflineAnalyst()
            try:
                aid = await run_analysis(
                    path, db=db, provider=provider, choice=choice, lang=lang, emit=emit, prepared=prepared
                )
            finally:
                await provider.aclose()
            return aid, t1 - t0, time.perf_counter() - t1

        start = time.perf_counter()
        aid, prepare_s, stages_s = asyncio.run(run())
        total = time.perf_counter() - start
        rec = AnalysisRepository(db).load(aid)
        print(f"replay: {args.replay} ({path.stat().st_size / 1e6:.2f} MB), lang {lang.value}, status {rec.status}")
        print(
            f"{'stage':<16}{'requests':>9}{'prompt tok':>12}{'completion':>12}{'deltas':>8}{'issues':>8}"
            f"{'lookbacks':>10}"
        )
        prompt_total = 0
        for s in rec.stages:
            prompt = sum(int(r.usage.get("prompt_tokens", 0)) for r in s.requests)
            completion = sum(int(r.usage.get("completion_tokens", 0)) for r in s.requests)
            prompt_total += prompt
            issues = sum(1 for i in s.issues if i.severity > 0)
            print(
                f"{s.key:<16}{len(s.requests):>9}{prompt:>12,}{completion:>12,}{deltas.get(s.key, 0):>8}"
                f"{issues:>8}{len(s.lookbacks):>10}"
            )
        print(f"prompt tokens, all requests: {prompt_total:,}")
        print(f"prepare (parse, index, log, summary, plan): {prepare_s:.2f} s")
        print(f"stages (overview, windows, summary round, validation, store): {stages_s:.2f} s")
        verdict = "OK" if total <= TARGET_S else "OVER TARGET"
        print(f"end to end: {total:.2f} s (target ≤ {TARGET_S:.0f} s) {verdict}")
        db.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
