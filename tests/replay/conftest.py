"""Parse each corpus replay once per session (the suite stays fast), plus small byte-level helpers."""

from __future__ import annotations

import struct
from functools import cache
from pathlib import Path

from app.replay.model import Replay
from app.replay.reader import parse_replay
from tests.conftest import corpus_file


@cache
def _parsed(path: Path) -> Replay:
    return parse_replay(path.read_bytes(), str(path))


def parsed(name: str) -> Replay:
    """The corpus replay ``name``, parsed once per session."""
    return _parsed(corpus_file(name))


def raw_chunk_walk(data: bytes, start: int) -> tuple[list[tuple[int, int, int, int]], int, str]:
    """A minimal chunk walk written for the tests (independent of the reader).

    Returns the complete chunks as (offset, time code, type, size), the position where the walk stopped,
    and how it stopped: ``terminator``, ``short-header`` or ``short-body``.
    """
    chunks: list[tuple[int, int, int, int]] = []
    pos = start
    while True:
        if pos + 4 <= len(data) and struct.unpack_from("<I", data, pos)[0] == 0x7FFFFFFF:
            return chunks, pos, "terminator"
        if pos + 9 > len(data):
            return chunks, pos, "short-header"
        tc, ctype, size = struct.unpack_from("<IBI", data, pos)
        if pos + 9 + size + 4 > len(data):
            return chunks, pos, "short-body"
        chunks.append((pos, tc, ctype, size))
        pos += 9 + size + 4


def first_chunk_offset(data: bytes) -> int:
    """Notes §1.1 items 9-11: the u32 before the magic length, relative to the ``CNC3RPL`` magic."""
    magic_at = data.index(b"CNC3RPL\0")
    rel: int = struct.unpack_from("<I", data, magic_at - 8)[0]
    return magic_at + rel


def raw_footer(data: bytes) -> tuple[int, int | None]:
    """(final time code, RA3 payload seconds or None) read straight from the file's last bytes (notes §3)."""
    (length,) = struct.unpack_from("<I", data, len(data) - 4)
    start = len(data) - length
    magic_len = 17 if data[start : start + 3] == b"RA3" else 18
    (final_tc,) = struct.unpack_from("<I", data, start + magic_len)
    seconds = None
    if length == 67:  # RA3: 01 02 u32(36) then u32 a, u32 b, u32 seconds, 6 floats
        (seconds,) = struct.unpack_from("<I", data, start + magic_len + 4 + 2 + 4 + 8)
    return final_tc, seconds
