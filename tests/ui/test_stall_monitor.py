"""The stall monitor takes a long stall apart: GUI-thread CPU versus time the thread was not running."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from ui.monitor import LONG_STALL_S, StallMonitor


def _spin(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


async def _ticks(monitor: StallMonitor, count: int) -> None:
    """Wait until the monitor has measured ``count`` more ticks (counted, not timed: a loaded machine ticks slower)."""
    target = len(monitor.lateness) + count
    for _ in range(2000):  # at most ~10 s even if no tick came
        if len(monitor.lateness) >= target:
            return
        await asyncio.sleep(0.005)


async def _stall_with(block: Callable[[], object]) -> StallMonitor:
    monitor = StallMonitor(tick=0.005).start()
    await _ticks(monitor, 5)  # a few quiet ticks first
    loop = asyncio.get_running_loop()
    loop.call_soon(block)
    await _ticks(monitor, 10)
    monitor.stop()
    return monitor


def test_a_busy_loop_is_counted_as_gui_cpu() -> None:
    monitor = asyncio.run(_stall_with(lambda: _spin(0.06)))
    worst = monitor.worst(1)
    assert worst, "a 60 ms busy turn must be recorded as a long stall"
    stall = worst[0]
    assert stall.late_ms >= 55  # the spin burns 60 ms of this thread's CPU, so the wall time is at least that
    assert stall.gui_cpu_ms >= 55
    assert stall.process_cpu_ms >= stall.gui_cpu_ms - 1
    assert stall.unexplained_ms < stall.late_ms - 50


def test_a_blocking_sleep_is_left_unexplained() -> None:
    monitor = asyncio.run(_stall_with(lambda: time.sleep(0.06)))
    stall = monitor.worst(1)[0]
    assert stall.late_ms >= 55
    assert stall.gui_cpu_ms < 20  # the thread slept: it used (almost) no CPU
    assert stall.unexplained_ms >= 40
    assert stall.as_dict()["late_ms"] == round(stall.late_ms, 1)


def test_every_long_stall_and_only_those_is_broken_down() -> None:
    monitor = asyncio.run(_stall_with(lambda: _spin(0.03)))
    assert len(monitor.lateness) >= 10
    long_ones = [x for x in monitor.lateness if x >= LONG_STALL_S]
    assert len(monitor.long_stalls) == len(long_ones) >= 1
    assert sorted(s.late_ms for s in monitor.long_stalls) == sorted(x * 1000 for x in long_ones)


def test_steal_is_the_eighth_value_of_each_cpu_line() -> None:
    """proc(5): ``cpuN user nice system idle iowait irq softirq steal guest guest_nice``, in clock ticks."""
    from ui.monitor import _HostSteal

    steal = _HostSteal()
    try:
        raw = b"cpu  9 9 9 9 9 9 9 80 0 0\ncpu0 1 2 3 4 5 6 7 30 0 0\ncpu1 1 2 3 4 5 6 7 50 0 0\nintr 7 7 7\n"
        ticks = [round(s / steal._tick) for s in steal._per_cpu(raw)]
        assert ticks == [30, 50]  # the total line and the other lines are not CPUs
    finally:
        steal.close()
