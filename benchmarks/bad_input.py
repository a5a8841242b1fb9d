"""Time per mutated-replay case: parse, report and (when salvaged) repair of damaged real files.

The test suite (``tests/replay/test_bad_input.py``) checks that damaged input fails cleanly or salvages and
never hangs; how fast a case is lives here (CONTRIBUTING: no timed assertions in tests).
Target: every case under 2 s (p50 is a few milliseconds on a desktop).

Mutations as in the test: bit flips, truncation, inserted bytes, forged u32 chunk sizes and command counts,
drawn from a seeded ``random.Random`` so runs are comparable.

Usage: ``.venv/bin/python benchmarks/bad_input.py [--cases N] [--seed S]``
"""

from __future__ import annotations

import argparse
import random
import statistics
import struct
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.replay.errors import ReplayFormatError
from app.replay.inspect import report
from app.replay.reader import parse_replay
from app.replay.sample import sample_bytes
from app.replay.writer import make_footer, write_replay_bytes

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "replays"
SOURCES = ["kw/kw_crane.KWReplay", "kw/kw_beacon.KWReplay", "kw/kw_t59_2.KWReplay"]
TARGET_S = 2.0
FORGED = (0xFFFFFFFF, 0x7FFFFFFE, 0x10000000, 0)


def chunk_offsets(data: bytes) -> list[tuple[int, int]]:
    """(offset, type) of each complete chunk, walked from the header's first-chunk offset (notes §1.1, §2)."""
    magic_at = data.index(b"CNC3RPL\0")
    pos = magic_at + struct.unpack_from("<I", data, magic_at - 8)[0]
    out: list[tuple[int, int]] = []
    while pos + 9 <= len(data) and struct.unpack_from("<I", data, pos)[0] != 0x7FFFFFFF:
        _, ctype, size = struct.unpack_from("<IBI", data, pos)
        if pos + 9 + size + 4 > len(data):
            break
        out.append((pos, ctype))
        pos += 9 + size + 4
    return out


def mutate(rng: random.Random, source: bytes) -> tuple[str, bytes]:
    """One damaged copy of ``source`` and the kind of damage."""
    data = bytearray(source)
    kind = rng.choice(["flip", "truncate", "insert", "length", "count"])
    if kind == "flip":
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif kind == "truncate":
        del data[rng.randrange(len(data)) :]
    elif kind == "insert":
        i = rng.randint(0, len(data))
        data[i:i] = rng.randbytes(rng.randint(1, 64))
    else:
        chunks = chunk_offsets(bytes(data))
        value = rng.choice(FORGED) if rng.random() < 0.5 else rng.getrandbits(32)
        if kind == "count":
            off = rng.choice([c for c in chunks if c[1] == 1])[0] + 9 + 1
        else:
            off = rng.choice(chunks[:50])[0] + 5
        struct.pack_into("<I", data, off, value)
    return kind, bytes(data)


def exercise(data: bytes) -> str:
    """What the test does with one case; returns ``refused``, ``salvaged`` or ``parsed``."""
    try:
        replay = parse_replay(data, "mutated")
    except ReplayFormatError:
        return "refused"
    report(replay)
    if replay.truncated and replay.chunk_count:
        footer = make_footer(replay.game, replay.chunks[-1].time_code)
        parse_replay(write_replay_bytes(replay.header, replay.chunks, footer), "repaired")
        return "salvaged"
    return "parsed"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    sources = [sample_bytes(), *((CORPUS / rel).read_bytes() for rel in SOURCES if (CORPUS / rel).exists())]
    rng = random.Random(args.seed)
    times: list[float] = []
    worst = ("", 0.0)
    outcomes: dict[str, int] = {}
    for _ in range(args.cases):
        kind, data = mutate(rng, rng.choice(sources))
        t0 = time.perf_counter()
        outcome = exercise(data)
        elapsed = time.perf_counter() - t0
        times.append(elapsed)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        if elapsed > worst[1]:
            worst = (kind, elapsed)
    times.sort()
    p99 = times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]
    print(f"cases {len(times)} from {len(sources)} files, seed {args.seed}: "
          + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    print(f"per case: p50 {statistics.median(times) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, "
          f"max {worst[1] * 1000:.1f} ms ({worst[0]})")
    verdict = "OK" if worst[1] < TARGET_S else "OVER"
    print(f"target: every case < {TARGET_S:.0f} s: {verdict}")
    return 0 if verdict == "OK" else 1


if __name__ == "__main__":
    raise SystemExit(main())
