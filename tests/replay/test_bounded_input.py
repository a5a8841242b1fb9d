"""Bounded input: special files, huge files and non-replays are refused before their content is read.

Each case runs the real ``inspect`` command and asserts its one-line message. How fast each refusal is lives in
``benchmarks/bad_input.py`` (no timed assertions here); a blocking read would hang the test until its timeout.
"""

from __future__ import annotations

import json
import os
import tracemalloc
from pathlib import Path

import pytest

from app.cli import main
from app.replay.reader import read_replay_bytes
from app.replay.sample import sample_bytes

TWO_GB = 2 * 1024**3
DEFAULT_LIMIT = 64 * 1024 * 1024


def _inspect_error(path: Path | str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["inspect", str(path)]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert "Traceback" not in out.err
    assert out.err.count("\n") == 1
    return out.err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX only")
@pytest.mark.timeout(60)
def test_fifo_is_refused_without_blocking(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "pipe.RA3Replay"
    os.mkfifo(fifo)
    err = _inspect_error(fifo, capsys)
    assert f"{fifo}: byte 0: not a replay file: the path is a pipe, socket or device, not a regular file" in err


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
@pytest.mark.timeout(60)
def test_dev_zero_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    err = _inspect_error("/dev/zero", capsys)
    assert "/dev/zero: byte 0: not a replay file: the path is a pipe, socket or device" in err


def test_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _inspect_error(tmp_path, capsys)
    assert "not a replay file: the path is a folder" in err


@pytest.mark.timeout(60)
def test_two_gb_sparse_file_is_refused_by_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    big = tmp_path / "big.RA3Replay"
    with big.open("wb") as f:
        f.write(sample_bytes()[:4096])  # a real replay's start: only the size gives it away
        f.truncate(TWO_GB)
    err = _inspect_error(big, capsys)
    assert f"file is {TWO_GB:,} bytes, more than the {DEFAULT_LIMIT:,} bytes a replay may have" in err
    assert "REPLAYSAGE_MAX_REPLAY_MB" in err


def test_the_magic_is_checked_before_the_rest_is_read(tmp_path: Path) -> None:
    junk = tmp_path / "junk.RA3Replay"
    junk.write_bytes(b"\0" * (8 * 1024 * 1024))
    tracemalloc.start()
    try:
        with pytest.raises(Exception, match="not a SAGE replay"):
            read_replay_bytes(junk)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1024 * 1024  # an 8 MB read would show; the 18-byte magic read does not


def test_size_limit_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    replay = tmp_path / "sample.RA3Replay"
    replay.write_bytes(sample_bytes())
    monkeypatch.setenv("REPLAYSAGE_MAX_REPLAY_MB", "0.01")
    err = _inspect_error(replay, capsys)
    assert f"more than the {int(0.01 * 1024 * 1024):,} bytes" in err
    monkeypatch.setenv("REPLAYSAGE_MAX_REPLAY_MB", "lots")
    assert "REPLAYSAGE_MAX_REPLAY_MB='lots' is not a positive number" in _inspect_error(replay, capsys)


def test_size_limit_from_the_settings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    padded = tmp_path / "padded.RA3Replay"
    padded.write_bytes(sample_bytes().ljust(3 * 1024 * 1024 // 2, b"\0"))  # 1.5 MB
    err = _inspect_error(padded, capsys)  # under the default limit: read, and refused for its zeros, not its size
    zeros = len(padded.read_bytes()) - len(sample_bytes().rstrip(b"\0"))  # the footer length ends in 00 00 00
    assert f"{zeros:,} zero bytes at the end" in err
    settings = Path(os.environ["REPLAYSAGE_HOME"]) / "settings.json"
    settings.write_text(json.dumps({"schema_version": 2, "max_replay_mb": 1}))
    err = _inspect_error(padded, capsys)
    assert f"file is {3 * 1024 * 1024 // 2:,} bytes, more than the {1024 * 1024:,} bytes" in err


def test_a_replay_is_read_into_one_buffer_of_its_size(tmp_path: Path) -> None:
    """The bytes are read once, into a buffer of the file's size: not a second copy, nor one of the size limit."""
    big = tmp_path / "zeros.RA3Replay"
    size = 8 * 1024 * 1024
    big.write_bytes(sample_bytes()[:4096].ljust(size, b"\0"))
    tracemalloc.start()
    try:
        data = read_replay_bytes(big)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(data) == size
    assert peak < size + 1024 * 1024  # a second copy (or a buffer of the 64 MB limit) would show
