"""Replay reading and writing (RA3, Kane's Wrath, Tiberium Wars).

Main entry points: :func:`read_replay` / :func:`parse_replay` (model in :mod:`app.replay.model`),
:func:`app.replay.commands.command_info` (names, categories, automatic flag), :mod:`app.replay.names`
(type-hash names), :func:`app.replay.stats.player_stats`, :mod:`app.replay.writer` (round trip, repair).
"""

from app.replay.commands import Category, CommandInfo, command_info
from app.replay.errors import ReplayFormatError
from app.replay.model import (
    ArgKind,
    Camera,
    Chunk,
    Command,
    Footer,
    Game,
    Header,
    Replay,
    Slot,
    SlotKind,
    StringArg,
)
from app.replay.reader import parse_replay, read_replay

__all__ = [
    "ArgKind",
    "Camera",
    "Category",
    "Chunk",
    "Command",
    "CommandInfo",
    "Footer",
    "Game",
    "Header",
    "Replay",
    "ReplayFormatError",
    "Slot",
    "SlotKind",
    "StringArg",
    "command_info",
    "parse_replay",
    "read_replay",
]
