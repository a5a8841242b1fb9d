"""Error-wisdom performance targets (issue 9), measured on a real SQLite store in a temp folder.

* pre_check p99 < 1 ms with 1,000 active learned rules (plus the five built-ins);
* query_prevention p95 < 5 ms with 100,000 entries;
* rule generation over 10,000 entries < 10 s, without an all-pairs scan.

Run: ``.venv/bin/python benchmarks/wisdom.py [--entries 100000] [--rules 1000] [--gen 10000]``. Prints numbers;
asserts nothing (targets are shown next to the measurements).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import insert

from app.i18n import Lang
from app.store import Database, open_database
from app.wisdom import ErrorWisdomManager, PreventionRule, WisdomEntry
from app.wisdom import taxonomy as tx
from app.wisdom.rules import RuleGenerationManager
from app.wisdom.store import _entry_to_row
from app.wisdom.tables import WisdomEntryRow

MODELS = [f"model-{i}" for i in range(20)]
MODS = ["vanilla", "corona", "kw"]
STAGES = ["overview", "window:0:0", "window:1:2", "summary_round"]
TOOLS = ["chat_completion", "claims_parser", "analysis_text", "lookback", "facts_query"] + [
    f"tool_{i}" for i in range(15)
]
CODES = ["CONTEXT_OVERFLOW", "RATE_LIMITED", "TIMEOUT", "PARSE_ERROR", "INVALID_VALUE"] + [
    f"E{i:03d}" for i in range(25)
]
ROOTS = sorted(tx.ALL_ROOT_CAUSES)


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(q / 100 * (len(s) - 1)))]


def make_entry(rng: random.Random, i: int, day: str) -> WisdomEntry:
    sub = rng.choice(list(tx.SUBTYPES))
    etype = tx.SUBTYPES[sub][0]
    tool = rng.choice(TOOLS)
    code = rng.choice(CODES)
    model = rng.choice(MODELS)
    stamp = f"{day[:4]}-{day[4:6]}-{day[6:]}T10:00:00Z"
    params = {
        k: rng.randint(1, 100000)
        for k in rng.sample(
            ["max_tokens", "temperature", "estimated_prompt_tokens", "context_length", "lookback_ranges", "p5", "p6"], 2
        )
    }
    return WisdomEntry(
        id=f"ew_{day}_{i:03d}",
        timestamp=stamp,
        trace_id=f"trace_{i}",
        version="1.0",
        error_type=tx.TYPE_LABELS[etype],
        error_subtype=tx.SUBTYPES[sub][1],
        description=f"synthetic error {i}",
        severity=rng.choice(tx.SEVERITIES[1:]),
        error_code=code,
        root_cause="synthetic",
        preventability=rng.choice(tx.PREVENTABILITY),
        prevention_strategy=f"strategy {i % 97}",
        created_at=stamp,
        updated_at=stamp,
        confidence=rng.uniform(0.4, 1.0),
        status=rng.choice(["active", "active", "deprecated"]),
        tool_name=tool,
        model=model,
        mod=rng.choice(MODS),
        stage=rng.choice(STAGES),
        root_cause_categories=rng.sample(ROOTS, 2),
        trigger_patterns=[f"tool:{tool}", f"code:{code}", f"model:{model}"],
        params=params,
    )


def bench_pre_check(folder: Path, n_rules: int) -> None:
    db = open_database(folder / "rules.sqlite3")
    m = ErrorWisdomManager(db, Lang.EN)
    rng = random.Random(1)
    params_names = ["max_tokens", "temperature", "estimated_prompt_tokens", "model", "p1", "p2", "p3", "p4"]
    for i in range(n_rules):
        tool = TOOLS[i % len(TOOLS)]
        model = MODELS[i % len(MODELS)] if i % 4 else None
        tmpl = "token_limit" if tool == "chat_completion" and i % 3 == 0 else "param_guard"
        pname = "estimated_prompt_tokens" if tmpl == "token_limit" else params_names[i % len(params_names)]
        m.store.upsert_rule(
            PreventionRule(
                rule_id=f"rule_bench_{i}",
                rule_name=f"bench {i}",
                created_at="2026-11-01T00:00:00Z",
                source_ids=[],
                trigger={},
                check={},
                action={"auto_fixable": True},
                scope={},
                status="active",
                confidence=0.9,
                template=tmpl,
                tool_name=tool,
                param_name=pname,
                model=model,
                signature=f"bench|{i}",
                params={"limit": rng.randint(60000, 200000)}
                if tmpl == "token_limit"
                else {"bad_values": [rng.randint(0, 50)], "replacement": 1},
            )
        )
    m.reload_rules()
    active = len([r for r in m.engine.rules() if r.status == "active"])
    calls = []
    for _ in range(2000):
        model = rng.choice(MODELS)
        calls.append(
            (
                "chat_completion",
                {
                    "model": model,
                    "max_tokens": rng.choice([4000, 8000, 16000]),
                    "temperature": rng.choice([0.2, 0.7, 3.0]),
                    "estimated_prompt_tokens": rng.randint(10000, 120000),
                    "context_length": 131072,
                    "known_models": MODELS,
                    "model_max_tokens": 8192,
                    "lookback_ranges": ["1:20~1:45"],
                },
            )
        )
        calls.append((rng.choice(TOOLS[1:]), {"model": model, "p1": rng.randint(0, 60), "p2": 3, "p4": "x"}))
    for tool, p in calls[:200]:  # warm-up
        m.pre_check(tool, p)
    times = []
    for _ in range(5):
        for tool, p in calls:
            t0 = time.perf_counter()
            m.pre_check(tool, p)
            times.append((time.perf_counter() - t0) * 1000)
    print(
        f"pre_check: {active} active learned rules + 5 built-ins, {len(times)} calls: "
        f"p50 {pct(times, 50):.4f} ms, p99 {pct(times, 99):.4f} ms, max {max(times):.3f} ms  (target p99 < 1 ms)"
    )
    db.close()


def seed_entries(db: Database, n_entries: int, rng: random.Random) -> None:
    """Insert ``n_entries`` synthetic entries (1,000 ids per day from 2026-01-01) in bulk.

    Shared with ``benchmarks/side_tabs.py``.
    """
    batch: list[dict[str, object]] = []
    cols = [c.name for c in WisdomEntryRow.__table__.columns]
    for i in range(n_entries):
        day = (date(2026, 1, 1) + timedelta(days=i // 1000)).strftime("%Y%m%d")  # 1,000 ids per day
        row = _entry_to_row(make_entry(rng, i % 1000 + 1, day))
        batch.append({c: getattr(row, c) for c in cols})
        if len(batch) == 5000:
            with db.session() as s:
                s.execute(insert(WisdomEntryRow), batch)
            batch = []
    if batch:
        with db.session() as s:
            s.execute(insert(WisdomEntryRow), batch)


def bench_query(folder: Path, n_entries: int) -> None:
    db = open_database(folder / "entries.sqlite3")
    rng = random.Random(2)
    t0 = time.perf_counter()
    seed_entries(db, n_entries, rng)
    t_insert = time.perf_counter() - t0
    t0 = time.perf_counter()
    m = ErrorWisdomManager(db, Lang.EN)
    t_load = time.perf_counter() - t0
    queries = []
    for _ in range(1000):
        ctx: dict[str, object] = {"model": rng.choice(MODELS), "mod": rng.choice(MODS), "stage": rng.choice(STAGES)}
        if rng.random() < 0.5:
            ctx["error_code"] = rng.choice(CODES)
        queries.append((ctx, rng.choice(TOOLS), {"max_tokens": 1, "temperature": 0.5}))
    for q in queries[:50]:
        m.query_prevention(*q)
    times = []
    sizes = []
    for ctx, tool, params in queries:
        t0 = time.perf_counter()
        res = m.query_prevention(ctx, tool, params)
        times.append((time.perf_counter() - t0) * 1000)
        sizes.append(len(res))
    print(
        f"query_prevention: {len(m.engine.query_index):,} usable of {m.store.count_entries():,} entries "
        f"(insert {t_insert:.1f} s, index load {t_load:.1f} s), {len(times)} queries: p50 {pct(times, 50):.3f} ms, "
        f"p95 {pct(times, 95):.3f} ms, max {max(times):.2f} ms, mean results {statistics.mean(sizes):.1f}  "
        "(target p95 < 5 ms)"
    )
    db.close()


def bench_generation(folder: Path, n: int) -> None:
    db = open_database(folder / "gen.sqlite3")
    rng = random.Random(3)
    # 250 latent patterns (a subtype, a tool, a code, a model, two root causes) plus noise entries
    patterns = []
    for _ in range(250):
        sub = rng.choice(list(tx.SUBTYPES))
        patterns.append((sub, rng.choice(TOOLS), rng.choice(CODES), rng.choice(MODELS), rng.sample(ROOTS, 2)))
    entries = []
    for i in range(n):
        e = make_entry(rng, i % 1000 + 1, (date(2026, 1, 1) + timedelta(days=i // 1000)).strftime("%Y%m%d"))
        if rng.random() < 0.8:
            sub, tool, code, model, roots = rng.choice(patterns)
            e.error_type = tx.TYPE_LABELS[tx.SUBTYPES[sub][0]]
            e.error_subtype = tx.SUBTYPES[sub][1]
            e.tool_name, e.error_code, e.model = tool, code, model
            e.root_cause_categories = list(roots) if rng.random() < 0.8 else [roots[0], rng.choice(ROOTS)]
            e.trigger_patterns = [f"tool:{tool}", f"code:{code}", f"model:{model}"]
        entries.append(e)
    t0 = time.perf_counter()
    report = RuleGenerationManager(db).run_generation_pipeline(entries)
    dt = time.perf_counter() - t0
    pairs = n * (n - 1) // 2
    print(
        f"rule generation: {n:,} entries -> {report['clusters']} clusters, {report['rules_generated']} rules in "
        f"{dt:.2f} s; {report['comparisons']:,} similarity evaluations vs {pairs:,} all-pairs "
        f"({report['comparisons'] / pairs:.4%})  (target < 10 s)"
    )
    db.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=100_000)
    ap.add_argument("--rules", type=int, default=1000)
    ap.add_argument("--gen", type=int, default=10_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        bench_pre_check(folder, args.rules)
        bench_generation(folder, args.gen)
        bench_query(folder, args.entries)


if __name__ == "__main__":
    main()
