"""Read SAGE replays (RA3, Kane's Wrath, Tiberium Wars) following docs in ../shared/notes.

The reader never trusts a length field: every read is bounds-checked against the bytes already in memory,
so a forged length costs no memory and no time. Damage after the header salvages the complete chunks
before it and marks the replay as truncated; damage in the header raises :class:`ReplayFormatError`.
"""

from __future__ import annotations

import struct
from pathlib import Path

from app.replay.errors import ReplayFormatError
from app.replay.model import (
    ArgKind,
    BinaryPlayer,
    Camera,
    Chunk,
    Command,
    Footer,
    Game,
    Header,
    Replay,
    Slot,
    SlotKind,
)

RA3_MAGIC = b"RA3 REPLAY HEADER"
CNC3_MAGIC = b"C&C3 REPLAY HEADER"
RA3_FOOTER = b"RA3 REPLAY FOOTER"
CNC3_FOOTER = b"C&C3 REPLAY FOOTER"
REPL_MAGIC = b"CNC3RPL\0"
TERMINATOR = 0x7FFFFFFF
MOD_BLOCK_SIZE = 22
MAX_HEADER_STRING = 4096

_U32 = struct.Struct("<I")
_CHUNK_HEAD = struct.Struct("<IBI")

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

RA3_FACTIONS = {1: "Observer", 2: "Empire", 3: "Commentator", 4: "Allies", 7: "Random", 8: "Soviets", 9: "Celestial"}
KW_FACTIONS = {
    1: "Random", 2: "Observer", 3: "Commentator", 6: "GDI", 7: "Steel Talons", 8: "ZOCOM", 9: "Nod",
    10: "Black Hand", 11: "Marked of Kane", 12: "Scrin", 13: "Reaper-17", 14: "Traveler-59",
}
TW_FACTIONS = {1: "Random", 2: "Observer", 3: "Commentator", 6: "GDI", 7: "Nod", 8: "Scrin"}
FACTIONS = {Game.RA3: RA3_FACTIONS, Game.KW: KW_FACTIONS, Game.TW: TW_FACTIONS}
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
        return self.data[start:p].decode("utf-16-le", errors="replace")


def read_replay(path: str | Path) -> Replay:
    """Read a replay file; raise :class:`ReplayFormatError` when it is not a readable replay."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ReplayFormatError(str(p), 0, f"cannot read file: {exc.strerror or exc}") from exc
    return parse_replay(data, str(p))


def parse_replay(data: bytes, path: str = "<bytes>") -> Replay:
    """Parse replay bytes (see :func:`read_replay`)."""
    header = parse_header(data, path)
    replay = Replay(path=path, header=header, chunks=[], footer=None, file_size=len(data))
    _walk_chunks(data, replay)
    return replay


def parse_header(data: bytes, path: str = "<bytes>") -> Header:
    """Parse the header; its end must land exactly on the first chunk."""
    cur = _Cursor(data, path)
    if data.startswith(RA3_MAGIC):
        magic, game = RA3_MAGIC, Game.RA3
    elif data.startswith(CNC3_MAGIC):
        magic, game = CNC3_MAGIC, Game.KW  # refined to TW below
    else:
        raise ReplayFormatError(path, 0, "not a SAGE replay (no 'RA3 REPLAY HEADER' or 'C&C3 REPLAY HEADER' magic)")
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
            game=game, magic=magic, hnumber1=hnumber1, version=version, hnumber2=hnumber2, zero1=zero1,
            title=title, description=description, map_name=map_name, map_id=map_id, binary_players=players,
            chunk_offset=chunk_offset, repl_magic_offset=repl_magic_offset, mod_block=mod_block,
            timestamp=timestamp, unknown1=unknown1, settings_raw=settings_raw, replay_saver=saver, zero2=zero2,
            file_name=file_name, local_time_fields=lt, vermagic=vermagic, magic_hash=mhash, zero3=zero3,
            unknown2=unk2, size=chunk_offset,
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
    file_name = cur.take(2 * name_len, "file name").decode("utf-16-le", errors="replace")
    local_time = struct.unpack("<8H", cur.take(16, "local time"))
    vm_len = cur.u32("version text length")
    vermagic = cur.take(vm_len, "version text").decode("latin-1")
    magic_hash = cur.u32("build hash")
    zero3 = cur.u8("header")
    n_unknown2 = 20 if game is Game.RA3 else 19
    unknown2 = struct.unpack(f"<{n_unknown2}I", cur.take(4 * n_unknown2, "header trailer"))
    return (mod_block, timestamp, unknown1, settings_raw, saver, zero2, file_name, local_time, vermagic,
            magic_hash, zero3, unknown2)


def parse_settings(raw: bytes) -> dict[str, str]:
    """Split ``key=value;`` text, each item at its first ``=`` (names may contain ``=``)."""
    text = raw.decode("utf-8", errors="replace")
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
            slots.append(Slot(
                index=index, kind=kind, raw=entry, name=fields[0], ip=ip, port=_int(fields[2], 0),
                matching=fields[3], color=_int(fields[4]), faction_id=faction_id,
                faction=factions.get(faction_id, f"faction {faction_id}"), start_position=_int(fields[6]),
                team=_int(fields[7]), handicap=_int(fields[8], 0), clan=fields[11],
            ))
        elif entry.startswith("C"):
            fields = entry.split(",")
            fields += [""] * (7 - len(fields))
            faction_id = _int(fields[2])
            slots.append(Slot(
                index=index, kind=SlotKind.AI, raw=entry, ai_difficulty=AI_DIFFICULTY.get(fields[0][1:2], fields[0][1:]),
                color=_int(fields[1]), faction_id=faction_id,
                faction=factions.get(faction_id, f"faction {faction_id}"), start_position=_int(fields[3]),
                team=_int(fields[4]), handicap=_int(fields[5], 0), ai_personality=_int(fields[6]),
            ))
        elif entry.startswith("O"):
            slots.append(Slot(index=index, kind=SlotKind.OPEN, raw=entry))
        else:
            slots.append(Slot(index=index, kind=SlotKind.CLOSED, raw=entry))
    return slots


def command_player_map(slots: list[Slot]) -> list[int]:
    """Command player number i -> slot index: the i-th entry that is not closed or open (notes §5)."""
    return [s.index for s in slots if s.kind not in (SlotKind.CLOSED, SlotKind.OPEN)]


def _walk_chunks(data: bytes, replay: Replay) -> None:
    header = replay.header
    game = header.game
    arg_types = RA3_ARG_TYPES if game is Game.RA3 else CNC3_ARG_TYPES
    player_map = command_player_map(header.slots)
    base = PLAYER_FIELD_BASE[game]
    splitter = _CommandSplitter(arg_types, player_map, base, replay.path)
    pos = header.chunk_offset
    end = len(data)
    last_tc = 0
    chunks = replay.chunks
    while True:
        if pos + 4 > end:
            replay.truncated = True
            replay.truncation_reason = (
                f"file ends at byte {end} without the terminator" if pos == end
                else f"file ends inside a chunk header at byte {pos}"
            )
            return
        (tc,) = _U32.unpack_from(data, pos)
        if tc == TERMINATOR:
            replay.footer = _parse_footer(data, pos + 4, replay.path, game)
            return
        if pos + 9 > end:
            replay.truncated = True
            replay.truncation_reason = f"file ends inside a chunk header at byte {pos}"
            return
        _, ctype, size = _CHUNK_HEAD.unpack_from(data, pos)
        body = pos + 9
        if body + size + 4 > end:
            replay.truncated = True
            replay.truncation_reason = (
                f"chunk at byte {pos} declares {size} bytes but only {max(0, end - body)} remain"
            )
            return
        if tc < last_tc:
            replay.truncated = True
            replay.truncation_reason = f"time code goes back from {last_tc} to {tc} at byte {pos}: file is damaged"
            return
        payload = data[body : body + size]
        (trailing,) = _U32.unpack_from(data, body + size)
        chunk = Chunk(time_code=tc, chunk_type=ctype, data=payload, trailing=trailing, offset=pos)
        try:
            if ctype == 1:
                chunk.commands = splitter.split(payload, tc, body)
            elif ctype == 2:
                chunk.camera = _parse_camera(payload)
        except ReplayFormatError as exc:
            replay.truncated = True
            replay.truncation_reason = f"damaged chunk at byte {pos}: {exc.reason}"
            return
        chunks.append(chunk)
        last_tc = tc
        pos = body + size + 4


_CAMERA_POS = struct.Struct("<fff")
_CAMERA_ROT = struct.Struct("<ffff")


def _parse_camera(payload: bytes) -> Camera | None:
    if len(payload) < 12:
        return None
    slot, = _U32.unpack_from(payload, 2)
    tc, = _U32.unpack_from(payload, 7)
    flags = payload[11]
    p = 12
    position = rotation = None
    if flags & 1 and p + 12 <= len(payload):
        position = _CAMERA_POS.unpack_from(payload, p)
        p += 12
    if flags & 2 and p + 16 <= len(payload):
        rotation = _CAMERA_ROT.unpack_from(payload, p)
    return Camera(slot=slot, time_code=tc, flags=flags, position=position, rotation=rotation)


class _CommandSplitter:
    """Split type-1 chunk payloads by the typed-argument rule (notes §4.2), caching a decoder per layout."""

    def __init__(self, arg_types: dict[int, _ArgSpec], player_map: list[int], base: int, path: str) -> None:
        self.arg_types = arg_types
        self.sizes = [arg_types[t][1] if t in arg_types else -1 for t in range(16)]
        self.player_map = player_map
        self.base = base
        self.path = path
        self.decoders: dict[bytes, tuple[struct.Struct, tuple[ArgKind, ...], bool]] = {}

    def _decoder(self, groups: bytes) -> tuple[struct.Struct, tuple[ArgKind, ...], bool]:
        fmt = ["<"]
        kinds: list[ArgKind] = []
        has_pos = False
        for d in groups:
            count = (d >> 4) + 1
            kind, _size, code = self.arg_types[d & 0xF]
            fmt.append("x" + code * count)
            kinds.extend([kind] * count)
            has_pos = has_pos or kind is ArgKind.POSITION
        fmt.append("x")
        dec = (struct.Struct("".join(fmt)), tuple(kinds), has_pos)
        self.decoders[groups] = dec
        return dec

    def split(self, payload: bytes, tc: int, file_offset: int) -> list[Command]:
        end = len(payload)
        if end < 5:
            raise ReplayFormatError(self.path, file_offset, f"command chunk of {end} bytes is too short")
        (n,) = _U32.unpack_from(payload, 1)
        if n > end:  # each command needs at least 3 bytes; a forged count fails fast
            raise ReplayFormatError(self.path, file_offset, f"command count {n} cannot fit in {end} bytes")
        sizes = self.sizes
        player_map = self.player_map
        nslots = len(player_map)
        base = self.base
        out: list[Command] = []
        pos = 5
        for _ in range(n):
            if pos + 3 > end:
                raise ReplayFormatError(self.path, file_offset + pos, "command runs past the end of its chunk")
            w = payload[pos] | payload[pos + 1] << 8
            start = pos + 2
            p = start
            groups = bytearray()
            has_string = False
            while True:
                if p >= end:
                    raise ReplayFormatError(self.path, file_offset + p, "command arguments run past the chunk")
                d = payload[p]
                if d == 0xFF:
                    break
                size = sizes[d & 0xF]
                if size == -1:
                    raise ReplayFormatError(self.path, file_offset + p, f"unknown argument type code {d & 0xF}")
                groups.append(d)
                if size is None:
                    has_string = True
                    p += 1
                    for _ in range((d >> 4) + 1):
                        p = self._skip_string(payload, p, d & 0xF, file_offset)
                else:
                    p += 1 + ((d >> 4) + 1) * size
            if p >= end:
                raise ReplayFormatError(self.path, file_offset + p, "command arguments run past the chunk")
            gbytes = bytes(groups)
            if has_string:
                args, kinds = self._decode_strings(payload, start, gbytes)
            else:
                dec = self.decoders.get(gbytes) or self._decoder(gbytes)
                values = dec[0].unpack_from(payload, start)
                kinds = dec[1]
                args = _group_positions(values, kinds) if dec[2] else values
            pf = w >> 11
            idx = pf - base
            player = player_map[idx] if 0 <= idx < nslots else -1
            out.append(Command(tc, pf, w & 0x7FF, gbytes, args, kinds, player))
            pos = p + 1
        if pos != end:
            raise ReplayFormatError(
                self.path, file_offset + pos, f"{n} commands end at byte {pos} of a {end}-byte chunk"
            )
        return out

    def _skip_string(self, payload: bytes, p: int, code: int, file_offset: int) -> int:
        end = len(payload)
        if p >= end:
            raise ReplayFormatError(self.path, file_offset + p, "string argument runs past the chunk")
        length = payload[p]
        p += 1
        if length == 0xFF:
            if p + 4 > end:
                raise ReplayFormatError(self.path, file_offset + p, "string length runs past the chunk")
            (length,) = _U32.unpack_from(payload, p)
            p += 4
        width = 2 if self.arg_types[code][0] is ArgKind.WSTRING else 1
        p += length * width
        if p > end:
            raise ReplayFormatError(self.path, file_offset + p, f"string of {length} units runs past the chunk")
        return p

    def _decode_strings(self, payload: bytes, p: int, groups: bytes) -> tuple[tuple[object, ...], tuple[ArgKind, ...]]:
        args: list[object] = []
        kinds: list[ArgKind] = []
        for d in groups:
            p += 1
            kind, size, code = self.arg_types[d & 0xF]
            for _ in range((d >> 4) + 1):
                if size is None:
                    q = self._skip_string(payload, p, d & 0xF, 0)
                    long_form = payload[p] == 0xFF
                    raw = payload[p + (5 if long_form else 1) : q]
                    value: object = raw.decode("utf-16-le", errors="replace") if kind is ArgKind.WSTRING else raw
                    args.append(StringArg(value, long_form))
                    p = q
                else:
                    vals = struct.unpack_from("<" + code, payload, p)
                    args.append(vals if kind is ArgKind.POSITION else vals[0])
                    p += size
                kinds.append(kind)
        return tuple(args), tuple(kinds)


class StringArg(tuple):  # type: ignore[type-arg]
    """A string argument: its value and whether its length used the long (0xFF + u32) form."""

    __slots__ = ()

    def __new__(cls, value: object, long_form: bool) -> StringArg:
        return super().__new__(cls, (value, long_form))

    @property
    def value(self) -> object:
        return self[0]

    @property
    def long_form(self) -> bool:
        return bool(self[1])

    def __str__(self) -> str:
        v = self[0]
        return v if isinstance(v, str) else f"<{len(v)} bytes>"  # type: ignore[arg-type]


def _group_positions(values: tuple[object, ...], kinds: tuple[ArgKind, ...]) -> tuple[object, ...]:
    out: list[object] = []
    i = 0
    for kind in kinds:
        if kind is ArgKind.POSITION:
            out.append(values[i : i + 3])
            i += 3
        else:
            out.append(values[i])
            i += 1
    return tuple(out)


def _parse_footer(data: bytes, pos: int, path: str, game: Game) -> Footer:
    magic = RA3_FOOTER if game is Game.RA3 else CNC3_FOOTER
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
