"""The chunk walk: commands split as they come, the footer, and where a cut or damaged file ends (notes §2, §3, §7).

A file whose footer is intact is complete, so anything implausible inside it is damage; a file without its footer
was cut, so the walk keeps the sound chunks before the first implausible one unless more than a write block is
unreadable.
"""

from __future__ import annotations

import struct
from array import array

from app.replay.errors import ReplayDamagedError, ReplayFormatError
from app.replay.header import (
    command_player_map,
)
from app.replay.layout import (
    _CHUNK_HEAD,
    _U32,
    CNC3_ARG_TYPES,
    CNC3_FOOTER,
    FIRST_TIME_CODE,
    MAX_DURATION_TIME_CODE,
    MAX_FOOTER_LENGTH,
    MAX_TIME_CODE_GAP,
    PLAYER_FIELD_BASE,
    RA3_ARG_TYPES,
    RA3_FOOTER,
    TERMINATOR,
    WRITE_BLOCK,
)
from app.replay.model import (
    ChunkIndex,
    CommandList,
    Footer,
    Game,
    Header,
    Replay,
)
from app.replay.splitter import (
    _CommandSplitter,
)


def _walk_chunks(data: bytes, replay: Replay) -> None:
    """Walk the chunks, splitting command chunks as they come; camera chunks are only indexed (lazy).

    With an intact footer the file is complete and a chunk that breaks the format's limits raises
    :class:`ReplayDamagedError`; without one the walk stops before that chunk and marks the replay truncated,
    unless more than one write block follows it (:func:`_cut_or_refuse`).
    """
    footer_at = _intact_footer_at(data, replay.header)
    try:
        _walk(data, replay, footer_at)
    except _FooterError as exc:
        _cut_or_refuse(data, replay, _sound_end(replay), exc)
    except ReplayDamagedError as exc:
        if footer_at is not None:
            raise
        _cut_or_refuse(data, replay, _sound_end(replay), exc)  # a cut file keeps the sound chunks before the damage


def _footer_magic(game: Game) -> bytes:
    return RA3_FOOTER if game is Game.RA3 else CNC3_FOOTER


def _intact_footer_at(data: bytes, header: Header) -> int | None:
    """Offset of the terminator when the file ends with a well-formed footer (notes §3), else None."""
    magic = _footer_magic(header.game)
    end = len(data)
    if end < header.chunk_offset + 4 + len(magic) + 8:
        return None
    length = int(_U32.unpack_from(data, end - 4)[0])
    start = end - length
    if not len(magic) + 8 <= length < MAX_FOOTER_LENGTH or start - 4 < header.chunk_offset:
        return None
    if data[start : start + len(magic)] != magic or _U32.unpack_from(data, start - 4)[0] != TERMINATOR:
        return None
    return start - 4


def _walk(data: bytes, replay: Replay, footer_at: int | None) -> None:
    header = replay.header
    game = header.game
    path = replay.path
    arg_types = RA3_ARG_TYPES if game is Game.RA3 else CNC3_ARG_TYPES
    splitter = _CommandSplitter(arg_types, command_player_map(header.slots), PLAYER_FIELD_BASE[game], path)
    split = splitter.split_into
    offsets: array[int] = array("I")
    starts: array[int] = array("I")
    replay.index = ChunkIndex(data=data, offsets=offsets, command_starts=starts)
    add_offset = offsets.append
    add_start = starts.append
    commands = CommandList(data, splitter.command_at, splitter.players, splitter.command_end)
    replay.commands = commands
    head = _CHUNK_HEAD.unpack_from
    pos = header.chunk_offset
    end = len(data) if footer_at is None else footer_at
    max_tc = MAX_DURATION_TIME_CODE
    if footer_at is not None:
        max_tc = min(max_tc, _U32.unpack_from(data, footer_at + 4 + len(_footer_magic(game)))[0])
    last_tc = 0
    command_tc = -1  # the time code of the last command chunk
    cameras = 0  # the camera slots (low bytes, as bits) the current time code holds
    others: dict[tuple[int, bytes], int] = {}  # other chunks of the current time code -> offset
    remember = others.setdefault
    u32 = _U32.unpack_from
    while True:
        if pos + 9 > end:
            if footer_at is not None:
                if pos != footer_at:
                    raise ReplayDamagedError(path, pos, "chunk", f"does not fit before the footer at byte {end}")
                _finish(data, pos, replay, last_tc)
                return
            if pos + 4 <= end and _U32.unpack_from(data, pos)[0] == TERMINATOR:
                _finish(data, pos, replay, last_tc)
                return
            replay.truncated = True
            replay.truncation_reason = (
                f"file ends at byte {end} without the terminator"
                if pos == end
                else f"file ends inside a chunk header at byte {pos}"
            )
            return
        tc, ctype, size = head(data, pos)
        if tc == TERMINATOR:
            if footer_at is not None:
                raise ReplayDamagedError(
                    path, pos, "chunk time code", f"is the terminator value but the footer starts at byte {footer_at}"
                )
            _finish(data, pos, replay, last_tc)
            return
        if tc != last_tc or not offsets:  # a new time code (or the first chunk): check it once
            if tc < last_tc:
                raise ReplayDamagedError(path, pos, "chunk time code", f"goes back from {last_tc} to {tc}")
            if tc < FIRST_TIME_CODE:
                raise ReplayDamagedError(
                    path,
                    pos,
                    "chunk time code",
                    f"{tc} comes before the first time code a game writes ({FIRST_TIME_CODE})",
                )
            if tc - last_tc > MAX_TIME_CODE_GAP:
                raise ReplayDamagedError(
                    path,
                    pos,
                    "chunk time code",
                    f"{tc} jumps {tc - last_tc} past the previous chunk (a real replay steps at most "
                    f"{MAX_TIME_CODE_GAP})",
                )
            if tc > max_tc:
                bound = "the footer's final time code" if footer_at is not None else "the longest match"
                raise ReplayDamagedError(path, pos, "chunk time code", f"{tc} is beyond {bound} ({max_tc})")
            cameras = 0
            if others:
                others.clear()
        nxt = pos + 13 + size
        if nxt > end:
            if footer_at is not None:
                raise ReplayDamagedError(path, pos + 5, "chunk size", f"{size} runs past the footer at byte {end}")
            if _trailing_zeros(data, pos + 9) > WRITE_BLOCK:  # zeros, not the start of a chunk a crash cut short
                raise ReplayDamagedError(path, pos + 5, "chunk size", f"{size} runs past the end of the file")
            replay.truncated = True
            replay.truncation_reason = (
                f"chunk at byte {pos} declares {size} bytes but only {max(0, end - pos - 9)} remain"
            )
            return
        if ctype == 2 and size >= 6:  # one camera chunk per slot: a bit per slot's low byte, checked in full on a hit
            bit = 1 << data[pos + 11]
            if cameras & bit:
                _check_repeat(data, offsets, pos, (2, u32(data, pos + 11)[0]), path)
            cameras |= bit
        elif ctype == 1:  # one command list per time code
            if tc == command_tc:
                _check_repeat(data, offsets, pos, (1, None), path)
            command_tc = tc
        else:
            first = remember((ctype, data[pos + 9 : pos + 9 + size]), pos)
            if first != pos:
                raise ReplayDamagedError(path, pos, "chunk time code", _repeat_detail(tc, ctype, None, first))
        n0 = len(commands)
        if ctype == 1:
            try:
                split(data, pos + 9, size, tc, commands)
            except ReplayFormatError as exc:
                commands.truncate(n0)
                if isinstance(exc, ReplayDamagedError):
                    raise
                raise ReplayDamagedError(path, exc.offset, "command chunk", f"at byte {pos}: {exc.reason}") from exc
        add_offset(pos)
        add_start(n0)
        last_tc = tc
        pos = nxt


class _FooterError(ReplayFormatError):
    """The bytes after the terminator are no well-formed footer; the chunks before it may still be kept."""


def _check_repeat(data: bytes, offsets: array[int], pos: int, kind: tuple[int, int | None], path: str) -> None:
    """Raise when the chunk at ``pos`` is a second one of ``kind`` in its time code (see :func:`_repeat_detail`).

    ``kind`` is (1, None) for a command list or (2, slot) for a camera. Called only when the walk's quick check
    hits, so it looks back through the chunks of the current time code, which a game keeps to a handful.
    """
    tc = data[pos : pos + 4]
    for first in reversed(offsets):
        if data[first : first + 4] != tc:
            return
        if data[first + 4] == kind[0] and (kind[1] is None or _U32.unpack_from(data, first + 11)[0] == kind[1]):
            detail = _repeat_detail(int(_U32.unpack_from(tc)[0]), kind[0], kind[1], first)
            raise ReplayDamagedError(path, pos, "chunk time code", detail)


def _repeat_detail(tc: int, ctype: int, slot: int | None, first: int) -> str:
    """Why a second chunk of one kind at one time code is impossible.

    A time code is one step of the game's logic. The game records each step's command list (every player's
    commands of that step) as one type-1 chunk, and each slot's camera as at most one type-2 chunk; several chunks
    share a time code only when they are of different kinds. Checked on all 19 corpus files (RA3, KW, TW, 1v1 to
    3v3, 13 to 97 commands in one list): never two command chunks at one time code, never two camera chunks of one
    slot. Equal payloads at *different* time codes are normal (20 to 110 per file: a repeated order, an idle
    camera), so a repeat is judged within one time code only: the same chunk written again, or time codes that
    stop advancing, cannot come from a game. Other chunk types (commentary, telestrator; no samples) are held to
    "never the same bytes twice in one time code".
    """
    if ctype == 1:
        return f"{tc} holds a second command chunk (the first is at byte {first}; a game writes one per time code)"
    if ctype == 2:
        return (
            f"{tc} holds a second camera chunk for slot {slot} (the first is at byte {first}; a game writes one per "
            "slot and time code)"
        )
    return f"{tc} repeats the chunk at byte {first} byte for byte"


def _cut_or_refuse(data: bytes, replay: Replay, start: int, error: ReplayFormatError) -> None:
    """Keep the sound chunks before ``start`` as a cut (crashed) replay, or refuse a tail no crash can leave.

    The game writes its file in 4 KiB blocks (:data:`WRITE_BLOCK`), so a crash loses the unwritten end and what
    cannot be read lies within the last block. More unreadable bytes than that after the last sound chunk (a run of
    zeros, appended junk, damage in the middle of a file) is damage, not a cut.
    """
    tail = len(data) - start
    if tail > WRITE_BLOCK:
        zeros = _trailing_zeros(data, start)
        what = "all zero" if zeros == tail else "unreadable"
        if WRITE_BLOCK < zeros < tail:
            what += f", {zeros:,} zero bytes at the end"
        field = error.field if isinstance(error, ReplayDamagedError) else "footer"
        detail = error.detail if isinstance(error, ReplayDamagedError) else error.reason
        raise ReplayDamagedError(
            replay.path,
            error.offset,
            field,
            f"{detail}; the {tail:,} bytes from byte {start} to the end of the file are {what}, more than the one "
            f"{WRITE_BLOCK:,}-byte write block a crashed game leaves",
        )
    replay.truncated = True
    replay.truncation_reason = f"{error.reason} (byte {error.offset})"


def _trailing_zeros(data: bytes, start: int) -> int:
    """Length of the run of zero bytes that ends ``data`` (from ``start`` at most), found without copying."""
    p = len(data)
    while p > start:
        a = max(start, p - WRITE_BLOCK)
        if data.count(0, a, p) != p - a:
            while data[p - 1] == 0:
                p -= 1
            break
        p = a
    return len(data) - p


def _sound_end(replay: Replay) -> int:
    """The byte after the last chunk the walk kept (the header's end when it kept none)."""
    index = replay.index
    if index is None or not len(index):
        return replay.header.chunk_offset
    last = index.offsets[-1]
    return int(last + 13 + _U32.unpack_from(index.data, last + 5)[0])


def _finish(data: bytes, pos: int, replay: Replay, last_tc: int) -> None:
    """Read the footer after the terminator at ``pos``; a malformed one raises :class:`_FooterError` (salvage).

    A well-formed footer whose values break the limits raises :class:`ReplayDamagedError`.
    """
    try:
        footer = _parse_footer(data, pos + 4, replay.path, replay.header.game)
    except ReplayFormatError as exc:
        raise _FooterError(exc.path, exc.offset, f"damaged footer: {exc.reason}") from exc
    at = pos + 4 + len(footer.magic)
    final = footer.final_time_code
    if final > MAX_DURATION_TIME_CODE:
        raise ReplayDamagedError(
            replay.path,
            at,
            "footer final time code",
            f"{final} is beyond the longest match ({MAX_DURATION_TIME_CODE}, 6 hours)",
        )
    if final - last_tc > MAX_TIME_CODE_GAP:
        raise ReplayDamagedError(
            replay.path,
            at,
            "footer final time code",
            f"{final} jumps {final - last_tc} past the last chunk's {last_tc}",
        )
    if footer.seconds is not None and footer.seconds > MAX_DURATION_TIME_CODE // 15:
        raise ReplayDamagedError(
            replay.path,
            at + 18,
            "footer duration",
            f"{footer.seconds} s is beyond the longest match ({MAX_DURATION_TIME_CODE // 15} s)",
        )
    replay.footer = footer


def _parse_footer(data: bytes, pos: int, path: str, game: Game) -> Footer:
    magic = _footer_magic(game)
    end = len(data)
    if data[pos : pos + len(magic)] != magic:
        raise ReplayFormatError(path, pos, "terminator is not followed by the footer magic")
    if end - 4 < pos + len(magic) + 4:
        raise ReplayFormatError(path, pos, "footer is cut short")
    (footer_length,) = _U32.unpack_from(data, end - 4)
    if footer_length != end - pos:
        raise ReplayFormatError(
            path, end - 4, f"footer length field says {footer_length} but the footer has {end - pos} bytes"
        )
    (final_tc,) = _U32.unpack_from(data, pos + len(magic))
    raw = data[pos + len(magic) + 4 : end - 4]
    footer = Footer(magic=magic, final_time_code=final_tc, raw=raw, footer_length=footer_length)
    if len(raw) == 42 and raw[0] == 1 and raw[1] == 2 and _U32.unpack_from(raw, 2)[0] == 36:
        _a, _b, seconds = struct.unpack_from("<3I", raw, 6)
        footer.seconds = seconds
        footer.payload_values = struct.unpack_from("<6f", raw, 18)
    return footer
