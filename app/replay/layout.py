"""What the replay format fixes: magics, limits, argument type codes, seats and header faction ids (notes §2–§5)."""

from __future__ import annotations

import struct

from app.mods import HeaderFactionTables
from app.replay.model import (
    ArgKind,
    Game,
)

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
