"""Replay parse speed on the corpus: size, commands, full in-process parse time, MB/s, commands/s.

"Full parse" = header + chunk walk + typed split of every command + names (command names for every command
and type-hash names for every hash-carrying command). Median of several runs after one warm-up.
Target (issue 2): ``ra3_3v3_spring_showdown_19m`` in <= 120 ms.

Usage: ``.venv/bin/python benchmarks/parse.py [--runs N] [FILE ...]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.replay.commands import command_table
from app.replay.names import HASH_ARGS, NameResolver
from app.replay.reader import parse_replay

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "replays"
TARGET_FILE = "ra3_3v3_spring_showdown_19m.RA3Replay"
TARGET_MS = 120.0


def full_parse(data: bytes, path: str) -> int:
    """Parse and name everything; returns the command count."""
    replay = parse_replay(data, path)
    table = command_table(replay.game)
    hash_args = HASH_ARGS[replay.game]
    resolver = NameResolver.for_mod(replay.header.mod_name)
    names: list[str] = []
    for cmd in replay.commands:
        info = table.get(cmd.command_id)
        names.append(info.name_en if info is not None else f"0x{cmd.command_id:03X}")
        spec = hash_args.get(cmd.command_id)
        if spec is not None and spec[0] < len(cmd.args):
            value = cmd.args[spec[0]]
            if isinstance(value, int):
                names.append(resolver.name(value))
    return len(replay.commands)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("files", nargs="*", type=Path)
    args = ap.parse_args()
    files = args.files or sorted(p for sub in ("ra3", "kw", "tw") for p in (CORPUS / sub).glob("*") if p.is_file())
    if not files:
        print(f"no replays found under {CORPUS}", file=sys.stderr)
        return 1
    print(f"{'file':<52} {'bytes':>9} {'commands':>8} {'ms':>8} {'MB/s':>7} {'cmd/s':>9}")
    verdict = ""
    for path in files:
        data = path.read_bytes()
        ncmd = full_parse(data, str(path))  # warm-up (caches, name tables)
        times = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            full_parse(data, str(path))
            times.append(time.perf_counter() - t0)
        med = statistics.median(times)
        print(
            f"{path.name:<52} {len(data):>9} {ncmd:>8} {med * 1000:>8.1f} {len(data) / med / 1e6:>7.1f} "
            f"{ncmd / med:>9.0f}"
        )
        if path.name == TARGET_FILE:
            verdict = (
                f"target {TARGET_FILE}: {med * 1000:.1f} ms (budget {TARGET_MS:.0f} ms) -> "
                f"{'OK' if med * 1000 <= TARGET_MS else 'OVER BUDGET'}"
            )
    if verdict:
        print(verdict)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
