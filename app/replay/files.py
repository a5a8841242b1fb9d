"""Which files are replays: the names the games and tools give them, and the header magic that decides.

``analyze`` and ``inspect`` read any file whose header starts with a replay magic, whatever its name. Folder scans
(``batch``, the library) must find the same files: they take every file with a replay name (so a damaged or empty
one is reported, not passed over) and every other file whose header is a replay's (so a ``.kwr`` or a renamed
replay is not skipped without a word).
"""

from __future__ import annotations

from pathlib import Path

from app.replay.reader import MAGICS

REPLAY_SUFFIX_NAMES = (".RA3Replay", ".KWReplay", ".CNC3Replay", ".kwr")
"""Replay file suffixes as the games and tools write them: RA3, Kane's Wrath, Tiberium Wars, and the short ``.kwr``
that Kane's Wrath replay sites and tools use. The one list: the CLI, ``batch``, the library and the window use it."""
REPLAY_SUFFIXES = tuple(s.lower() for s in REPLAY_SUFFIX_NAMES)
""":data:`REPLAY_SUFFIX_NAMES` in lower case (names are compared in lower case)."""
_HEAD = max(len(m) for m in MAGICS)


def is_replay_name(name: str) -> bool:
    """True for a file name with a replay suffix."""
    return name.lower().endswith(REPLAY_SUFFIXES)


def has_replay_magic(path: Path) -> bool:
    """True when the file starts with a replay header magic (False when it cannot be read)."""
    try:
        with path.open("rb") as f:
            head = f.read(_HEAD)
    except OSError:
        return False
    return any(head.startswith(m) for m in MAGICS)


def is_replay_file(path: Path) -> bool:
    """A regular file a folder scan takes: a replay name, or a replay header under any name."""
    return path.is_file() and (is_replay_name(path.name) or has_replay_magic(path))


def not_a_replay(path: Path) -> str | None:
    """Why a file with a replay name cannot be one (empty, or no header magic); None when its header is a replay's."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        return f"cannot read the file: {exc.strerror or exc}"
    if size == 0:
        return "empty file (0 bytes); 空文件"
    if not has_replay_magic(path):
        return "not a SAGE replay (no 'RA3 REPLAY HEADER' or 'C&C3 REPLAY HEADER' magic); 不是录像文件"
    return None
