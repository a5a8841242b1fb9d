"""Read SAGE replays (RA3, Kane's Wrath, Tiberium Wars) following docs in ../shared/notes.

The reader never trusts a length field: every read is bounds-checked against the bytes already in memory,
so a forged length costs no memory and no time. Values that size later output (time codes, counts, the
duration) are checked against what the format allows (:data:`MAX_TIME_CODE_GAP`, :data:`MAX_DURATION_TIME_CODE`,
the footer's final time code), and so is what no game writes: time codes that stop advancing or a chunk written
twice (:func:`_repeat_detail`), a command of more than :data:`MAX_COMMAND_ARGS` arguments. A file whose footer is
intact is complete, so anything implausible inside it raises :class:`ReplayDamagedError`; a file without its
footer was cut (a crashed game), so the reader keeps the sound chunks before the first implausible one and marks
the replay as truncated, unless more than the last write block (:data:`WRITE_BLOCK`) is unreadable, such as a run
of zeros after the last chunk: that is damage too. Damage in the header raises
:class:`ReplayFormatError`. Files are opened without blocking, must be regular files, are refused above
:func:`max_replay_bytes`, and must start with a replay magic before the rest is read.
"""

from __future__ import annotations

import gc
import os
import stat
import struct
from array import array
from collections.abc import Callable
from pathlib import Path

from app.errors import KnownError
from app.mods import HeaderFactionTables
from app.replay.errors import ReplayDamagedError, ReplayFormatError
from app.replay.model import (
    ArgKind,
    BinaryPlayer,
    ChunkIndex,
    Command,
    Footer,
    Game,
    Header,
    Replay,
    Slot,
    SlotKind,
    StringArg,
)
from app.safetext import storable_text

RA3_MAGIC = b"RA3 REPLAY HEADER"
CNC3_MAGIC = b"C&C3 REPLAY HEADER"
RA3_FOOTER = b"RA3 REPLAY FOOTER"
CNC3_FOOTER = b"C&C3 REPLAY FOOTER"
REPL_MAGIC = b"CNC3RPL\0"
TERMINATOR = 0x7FFFFFFF
MOD_BLOCK_SIZE = 22
MAX_HEADER_STRING = 4096
MAX_FOOTER_LENGTH = 100
"""louisdx refuses footer lengths of 100 or more; real ones are 27, 32 and 67 (notes §3, §7.2)."""
MAX_TIME_CODE_GAP = 900
"""Largest plausible step between consecutive chunks: 60 s. Camera heartbeats come every 15 time codes per player
(notes §2); the corpus never steps more than 16."""
MAX_DURATION_TIME_CODE = 6 * 3600 * 15
"""Longest plausible match: 6 hours of 1/15 s time codes (the corpus' longest is 24 minutes)."""
FIRST_TIME_CODE = 1
"""The game's first chunks have time code 1 (notes §2; every corpus file), so a chunk at 0 is damage (a zero run)."""
WRITE_BLOCK = 4096
"""The game writes the file in 4 KiB blocks (notes §7.1); both cut corpus files end on a block boundary
(962,560 and 12,288 bytes)."""
MIN_COMMAND_BYTES = 3
"""A command is at least its 2-byte id word and the 0xFF end byte (notes §4.2)."""
MAX_REPLAY_MB_ENV = "REPLAYSAGE_MAX_REPLAY_MB"
MAGICS = (RA3_MAGIC, CNC3_MAGIC)

_U32 = struct.Struct("<I")
_CHUNK_HEAD = struct.Struct("<IBI")  # time code, type, size

# Argument type code -> (kind, byte size, struct code). Size None means a length-prefixed string.
_ArgSpec = tuple[ArgKind, int | None, str]
RA3_ARG_TYPES: dict[int, _ArgSpec] = {
    0: (ArgKind.INT, 4, "I"),
    1: (ArgKind.FLOAT, 4, "f"),
    2: (ArgKind.BOOL, 1, "B"),
    4: (ArgKind.OBJECT, 4, "I"),
    5: (ArgKind.DRAWABLE, 4, "I"),
    7: (ArgKind.POSITION, 12, "fff"),
    8: (ArgKind.FRAME, 4, "I"),
    0xA: (ArgKind.BYTES, None, ""),
    0xB: (ArgKind.WSTRING, None, ""),
}
CNC3_ARG_TYPES: dict[int, _ArgSpec] = {
    0: (ArgKind.INT, 4, "I"),
    1: (ArgKind.FLOAT, 4, "f"),
    2: (ArgKind.BOOL, 1, "B"),
    3: (ArgKind.OBJECT, 4, "I"),
    4: (ArgKind.DRAWABLE, 4, "I"),
    5: (ArgKind.OPAQUE, 4, "I"),
    6: (ArgKind.POSITION, 12, "fff"),
    7: (ArgKind.OPAQUE, 8, "II"),
    8: (ArgKind.OPAQUE, 16, "IIII"),
    9: (ArgKind.FRAME, 4, "I"),
    0xA: (ArgKind.OPAQUE, 2, "H"),
    0xC: (ArgKind.BYTES, None, ""),
}

SEATS: dict[str, dict[int, str]] = {
    Game.RA3: {1: "Observer", 3: "Commentator", 7: "Random"},
    Game.KW: {1: "Random", 2: "Observer", 3: "Commentator"},
    Game.TW: {1: "Random", 2: "Observer", 3: "Commentator"},
}
"""Header faction ids that are seats, not factions (the game's, whatever the mod)."""
FACTIONS = HeaderFactionTables(SEATS)
"""Header faction id -> label per game: the seats plus every registered mod's factions (:mod:`app.mods`)."""
SEAT_NAMES_ZH = {"Random": "随机", "Observer": "观战", "Commentator": "解说"}
"""Chinese names of the header "factions" that are seats, not factions of any game (the same in every game)."""
OBSERVER_FACTION = {Game.RA3: 1, Game.KW: 2, Game.TW: 2}
COMMENTATOR_FACTION = 3
PLAYER_FIELD_BASE = {Game.RA3: 2, Game.KW: 3, Game.TW: 3}
AI_DIFFICULTY = {"E": "easy", "M": "medium", "H": "hard", "B": "brutal"}
TW_MAGIC_HASH = 0xA471E23C
KW_MAGIC_HASH = 0x2A53C634


class _Cursor:
    """Bounds-checked little-endian reads over the file bytes."""

    __slots__ = ("data", "path", "pos")

    def __init__(self, data: bytes, path: str, pos: int = 0) -> None:
        self.data = data
        self.path = path
        self.pos = pos

    def fail(self, reason: str, offset: int | None = None) -> ReplayFormatError:
        return ReplayFormatError(self.path, self.pos if offset is None else offset, reason)

    def take(self, n: int, what: str) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise self.fail(f"file ends inside {what} (needs {n} bytes)")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def u8(self, what: str) -> int:
        if self.pos >= len(self.data):
            raise self.fail(f"file ends inside {what}")
        v = self.data[self.pos]
        self.pos += 1
        return v

    def u32(self, what: str) -> int:
        if self.pos + 4 > len(self.data):
            raise self.fail(f"file ends inside {what}")
        (v,) = _U32.unpack_from(self.data, self.pos)
        self.pos += 4
        return int(v)

    def wstr(self, what: str) -> str:
        start = self.pos
        limit = min(len(self.data), start + 2 * MAX_HEADER_STRING)
        p = start
        while True:
            p = self.data.find(b"\0\0", p, limit + 2)
            if p < 0 or p + 2 > limit + 2:
                raise self.fail(f"{what} has no UTF-16 terminator within {MAX_HEADER_STRING} characters")
            if (p - start) % 2 == 0:
                break
            p += 1
        self.pos = p + 2
        return _utf16(self.data[start:p])


def read_replay(path: str | Path, *, max_bytes: int | None = None) -> Replay:
    """Read a replay file; raise :class:`ReplayFormatError` when it is not a readable replay."""
    return parse_replay(read_replay_bytes(path, max_bytes=max_bytes), str(path))


def max_replay_bytes() -> int:
    """The size limit: ``REPLAYSAGE_MAX_REPLAY_MB`` if set, else the ``max_replay_mb`` setting.

    The default (64 MB) is far above real replays (a few MB; the corpus' largest is 2.2 MB).
    """
    env = os.environ.get(MAX_REPLAY_MB_ENV, "").strip()
    if env:
        try:
            mb = float(env)
        except ValueError:
            mb = 0.0
        if not mb > 0:
            raise KnownError(f"{MAX_REPLAY_MB_ENV}={env!r} is not a positive number of megabytes")
        return int(mb * 1024 * 1024)
    from app.settings import OPTIONS, Settings, SettingsError

    default = float(OPTIONS["max_replay_mb"].default)
    try:
        mb = float(Settings.load().get("max_replay_mb"))
    except SettingsError:  # an unreadable settings file is reported where settings are edited, not here
        mb = default
    return int((mb if mb > 0 else default) * 1024 * 1024)


def read_replay_bytes(path: str | Path, *, max_bytes: int | None = None) -> bytes:
    """The bytes of a replay file, read only when it can be one.

    The file is opened without blocking (a FIFO never waits for a writer) and checked on the open handle: it
    must be a regular file (not a folder, pipe or device such as ``/dev/zero``), no larger than ``max_bytes``
    (default :func:`max_replay_bytes`), and start with a replay magic; only then is the rest read.

    Raises:
        ReplayFormatError: The path cannot be read or is not a replay file within the limit.
    """
    p = str(path)
    limit = max_replay_bytes() if max_bytes is None else max_bytes
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(p, flags)
    except OSError as exc:
        raise ReplayFormatError(p, 0, f"cannot read file: {exc.strerror or exc}") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            what = "a folder" if stat.S_ISDIR(info.st_mode) else "a pipe, socket or device"
            raise ReplayFormatError(p, 0, f"not a replay file: the path is {what}, not a regular file")
        if info.st_size > limit:
            raise ReplayFormatError(
                p,
                0,
                f"file is {info.st_size:,} bytes, more than the {limit:,} bytes a replay may have "
                f"(replays are a few MB; raise the max_replay_mb setting or {MAX_REPLAY_MB_ENV} if this one is real)",
            )
        with os.fdopen(fd, "rb", closefd=False) as f:
            head = f.read(len(CNC3_MAGIC))
            if not any(head.startswith(m) for m in MAGICS):
                raise ReplayFormatError(p, 0, _NO_MAGIC)
            f.seek(0)
            data = f.read(info.st_size + 1)  # one buffer of the file's size: no second copy, nothing up to the limit
            if len(data) > info.st_size:  # the file grows while it is read: take what the limit allows
                data += f.read(limit + 1 - len(data))
    except OSError as exc:
        raise ReplayFormatError(p, 0, f"cannot read file: {exc.strerror or exc}") from exc
    finally:
        os.close(fd)
    if len(data) > limit:  # the file grew after the size check
        raise ReplayFormatError(p, 0, f"file is more than the {limit:,} bytes a replay may have")
    return data


_NO_MAGIC = "not a SAGE replay (no 'RA3 REPLAY HEADER' or 'C&C3 REPLAY HEADER' magic)"


def _utf16(raw: bytes) -> str:
    """Decode file text; a lone surrogate becomes U+FFFD so the text can be printed, stored and sent anywhere."""
    return raw.decode("utf-16-le", errors="replace")


def parse_replay(data: bytes, path: str = "<bytes>") -> Replay:
    """Parse replay bytes (see :func:`read_replay`).

    The garbage collector pauses meanwhile: a 3v3 makes ~20,000 commands of small tuples that form no reference
    cycles, and the collections their allocations trigger would only re-scan them (a tenth of the parse).
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        header = parse_header(data, path)
        replay = Replay(path=path, header=header, footer=None, file_size=len(data))
        _walk_chunks(data, replay)
    finally:
        if collecting:
            gc.enable()
    return replay


def parse_header(data: bytes, path: str = "<bytes>") -> Header:
    """Parse the header; its end must land exactly on the first chunk."""
    cur = _Cursor(data, path)
    if data.startswith(RA3_MAGIC):
        magic, game = RA3_MAGIC, Game.RA3
    elif data.startswith(CNC3_MAGIC):
        magic, game = CNC3_MAGIC, Game.KW  # refined to TW below
    else:
        raise ReplayFormatError(path, 0, _NO_MAGIC)
    cur.pos = len(magic)
    hnumber1 = cur.u8("header")
    version = struct.unpack("<4I", cur.take(16, "version"))
    hnumber2 = cur.u8("header")
    zero1 = cur.u8("header")
    title = cur.wstr("match title")
    description = cur.wstr("match description")
    map_name = cur.wstr("map name")
    map_id = cur.wstr("map id")
    nplayers = cur.u8("player count")
    players: list[BinaryPlayer] = []
    for _ in range(nplayers + 1):
        pid = cur.u32("player record")
        name = cur.wstr("player name")
        team = cur.u8("player team") if hnumber1 == 5 else None
        players.append(BinaryPlayer(pid, name, team))
    chunk_rel = cur.u32("first-chunk offset")
    magic_len = cur.u32("replay magic length")
    if magic_len != len(REPL_MAGIC):
        raise cur.fail(f"replay magic length is {magic_len}, expected 8", cur.pos - 4)
    repl_magic_offset = cur.pos
    if cur.take(8, "replay magic") != REPL_MAGIC:
        raise cur.fail("missing 'CNC3RPL' magic", repl_magic_offset)
    chunk_offset = repl_magic_offset + chunk_rel
    if chunk_offset > len(data):
        raise cur.fail(f"first chunk offset {chunk_offset} lies beyond the end of the file ({len(data)} bytes)")
    after_magic = cur.pos
    layouts = [True] if game is Game.RA3 else [False, True]
    last_error: ReplayFormatError | None = None
    for has_mod_block in layouts:
        cur.pos = after_magic
        try:
            rest = _parse_header_rest(cur, game, has_mod_block)
        except ReplayFormatError as exc:
            last_error = exc
            continue
        if cur.pos != chunk_offset:
            last_error = cur.fail(f"header ends at byte {cur.pos} but the first chunk is at {chunk_offset}")
            continue
        mod_block, timestamp, unknown1, settings_raw, saver, zero2, file_name, lt, vermagic, mhash, zero3, unk2 = rest
        if game is not Game.RA3:
            game = _cnc3_game(mhash, mod_block)
        header = Header(
            game=game,
            magic=magic,
            hnumber1=hnumber1,
            version=version,
            hnumber2=hnumber2,
            zero1=zero1,
            title=title,
            description=description,
            map_name=map_name,
            map_id=map_id,
            binary_players=players,
            chunk_offset=chunk_offset,
            repl_magic_offset=repl_magic_offset,
            mod_block=mod_block,
            timestamp=timestamp,
            unknown1=unknown1,
            settings_raw=settings_raw,
            replay_saver=saver,
            zero2=zero2,
            file_name=file_name,
            local_time_fields=lt,
            vermagic=vermagic,
            magic_hash=mhash,
            zero3=zero3,
            unknown2=unk2,
            size=chunk_offset,
        )
        header.settings = parse_settings(settings_raw)
        header.slots = parse_slots(header.settings.get("S", ""), game)
        return header
    assert last_error is not None
    raise last_error


def _cnc3_game(magic_hash: int, mod_block: bytes | None) -> Game:
    if magic_hash == TW_MAGIC_HASH:
        return Game.TW
    if magic_hash == KW_MAGIC_HASH:
        return Game.KW
    return Game.TW if mod_block and mod_block.startswith(b"CNC3") else Game.KW


def _parse_header_rest(cur: _Cursor, game: Game, has_mod_block: bool) -> tuple:  # type: ignore[type-arg]
    mod_block = cur.take(MOD_BLOCK_SIZE, "mod block") if has_mod_block else None
    timestamp = cur.u32("timestamp")
    unknown1 = cur.take(31 if game is Game.RA3 else 33, "header padding")
    settings_len = cur.u32("settings length")
    settings_raw = cur.take(settings_len, "settings text")
    saver = cur.u8("replay saver")
    zero2 = cur.take(8, "header padding")
    name_len = cur.u32("file name length")
    file_name = _utf16(cur.take(2 * name_len, "file name"))
    local_time = struct.unpack("<8H", cur.take(16, "local time"))
    vm_len = cur.u32("version text length")
    vermagic = cur.take(vm_len, "version text").decode("latin-1")
    magic_hash = cur.u32("build hash")
    zero3 = cur.u8("header")
    n_unknown2 = 20 if game is Game.RA3 else 19
    unknown2 = struct.unpack(f"<{n_unknown2}I", cur.take(4 * n_unknown2, "header trailer"))
    return (
        mod_block,
        timestamp,
        unknown1,
        settings_raw,
        saver,
        zero2,
        file_name,
        local_time,
        vermagic,
        magic_hash,
        zero3,
        unknown2,
    )


def parse_settings(raw: bytes) -> dict[str, str]:
    """Split ``key=value;`` text, each item at its first ``=`` (names may contain ``=``).

    This is where player names, clan tags and the map path become text, so it is where they are made storable
    (:func:`~app.safetext.storable_text`: a NUL becomes U+FFFD), once, for every store and view after it. The
    header's wide strings cannot hold a NUL (it ends them); ``settings_raw``, the file name and command strings
    keep the file's exact text for the writer and reach no store.
    """
    text = storable_text(raw.decode("utf-8", errors="replace"))
    out: dict[str, str] = {}
    for item in text.split(";"):
        if not item:
            continue
        key, _, value = item.partition("=")
        out[key] = value
    return out


def _int(text: str, default: int = -1, base: int = 10) -> int:
    try:
        return int(text, base)
    except ValueError:
        return default


def parse_slots(s_value: str, game: Game) -> list[Slot]:
    """Parse the ``S=`` slot list; the slot index counts every entry, closed ones included."""
    entries = s_value.split(":")
    if entries and entries[-1] == "":
        entries.pop()
    factions = FACTIONS[game]
    slots: list[Slot] = []
    for index, entry in enumerate(entries):
        if entry.startswith("H"):
            fields = entry[1:].split(",")
            if len(fields) > 12:  # a comma inside the name
                extra = len(fields) - 12
                fields = [",".join(fields[: extra + 1]), *fields[extra + 1 :]]
            fields += [""] * (12 - len(fields))
            faction_id = _int(fields[5])
            if faction_id == OBSERVER_FACTION[game]:
                kind = SlotKind.OBSERVER
            elif faction_id == COMMENTATOR_FACTION:
                kind = SlotKind.COMMENTATOR
            else:
                kind = SlotKind.HUMAN
            ip_num = _int(fields[1], 0, 16)
            ip = ".".join(str((ip_num >> s) & 0xFF) for s in (24, 16, 8, 0))
            slots.append(
                Slot(
                    index=index,
                    kind=kind,
                    raw=entry,
                    name=fields[0],
                    ip=ip,
                    port=_int(fields[2], 0),
                    matching=fields[3],
                    color=_int(fields[4]),
                    faction_id=faction_id,
                    faction=factions.get(faction_id, f"faction {faction_id}"),
                    start_position=_int(fields[6]),
                    team=_int(fields[7]),
                    handicap=_int(fields[8], 0),
                    clan=fields[11],
                )
            )
        elif entry.startswith("C"):
            fields = entry.split(",")
            fields += [""] * (7 - len(fields))
            faction_id = _int(fields[2])
            slots.append(
                Slot(
                    index=index,
                    kind=SlotKind.AI,
                    raw=entry,
                    ai_difficulty=AI_DIFFICULTY.get(fields[0][1:2], fields[0][1:]),
                    color=_int(fields[1]),
                    faction_id=faction_id,
                    faction=factions.get(faction_id, f"faction {faction_id}"),
                    start_position=_int(fields[3]),
                    team=_int(fields[4]),
                    handicap=_int(fields[5], 0),
                    ai_personality=_int(fields[6]),
                )
            )
        elif entry.startswith("O"):
            slots.append(Slot(index=index, kind=SlotKind.OPEN, raw=entry))
        else:
            slots.append(Slot(index=index, kind=SlotKind.CLOSED, raw=entry))
    return slots


def command_player_map(slots: list[Slot]) -> list[int]:
    """Command player number i -> slot index: the i-th entry that is not closed or open (notes §5)."""
    return [s.index for s in slots if s.kind not in (SlotKind.CLOSED, SlotKind.OPEN)]


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
    commands = replay.commands
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
                del commands[n0:]
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


_STRING = -2
_BAD = -1
MAX_FAST_GROUPS = 16
"""Commands with at most this many argument groups get one compiled ``struct`` per layout (the corpus' longest has
10); longer ones are decoded group by group (:data:`MAX_COMMAND_ARGS` bounds them). The layout key holds 8 bits per
group, so without this bound a command of n groups built an n-byte integer one shift at a time (quadratic: a 1.6 MB
argument list took 74 s), and the cache kept a compiled format as long as the command."""
_LONG_LAYOUT_KEY = 1 << (8 * MAX_FAST_GROUPS)
_ID_INTS = tuple(range(0x800))
"""One int object per 11-bit command id: a command keeps a shared one, not its own (ids above 256 are not cached by
Python; 28 bytes per command in a long replay)."""
MAX_COMMAND_ARGS = 255
"""A game message holds at most 255 arguments: SAGE counts them in a byte (``UnsignedByte m_argCount`` in
``GameMessage``, zachreizner/CnC_Generals_Zero_Hour ``MessageStream.h``, whose note says a bigger message must be
split into several). A string counts as one argument here. The corpus' longest command has 41."""
_TOO_MANY_ARGS = f"command has more than {MAX_COMMAND_ARGS} arguments (a game message holds at most {MAX_COMMAND_ARGS})"
_DECODER_CACHE_LIMIT = 4096
_Decoder = tuple[struct.Struct, tuple[ArgKind, ...], "Callable[[tuple[object, ...]], tuple[object, ...]] | None", bytes]


class _CommandSplitter:
    """Split type-1 chunk payloads by the typed-argument rule (notes §4.2).

    Speed matters here (a 3v3 has ~20,000 commands): each descriptor byte maps to its group's byte size
    through a 256-entry table, and each distinct layout of up to :data:`MAX_FAST_GROUPS` groups gets one compiled
    ``struct.Struct``, keyed by the descriptor sequence packed into an int, so decoding a command is one
    ``unpack_from`` call. Longer commands and those with strings take the linear group-by-group path.
    """

    def __init__(self, arg_types: dict[int, _ArgSpec], player_map: list[int], base: int, path: str) -> None:
        self.arg_types = arg_types
        self.path = path
        sizes: list[int] = []
        for d in range(256):
            spec = arg_types.get(d & 0xF)
            if d == 0xFF:
                sizes.append(0)
            elif spec is None:
                sizes.append(_BAD)
            elif spec[1] is None:
                sizes.append(_STRING)
            else:
                sizes.append(1 + ((d >> 4) + 1) * spec[1])
        self.group_size = sizes
        self.players = [player_map[pf - base] if 0 <= pf - base < len(player_map) else -1 for pf in range(32)]
        self.decoders: dict[int, _Decoder] = {}
        self.general_kinds: dict[bytes, tuple[ArgKind, ...]] = {}

    def fail(self, offset: int, reason: str) -> ReplayFormatError:
        return ReplayFormatError(self.path, offset, reason)

    def split_into(self, data: bytes, body: int, size: int, tc: int, out: list[Command]) -> None:
        """Append the commands of the chunk payload ``data[body:body+size]`` to ``out``."""
        end = body + size
        if size < 5:
            raise self.fail(body, f"command chunk of {size} bytes is too short")
        (n,) = _U32.unpack_from(data, body + 1)
        if n * MIN_COMMAND_BYTES > size - 5:  # a forged count fails before any work
            raise ReplayDamagedError(
                self.path,
                body + 1,
                "command count",
                f"{n} cannot fit in a {size}-byte chunk (a command takes at least {MIN_COMMAND_BYTES} bytes)",
            )
        gsize = self.group_size
        long_key = _LONG_LAYOUT_KEY
        decoders = self.decoders
        players = self.players
        ids = _ID_INTS
        new = tuple.__new__
        append = out.append
        p = body + 5
        for _ in range(n):
            if p + 3 > end:
                raise self.fail(p, "command runs past the end of its chunk")
            w = data[p] | data[p + 1] << 8
            q = p + 2
            key = 0
            slow = False
            while True:
                if q >= end:
                    raise self.fail(q, "command arguments run past the chunk")
                d = data[q]
                if d == 0xFF:
                    break
                s = gsize[d]
                if s > 0:
                    q += s
                    key = key << 8 | (d + 1)
                    if key >= long_key:
                        slow = True
                        break
                elif s == _STRING:
                    slow = True
                    break
                else:
                    raise self.fail(q, f"unknown argument type code {d & 0xF}")
            if slow:
                groups, args, kinds, q = self._decode_general(data, p + 2, end)
            else:
                dec = decoders.get(key)
                if dec is None:
                    dec = self._decoder(data, p + 2, key)
                values = dec[0].unpack_from(data, p + 2)
                regroup = dec[2]
                args = regroup(values) if regroup is not None else values
                kinds = dec[1]
                groups = dec[3]
            pf = w >> 11
            append(new(Command, (tc, pf, ids[w & 0x7FF], groups, args, kinds, players[pf])))
            p = q + 1
        if p != end:
            raise self.fail(p, f"{n} commands end at byte {p - body} of a {size}-byte chunk")

    def _decoder(self, data: bytes, p: int, key: int) -> _Decoder:
        fmt = ["<"]
        kinds: list[ArgKind] = []
        widths: list[int] = []
        groups = bytearray()
        while data[p] != 0xFF:
            d = data[p]
            count = (d >> 4) + 1
            if len(kinds) + count > MAX_COMMAND_ARGS:
                raise self.fail(p, _TOO_MANY_ARGS)
            kind, size, code = self.arg_types[d & 0xF]
            fmt.append("x" + code * count)
            kinds.extend([kind] * count)
            widths.extend([len(code)] * count)
            groups.append(d)
            p += 1 + count * (size or 0)
        fmt.append("x")
        regroup = _regrouper(widths) if max(widths, default=1) > 1 else None
        dec: _Decoder = (struct.Struct("".join(fmt)), tuple(kinds), regroup, bytes(groups))
        if len(self.decoders) < _DECODER_CACHE_LIMIT:
            self.decoders[key] = dec
        return dec

    def _skip_string(self, data: bytes, p: int, code: int, end: int) -> int:
        if p >= end:
            raise self.fail(p, "string argument runs past the chunk")
        length = data[p]
        p += 1
        if length == 0xFF:
            if p + 4 > end:
                raise self.fail(p, "string length runs past the chunk")
            (length,) = _U32.unpack_from(data, p)
            p += 4
        width = 2 if self.arg_types[code][0] is ArgKind.WSTRING else 1
        p += length * width
        if p > end:
            raise self.fail(p, f"string of {length} units runs past the chunk")
        return p

    def _decode_general(
        self, data: bytes, p: int, end: int
    ) -> tuple[bytes, tuple[object, ...], tuple[ArgKind, ...], int]:
        """Decode a command group by group (string arguments, or more than :data:`MAX_FAST_GROUPS` groups).

        Linear in the command's length, which :data:`MAX_COMMAND_ARGS` bounds; returns groups, args, kinds and the
        position of the 0xFF end byte. Commands of one layout share one kinds tuple.
        """
        args: list[object] = []
        groups = bytearray()
        while True:
            if p >= end:
                raise self.fail(p, "command arguments run past the chunk")
            d = data[p]
            if d == 0xFF:
                break
            spec = self.arg_types.get(d & 0xF)
            if spec is None:
                raise self.fail(p, f"unknown argument type code {d & 0xF}")
            count = (d >> 4) + 1
            if len(args) + count > MAX_COMMAND_ARGS:
                raise self.fail(p, _TOO_MANY_ARGS)
            kind, size, code = spec
            groups.append(d)
            p += 1
            for _ in range(count):
                if size is None:
                    q = self._skip_string(data, p, d & 0xF, end)
                    long_form = data[p] == 0xFF
                    raw = data[p + (5 if long_form else 1) : q]
                    value: object = _utf16(raw) if kind is ArgKind.WSTRING else raw
                    args.append(StringArg(value, long_form))
                    p = q
                else:
                    if p + size > end:
                        raise self.fail(p, "command arguments run past the chunk")
                    vals = struct.unpack_from("<" + code, data, p)
                    args.append(vals if len(vals) > 1 else vals[0])
                    p += size
        layout = bytes(groups)
        kinds = self.general_kinds.get(layout)
        if kinds is None:
            kinds = tuple(self.arg_types[d & 0xF][0] for d in layout for _ in range((d >> 4) + 1))
            if len(self.general_kinds) < _DECODER_CACHE_LIMIT:
                self.general_kinds[layout] = kinds
        return layout, tuple(args), kinds, p


def _regrouper(widths: list[int]) -> Callable[[tuple[object, ...]], tuple[object, ...]]:
    """A function turning flat struct values into args, one tuple per argument of several values.

    Such arguments are positions (x, y, z) and the opaque 8- and 16-byte KW/TW codes 7 and 8. Generated once
    per layout (from argument widths only, never from file bytes) because a per-command
    Python loop costs more than the rest of the decoding.
    """
    parts: list[str] = []
    i = 0
    for width in widths:
        if width > 1:
            parts.append("(" + ", ".join(f"v[{j}]" for j in range(i, i + width)) + ")")
        else:
            parts.append(f"v[{i}]")
        i += width
    fn: Callable[[tuple[object, ...]], tuple[object, ...]] = eval(  # source built from ints only
        f"lambda v: ({', '.join(parts)},)", {"__builtins__": {}}
    )
    return fn


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
