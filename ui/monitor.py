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
    """Per-CPU "steal" seconds from ``/proc/stat`` (time a VM's host ran something else), or None elsewhere."""

    def __init__(self) -> None:
        self._stat: int | None = None
        self._self: int | None = None
        self._tick = 0.01
        with contextlib.suppress(OSError, ValueError, AttributeError):
            self._tick = 1 / os.sysconf("SC_CLK_TCK")
        with contextlib.suppress(OSError):
            self._stat = os.open("/proc/stat", os.O_RDONLY)
            self._self = os.open("/proc/thread-self/stat", os.O_RDONLY)  # this thread: open it on the loop's

    def per_cpu(self) -> list[float] | None:
        """Steal seconds so far, per CPU."""
        if self._stat is None:
            return None
        try:
            text = os.pread(self._stat, 65536, 0).decode("ascii", "replace")
            return [
                int(line.split()[8]) * self._tick
                for line in text.splitlines()
                if line.startswith("cpu") and line[3:4].isdigit()
            ]
        except (OSError, ValueError, IndexError):
            return None

    def current_cpu(self) -> int | None:
        """The CPU this thread last ran on."""
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
                s0 = steal.per_cpu()
                await asyncio.sleep(self.tick)
                late = max(0.0, time.perf_counter() - t0 - self.tick)
                gui_cpu = time.thread_time() - c0
                self.lateness.append(late)
                self.busy.append(gui_cpu)
                if late >= LONG_STALL_S:
                    w1, s1, cpu = waits.seconds(), steal.per_cpu(), steal.current_cpu()
                    stolen = None
                    if s0 is not None and s1 is not None and cpu is not None and cpu < min(len(s0), len(s1)):
                        stolen = (s1[cpu] - s0[cpu]) * 1000
                    self.long_stalls.append(
                        StallBreakdown(
                            at_s=t0 - started,
                            late_ms=late * 1000,
                            gui_cpu_ms=gui_cpu * 1000,
                            process_cpu_ms=(time.process_time() - p0) * 1000,
                            cpu_wait_ms=None if w0 is None or w1 is None else (w1 - w0) * 1000,
                            steal_ms=stolen,
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
