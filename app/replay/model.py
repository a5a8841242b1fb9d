"""Typed, immutable view of a SAGE replay: header, slots, chunks and commands.

The model keeps every field the file stores (unknown ones included) so that the writer can rebuild the
exact bytes, and so that nothing the game recorded is silently dropped.
"""

from __future__ import annotations

import enum
import struct
import sys
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple, overload


class Game(enum.StrEnum):
    """Which SAGE game wrote the file; they share the container but not the numbering."""

    RA3 = "ra3"
    KW = "kw"
    TW = "tw"


class SlotKind(enum.StrEnum):
    """What occupies an ``S=`` slot."""

    HUMAN = "human"
    AI = "ai"
    OBSERVER = "observer"
    COMMENTATOR = "commentator"
    CLOSED = "closed"
    OPEN = "open"


class ArgKind(enum.IntEnum):
    """Game-independent meaning of an argument type code (codes differ between RA3 and KW/TW)."""

    INT = 0
    FLOAT = 1
    BOOL = 2
    OBJECT = 3
    DRAWABLE = 4
    POSITION = 5
    FRAME = 6
    BYTES = 7
    WSTRING = 8
    OPAQUE = 9  # a code seen in no corpus file; size taken from the Generals enum


@dataclass(frozen=True, slots=True)
class Slot:
    """One entry of the ``S=`` slot list; ``index`` counts closed and open slots too."""

    index: int
    kind: SlotKind
    raw: str
    name: str = ""
    ip: str = ""
    port: int = 0
    matching: str = ""
    color: int = -1
    faction_id: int = -1
    faction: str = ""
    start_position: int = -1
    team: int = -1
    handicap: int = 0
    clan: str = ""
    ai_difficulty: str = ""
    ai_personality: int = -1

    @property
    def is_player(self) -> bool:
        """True for humans and AIs that play (not observers, commentators or empty slots)."""
        return self.kind in (SlotKind.HUMAN, SlotKind.AI)

    @property
    def display_name(self) -> str:
        """A name to show: the player's name, or a label for an AI."""
        if self.kind is SlotKind.AI:
            return f"AI ({self.ai_difficulty})" if self.ai_difficulty else "AI"
        return self.name


@dataclass(frozen=True, slots=True)
class BinaryPlayer:
    """A record of the header's binary player list (redundant with ``S=``, kept for the writer)."""

    profile_id: int
    name: str
    team: int | None


@dataclass(slots=True)
class Header:
    """Everything before the first chunk, field by field in file order."""

    game: Game
    magic: bytes
    hnumber1: int
    version: tuple[int, int, int, int]
    hnumber2: int
    zero1: int
    title: str
    description: str
    map_name: str
    map_id: str
    binary_players: list[BinaryPlayer]
    chunk_offset: int
    repl_magic_offset: int
    mod_block: bytes | None
    timestamp: int
    unknown1: bytes
    settings_raw: bytes
    replay_saver: int
    zero2: bytes
    file_name: str
    local_time_fields: tuple[int, int, int, int, int, int, int, int]
    vermagic: str
    magic_hash: int
    zero3: int
    unknown2: tuple[int, ...]
    settings: dict[str, str] = field(default_factory=dict)
    slots: list[Slot] = field(default_factory=list)
    size: int = 0

    @property
    def mod_name(self) -> str:
        """Mod name from the mod block (``RA3``, ``corona``, ``CNC3``); the game's own name when absent."""
        tokens = _mod_tokens(self.mod_block)
        if tokens:
            return tokens[0]
        return {Game.RA3: "RA3", Game.KW: "KW", Game.TW: "CNC3"}[self.game]

    @property
    def mod_version(self) -> str:
        """Mod version from the mod block ("" when the block has a single token or is absent)."""
        tokens = _mod_tokens(self.mod_block)
        return tokens[-1] if len(tokens) > 1 else ""

    @property
    def is_vanilla(self) -> bool:
        """True when the replay is the unmodded game."""
        return self.mod_name.lower() in ("ra3", "cnc3", "kw")

    @property
    def map_path(self) -> str:
        """Map path from ``M=`` with its 3-digit prefix dropped."""
        return self.settings.get("M", "")[3:]

    @property
    def map_crc(self) -> str:
        """Map CRC, hex text as stored (``0`` for Corona maps)."""
        return self.settings.get("MC", "")

    @property
    def seed(self) -> int | None:
        """Random seed ``SD``, a signed 32-bit decimal."""
        try:
            return int(self.settings.get("SD", ""))
        except ValueError:
            return None

    @property
    def post_commentator_slot(self) -> int | None:
        """``S=`` index of the ``post Commentator`` placeholder (settings key ``PC``); None when there is none.

        The placeholder never acts (format notes §1.2, §7), so views that list people leave this slot out.
        ``PC=-1``, a missing key or a value that is not a number all mean "no placeholder".
        """
        try:
            index = int(self.settings.get("PC", ""))
        except ValueError:
            return None
        return index if index >= 0 else None

    @property
    def utc_time(self) -> datetime:
        """The start time in UTC (from the Unix timestamp)."""
        from datetime import UTC

        return datetime.fromtimestamp(self.timestamp, tz=UTC)

    @property
    def local_time(self) -> datetime | None:
        """The recorder's local start time (SYSTEMTIME), without a zone; None if the fields are invalid."""
        year, month, _weekday, day, hour, minute, second, millis = self.local_time_fields
        try:
            return datetime(year, month, day, hour, minute, second, millis * 1000)
        except ValueError:
            return None

    @property
    def version_text(self) -> str:
        """The game version as ``major.minor.build.build``."""
        return ".".join(str(v) for v in self.version)


def _mod_tokens(block: bytes | None) -> list[str]:
    if not block:
        return []
    return [t.decode("utf-8", errors="replace") for t in block.split(b"\0") if t]


class StringArg(tuple):  # type: ignore[type-arg]
    """A string argument: its value and whether its length used the long (0xFF + u32) form.

    The form is kept because the writer must reproduce it byte for byte.
    """

    __slots__ = ()

    def __new__(cls, value: object, long_form: bool) -> StringArg:
        """Build from the decoded value (``str`` for wide strings, ``bytes`` otherwise)."""
        return super().__new__(cls, (value, long_form))

    @property
    def value(self) -> object:
        """The decoded text (wide strings) or raw bytes."""
        return self[0]

    @property
    def long_form(self) -> bool:
        """True when the length was written as 0xFF followed by a u32."""
        return bool(self[1])

    def __str__(self) -> str:
        v = self[0]
        return v if isinstance(v, str) else f"<{len(v)} bytes>"  # type: ignore[arg-type]


class Command(NamedTuple):
    """One player order from a type-1 chunk.

    A named tuple rather than a dataclass: a 3v3 replay has ~20,000 commands and tuple construction is
    several times cheaper, which keeps the full parse within its time budget. ``groups`` are the raw argument
    descriptor bytes (count and type code per group) so the writer can reproduce the exact grouping; ``args``
    are the decoded values in order (positions as ``(x, y, z)``, strings as :class:`StringArg`).
    """

    time_code: int
    player_field: int
    command_id: int
    groups: bytes
    args: tuple[object, ...]
    kinds: tuple[ArgKind, ...]
    player: int  # index into the ``S=`` slot list, -1 when it maps to no slot

    @property
    def seconds(self) -> float:
        """Game time in seconds (15 time codes per second)."""
        return self.time_code / 15.0

    def values(self, kind: ArgKind) -> list[object]:
        """Arguments of one kind, in order."""
        return [a for a, k in zip(self.args, self.kinds, strict=True) if k is kind]


class CommandList(Sequence[Command]):
    """A parsed replay's commands, kept as columns over the file's bytes instead of one object per command.

    Each command is its offset in ``data`` and its chunk's time code: 8 bytes a command, where a :class:`Command`
    tuple costs about 120. Indexing or iterating decodes the command again from the bytes (``decode``, the reader's
    splitter, which checked it once while reading), so a file of many tiny commands costs memory in proportion to
    its size (issue 29: 3-byte commands made 112x the file size). ``players`` and ``ids``, the slot and the command
    id of each command, are read from the id words the first time they are asked for, in C (3 more bytes a command):
    the passes that count or filter commands iterate them without decoding any; see :func:`command_columns`.
    """

    __slots__ = ("_columns", "_decode", "_end", "_slot_of", "data", "offsets", "time_codes")

    def __init__(
        self,
        data: bytes,
        decode: Callable[[bytes, int, int], Command],
        slot_of: Sequence[int],
        end: Callable[[bytes, int], int],
    ) -> None:
        """``slot_of`` maps each of the 32 player fields (the id word's top 5 bits) to its ``S=`` slot, or -1.

        ``decode(data, offset, time code)`` builds a command, ``end(data, offset)`` finds the byte after it.
        """
        self.data = data
        self.offsets: array[int] = array("I")  # the command's first byte (its id word) in ``data``
        self.time_codes: array[int] = array("I")
        self._slot_of = tuple(slot_of)
        self._decode = decode
        self._end = end
        self._columns: tuple[array[int], array[int]] | None = None

    def truncate(self, n: int) -> None:
        """Forget every command from the ``n``-th on (a chunk that failed half way)."""
        del self.offsets[n:]
        del self.time_codes[n:]
        self._columns = None

    @property
    def players(self) -> array[int]:
        """The ``S=`` slot of each command (-1 when its player field maps to none)."""
        return self._id_columns()[0]

    @property
    def ids(self) -> array[int]:
        """The command id of each command (the id word's low 11 bits, notes §4.1)."""
        return self._id_columns()[1]

    def _id_columns(self) -> tuple[array[int], array[int]]:
        if self._columns is None or len(self._columns[1]) != len(self.offsets):
            # the id words' two bytes of every command, gathered and mapped without a Python step per command
            get = self.data.__getitem__
            low = bytes(map(get, self.offsets))
            high = bytes(map(get, map((1).__add__, self.offsets)))
            words = bytearray(2 * len(low))
            words[0::2] = low
            words[1::2] = high.translate(_LOW_3_BITS)
            ids = array("H")
            ids.frombytes(words)
            if sys.byteorder == "big":
                ids.byteswap()
            slots = [self._slot_of[pf] for pf in range(32)]
            if all(-128 <= slot < 128 for slot in slots):
                players = array("b")
                players.frombytes(high.translate(bytes(slots[h >> 3] & 0xFF for h in range(256))))
            else:  # more than 127 slots in the header (a forged ``S=``)
                players = array("i", [slots[h >> 3] for h in high])
            self._columns = (players, ids)
        return self._columns

    def raw(self, i: int) -> bytes:
        """The bytes of the ``i``-th command: its id word, argument groups and closing 0xFF.

        Two commands of equal bytes are the same command but for their time codes.
        """
        p = self.offsets[i]
        return self.data[p : self._end(self.data, p)]

    def __len__(self) -> int:
        return len(self.offsets)

    @overload
    def __getitem__(self, i: int) -> Command: ...

    @overload
    def __getitem__(self, i: slice) -> list[Command]: ...

    def __getitem__(self, i: int | slice) -> Command | list[Command]:
        if isinstance(i, slice):
            decode, data = self._decode, self.data
            return [decode(data, p, tc) for p, tc in zip(self.offsets[i], self.time_codes[i], strict=True)]
        return self._decode(self.data, self.offsets[i], self.time_codes[i])

    def __iter__(self) -> Iterator[Command]:
        decode, data = self._decode, self.data
        for p, tc in zip(self.offsets, self.time_codes, strict=True):
            yield decode(data, p, tc)


def command_columns(commands: Sequence[Command]) -> tuple[Sequence[int], Sequence[int], Sequence[int]]:
    """``(time codes, slots, command ids)`` of every command, without decoding any (see :class:`CommandList`)."""
    if isinstance(commands, CommandList):
        return commands.time_codes, commands.players, commands.ids
    return [c.time_code for c in commands], [c.player for c in commands], [c.command_id for c in commands]


@dataclass(frozen=True, slots=True)
class Camera:
    """A decoded type-2 (camera) chunk."""

    slot: int
    time_code: int
    flags: int
    position: tuple[float, float, float] | None
    rotation: tuple[float, float, float, float] | None


_LOW_3_BITS = bytes(b & 7 for b in range(256))
_U32 = struct.Struct("<I")
_CAMERA_POS = struct.Struct("<fff")
_CAMERA_ROT = struct.Struct("<ffff")


def decode_camera(payload: bytes) -> Camera | None:
    """Decode a type-2 payload (notes §2); None when it is too short to hold the fixed part."""
    if len(payload) < 12:
        return None
    (slot,) = _U32.unpack_from(payload, 2)
    (tc,) = _U32.unpack_from(payload, 7)
    flags = payload[11]
    p = 12
    position: tuple[float, float, float] | None = None
    rotation: tuple[float, float, float, float] | None = None
    if flags & 1 and p + 12 <= len(payload):
        position = _CAMERA_POS.unpack_from(payload, p)
        p += 12
    if flags & 2 and p + 16 <= len(payload):
        rotation = _CAMERA_ROT.unpack_from(payload, p)
    return Camera(slot=slot, time_code=tc, flags=flags, position=position, rotation=rotation)


@dataclass(slots=True)
class Chunk:
    """One body chunk. ``data`` is the raw payload; ``commands`` is set for type 1, ``camera`` for type 2."""

    time_code: int
    chunk_type: int
    data: bytes
    trailing: int = 0
    offset: int = -1
    commands: list[Command] | None = None
    camera: Camera | None = None


@dataclass(slots=True)
class Footer:
    """The footer after the terminator."""

    magic: bytes
    final_time_code: int
    raw: bytes  # the bytes between final_time_code and footer_length, as stored
    footer_length: int
    seconds: int | None = None  # RA3 payload's duration in seconds
    payload_values: tuple[float, ...] = ()


@dataclass(slots=True)
class ChunkIndex:
    """Where each chunk of a parsed file lies, without one object per chunk.

    Camera chunks outnumber command chunks about 3:1 and are rarely looked at, so the reader records only
    offsets and builds :class:`Chunk` objects on demand (the parse-time budget depends on it).
    """

    data: bytes
    offsets: array[int]
    command_starts: array[int]  # per chunk: index of its first command in ``Replay.commands``

    def __len__(self) -> int:
        return len(self.offsets)


_CHUNK_HEAD = struct.Struct("<IBI")


@dataclass(slots=True)
class Replay:
    """A whole replay: read from a file, or built in memory (e.g. the bundled sample) for the writer."""

    path: str
    header: Header
    footer: Footer | None
    commands: Sequence[Command] = field(default_factory=list)  # a :class:`CommandList` when read from a file
    truncated: bool = False
    truncation_reason: str = ""
    file_size: int = 0
    index: ChunkIndex | None = field(default=None, repr=False)
    _chunks: list[Chunk] | None = field(default=None, repr=False)

    @classmethod
    def from_chunks(cls, path: str, header: Header, chunks: list[Chunk], footer: Footer | None) -> Replay:
        """A replay assembled in memory; its command list is the concatenation of the chunks' commands."""
        commands = [c for ch in chunks if ch.commands for c in ch.commands]
        return cls(path=path, header=header, footer=footer, commands=commands, _chunks=chunks)

    @property
    def game(self) -> Game:
        """Which game wrote the file."""
        return self.header.game

    @property
    def chunk_count(self) -> int:
        """Number of complete chunks (without building them)."""
        if self._chunks is not None:
            return len(self._chunks)
        return len(self.index) if self.index is not None else 0

    @property
    def chunks(self) -> list[Chunk]:
        """Every complete chunk in file order (built on first use for parsed files)."""
        if self._chunks is None:
            self._chunks = list(self._build_chunks())
        return self._chunks

    def _build_chunks(self) -> Iterator[Chunk]:
        if self.index is None:
            return
        data = self.index.data
        starts = self.index.command_starts
        unpack = _CHUNK_HEAD.unpack_from
        n = len(self.index.offsets)
        for i, off in enumerate(self.index.offsets):
            tc, ctype, size = unpack(data, off)
            body = off + 9
            payload = data[body : body + size]
            (trailing,) = _U32.unpack_from(data, body + size)
            chunk = Chunk(time_code=tc, chunk_type=ctype, data=payload, trailing=trailing, offset=off)
            if ctype == 1:
                stop = starts[i + 1] if i + 1 < n else len(self.commands)
                chunk.commands = list(self.commands[starts[i] : stop])
            elif ctype == 2:
                chunk.camera = decode_camera(payload)
            yield chunk

    def cameras(self) -> Iterator[Camera]:
        """Camera (type-2) chunks, decoded lazily: they stay out of the action stream."""
        if self._chunks is not None or self.index is None:
            for ch in self.chunks:
                if ch.camera is not None:
                    yield ch.camera
            return
        data = self.index.data
        unpack = _CHUNK_HEAD.unpack_from
        for off in self.index.offsets:
            _tc, ctype, size = unpack(data, off)
            if ctype == 2:
                cam = decode_camera(data[off + 9 : off + 9 + size])
                if cam is not None:
                    yield cam

    @property
    def final_time_code(self) -> int:
        """The last time code: the footer's, else the last chunk's."""
        if self.footer is not None:
            return self.footer.final_time_code
        if self._chunks is None and self.index is not None and len(self.index):
            return int(_U32.unpack_from(self.index.data, self.index.offsets[-1])[0])
        return self.chunks[-1].time_code if self.chunks else 0

    @property
    def duration_seconds(self) -> float:
        """Match length in seconds."""
        return self.final_time_code / 15.0
