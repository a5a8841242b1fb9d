"""Event-loop stall measurement for the self-test and the benchmarks.

A coroutine sleeps a fixed tick over and over and records how late each wake-up is: on a qasync loop every
lateness is time the GUI thread was busy elsewhere (a stall the user would feel as a frozen window).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field


@dataclass
class StallMonitor:
    """Records wake-up lateness (seconds) of a ``tick``-second sleeper while running."""

    tick: float = 0.005
    lateness: list[float] = field(default_factory=list)
    busy: list[float] = field(default_factory=list)
    """GUI-thread CPU seconds per tick: the stall a quiet machine would see (no other process, no GIL wait)."""
    _task: asyncio.Task[None] | None = None

    def start(self) -> StallMonitor:
        """Begin sampling on the running loop."""
        self._task = asyncio.get_event_loop().create_task(self._run())
        return self

    async def _run(self) -> None:
        while True:
            t0, c0 = time.perf_counter(), time.thread_time()
            await asyncio.sleep(self.tick)
            self.lateness.append(max(0.0, time.perf_counter() - t0 - self.tick))
            self.busy.append(time.thread_time() - c0)

    def stop(self) -> None:
        """Stop sampling."""
        if self._task is not None:
            self._task.cancel()
            self._task = None

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
