"""Bad input: only ``ReplayFormatError`` or a salvaged replay; bounded in memory, and never hanging.

The hypothesis test mutates real files (bit flips, truncation, forged length fields, inserted bytes). Each
case must allocate no memory proportional to a forged length, and a case that loops forever (say, a forged
length read as a step of 0) is stopped by a per-case alarm and fails. How *fast* a case is belongs in
``benchmarks/bad_input.py`` (CONTRIBUTING: no timed assertions in tests). A salvaged result must also be
repairable: header + kept chunks + a fresh footer read back as a complete replay.
"""

from __future__ import annotations

import signal
import struct
import threading
import time
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from types import FrameType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.replay.errors import ReplayFormatError
from app.replay.inspect import report
from app.replay.reader import parse_replay, read_replay
from app.replay.sample import sample_bytes
from app.replay.writer import make_footer, write_replay_bytes
from tests.conftest import CORPUS
from tests.replay.conftest import first_chunk_offset, raw_chunk_walk

SMALL_CORPUS = ["kw/kw_crane.KWReplay", "kw/kw_beacon.KWReplay", "kw/kw_t59_2.KWReplay"]
HANG_LIMIT_S = 30
"""A hang guard, not a speed target: a case takes milliseconds (see benchmarks/bad_input.py)."""
MEMORY_LIMIT = 48 * 1024 * 1024


@cache
def _sources() -> tuple[bytes, ...]:
    found = [(CORPUS / rel).read_bytes() for rel in SMALL_CORPUS if (CORPUS / rel).exists()]
    return (sample_bytes(), *found)


class CaseHangError(Exception):
    """Raised inside a case that ran past :data:`HANG_LIMIT_S`."""


@contextmanager
def _hang_guard(seconds: int) -> Iterator[None]:
    """Interrupt the block with :class:`CaseHangError` after ``seconds`` (SIGALRM; POSIX main thread only).

    pytest-timeout may have its own SIGALRM timer running for the whole test: its handler and remaining time
    are put back afterwards, so both guards keep working. Elsewhere the test-level pytest timeout still applies.
    """
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_alarm(_signum: int, _frame: FrameType | None) -> None:
        raise CaseHangError(f"a mutated replay case ran past {seconds} s (reader loop?)")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    outer_delay, outer_interval = signal.setitimer(signal.ITIMER_REAL, seconds)
    started = time.monotonic()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer_delay:
            remaining = max(outer_delay - (time.monotonic() - started), 0.001)
            signal.setitimer(signal.ITIMER_REAL, remaining, outer_interval)


def _check(data: bytes) -> None:
    tracemalloc.start()
    try:
        with _hang_guard(HANG_LIMIT_S):
            error = _exercise(data)
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    if error is not None:
        assert error.path == "mutated"
        assert 0 <= error.offset <= len(data) + 16
        assert error.reason
    assert peak < MEMORY_LIMIT + 8 * len(data)


def _exercise(data: bytes) -> ReplayFormatError | None:
    """Parse, report and (if salvaged) repair; returns the format error if the parse refused the bytes."""
    try:
        replay = parse_replay(data, "mutated")
    except ReplayFormatError as exc:
        return exc
    report(replay)  # the CLI's report must cope with whatever was salvaged
    if replay.truncated and replay.chunk_count:
        footer = make_footer(replay.game, replay.chunks[-1].time_code)
        fixed = write_replay_bytes(replay.header, replay.chunks, footer)
        again = parse_replay(fixed, "repaired")
        assert not again.truncated, again.truncation_reason
        assert again.chunk_count == replay.chunk_count
    return None


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(_sources())))
    kind = draw(st.sampled_from(["flip", "truncate", "length", "insert", "count"]))
    if kind == "flip":
        for _ in range(draw(st.integers(1, 8))):
            i = draw(st.integers(0, len(data) - 1))
            data[i] ^= 1 << draw(st.integers(0, 7))
    elif kind == "truncate":
        del data[draw(st.integers(0, len(data) - 1)) :]
    elif kind == "insert":
        i = draw(st.integers(0, len(data)))
        data[i:i] = draw(st.binary(min_size=1, max_size=64))
    else:
        chunks, _, _ = raw_chunk_walk(bytes(data), first_chunk_offset(bytes(data)))
        value = draw(st.sampled_from([0xFFFFFFFF, 0x7FFFFFFE, 0x10000000, 0]) | st.integers(0, 2**32 - 1))
        if kind == "count":
            cmd_chunks = [c for c in chunks if c[2] == 1]
            off = draw(st.sampled_from(cmd_chunks))[0] + 9 + 1  # the u32 command count
        else:
            # a chunk size, or a header length field (settings text, file name, version text)
            targets = [c[0] + 5 for c in chunks[:50]] + _header_length_fields(bytes(data))
            off = draw(st.sampled_from(targets))
        struct.pack_into("<I", data, off, value)
    return bytes(data)


def _header_length_fields(data: bytes) -> list[int]:
    """Offsets of u32 length fields in the header, found from the notes' layout (§1.1 items 15, 19, 21)."""
    magic_at = data.index(b"CNC3RPL\0")
    out = [magic_at - 8]  # first-chunk offset (item 9)
    settings_at = data.find(b"M=2", magic_at)
    if settings_at > 4:
        out.append(settings_at - 4)
    return out


@settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(mutated())
@pytest.mark.timeout(120)
def test_mutated_replays_fail_cleanly_or_salvage(data: bytes) -> None:
    _check(data)


@pytest.mark.parametrize(
    "data",
    [b"", b"RA3 REPLAY HEADER", b"C&C3 REPLAY HEADER" + b"\xff" * 100, b"not a replay at all" * 10, bytes(4096)],
)
def test_garbage_raises_replay_format_error(data: bytes) -> None:
    with pytest.raises(ReplayFormatError):
        parse_replay(data, "garbage")


def test_forged_settings_length_costs_nothing() -> None:
    data = bytearray(sample_bytes())
    settings_at = data.index(b"M=283")
    struct.pack_into("<I", data, settings_at - 4, 0xFFFFFFF0)
    with pytest.raises(ReplayFormatError, match="settings text") as info:
        parse_replay(bytes(data), "forged")
    assert info.value.offset == settings_at


def test_unreadable_path_is_a_replay_format_error(tmp_path: Path) -> None:
    with pytest.raises(ReplayFormatError, match="cannot read"):
        read_replay(tmp_path / "missing.RA3Replay")
    with pytest.raises(ReplayFormatError):
        read_replay(tmp_path)


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="SIGALRM timers are POSIX only")
def test_hang_guard_stops_a_hanging_case_and_restores_the_outer_timer() -> None:
    def outer(_signum: int, _frame: FrameType | None) -> None:
        raise AssertionError("the outer timer fired")

    previous = signal.signal(signal.SIGALRM, outer)
    signal.setitimer(signal.ITIMER_REAL, 600)
    try:
        with pytest.raises(CaseHangError), _hang_guard(1):
            time.sleep(60)  # a "hang": the alarm interrupts it after about 1 s
        assert signal.getsignal(signal.SIGALRM) is outer
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 0  # the outer (pytest-timeout-like) timer is re-armed
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
