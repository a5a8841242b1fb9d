"""What the replay library lists about a file, read from its header and footer only.

A library of thousands of replays must not parse command streams: the header (a few KB at the start) has the
map, the mod, the start time and the slots; the footer (the last few dozen bytes) has the final time code, so the
match length (format notes §3). Only a file without an intact footer (a truncated replay) is read whole, to
learn its length from the last chunk.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from app.errors import KnownError
from app.replay.model import Game, Header, SlotKind
from app.replay.reader import (
    CNC3_FOOTER,
    MAX_FOOTER_LENGTH,
    RA3_FOOTER,
    TERMINATOR,
    parse_header,
    read_replay_bytes,
)

HEAD_BYTES = 64 * 1024
"""Bytes read first: headers are a few KB; a longer one is read again whole."""
_U32 = struct.Struct("<I")
_CHUNK_HEAD = struct.Struct("<IBI")  # time code, type, size (format notes §2)


@dataclass(frozen=True, slots=True)
class PlayerSummary:
    """One listed person: name, faction as recorded in the header, team (-1: none), colour index (-1: random)."""

    name: str
    faction: str
    team: int
    color: int
    observer: bool


@dataclass(frozen=True, slots=True)
class HeaderSummary:
    """A replay as the library lists it; ``error`` is set (and the rest empty) when the file could not be read."""

    path: str
    size: int
    mtime_ns: int
    map_name: str = ""
    mod: str = ""
    game: str = ""
    played_at: float | None = None
    duration: float = 0.0
    players: tuple[PlayerSummary, ...] = ()
    truncated: bool = False
    error: str = ""

    @property
    def played_utc(self) -> datetime | None:
        """The start time as an aware datetime."""
        return None if self.played_at is None else datetime.fromtimestamp(self.played_at, tz=UTC)


def read_summary(path: Path, size: int, mtime_ns: int) -> HeaderSummary:
    """The library row of ``path`` (blocking file I/O: call from a worker thread).

    A file that is not a readable replay gives a row with ``error`` set, never an exception.
    """
    try:
        header, final_time_code = _read_header_and_length(path, size)
    except KnownError as exc:
        return HeaderSummary(str(path), size, mtime_ns, error=str(exc))
    except OSError as exc:
        return HeaderSummary(str(path), size, mtime_ns, error=f"{path}: {exc.strerror or exc}")
    truncated = final_time_code is None
    duration = (
        final_time_code / 15.0 if final_time_code is not None else _length_of_truncated(path, header.chunk_offset)
    )
    try:
        played_at: float | None = header.utc_time.timestamp()
    except (ValueError, OverflowError, OSError):
        played_at = None
    placeholder = header.post_commentator_slot  # ``PC=``: a slot that never acts, not a person
    players = tuple(
        PlayerSummary(slot.display_name, slot.faction or "?", slot.team, slot.color, not slot.is_player)
        for slot in header.slots
        if slot.kind not in (SlotKind.CLOSED, SlotKind.OPEN) and slot.index != placeholder
    )
    return HeaderSummary(
        str(path),
        size,
        mtime_ns,
        map_name=header.map_name,
        mod=header.mod_name,
        game=str(header.game.value),
        played_at=played_at,
        duration=duration,
        players=players,
        truncated=truncated,
    )


def _read_header_and_length(path: Path, size: int) -> tuple[Header, int | None]:
    """The parsed header and the footer's final time code (None when the footer is not intact)."""
    with open(path, "rb") as f:
        head = f.read(HEAD_BYTES)
        f.seek(max(0, size - MAX_FOOTER_LENGTH - 8))
        tail = f.read()
    try:
        header = parse_header(head, str(path))
    except KnownError:
        if len(head) >= size:
            raise
        header = parse_header(read_replay_bytes(path), str(path))  # a header longer than the bytes read first
    return header, final_time_code(tail, header.game, header.chunk_offset, size)


def final_time_code(tail: bytes, game: Game, chunk_offset: int, size: int) -> int | None:
    """The footer's final time code when the file ends with a well-formed footer (format notes §3), else None."""
    magic = RA3_FOOTER if game is Game.RA3 else CNC3_FOOTER
    if len(tail) < 8 + len(magic):
        return None
    length = int(_U32.unpack_from(tail, len(tail) - 4)[0])
    start = len(tail) - length
    if not len(magic) + 8 <= length < MAX_FOOTER_LENGTH or start - 4 < 0 or size - length - 4 < chunk_offset:
        return None
    if tail[start : start + len(magic)] != magic or _U32.unpack_from(tail, start - 4)[0] != TERMINATOR:
        return None
    return int(_U32.unpack_from(tail, start + len(magic))[0])


def _length_of_truncated(path: Path, chunk_offset: int) -> float:
    """The match length of a replay without a footer: the last whole chunk's time code.

    The chunk headers are stepped over (time code, type, size), never split into commands, as the reader's
    salvage does for a truncated file (format notes §2); the file is read whole, which is rare.
    """
    try:
        data = read_replay_bytes(path)
    except KnownError:
        return 0.0
    pos, last, end = chunk_offset, 0, len(data)
    while pos + 9 <= end:
        tc, _kind, size = _CHUNK_HEAD.unpack_from(data, pos)
        nxt = pos + 13 + size
        if tc == TERMINATOR or nxt > end or tc < last:
            break
        last, pos = tc, nxt
    return last / 15.0
