"""Event-loop stall measurement for the self-test and the benchmarks.

A coroutine sleeps a fixed tick over and over and records how late each wake-up is: on a qasync loop every
lateness is time the GUI thread was busy elsewhere (a stall the user would feel as a frozen window).

Each long stall is also taken apart, so a report can say whose it was: the GUI thread's own CPU time, the whole
process's (a worker thread holding the GIL shows here), and, on Linux, the time the GUI thread was ready to run
but waited for a CPU (``/proc/thread-self/schedstat``) and the time a virtual machine's host took the CPU the GUI
thread was on ("steal" in ``/proc/stat``, in 10 ms ticks). What none of those cover is time the thread slept past
its wake-up: blocking I/O, or a timer delivered late.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from dataclasses import dataclass, field

LONG_STALL_S = 0.025
"""Stalls at least this long are kept with their breakdown (:attr:`StallMonitor.long_stalls`)."""


@dataclass(frozen=True, slots=True)
class StallBreakdown:
    """One long stall and what the process did during it (milliseconds; ``at_s`` from the monitor's start)."""

    at_s: float
    late_ms: float
    gui_cpu_ms: float
    process_cpu_ms: float
    cpu_wait_ms: float | None
    """GUI thread runnable but not running (another task had the CPU); None where the OS does not say."""
    steal_ms: float | None = None
    """Time the virtual machine's host took the GUI thread's CPU (10 ms resolution); None where unknown."""

    @property
    def unexplained_ms(self) -> float:
        """Stall time covered by none of: this process's CPU, the wait for a CPU, the host's steal."""
        return max(0.0, self.late_ms - self.process_cpu_ms - (self.cpu_wait_ms or 0.0) - (self.steal_ms or 0.0))

    def as_dict(self) -> dict[str, float | None]:
        """Rounded fields for a JSON report."""
        return {
            "at_s": round(self.at_s, 2),
            "late_ms": round(self.late_ms, 1),
            "gui_cpu_ms": round(self.gui_cpu_ms, 1),
            "process_cpu_ms": round(self.process_cpu_ms, 1),
            "cpu_wait_ms": None if self.cpu_wait_ms is None else round(self.cpu_wait_ms, 1),
            "steal_ms": None if self.steal_ms is None else round(self.steal_ms, 1),
            "unexplained_ms": round(self.unexplained_ms, 1),
        }


class _RunQueueWait:
    """Cumulative seconds the calling thread has waited on a run queue (Linux schedstat), or None elsewhere."""

    def __init__(self) -> None:
        self._fd: int | None = None
        with contextlib.suppress(OSError):
            self._fd = os.open("/proc/thread-self/schedstat", os.O_RDONLY)  # this thread: open it on the loop's

    def seconds(self) -> float | None:
        if self._fd is None:
            return None
        try:
            return int(os.pread(self._fd, 128, 0).split()[1]) / 1e9
        except (OSError, ValueError, IndexError):
            return None

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class _HostSteal:
    """Per-CPU "steal" seconds from ``/proc/stat`` (time a VM's host ran something else), or None elsewhere.

    Every tick keeps the raw bytes (a read of the first lines, ~10 µs); they are parsed only for a long stall.
    """

    def __init__(self) -> None:
        self._stat: int | None = None
        self._self: int | None = None
        self._tick = 0.01
        with contextlib.suppress(OSError, ValueError, AttributeError):
            self._tick = 1 / os.sysconf("SC_CLK_TCK")
        with contextlib.suppress(OSError):
            self._stat = os.open("/proc/stat", os.O_RDONLY)
            self._self = os.open("/proc/thread-self/stat", os.O_RDONLY)  # this thread: open it on the loop's

    def snapshot(self) -> bytes | None:
        """The per-CPU lines as they are now (parse with :meth:`stolen`)."""
        if self._stat is None:
            return None
        try:
            return os.pread(self._stat, 4096, 0)  # "cpu" and "cpuN" lines come first
        except OSError:
            return None

    def stolen(self, before: bytes | None, after: bytes | None) -> float | None:
        """Seconds the host took the CPU this thread last ran on, between two snapshots."""
        cpu = self._current_cpu()
        if before is None or after is None or cpu is None:
            return None
        a, b = self._per_cpu(before), self._per_cpu(after)
        return b[cpu] - a[cpu] if cpu < min(len(a), len(b)) else None

    def _per_cpu(self, raw: bytes) -> list[float]:
        out = []
        for line in raw.decode("ascii", "replace").splitlines():
            fields = line.split()
            if fields and fields[0][3:].isdigit() and fields[0].startswith("cpu") and len(fields) > 8:
                out.append(int(fields[8]) * self._tick)
        return out

    def _current_cpu(self) -> int | None:
        if self._self is None:
            return None
        try:
            return int(os.pread(self._self, 4096, 0).rsplit(b")", 1)[1].split()[36])  # field 39 of stat
        except (OSError, ValueError, IndexError):
            return None

    def close(self) -> None:
        for fd in (self._stat, self._self):
            if fd is not None:
                os.close(fd)
        self._stat = self._self = None


@dataclass
class StallMonitor:
    """Records wake-up lateness (seconds) of a ``tick``-second sleeper while running."""

    tick: float = 0.005
    lateness: list[float] = field(default_factory=list)
    busy: list[float] = field(default_factory=list)
    """GUI-thread CPU seconds per tick: the stall a quiet machine would see (no other process, no GIL wait)."""
    long_stalls: list[StallBreakdown] = field(default_factory=list)
    """Every stall of at least :data:`LONG_STALL_S`, with what the process did meanwhile."""
    _task: asyncio.Task[None] | None = None

    def start(self) -> StallMonitor:
        """Begin sampling on the running loop (call it on the loop's thread: that thread is the one watched)."""
        self._task = asyncio.get_event_loop().create_task(self._run(_RunQueueWait(), _HostSteal()))
        return self

    async def _run(self, waits: _RunQueueWait, steal: _HostSteal) -> None:
        started = time.perf_counter()
        try:
            while True:
                t0, c0, p0, w0 = time.perf_counter(), time.thread_time(), time.process_time(), waits.seconds()
                s0 = steal.snapshot()
                await asyncio.sleep(self.tick)
                late = max(0.0, time.perf_counter() - t0 - self.tick)
                gui_cpu = time.thread_time() - c0
                self.lateness.append(late)
                self.busy.append(gui_cpu)
                if late >= LONG_STALL_S:
                    w1, stolen = waits.seconds(), steal.stolen(s0, steal.snapshot())
                    self.long_stalls.append(
                        StallBreakdown(
                            at_s=t0 - started,
                            late_ms=late * 1000,
                            gui_cpu_ms=gui_cpu * 1000,
                            process_cpu_ms=(time.process_time() - p0) * 1000,
                            cpu_wait_ms=None if w0 is None or w1 is None else (w1 - w0) * 1000,
                            steal_ms=None if stolen is None else stolen * 1000,
                        )
                    )
        finally:
            waits.close()
            steal.close()

    def stop(self) -> None:
        """Stop sampling."""
        if self._task is not None:
            self._task.cancel()
            self._task = None

    def worst(self, n: int = 3) -> list[StallBreakdown]:
        """The ``n`` longest stalls with their breakdowns, longest first."""
        return sorted(self.long_stalls, key=lambda s: s.late_ms, reverse=True)[:n]

    @property
    def max_ms(self) -> float:
        """Longest stall in milliseconds."""
        return max(self.lateness, default=0.0) * 1000

    @property
    def busy_max_ms(self) -> float:
        """The most GUI-thread CPU time spent between two ticks, in milliseconds (load-independent)."""
        return max(self.busy, default=0.0) * 1000

    def percentile_ms(self, q: float) -> float:
        """The ``q`` quantile (0–1) of the lateness, in milliseconds."""
        if not self.lateness:
            return 0.0
        data = sorted(self.lateness)
        k = min(len(data) - 1, max(0, round(q * (len(data) - 1))))
        return data[k] * 1000


def process_age_seconds() -> float | None:
    """Seconds since this process started (Linux ``/proc``; None elsewhere), for honest start-up times."""
    import os

    try:
        with open("/proc/self/stat", encoding="ascii") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        with open("/proc/uptime", encoding="ascii") as fh:
            uptime = float(fh.read().split()[0])
        start_ticks = int(fields[19])  # field 22 of stat; the split drops pid and comm
        return max(0.0, uptime - start_ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return None
