"""Damaged and hostile input: mutated corpus replays through parse, inspect and facts, plus special files.

The test suite (``tests/replay/test_bad_input.py``, ``tests/replay/test_limits.py``,
``tests/replay/test_bounded_input.py``) checks that damaged input fails cleanly or salvages; what it costs lives
here (CONTRIBUTING: no timed assertions in tests). Targets, per mutant:

* no traceback (only a ``KnownError`` refusal, a salvage or a parse) and no hang (a per-case alarm);
* time ≤ 2 s (the 20 slowest cases are re-run and keep their best of four: the machine is shared);
* peak memory growth ≤ 4 × the file size + the clean source's own growth, measured twice: the resident high-water
  mark (Linux, reset before each case through ``/proc/self/clear_refs``; real memory, but a warm process reuses
  freed memory) for every case, and the ``tracemalloc`` peak (every Python allocation, 10× slower) for a sample;
* output (inspect JSON + facts JSON + compact log) ≤ 2 × the clean source's output + 64 KiB.

The measured part is what ``inspect`` and ``facts`` do (parse, report, fact index, summary, compact log); a salvaged
file is then also repaired and read back, unmeasured, and any failure there counts as a traceback.

Mutations, drawn from a seeded ``random.Random`` per case so runs are comparable: bit flips, truncation, inserted
bytes, forged chunk sizes, command counts, chunk time codes and footer values. Cases run in a pool of worker
processes (2 by default: the development machine is shared). Special files (a FIFO, ``/dev/zero``, a 2 GB sparse
file) are timed separately: each must be refused in well under 1 s.

Usage: ``.venv/bin/python benchmarks/bad_input.py [--cases N] [--seed S] [--workers W] [--sources NAME ...]``
"""

from __future__ import annotations

import argparse
import os
import random
import re
import signal
import statistics
import struct
import sys
import tempfile
import time
import traceback
import tracemalloc
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from types import FrameType

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.errors import KnownError
from app.facts.eventlog import build_compact_log
from app.facts.index import build_fact_index
from app.facts.report import facts_json
from app.facts.summary import build_summary
from app.i18n import Lang
from app.replay.inspect import report
from app.replay.model import Replay
from app.replay.reader import parse_replay, read_replay
from app.replay.sample import sample_bytes
from app.replay.writer import make_footer, write_replay_bytes
from app.safetext import json_text

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "replays"
SOURCES = [
    "sample",
    "kw/kw_crane.KWReplay",
    "kw/kw_beacon.KWReplay",
    "kw/kw_bh.KWReplay",
    "kw/kw_t59_2.KWReplay",
    "kw/kw_nodtest.KWReplay",
    "kw/kw_test.KWReplay",
    "ra3/corona_pve_vs_ai_10m.RA3Replay",
    "ra3/ra3_1v1_industrial_strength_observer_7m.RA3Replay",
    "tw/tw_1v1_riverside_rumble_10m.CNC3Replay",
]
"""Corpus files up to ~350 KB (their clean facts run takes well under the 2 s target on a loaded 2-core machine;
the 2.2 MB 3v3 alone takes 1-3 s clean there, so it would measure the machine, not the damage)."""
KINDS = ("flip", "truncate", "insert", "size", "count", "timecode", "footer")
FORGED = (0xFFFFFFFF, 0x7FFFFFFF, 0x7FFFFFFE, 0x10000000, 0)
TARGET_S = 2.0
HANG_S = 30
MEMORY_FACTOR = 4
OUTPUT_FACTOR, OUTPUT_SLACK = 2, 64 * 1024
SPECIAL_TARGET_S = 1.0
RETIME = 20
"""The slowest cases are run 3 more times and keep their best time (other processes share the 2 cores)."""

_sources: list[bytes] = []  # per worker process, set by _init
_traced: list[bool] = []


# -- mutations ---------------------------------------------------------------------------------------------------


def chunk_walk(data: bytes) -> tuple[list[tuple[int, int, int]], int | None]:
    """(offset, time code, type) of each complete chunk, and the terminator's offset (notes §1.1, §2, §3)."""
    magic_at = data.index(b"CNC3RPL\0")
    pos = magic_at + struct.unpack_from("<I", data, magic_at - 8)[0]
    out: list[tuple[int, int, int]] = []
    while pos + 9 <= len(data):
        tc, ctype, size = struct.unpack_from("<IBI", data, pos)
        if tc == 0x7FFFFFFF:
            return out, pos
        if pos + 13 + size > len(data):
            break
        out.append((pos, tc, ctype))
        pos += 13 + size
    return out, None


def mutate(rng: random.Random, source: bytes) -> tuple[str, bytes]:
    """One damaged copy of ``source`` and the kind of damage."""
    data = bytearray(source)
    kind = rng.choice(KINDS)
    chunks, terminator = chunk_walk(source)
    if kind == "flip":
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif kind == "truncate":
        del data[rng.randrange(len(data)) :]
    elif kind == "insert":
        i = rng.randint(0, len(data))
        data[i:i] = rng.randbytes(rng.randint(1, 64))
    elif kind == "footer" and terminator is not None:
        magic_len = 17 if source.startswith(b"RA3") else 18
        at = terminator + 4 + magic_len  # the final time code; RA3's seconds 18 bytes further (notes §3)
        if magic_len == 17 and rng.random() < 0.5:
            at += 18
        struct.pack_into("<I", data, at, rng.choice(FORGED) if rng.random() < 0.3 else rng.getrandbits(32))
    else:
        value = rng.choice(FORGED) if rng.random() < 0.3 else rng.getrandbits(32)
        if kind == "count":
            off = rng.choice([c for c in chunks if c[2] == 1] or chunks)[0] + 9 + 1
        elif kind == "timecode":
            off, tc, _ = rng.choice(chunks)
            value = rng.choice([value, tc ^ (1 << rng.randrange(32)), tc + rng.randint(1, 100_000)]) & 0xFFFFFFFF
        else:
            off = rng.choice(chunks)[0] + 5
        struct.pack_into("<I", data, off, value)
    return kind, bytes(data)


# -- one case, in a worker ---------------------------------------------------------------------------------------


def exercise(data: bytes) -> tuple[str, int, Replay | None]:
    """What ``inspect`` and ``facts`` do with one file: the outcome, the output size in characters, the replay."""
    try:
        replay = parse_replay(data, "mutated")
    except KnownError:
        return "refused", 0, None
    size = len(json_text(report(replay)))
    index = build_fact_index(replay)
    summary = build_summary(index, Lang.EN)
    size += len(json_text(facts_json(index, summary)))
    size += sum(len(line.text) + 1 for line in build_compact_log(index, 1, Lang.EN).lines)
    return ("salvaged" if replay.truncated else "parsed"), size, replay


def repair_round_trip(replay: Replay) -> None:
    """What ``repair`` does with a salvaged replay (outside the measurements: it builds a new file)."""
    if replay.truncated and replay.chunk_count:
        footer = make_footer(replay.game, replay.chunks[-1].time_code)
        again = parse_replay(write_replay_bytes(replay.header, replay.chunks, footer), "repaired")
        assert not again.truncated, again.truncation_reason


class _HangError(Exception):
    pass


def _on_alarm(_signum: int, _frame: FrameType | None) -> None:
    raise _HangError


def _memory_kb(field: str) -> int:
    match = re.search(field + r":\s+(\d+)", Path("/proc/self/status").read_text())
    return int(match.group(1)) if match else 0


def _init(sources: list[bytes], traced: bool = False) -> None:
    _sources.extend(sources)
    signal.signal(signal.SIGALRM, _on_alarm)
    exercise(sample_bytes())  # load name tables and caches once, outside any measurement
    _traced.append(traced)


@dataclass(frozen=True, slots=True)
class Result:
    source: int
    kind: str
    size: int
    outcome: str
    seconds: float
    memory: int  # peak resident growth in bytes (0 where /proc is missing); the tracemalloc peak when traced
    output: int
    error: str = ""


def run_case(case: tuple[int, int | None]) -> Result:
    """Mutate source ``case[0]`` with seed ``case[1]`` (None: the clean source) and measure one exercise."""
    index, seed = case
    kind, data = ("clean", _sources[index]) if seed is None else mutate(random.Random(seed), _sources[index])
    traced = bool(_traced and _traced[0])
    has_proc = Path("/proc/self/clear_refs").exists() and not traced
    before = _memory_kb("VmRSS") if has_proc else 0
    if has_proc:
        Path("/proc/self/clear_refs").write_text("5")  # reset the high-water mark to the current RSS
    if traced:
        tracemalloc.start()
    signal.alarm(HANG_S * (10 if traced else 1))
    t0 = time.perf_counter()
    error, outcome, output, replay = "", "", 0, None
    try:
        outcome, output, replay = exercise(data)
    except _HangError:
        outcome = "hang"
    except Exception:  # a traceback: the bug this benchmark hunts
        outcome, error = "traceback", traceback.format_exc(limit=6)
    finally:
        signal.alarm(0)
    seconds = time.perf_counter() - t0
    memory = (_memory_kb("VmHWM") - before) * 1024 if has_proc else 0
    if traced:
        memory = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    if replay is not None:
        signal.alarm(HANG_S)
        try:
            repair_round_trip(replay)
        except _HangError:
            outcome = "hang"
        except Exception:  # a failed repair of a salvaged file is a bug too
            outcome, error = "traceback", traceback.format_exc(limit=6)
        finally:
            signal.alarm(0)
    return Result(index, kind, len(data), outcome, seconds, max(0, memory), output, error)


# -- special files -----------------------------------------------------------------------------------------------


def special_files() -> list[tuple[str, float, str]]:
    """Time the refusal of a FIFO, /dev/zero and a 2 GB sparse file (each in its own path through the reader)."""
    out: list[tuple[str, float, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        paths: list[tuple[str, str]] = []
        if hasattr(os, "mkfifo"):
            fifo = Path(tmp) / "pipe.RA3Replay"
            os.mkfifo(fifo)
            paths.append(("FIFO", str(fifo)))
        if Path("/dev/zero").exists():
            paths.append(("/dev/zero", "/dev/zero"))
        sparse = Path(tmp) / "sparse.RA3Replay"
        with sparse.open("wb") as f:
            f.write(sample_bytes()[:4096])
            f.truncate(2 * 1024**3)
        paths.append(("2 GB sparse file", str(sparse)))
        for label, path in paths:
            t0 = time.perf_counter()
            try:
                read_replay(path)
                message = "READ (not refused!)"
            except KnownError as exc:
                message = str(exc)
            out.append((label, time.perf_counter() - t0, message))
    return out


# -- main --------------------------------------------------------------------------------------------------------


def _print_bound(
    what: str,
    results: list[Result],
    names: list[str],
    *,
    value: Callable[[Result], int],
    bound: Callable[[Result], int],
    unit: int,
    unit_name: str,
) -> None:
    """The largest value, and the case closest to (or furthest past) its bound."""
    top = max(results, key=value)
    tight = max(results, key=lambda r: value(r) / max(1, bound(r)))
    print(
        f"{what}: max {value(top) / unit:.1f} {unit_name} ({top.kind} of {names[top.source]}); "
        f"closest to its bound: {value(tight) / unit:.1f} of {bound(tight) / unit:.1f} {unit_name} allowed "
        f"({tight.kind} of {names[tight.source]}, {tight.size / 1024:.0f} KB file)"
    )


def _load(name: str) -> bytes:
    return sample_bytes() if name == "sample" else (CORPUS / name).read_bytes()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--sources", nargs="*", default=SOURCES, help="'sample' or paths under shared/replays")
    ap.add_argument(
        "--traced-every",
        type=int,
        default=40,
        help="also measure every Nth mutant's Python allocation peak with tracemalloc (10x slower); 0: off",
    )
    args = ap.parse_args()
    names = [n for n in args.sources if n == "sample" or (CORPUS / n).exists()]
    sources = [_load(n) for n in names]
    rng = random.Random(args.seed)
    cases: list[tuple[int, int | None]] = [
        (rng.randrange(len(sources)), rng.getrandbits(64)) for _ in range(args.cases)
    ]
    started = time.perf_counter()
    with ProcessPoolExecutor(args.workers, initializer=_init, initargs=(sources,)) as pool:
        clean: dict[int, list[Result]] = {}
        for r in pool.map(run_case, [(i, None) for i in range(len(sources)) for _ in range(2)]):
            clean.setdefault(r.source, []).append(r)
        results = list(pool.map(run_case, cases, chunksize=16))
    wall = time.perf_counter() - started

    base_mem = {i: max(r.memory for r in rs) for i, rs in clean.items()}
    base_out = {i: max(r.output for r in rs) for i, rs in clean.items()}
    print(
        f"{len(results)} mutants of {len(sources)} files (seed {args.seed}, {args.workers} workers, {wall:.0f} s wall)"
    )
    for i, name in enumerate(names):
        c = clean[i][0]
        print(
            f"  clean {name}: {len(sources[i]) / 1024:.0f} KB, {min(r.seconds for r in clean[i]) * 1000:.0f} ms, "
            f"memory +{base_mem[i] / 2**20:.1f} MB, output {c.output / 1024:.0f} KB"
        )
    by_kind = Counter(r.kind for r in results)
    outcomes = Counter(r.outcome for r in results)
    print("kinds: " + ", ".join(f"{k} {by_kind[k]}" for k in KINDS))
    print("outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    for r in [r for r in results if r.outcome in ("traceback", "hang")][:5]:
        print(f"--- {r.outcome} in a {r.kind} mutant of {names[r.source]}:\n{r.error}")
    slowest = sorted(range(len(results)), key=lambda i: results[i].seconds)[-RETIME:]
    with ProcessPoolExecutor(args.workers, initializer=_init, initargs=(sources,)) as pool:
        again = list(pool.map(run_case, [cases[i] for i in slowest for _ in range(3)]))
    for n, i in enumerate(slowest):  # the shared machine's noise: keep each slow case's best of four runs
        best = min([results[i], *again[3 * n : 3 * n + 3]], key=lambda r: r.seconds)
        if best.seconds < results[i].seconds:
            print(
                f"  re-timed a {results[i].kind} mutant of {names[results[i].source]}: "
                f"{results[i].seconds * 1000:.0f} ms first, best of 4: {best.seconds * 1000:.0f} ms"
            )
            results[i] = replace(results[i], seconds=best.seconds)
    times = sorted(r.seconds for r in results)
    worst = max(results, key=lambda r: r.seconds)
    p99 = times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]
    print(
        f"time per file: p50 {statistics.median(times) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, "
        f"max {worst.seconds * 1000:.0f} ms ({worst.kind} of {names[worst.source]}, {worst.outcome})"
    )
    _print_bound(
        "peak resident growth",
        results,
        names,
        value=lambda r: r.memory,
        bound=lambda r: MEMORY_FACTOR * r.size + base_mem[r.source],
        unit=2**20,
        unit_name="MB",
    )
    _print_bound(
        "output",
        results,
        names,
        value=lambda r: r.output,
        bound=lambda r: OUTPUT_FACTOR * base_out[r.source] + OUTPUT_SLACK,
        unit=1024,
        unit_name="KB",
    )
    traced_cases = cases[:: args.traced_every] if args.traced_every else []
    with ProcessPoolExecutor(args.workers, initializer=_init, initargs=(sources, True)) as pool:
        traced_clean = {r.source: r.memory for r in pool.map(run_case, [(i, None) for i in range(len(sources))])}
        traced = list(pool.map(run_case, traced_cases, chunksize=4))
    if traced:
        print(f"traced (tracemalloc) peak of every {args.traced_every}th mutant, {len(traced)} cases:")
        _print_bound(
            "  Python allocation peak",
            traced,
            names,
            value=lambda r: r.memory,
            bound=lambda r: MEMORY_FACTOR * r.size + traced_clean[r.source],
            unit=2**20,
            unit_name="MB",
        )
    checks = {
        "0 tracebacks": outcomes["traceback"] == 0,
        "0 hangs": outcomes["hang"] == 0,
        f"every file < {TARGET_S:.0f} s": worst.seconds < TARGET_S,
        f"memory <= {MEMORY_FACTOR}x size + clean": all(
            r.memory <= MEMORY_FACTOR * r.size + base_mem[r.source] for r in results
        )
        and all(r.memory <= MEMORY_FACTOR * r.size + traced_clean[r.source] for r in traced),
        "output bounded": all(r.output <= OUTPUT_FACTOR * base_out[r.source] + OUTPUT_SLACK for r in results),
    }
    for label, seconds, message in special_files():
        ok = seconds < SPECIAL_TARGET_S and "READ" not in message
        checks[f"{label} refused < {SPECIAL_TARGET_S:.0f} s"] = ok
        print(f"{label}: {seconds * 1000:.1f} ms: {message}")
    for label, ok in checks.items():
        print(f"target {label}: {'OK' if ok else 'MISSED'}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
