"""Streaming into the analysis view: event-loop stalls and CPU while a model streams, and startup time.

The scripted OpenAI-compatible server on 127.0.0.1 (in a child process, like a real server) streams N tokens
(one delta each, 4 characters, the first
tenth as reasoning) at R tokens/s; the real client parses them and a runner turns them into pipeline events
for the real main window (offscreen), as a live analysis stage does. The client runs on the GUI loop here,
which is harsher than the app, where it runs in the analysis worker process and only the events reach the
GUI. Targets: longest event-loop stall < 50 ms while streaming; startup to a visible window ≤ 2 s.

The charts are on screen (issue 34): the model streams with the build-order timeline in front. Before that, the
longest stall is measured apart for opening a replay with the APM tab in front (its charts are not computed: the
baseline), bringing the build-order tab to the front (the charts computed in the worker thread and drawn one per
turn), and opening a replay with that tab in front.

The three longest stalls are printed with what the process did meanwhile (see :mod:`ui.monitor`): the GUI
thread's CPU, the whole process's CPU, the time the GUI thread waited for a CPU, and the time a virtual machine's
host took that CPU ("steal"). A stall with little of any was time the GUI thread was not running at all.

Start-up is measured as a user sees it on the second and later starts: the benchmark first runs itself once,
short and untimed, in a fresh profile with bytecode writing allowed (an installed copy has its ``.pyc`` files; a
checkout run with ``PYTHONDONTWRITEBYTECODE`` would compile every project module on every start), then measures a
start in that profile (its database exists). The first start in a new profile (creating the database, compiling)
is reported beside it; it has no target.

Usage: .venv/bin/python benchmarks/ui_stream.py [--tokens 30000] [--rate 200] [--json]
"""

from __future__ import annotations

import time

T_PROCESS = time.perf_counter()

import argparse  # noqa: E402 - the clock starts before anything heavy is imported
import asyncio  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("REPLAYSAGE_HOME", tempfile.mkdtemp(prefix="replaysage-bench-"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

STALL_TARGET_MS = 50.0
CHART_REPLAY = (
    Path(__file__).resolve().parent.parent / "tests/data/replays/ra3/ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay"
)
"""Opened after start-up with the build-order chart in front: its charts are computed and drawn while measured."""
STARTUP_TARGET_MS = 2000.0


class ServerStreamRunner:
    """One analysis stage whose text comes from the scripted server through the real streaming client."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.deltas = 0
        self.first_delta_at: float | None = None

    async def run(self, replay_path: Path, emit: Any, *, profile: str, resume: bool = False) -> int:
        from app.llm.base import ChatRequest
        from app.llm.events import Finished, ReasoningDelta, TextDelta, UsageReport
        from app.llm.openai_compat import OpenAICompatProvider
        from app.pipeline import events as ev

        stage = ev.StageRef(ev.StageKind.OVERVIEW, end_seconds=600.0)
        emit(ev.RunStarted(1, str(replay_path), "scripted", (stage,)))
        await asyncio.sleep(0)  # the app's runner delivers each event in its own loop callback
        emit(
            ev.StageStarted(
                stage,
                {
                    "system": 3000,
                    "summary": 2000,
                    "slice": 40_000,
                    "instruction": 500,
                    "reserve": 32_768,
                    "total": 78_268,
                    "budget": 100_000,
                    "context_length": 200_000,
                },
                "bench prompt",
            )
        )
        from app.llm.openai_compat import make_http_client

        client = await asyncio.to_thread(make_http_client)  # as the app's runner does: TLS setup off the GUI
        provider = OpenAICompatProvider("bench", self.base_url, "scripted-model", client=client)
        parts: list[str] = []
        try:
            async with provider.stream(ChatRequest.simple("bench")) as stream:
                async for e in stream:
                    if isinstance(e, TextDelta):
                        parts.append(e.text)
                        emit(ev.TextDelta(stage, e.text))
                    elif isinstance(e, ReasoningDelta):
                        emit(ev.ReasoningDelta(stage, e.text))
                    elif isinstance(e, UsageReport):
                        emit(ev.UsageUpdated(stage, e.prompt_tokens, e.completion_tokens))
                    elif isinstance(e, Finished):
                        pass
                    else:
                        continue
                    self.deltas += 1
                    if self.first_delta_at is None:
                        self.first_delta_at = time.perf_counter()
        finally:
            await provider.aclose()
            await client.aclose()
        emit(ev.StageFinished(stage, "".join(parts)))
        emit(ev.RunFinished(1, "completed"))
        return 1


def reply_texts(tokens: int) -> tuple[str, str]:
    """Reasoning (the first tenth) and a Markdown answer of ``tokens`` 4-character pieces in all."""
    n_reason = tokens // 10
    piece = "数据 ab"[:4]  # 4 characters per token, Chinese and ASCII mixed
    reasoning = "".join(piece for _ in range(n_reason))
    text = "## 流式基准 Streaming benchmark\n" + "".join(piece if i % 20 else "\n- " for i in range(tokens - n_reason))
    return reasoning, text


def serve(conn: Any, tokens: int, rate: float) -> None:
    """Child process: the scripted server with the benchmark reply (a real model server is another process
    too, so its work must not compete for the GUI process's GIL)."""
    from tests.support.scripted_server import Reply, ScriptedServer

    # The scripted server stands in for a model server somewhere else; here it shares a 2-core machine with the
    # window. At the lowest priority it cannot keep the GUI thread waiting for a CPU, so the stalls measured are
    # the app's, not the harness's (a model server on the same laptop is another matter).
    os.nice(19)
    reasoning, text = reply_texts(tokens)
    with ScriptedServer() as server:
        server.enqueue(Reply.chat(text, reasoning, style="deepseek", tokens_per_s=rate, piece_chars=4))
        conn.send(server.base_url)
        conn.recv()  # stop when the parent says so


async def bench(app: Any, tokens: int, rate: float) -> dict[str, Any]:
    import multiprocessing

    from app.paths import sample_replay
    from ui.app import settle_after_startup, start_preload
    from ui.main_window import AppContext, MainWindow
    from ui.monitor import StallMonitor

    preload = start_preload()  # as the app does at start-up
    ctx_mp = multiprocessing.get_context("spawn")
    parent, child = ctx_mp.Pipe()
    proc = ctx_mp.Process(target=serve, args=(child, tokens, rate), daemon=True)
    proc.start()
    try:
        base_url = await asyncio.to_thread(parent.recv)
        runner = ServerStreamRunner(base_url)
        ctx = AppContext.open(runner=runner)
        window = MainWindow(ctx, find_folders=list)  # no game folders searched or watched here
        window.show()
        app.processEvents()
        window.repaint()  # visible means painted: the first full paint is part of start-up
        from ui.monitor import process_age_seconds

        age = process_age_seconds()  # from the process start, interpreter included (Linux); else from our clock
        startup_ms = (age if age is not None else time.perf_counter() - T_PROCESS) * 1000
        await window.open_replay(sample_replay())
        await settle_after_startup(preload)  # as the app does after start-up
        await window.side.tabs_loaded()  # the side tabs load after the window shows; a user then presses F5
        # the charts (issue 34): opening a replay with the APM tab in front (the charts are not computed: the
        # baseline), bringing the build-order tab to the front (its charts computed and drawn), and opening a replay
        # with it in front; the model then streams with that chart on screen
        phases: dict[str, Any] = {}

        async def measured(name: str, step: Any) -> None:
            monitor = StallMonitor(tick=0.005).start()
            await step()
            await window.charts.loaded()
            for _ in range(20):  # the charts draw one per event-loop turn after their data arrives
                await asyncio.sleep(0.01)
            monitor.stop()
            phases[name] = (monitor.max_ms, monitor.busy_max_ms)

        async def chart_tab() -> None:
            window.charts.setCurrentIndex(1)

        await measured("open_apm_tab", lambda: window.open_replay(CHART_REPLAY))
        await measured("show_charts", chart_tab)
        await measured("open_with_charts", lambda: window.open_replay(sample_replay()))
        charts_drawn = window.charts.build_chart.plot is not None and window.charts.path == sample_replay()
        _reasoning, text = reply_texts(tokens)

        monitor = StallMonitor(tick=0.005).start()
        cpu0, wall0 = time.process_time(), time.perf_counter()
        task = window.run.analyze()
        assert task is not None
        await task
        panel = window.analysis.panels["overview"]
        while panel.md_pending:  # the final Markdown renders in slices: measure those turns too
            await asyncio.sleep(0.01)
        wall = time.perf_counter() - wall0
        cpu = time.process_time() - cpu0
        monitor.stop()
        ok = panel.final_text is not None and len(panel.live_text()) == len(text)
        result: dict[str, Any] = {
            "tokens": tokens,
            "rate_tok_s": rate,
            "deltas_received": runner.deltas,
            "text_intact": ok,
            "wall_s": round(wall, 2),
            "cpu_s": round(cpu, 2),
            "cpu_percent_of_one_core": round(100 * cpu / wall, 1),
            "stall_p50_ms": round(monitor.percentile_ms(0.50), 2),
            "stall_p99_ms": round(monitor.percentile_ms(0.99), 2),
            "stall_p999_ms": round(monitor.percentile_ms(0.999), 2),
            "stall_max_ms": round(monitor.max_ms, 2),
            "stall_samples": len(monitor.lateness),
            "stalls_over_50ms": sum(1 for x in monitor.lateness if x > STALL_TARGET_MS / 1000),
            "gui_cpu_max_per_tick_ms": round(monitor.busy_max_ms, 1),
            "worst_stalls": [s.as_dict() for s in monitor.worst(3)],
            "text_flushes": panel.live.flushes,
            "startup_to_visible_ms": round(startup_ms, 1),
            "charts_on_screen": charts_drawn and window.charts.currentIndex() == 1,
            "chart_phases_stall_max_ms": {k: round(v[0], 1) for k, v in phases.items()},
            "chart_phases_gui_cpu_per_tick_max_ms": {k: round(v[1], 1) for k, v in phases.items()},
            "stall_target_ms": STALL_TARGET_MS,
            "startup_target_ms": STARTUP_TARGET_MS,
        }
        result["stall_ok"] = (
            result["stall_max_ms"] < STALL_TARGET_MS
            and max(result["chart_phases_stall_max_ms"].values(), default=0.0) < STALL_TARGET_MS
        )
        result["startup_ok"] = startup_ms <= STARTUP_TARGET_MS
        window.close()
        ctx.db.close()
    finally:
        parent.send("stop")
        await asyncio.to_thread(proc.join, 10)
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tokens", type=int, default=30_000)
    ap.add_argument("--rate", type=float, default=200.0)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--measure", action="store_true", help="one measured run in the current profile (internal)")
    args = ap.parse_args()
    if not args.measure:
        return run_warm_then_measured(args)
    from ui.app import prepare_gui_process

    prepare_gui_process()  # as the app does at start-up
    from PySide6.QtWidgets import QApplication

    from ui.qtloop import GuiLoop

    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(["ui_stream"])
    app.setQuitOnLastWindowClosed(False)  # closing the window must not stop the loop before the report
    from ui.theme import apply_theme

    apply_theme(app)  # as the app does at start-up (bundled CJK font where the system has none, style sheet)
    with asyncio.Runner(loop_factory=lambda: GuiLoop(app)) as runner:
        result = runner.run(bench(app, args.tokens, args.rate))
    print(json.dumps(result), file=sys.stderr if not args.json else sys.stdout)
    return 0


def run_warm_then_measured(args: argparse.Namespace) -> int:
    """A short untimed first start in a fresh profile (database created, bytecode written), then the measured run."""
    import subprocess

    home = tempfile.mkdtemp(prefix="replaysage-bench-")
    env = {**os.environ, "REPLAYSAGE_HOME": home}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    me = [sys.executable, str(Path(__file__).resolve()), "--measure", "--json"]
    first = subprocess.run(
        [*me, "--tokens", "200", "--rate", "2000"], env=env, capture_output=True, text=True, check=False
    )
    if first.returncode:
        sys.stderr.write(first.stderr)
        return first.returncode
    measured = subprocess.run(
        [*me, "--tokens", str(args.tokens), "--rate", str(args.rate)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if measured.returncode:
        sys.stderr.write(measured.stderr)
        return measured.returncode
    result = json.loads(measured.stdout.strip().splitlines()[-1])
    result["first_start_new_profile_ms"] = json.loads(first.stdout.strip().splitlines()[-1])["startup_to_visible_ms"]
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(
            f"{result['tokens']:,} tokens at {result['rate_tok_s']:.0f} tok/s into the analysis view "
            f"({result['wall_s']} s wall, text intact: {result['text_intact']})"
        )
        print(
            f"  event-loop stall p50 {result['stall_p50_ms']} ms · p99 {result['stall_p99_ms']} ms · "
            f"p99.9 {result['stall_p999_ms']} ms · max {result['stall_max_ms']} ms "
            f"(target < {STALL_TARGET_MS:.0f} ms: {'OK' if result['stall_ok'] else 'MISSED'}; "
            f"{result['stalls_over_50ms']} of {result['stall_samples']} samples over)"
        )
        for s in result["worst_stalls"]:
            wait = "n/a" if s["cpu_wait_ms"] is None else f"{s['cpu_wait_ms']} ms"
            stolen = "n/a" if s["steal_ms"] is None else f"{s['steal_ms']} ms"
            print(
                f"    stall {s['late_ms']} ms at +{s['at_s']} s: GUI thread CPU {s['gui_cpu_ms']} ms, process CPU "
                f"{s['process_cpu_ms']} ms, waiting for a CPU {wait}, taken by the VM host "
                f"{stolen}, none of these {s['unexplained_ms']} ms"
            )
        print(
            f"  charts on screen while streaming: {result['charts_on_screen']}; longest stall per phase "
            f"{result['chart_phases_stall_max_ms']} ms, GUI-thread CPU per tick at most "
            f"{result['chart_phases_gui_cpu_per_tick_max_ms']} ms (open_apm_tab: opening a replay with the charts "
            "not computed, the baseline)"
        )
        print(
            f"  CPU {result['cpu_s']} s = {result['cpu_percent_of_one_core']} % of one core "
            f"(GUI process: client + view; the server is another process); {result['text_flushes']} text flushes"
        )
        print(
            f"  startup to visible window {result['startup_to_visible_ms']} ms (target ≤ {STARTUP_TARGET_MS:.0f} ms:"
            f" {'OK' if result['startup_ok'] else 'MISSED'}); first start in a new profile "
            f"{result['first_start_new_profile_ms']} ms (database created, bytecode compiled; no target)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
