"""Sanity limits from the format (notes §2, §3): a forged value is a damaged-file error naming field and offset.

Each test forges one value at an offset found by the tests' own chunk walk (``raw_chunk_walk``), independent of
the reader, and checks that the error names that field and exactly that offset. A file whose footer is cut off
instead keeps the sound chunks before the forged one (a crashed game's file is expected to end badly).
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from app.cli import main
from app.replay.errors import ReplayDamagedError
from app.replay.reader import MAX_DURATION_TIME_CODE, MAX_TIME_CODE_GAP, parse_replay
from app.replay.sample import sample_bytes
from tests.conftest import corpus_file
from tests.replay.conftest import first_chunk_offset, raw_chunk_walk

RA3_FOOTER_LENGTH = 67
WRITE_BLOCK = 4096
"""The game writes replays in 4 KiB blocks (notes §7.1)."""
RA3_FOOTER_MAGIC = 17


def _sample() -> tuple[bytearray, list[tuple[int, int, int, int]], int]:
    """The bundled RA3 sample, its chunks (offset, tc, type, size) and the terminator offset."""
    data = bytearray(sample_bytes())
    chunks, stop, how = raw_chunk_walk(bytes(data), first_chunk_offset(bytes(data)))
    assert how == "terminator"
    return data, chunks, stop


def _damaged(data: bytes | bytearray) -> ReplayDamagedError:
    with pytest.raises(ReplayDamagedError) as info:
        parse_replay(bytes(data), "forged.RA3Replay")
    return info.value


def test_time_code_far_beyond_the_previous_chunk() -> None:
    data, chunks, _ = _sample()
    off = chunks[len(chunks) // 2][0]
    prev_tc = chunks[len(chunks) // 2 - 1][1]
    struct.pack_into("<I", data, off, prev_tc + MAX_TIME_CODE_GAP + 1)
    err = _damaged(data)
    assert err.field == "chunk time code"
    assert err.offset == off
    assert f"byte {off}: the file is damaged: chunk time code" in str(err)


def test_the_issues_flipped_byte_is_refused() -> None:
    """A flip of the top byte of one time code (the issue's 266-million-second replay)."""
    data, chunks, _ = _sample()
    off = chunks[40][0]
    data[off + 3] ^= 0x0F
    err = _damaged(data)
    assert (err.field, err.offset) == ("chunk time code", off)


def test_time_code_going_back() -> None:
    data, chunks, _ = _sample()
    i = next(i for i in range(1, len(chunks)) if chunks[i][1] > chunks[i - 1][1] + 1)
    off = chunks[i][0]
    struct.pack_into("<I", data, off, chunks[i - 1][1] - 1)
    err = _damaged(data)
    assert (err.field, err.offset) == ("chunk time code", off)
    assert "goes back" in err.reason


def test_time_code_beyond_the_footer() -> None:
    data, chunks, stop = _sample()
    final_tc = struct.unpack_from("<I", data, stop + 4 + RA3_FOOTER_MAGIC)[0]
    off = chunks[-1][0]
    struct.pack_into("<I", data, off, final_tc + 1)
    err = _damaged(data)
    assert (err.field, err.offset) == ("chunk time code", off)
    assert "footer" in err.reason


def test_footer_final_time_code_over_six_hours() -> None:
    data, _, stop = _sample()
    at = stop + 4 + RA3_FOOTER_MAGIC
    struct.pack_into("<I", data, at, MAX_DURATION_TIME_CODE + 1)
    err = _damaged(data)
    assert (err.field, err.offset) == ("footer final time code", at)


def test_footer_final_time_code_far_past_the_last_chunk() -> None:
    data, chunks, stop = _sample()
    at = stop + 4 + RA3_FOOTER_MAGIC
    struct.pack_into("<I", data, at, chunks[-1][1] + MAX_TIME_CODE_GAP + 1)
    err = _damaged(data)
    assert (err.field, err.offset) == ("footer final time code", at)


def test_footer_duration_seconds() -> None:
    """RA3 payload: 01 02 u32(36), then u32 a, u32 b, u32 seconds (notes §3)."""
    data, _, stop = _sample()
    at = stop + 4 + RA3_FOOTER_MAGIC + 4 + 2 + 4 + 8
    assert len(data) - (stop + 4) == RA3_FOOTER_LENGTH
    struct.pack_into("<I", data, at, 10**9)
    err = _damaged(data)
    assert (err.field, err.offset) == ("footer duration", at)


def test_command_count_over_what_the_chunk_holds() -> None:
    data, chunks, _ = _sample()
    off, _, _, size = next(c for c in chunks if c[2] == 1)
    struct.pack_into("<I", data, off + 9 + 1, size)  # u8 1; u32 n (notes §2)
    err = _damaged(data)
    assert (err.field, err.offset) == ("command count", off + 10)


def test_chunk_size_past_the_footer() -> None:
    data, chunks, _ = _sample()
    off = chunks[10][0]
    struct.pack_into("<I", data, off + 5, len(data))
    err = _damaged(data)
    assert (err.field, err.offset) == ("chunk size", off + 5)


def test_kw_footer_and_forged_time_code() -> None:
    raw = corpus_file("kw_crane.KWReplay").read_bytes()
    data = bytearray(raw)
    chunks, _, how = raw_chunk_walk(raw, first_chunk_offset(raw))
    assert how == "terminator"
    off = chunks[5][0]
    struct.pack_into("<I", data, off, 0x7FFFFFFE)
    err = _damaged(data)
    assert (err.field, err.offset) == ("chunk time code", off)


def test_cut_file_keeps_the_chunks_before_a_forged_time_code() -> None:
    """Damage inside the last 4 KiB write block of a cut file is where a crash leaves it (notes §7.1): salvage."""
    data, chunks, stop = _sample()
    i = next(i for i, c in enumerate(chunks) if c[0] >= stop - WRITE_BLOCK)
    off = chunks[i][0]
    struct.pack_into("<I", data, off, 0x7FFFFFFE)
    cut = bytes(data[:stop])  # no terminator, no footer: a crashed game's file
    replay = parse_replay(cut, "cut.RA3Replay")
    assert replay.truncated
    assert "chunk time code" in replay.truncation_reason
    assert f"(byte {off})" in replay.truncation_reason
    assert replay.chunk_count == i
    assert replay.final_time_code == chunks[i - 1][1]


def test_cut_file_with_damage_before_its_last_write_block_is_refused() -> None:
    """A crash cuts the end; more than one write block of unreadable bytes after the damage is not a cut."""
    data, chunks, stop = _sample()
    off = chunks[len(chunks) // 2][0]
    assert stop - off > WRITE_BLOCK
    struct.pack_into("<I", data, off, 0x7FFFFFFE)
    err = _damaged(data[:stop])
    assert (err.field, err.offset) == ("chunk time code", off)
    assert f"the {stop - off:,} bytes from byte {off} to the end of the file are unreadable" in err.reason


def test_facts_on_a_forged_file_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, chunks, _ = _sample()
    off = chunks[40][0]
    data[off + 3] ^= 0x0F
    path = tmp_path / "forged.RA3Replay"
    path.write_bytes(bytes(data))
    assert main(["facts", str(path), "--json"]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert f"byte {off}: the file is damaged: chunk time code" in out.err
