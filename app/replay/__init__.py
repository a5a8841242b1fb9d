"""Replay reading and writing."""

from app.replay.errors import ReplayFormatError
from app.replay.model import ArgKind, Chunk, Command, Footer, Game, Header, Replay, Slot, SlotKind
from app.replay.reader import parse_replay, read_replay

__all__ = [
    "ArgKind", "Chunk", "Command", "Footer", "Game", "Header", "Replay", "ReplayFormatError", "Slot", "SlotKind",
    "parse_replay", "read_replay",
]
