"""End-to-end analysis benchmark (issue 6).

1. The offline (rule-based) analysis of the 24-minute 1v1, end to end in-process: parse, facts, plan, every
   stage streamed, validated and stored in a fresh SQLite file. Target ≤ 10 s.
2. Prompt tokens per stage of the same replay for a 256K and a 1M profile, with the real system prompt and the
   deterministic summary: what each planned request would send (overview, each window, summary round).

Usage: ``.venv/bin/python benchmarks/analyze.py [--lang zh|en] [--file NAME]``
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("REPLAYSAGE_HOME", tempfile.mkdtemp(prefix="replaysage-bench-"))

from app.budget.profile import ModelProfile  # noqa: E402
from app.i18n import Lang  # noqa: E402
from app.pipeline import events as ev  # noqa: E402
from app.pipeline.prepare import prepare_replay  # noqa: E402
from app.pipeline.repository import AnalysisRepository  # noqa: E402
from app.pipeline.service import ModelChoice, run_analysis  # noqa: E402
from app.settings import BUILTIN_OFFLINE, Settings  # noqa: E402
from app.store import open_database  # noqa: E402

CORPUS = ROOT.parent / "shared" / "replays" / "ra3"
TARGET_FILE = "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"
TARGET_SECONDS = 10.0


def offline_run(path: Path, lang: Lang) -> None:
    from app.llm.factory import build_provider

    settings = Settings.load()
    db = open_database(Path(tempfile.mkdtemp()) / "bench.sqlite3")
    counts: dict[str, int] = {}

    def emit(e: ev.PipelineEvent) -> None:
        counts[type(e).__name__] = counts.get(type(e).__name__, 0) + 1

    async def main() -> int:
        provider = build_provider(settings, BUILTIN_OFFLINE)
        try:
            return await run_analysis(
                path, db=db, provider=provider, choice=ModelChoice.from_settings(BUILTIN_OFFLINE), lang=lang, emit=emit
            )
        finally:
            await provider.aclose()

    t0 = time.perf_counter()
    aid = asyncio.run(main())
    secs = time.perf_counter() - t0
    rec = AnalysisRepository(db).load(aid)
    done = sum(s.status == "done" for s in rec.stages)
    issues = sum(len(s.issues) for s in rec.stages)
    verdict = "OK" if secs <= TARGET_SECONDS and done == len(rec.stages) else "MISSED"
    print(f"offline analysis of {path.name}: {secs:.2f} s end to end (target ≤ {TARGET_SECONDS:.0f} s) {verdict}")
    print(f"  stages done {done}/{len(rec.stages)}, issues {issues}, deltas {counts.get('TextDelta', 0)}")
    db.close()


def stage_tokens(path: Path, lang: Lang) -> None:
    for label, ctx in (("256K", 256_000), ("1M", 1_000_000)):
        prof = ModelProfile(context_length=ctx, max_tokens=8192, provider="bench", model=label)
        prep = prepare_replay(path, prof, lang)
        print(
            f"\n{label}: {len(prep.plan.segments)} segment(s), "
            f"{sum(len(s.windows) for s in prep.plan.segments)} window(s); planned prompt tokens per request:"
        )
        print(
            f"  {'stage':<24}{'system':>9}{'summary':>9}{'overview':>9}{'slice':>9}{'facts':>8}{'instr':>7}"
            f"{'prompt':>9}{'cached':>9}"
        )
        for r in prep.plan.requests:
            b = r.breakdown
            name = r.stage if r.segment is None else f"{r.stage} s{r.segment + 1}w{(r.window or 0) + 1}"
            print(
                f"  {name:<24}{b.system:>9,}{b.summary:>9,}{b.overview:>9,}{b.slice:>9,}{b.found_facts:>8,}"
                f"{b.instruction:>7,}{b.prompt:>9,}{r.cacheable_tokens:>9,}"
            )
        print(
            f"  total prompt {prep.plan.prompt_tokens:,}; naive {prep.plan.naive_prompt_tokens:,}; "
            f"cacheable {prep.plan.cacheable_share:.1%}"
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lang", default="zh")
    ap.add_argument("--file", default=TARGET_FILE)
    args = ap.parse_args()
    lang = Lang.parse(args.lang)
    path = CORPUS / args.file
    offline_run(path, lang)
    stage_tokens(path, lang)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
