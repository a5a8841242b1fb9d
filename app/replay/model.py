"""Typed, immutable view of a SAGE replay: header, slots, chunks and commands.

The model keeps every field the file stores (unknown ones included) so that the writer can rebuild the
exact bytes, and so that nothing the game recorded is silently dropped.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime


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


@dataclass(frozen=True, slots=True)
class Command:
    """One player order from a type-1 chunk.

    ``groups`` are the raw argument descriptor bytes (count and type code per group) so the writer can
    reproduce the exact grouping; ``args`` are the decoded values in order (positions as ``(x, y, z)``).
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


@dataclass(frozen=True, slots=True)
class Camera:
    """A decoded type-2 (camera) chunk."""

    slot: int
    time_code: int
    flags: int
    position: tuple[float, float, float] | None
    rotation: tuple[float, float, float, float] | None


@dataclass(slots=True)
class Chunk:
    """One body chunk. ``data`` is the raw payload; ``commands`` is set for type 1, ``camera`` for type 2."""

    time_code: int
    chunk_type: int
    data: bytes
    trailing: int
    offset: int
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
class Replay:
    """A whole replay as read from a file."""

    path: str
    header: Header
    chunks: list[Chunk]
    footer: Footer | None
    truncated: bool = False
    truncation_reason: str = ""
    file_size: int = 0

    @property
    def game(self) -> Game:
        """Which game wrote the file."""
        return self.header.game

    @property
    def commands(self) -> list[Command]:
        """Every command in file order."""
        return [c for ch in self.chunks if ch.commands for c in ch.commands]

    @property
    def final_time_code(self) -> int:
        """The last time code: the footer's, else the last chunk's."""
        if self.footer is not None:
            return self.footer.final_time_code
        return self.chunks[-1].time_code if self.chunks else 0

    @property
    def duration_seconds(self) -> float:
        """Match length in seconds."""
        return self.final_time_code / 15.0
