"""The replay header: bounds-checked reads, the game, the players, the match settings and the slots (notes §3, §5)."""

from __future__ import annotations

import struct

from app.replay.errors import ReplayFormatError
from app.replay.layout import (
    _U32,
    AI_DIFFICULTY,
    CNC3_MAGIC,
    COMMENTATOR_FACTION,
    FACTIONS,
    KW_MAGIC_HASH,
    MAX_HEADER_STRING,
    MOD_BLOCK_SIZE,
    OBSERVER_FACTION,
    RA3_MAGIC,
    REPL_MAGIC,
    TW_MAGIC_HASH,
)
from app.replay.model import (
    BinaryPlayer,
    Game,
    Header,
    Slot,
    SlotKind,
)
from app.safetext import storable_text


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


_NO_MAGIC = "not a SAGE replay (no 'RA3 REPLAY HEADER' or 'C&C3 REPLAY HEADER' magic)"


def _utf16(raw: bytes) -> str:
    """Decode file text; a lone surrogate becomes U+FFFD so the text can be printed, stored and sent anywhere."""
    return raw.decode("utf-16-le", errors="replace")


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
