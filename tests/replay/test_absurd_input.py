"""Files that pass every length check but no game writes (issue 29, failures 3 and 4).

Each input is made here from a real replay in tests/data: one command with a long argument list, a chunk written
again at its own time code, time codes that stop advancing, zeros after the header. The expected offsets come from
the tests' own chunk walk (``raw_chunk_walk``) and the format notes, not from the reader.
"""

from __future__ import annotations

import itertools
import struct
from pathlib import Path

import pytest

from app.cli import main
from app.replay.errors import ReplayDamagedError
from app.replay.model import ArgKind
from app.replay.reader import parse_replay
from tests.conftest import corpus_file
from tests.replay.conftest import first_chunk_offset, raw_chunk_walk

KW = "kw_test.KWReplay"
RA3 = "ra3_1v1_industrial_strength_observer_7m.RA3Replay"
BOOL = 0x02
"""Argument type code 2 (bool, 1 byte) in RA3 and KW alike; descriptor high nibble 0 = one argument (notes §4.2)."""
WRITE_BLOCK = 4096
"""The game writes replays in 4 KiB blocks (notes §7.1)."""

Chunk = tuple[int, int, int, int]  # offset, time code, type, payload size


def _source(name: str) -> tuple[bytes, list[Chunk]]:
    data = corpus_file(name).read_bytes()
    chunks, _, how = raw_chunk_walk(data, first_chunk_offset(data))
    assert how == "terminator"
    return data, chunks


def _raw(data: bytes, chunk: Chunk) -> bytes:
    """The whole chunk: 9-byte head, payload, 4-byte trailing zero (notes §2)."""
    return data[chunk[0] : chunk[0] + 13 + chunk[3]]


def _command_chunk(data: bytes, chunks: list[Chunk]) -> Chunk:
    """The first type-1 chunk holding at least one command."""
    return next(c for c in chunks if c[2] == 1 and struct.unpack_from("<I", data, c[0] + 10)[0] > 0)


def _damaged(data: bytes, name: str = "absurd.KWReplay") -> ReplayDamagedError:
    with pytest.raises(ReplayDamagedError) as info:
        parse_replay(data, name)
    return info.value


def _long_command_file(groups: int) -> tuple[bytes, Chunk, bytes]:
    """kw_test with its first command chunk replaced by one command of ``groups`` one-byte bool groups.

    Returns the file, the replaced chunk and the new command's bytes (id word, ``02 vv`` per group, ``FF``).
    """
    data, chunks = _source(KW)
    chunk = _command_chunk(data, chunks)
    body = chunk[0] + 9
    word = data[body + 5 : body + 7]  # the first command's id/player word: u8 1, u32 n, then the command
    values = bytes(i % 2 for i in range(groups))
    command = word + b"".join(bytes([BOOL, v]) for v in values) + b"\xff"
    payload = b"\x01" + struct.pack("<I", 1) + command
    head = struct.pack("<IBI", chunk[1], 1, len(payload))
    return data[: chunk[0]] + head + payload + b"\0\0\0\0" + data[body + chunk[3] + 4 :], chunk, command


def test_a_command_of_255_one_byte_groups_is_read_argument_by_argument() -> None:
    data, chunk, command = _long_command_file(255)
    replay = parse_replay(data, "long.KWReplay")
    assert replay.footer is not None
    assert not replay.truncated
    first = [c for c in replay.commands if c.time_code == chunk[1]]
    assert len(first) == 1
    cmd = first[0]
    assert cmd.command_id == (command[0] | command[1] << 8) & 0x7FF  # notes §4.1
    assert cmd.groups == bytes([BOOL]) * 255
    assert cmd.args == tuple(i % 2 for i in range(255))
    assert cmd.kinds == (ArgKind.BOOL,) * 255


@pytest.mark.parametrize("groups", [256, 100_000])
def test_a_command_of_more_than_255_arguments_is_refused(groups: int) -> None:
    """A game message counts its arguments in a byte (Generals ``MessageStream.h``: ``UnsignedByte m_argCount``).

    The issue's 100,000-group command took seconds (quadratic); it is now refused at its 256th argument.
    """
    data, chunk, _ = _long_command_file(groups)
    err = _damaged(data)
    descriptor_256 = chunk[0] + 9 + 5 + 2 + 255 * 2  # head, u8 1 + u32 n, id word, 255 groups of 2 bytes
    assert (err.field, err.offset) == ("command chunk", descriptor_256)
    assert "more than 255 arguments" in err.reason


def test_a_command_chunk_written_again_at_its_time_code_is_refused() -> None:
    """The issue's KW file: one command chunk repeated (79,137 times there; three copies are enough here)."""
    data, chunks = _source(KW)
    chunk = _command_chunk(data, chunks)
    raw = _raw(data, chunk)
    forged = data[: chunk[0]] + raw * 3 + data[chunk[0] + len(raw) :]
    err = _damaged(forged)
    second = chunk[0] + len(raw)
    assert (err.field, err.offset) == ("chunk time code", second)
    assert f"holds a second command chunk (the first is at byte {chunk[0]}" in err.reason


def test_every_chunk_written_twice_is_refused_at_the_first_repeat() -> None:
    """The issue's duplicated 3v3 / RA3 files: every chunk in place twice (same time code)."""
    data, chunks = _source(RA3)
    start, stop = chunks[0][0], chunks[-1][0] + 13 + chunks[-1][3]
    doubled = b"".join(_raw(data, c) * 2 for c in chunks)
    forged = data[:start] + doubled + data[stop:]
    err = _damaged(forged, "absurd.RA3Replay")
    first = _raw(data, chunks[0])
    assert (err.field, err.offset) == ("chunk time code", start + len(first))
    kind = "command chunk" if chunks[0][2] == 1 else f"camera chunk for slot {struct.unpack_from('<I', first, 11)[0]}"
    assert f"holds a second {kind}" in err.reason


def test_a_camera_chunk_written_again_for_its_slot_is_refused() -> None:
    data, chunks = _source(RA3)
    chunk = next(c for c in chunks if c[2] == 2)
    raw = _raw(data, chunk)
    slot = struct.unpack_from("<I", raw, 9 + 2)[0]  # u8 1, u8 0, u32 slot (notes §2)
    forged = data[: chunk[0]] + raw * 2 + data[chunk[0] + len(raw) :]
    err = _damaged(forged, "absurd.RA3Replay")
    assert (err.field, err.offset) == ("chunk time code", chunk[0] + len(raw))
    assert f"second camera chunk for slot {slot}" in err.reason


def test_time_codes_that_stop_advancing_are_refused() -> None:
    """Every chunk moved to the first time code: refused at the first second command list or camera of a slot."""
    data, chunks = _source(KW)
    forged = bytearray(data)
    for c in chunks:
        struct.pack_into("<I", forged, c[0], chunks[0][1])
    seen: set[object] = set()
    for off, _, ctype, _ in chunks:
        key = "commands" if ctype == 1 else ("camera", struct.unpack_from("<I", data, off + 9 + 2)[0])
        if key in seen:
            break
        seen.add(key)
    err = _damaged(bytes(forged))
    assert (err.field, err.offset) == ("chunk time code", off)


def test_equal_chunks_at_different_time_codes_are_normal() -> None:
    """Real files repeat a payload at the next time code (an idle camera, a repeated order): still one replay."""
    data, chunks = _source(KW)
    repeats = sum(
        1
        for a, b in itertools.pairwise(chunks)
        if a[1] != b[1] and a[2] == b[2] and data[a[0] + 9 : a[0] + 9 + a[3]] == data[b[0] + 9 : b[0] + 9 + b[3]]
    )
    assert repeats > 0
    replay = parse_replay(data, "kw_test.KWReplay")
    assert not replay.truncated
    assert replay.chunk_count == len(chunks)


def test_a_header_followed_by_zeros_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's valid header + 60 MB of zeros (1 MB here) was read as a truncated replay with 0 commands."""
    data, chunks = _source(KW)
    start = chunks[0][0]
    forged = data[:start] + bytes(1024 * 1024)
    err = _damaged(forged)
    assert (err.field, err.offset) == ("chunk time code", start)
    assert f"the {1024 * 1024:,} bytes from byte {start} to the end of the file are all zero" in err.reason
    path = tmp_path / "zeros.KWReplay"
    path.write_bytes(forged)
    assert main(["facts", str(path), "--json"]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert f"byte {start}: the file is damaged: chunk time code 0 comes before the first time code" in out.err


def test_zeros_within_the_last_write_block_are_a_cut() -> None:
    """A crash may leave its last 4 KiB block unwritten: the chunks before it are kept."""
    data, chunks = _source(KW)
    keep = chunks[: len(chunks) // 2]
    stop = keep[-1][0] + 13 + keep[-1][3]
    replay = parse_replay(data[:stop] + bytes(WRITE_BLOCK), "cut.KWReplay")
    assert replay.truncated
    assert replay.chunk_count == len(keep)
    assert f"(byte {stop})" in replay.truncation_reason


def test_zeros_after_the_footer_are_refused() -> None:
    data, chunks = _source(KW)
    terminator = chunks[-1][0] + 13 + chunks[-1][3]
    err = _damaged(data + bytes(2 * WRITE_BLOCK))
    assert err.field == "footer"
    assert f"the {len(data) - terminator + 2 * WRITE_BLOCK:,} bytes from byte {terminator}" in err.reason


def test_a_chunk_head_followed_by_zeros_is_refused() -> None:
    """A chunk whose size runs past the end is a cut only if what follows could be its body, not a run of zeros."""
    data, chunks = _source(KW)
    start = chunks[0][0]
    head = struct.pack("<IBI", chunks[0][1], 1, 0xFFFFFFF0)
    err = _damaged(data[:start] + head + bytes(1024 * 1024))
    assert (err.field, err.offset) == ("chunk size", start + 5)
    assert f"{1024 * 1024:,} zero bytes at the end" in err.reason
    cut = parse_replay(data[:start] + head + data[start + 9 : start + 9 + WRITE_BLOCK], "cut.KWReplay")
    assert cut.truncated
    assert cut.chunk_count == 0
