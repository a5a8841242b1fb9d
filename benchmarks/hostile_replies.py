"""Hostile model replies cost bounded, linear work (issue 29): seconds per MB of what a server or model sends.

Measures, on inputs made here:
  1. the SSE parser on one huge ``data:`` line fed in 4 KB chunks (was quadratic: every chunk rescanned the line);
  2. the ``<think>`` splitter on endless whitespace before a ``<think>`` (was quadratic the same way);
  3. a window reply with 10,038 claims: parse, validate (the real fact index of a corpus replay) and the
     error-wisdom review, with the number of wisdom entries it adds (target: a few);
  4. a claims block of 5,000 nested arrays (was a RecursionError).

Usage: .venv/bin/python benchmarks/hostile_replies.py [--mb N]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests: the corpus replay and its ids

from app.claims.parse import parse_claims
from app.claims.validate import ClaimValidator
from app.i18n import Lang
from app.llm.sse import SSEParser, ThinkSplitter
from app.store import open_database
from app.wisdom import WisdomGate

TARGET_S_PER_MB = 1.0


def sse_line(mb: float) -> float:
    """Seconds per MB for one ``data:`` line of ``mb`` MB fed in 4 KB chunks."""
    data = b"data: " + b"x" * int(mb * 1_000_000) + b"\n\n"
    parser = SSEParser()
    start = time.perf_counter()
    events = [e for k in range(0, len(data), 4096) for e in parser.feed(data[k : k + 4096])]
    elapsed = time.perf_counter() - start
    assert len(events) == 1
    return elapsed / mb


def think_blank(mb: float) -> float:
    """Seconds per MB of whitespace content (2-character deltas) before a ``<think>``."""
    splitter = ThinkSplitter()
    n = int(mb * 500_000)
    start = time.perf_counter()
    for _ in range(n):
        splitter.feed(" \n")
    out = splitter.feed("<think>r</think>a")
    elapsed = time.perf_counter() - start
    assert out == [(True, "r"), (False, "a")]
    return elapsed / mb


def many_claims() -> tuple[float, float, float, float, int]:
    """(MB, parse s, validate s, review s, entries added) for a reply of 10,038 claims on a real replay."""
    from tests.pipeline.test_scripted_runs import _prepared, _raw_facts

    prepared, facts = _prepared(), _raw_facts()
    name = facts["players"][0][1]
    claims = [{"unitId": facts["missing"] + k, "player": name, "confidence": "likely"} for k in range(10_038)]
    text = "分析。\n[机器可读声明]\n```json\n" + json.dumps({"unitClaims": claims}, ensure_ascii=False) + "\n```"
    t0 = time.perf_counter()
    parsed = parse_claims(text)
    t1 = time.perf_counter()
    issues = ClaimValidator(prepared.index, Lang.ZH).validate(parsed, text)
    t2 = time.perf_counter()
    with tempfile.TemporaryDirectory() as home:
        db = open_database(Path(home) / "w.sqlite3")
        try:
            gate = WisdomGate(db, Lang.ZH)
            t3 = time.perf_counter()
            gate.review_stage_text(
                parsed.display_text,
                issues=[i for i in issues if i.needs_revision],
                model="m",
                mod="corona",
                stage="window:0:0",
                trace_id="bench",
            )
            t4 = time.perf_counter()
            entries = gate.manager.store.count_entries()
        finally:
            db.close()
    return len(text.encode()) / 1e6, t1 - t0, t2 - t1, t4 - t3, entries


def nested() -> float:
    """Seconds to refuse a claims block of 5,000 nested arrays."""
    text = "x\n[claims]\n```json\n{" + '"unitClaims": ' + "[" * 5000 + "]" * 5000 + "}\n```"
    start = time.perf_counter()
    parsed = parse_claims(text)
    elapsed = time.perf_counter() - start
    assert [i.code for i in parsed.issues] == ["ClaimsBlockTooDeep"]
    return elapsed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=8.0, help="size of the huge SSE line and of the whitespace (MB)")
    args = ap.parse_args(argv)
    worst = 0.0
    for label, fn in (("SSE line in 4 KB chunks", sse_line), ("whitespace before <think>", think_blank)):
        small, big = fn(args.mb / 4), fn(args.mb)
        worst = max(worst, small, big)
        print(f"{label}: {small:.3f} s/MB at {args.mb / 4:g} MB, {big:.3f} s/MB at {args.mb:g} MB")
    mb, parse_s, validate_s, review_s, entries = many_claims()
    print(
        f"10,038 claims ({mb:.2f} MB): parse {parse_s:.3f} s, validate {validate_s:.3f} s, "
        f"wisdom review {review_s:.3f} s, {entries} wisdom entries"
    )
    print(f"5,000 nested arrays refused in {nested():.4f} s")
    ok = worst <= TARGET_S_PER_MB and entries <= 4
    print(f"worst {worst:.3f} s/MB (target ≤ {TARGET_S_PER_MB:g}); {'OK' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
