"""Every fault mode of the scripted server ends within the configured deadlines, with ``--base-url`` and a profile.

Issue 29: a server that sent headers and then nothing, or keep-alives forever, held one overview for 1,831 s and a
three-request run for about an hour. Here each fault mode of :mod:`tests.support.scripted_server` answers *every*
model request of a real ``replaysage analyze`` of the bundled sample (overview twice, a window, the summary round),
once with ``--base-url`` and once with a profile whose provider is configured to wait an hour, so only the command
line's deadline flags can end it. For each run it reads the store (as the app wrote it) and reports:

* the longest request (all its attempts, retries and waits included) against ``--request-timeout``;
* the run, from the analysis' creation to its end, against ``--run-timeout``;
* the command's wall time (start-up, parsing and planning included) and the stage outcomes.

A mode holds when every request ends within the request deadline (plus :data:`SLACK_S` for the client's own
bookkeeping) and the run within the run deadline. The deadlines are small so the whole benchmark stays short.

Usage: .venv/bin/python benchmarks/stream_faults.py [--modes cut stall_after_content …] [--request-timeout 2.5]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.support: the scripted server

from app.paths import sample_replay
from app.settings import ModelProfileSettings, ProviderSettings, Settings
from app.stream_limits import StreamLimits
from tests.support.scripted_server import Reply, ScriptedServer

ROOT = Path(__file__).resolve().parent.parent
SLACK_S = 0.5
"""What a request may take beyond its deadline: closing the connection and recording the outcome."""
CLAIMS = '\n[机器可读声明]\n```json\n{"unitClaims": []}\n```'
LONG = "先看开局：双方都在扩张。" * 200 + CLAIMS
HOUR = StreamLimits(first_byte_s=3600.0, idle_s=3600.0, reply_s=3600.0, request_s=7200.0, run_s=0.0)
"""The profile's provider limits: an hour for everything, so only the flags can end a run soon."""

FAULTS: dict[str, Callable[[], Reply]] = {
    "headers_then_nothing": lambda: Reply.hang("headers"),
    "silent_no_headers": lambda: Reply.hang("silent"),
    "keepalive_forever": lambda: Reply.chat(LONG, first_token_delay_s=3600.0, keepalive_s=0.05),
    "slow_first_token": lambda: Reply.chat(LONG, first_token_delay_s=3600.0, keepalive_s=30.0),
    "stall_after_content": lambda: Reply.chat(LONG, piece_chars=4, stall_after=3, keepalive_s=0.05),
    "slow_drip": lambda: Reply.chat(LONG, piece_chars=1, tokens_per_s=4.0),
    "cut": lambda: Reply.chat(LONG, piece_chars=4, cut_after=3),
    "error_event": lambda: Reply.chat(LONG, piece_chars=4, error_after=3),
    "malformed_sse": lambda: Reply.raw_sse(["data: {not json at all\n\n"]),
    "length_stop": lambda: Reply.chat("只写到一半" + CLAIMS, finish_reason="length"),
    "body_held_open": lambda: Reply.chat("完整的回答。" + CLAIMS, hold_open_s=3600.0),
    "no_done": lambda: Reply.chat("完整的回答。" + CLAIMS, include_done=False),
    "http_429": lambda: Reply.error(429, "slow down", retry_after=1),
    "http_429_an_hour": lambda: Reply.error(429, "come back later", retry_after=3600),
    "http_500": lambda: Reply.error(500, "internal error"),
    "http_503_retry_after": lambda: Reply.error(503, "busy", retry_after_ms=700),
    "slow_error": lambda: Reply.error(502, "late gateway error", delay_s=3600.0),
    "endless_error_body": lambda: Reply.endless_error(502),
    "error_body_drip": lambda: Reply.endless_error(502, every_s=0.4),
    "http_401": lambda: Reply.error(401, "bad key"),
    "wrong_content_type": lambda: Reply.raw(200, "<html>login page</html>", "text/html"),
}


@dataclass
class Result:
    mode: str
    how: str
    wall_s: float
    run_s: float
    worst_request_s: float
    requests: int
    outcomes: str
    exit_code: int


def _settings(home: Path, base_url: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    settings = Settings.load(home / "settings.json")
    settings.put_provider(ProviderSettings("Bench", base_url, limits=HOUR))
    settings.put_profile(ModelProfileSettings("bench", "Bench", "scripted-model", context_length=1_000_000))
    settings.save()


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text)


def run_mode(mode: str, how: str, flags: list[str], work: Path) -> Result:
    home = work / f"{mode}-{how}"
    with ScriptedServer(default=FAULTS[mode]()) as server:
        if how == "profile":
            _settings(home, server.base_url)
            model = ["--model", "bench"]
        else:
            model = ["--base-url", server.base_url, "--model-id", "scripted-model", "--context-length", "1000000"]
        env = {**os.environ, "REPLAYSAGE_HOME": str(home), "REPLAYSAGE_API_KEY": "k", "REPLAYSAGE_LANG": "en"}
        env.pop("REPLAYSAGE_DATABASE_URL", None)
        cmd = [sys.executable, "-m", "app.cli", "analyze", str(sample_replay()), *model, *flags, "--quiet"]
        started = time.perf_counter()
        done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
        wall = time.perf_counter() - started
    if "Traceback" in done.stderr:
        raise SystemExit(f"{mode} ({how}): the command crashed:\n{done.stderr}")
    con = sqlite3.connect(home / "replaysage.sqlite3")
    try:
        created, finished = con.execute("SELECT created_at, finished_at FROM analyses").fetchone()
        durations = [d or 0.0 for (d,) in con.execute("SELECT duration_seconds FROM analysis_requests")]
        outcomes = sorted({o or s for o, s in con.execute("SELECT outcome, status FROM analysis_stages")})
    finally:
        con.close()
    run = (_when(finished) - _when(created)).total_seconds() if finished else wall
    worst = max(durations, default=0.0)
    return Result(mode, how, wall, run, worst, len(durations), ",".join(outcomes), done.returncode)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--modes", nargs="+", choices=sorted(FAULTS), default=list(FAULTS))
    parser.add_argument("--first-byte-timeout", type=float, default=0.5)
    parser.add_argument("--idle-timeout", type=float, default=0.5)
    parser.add_argument("--reply-timeout", type=float, default=2.0)
    parser.add_argument("--request-timeout", type=float, default=2.5)
    parser.add_argument("--run-timeout", type=float, default=15.0)
    args = parser.parse_args(argv)
    flags = [
        "--first-byte-timeout", str(args.first_byte_timeout), "--idle-timeout", str(args.idle_timeout),
        "--reply-timeout", str(args.reply_timeout), "--request-timeout", str(args.request_timeout),
        "--run-timeout", str(args.run_timeout),
    ]  # fmt: skip
    print(f"deadlines: {' '.join(flags)}; load average {os.getloadavg()[0]:.2f}")
    print(f"{'mode':<22} {'how':<8} {'requests':>8} {'worst req s':>11} {'run s':>7} {'wall s':>7}  outcomes")
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="stream-faults-") as tmp:
        for mode in args.modes:
            for how in ("base_url", "profile"):
                r = run_mode(mode, how, flags, Path(tmp))
                results.append(r)
                late = r.worst_request_s > args.request_timeout + SLACK_S or r.run_s > args.run_timeout + SLACK_S
                print(
                    f"{r.mode:<22} {r.how:<8} {r.requests:>8} {r.worst_request_s:>11.2f} {r.run_s:>7.2f} "
                    f"{r.wall_s:>7.2f}  {r.outcomes} (exit {r.exit_code}){'  LATE' if late else ''}",
                    flush=True,
                )
    worst_request = max(results, key=lambda r: r.worst_request_s)
    worst_run = max(results, key=lambda r: r.run_s)
    late = [
        r for r in results if r.worst_request_s > args.request_timeout + SLACK_S or r.run_s > args.run_timeout + SLACK_S
    ]
    print(
        f"worst request: {worst_request.worst_request_s:.2f} s ({worst_request.mode}, {worst_request.how}; "
        f"deadline {args.request_timeout:g} s)"
    )
    print(f"worst run: {worst_run.run_s:.2f} s ({worst_run.mode}, {worst_run.how}; deadline {args.run_timeout:g} s)")
    print(f"worst command wall time: {max(r.wall_s for r in results):.2f} s (start-up and planning included)")
    if late:
        print(f"OVER THE DEADLINE: {', '.join(f'{r.mode} ({r.how})' for r in late)}")
        return 1
    print(f"all {len(results)} runs ended within their deadlines")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
