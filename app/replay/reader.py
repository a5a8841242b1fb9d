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

This module opens files and parses them; the parts each answer one question and their names stay importable
from here: :mod:`app.replay.layout` (the format's constants and tables), :mod:`app.replay.header` (the header),
:mod:`app.replay.chunks` (the chunk walk, the footer, cut and damaged files) and :mod:`app.replay.splitter`
(command chunks into commands).
"""

from __future__ import annotations

import contextlib
import gc
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from app.errors import KnownError
from app.replay.chunks import (
    _walk_chunks,
)
from app.replay.errors import ReplayFormatError
from app.replay.header import (
    _NO_MAGIC,
    command_player_map,
    parse_header,
    parse_settings,
    parse_slots,
)
from app.replay.layout import (
    AI_DIFFICULTY,
    CNC3_ARG_TYPES,
    CNC3_FOOTER,
    CNC3_MAGIC,
    COMMENTATOR_FACTION,
    FACTIONS,
    FIRST_TIME_CODE,
    KW_MAGIC_HASH,
    MAGICS,
    MAX_DURATION_TIME_CODE,
    MAX_FOOTER_LENGTH,
    MAX_HEADER_STRING,
    MAX_REPLAY_MB_ENV,
    MAX_TIME_CODE_GAP,
    MIN_COMMAND_BYTES,
    MOD_BLOCK_SIZE,
    OBSERVER_FACTION,
    PLAYER_FIELD_BASE,
    RA3_ARG_TYPES,
    RA3_FOOTER,
    RA3_MAGIC,
    REPL_MAGIC,
    SEAT_NAMES_ZH,
    SEATS,
    TERMINATOR,
    TW_MAGIC_HASH,
    WRITE_BLOCK,
)
from app.replay.model import (
    Replay,
)
from app.replay.splitter import (
    MAX_COMMAND_ARGS,
    MAX_FAST_GROUPS,
)

__all__ = [
    "AI_DIFFICULTY",
    "CNC3_ARG_TYPES",
    "CNC3_FOOTER",
    "CNC3_MAGIC",
    "COMMENTATOR_FACTION",
    "FACTIONS",
    "FIRST_TIME_CODE",
    "KW_MAGIC_HASH",
    "MAGICS",
    "MAX_COMMAND_ARGS",
    "MAX_DURATION_TIME_CODE",
    "MAX_FAST_GROUPS",
    "MAX_FOOTER_LENGTH",
    "MAX_HEADER_STRING",
    "MAX_REPLAY_MB_ENV",
    "MAX_TIME_CODE_GAP",
    "MIN_COMMAND_BYTES",
    "MOD_BLOCK_SIZE",
    "OBSERVER_FACTION",
    "PLAYER_FIELD_BASE",
    "RA3_ARG_TYPES",
    "RA3_FOOTER",
    "RA3_MAGIC",
    "REPL_MAGIC",
    "SEATS",
    "SEAT_NAMES_ZH",
    "TERMINATOR",
    "TW_MAGIC_HASH",
    "WRITE_BLOCK",
    "command_player_map",
    "max_replay_bytes",
    "parse_header",
    "parse_replay",
    "parse_settings",
    "parse_slots",
    "read_replay",
    "read_replay_bytes",
]


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


def parse_replay(data: bytes, path: str = "<bytes>") -> Replay:
    """Parse replay bytes (see :func:`read_replay`).

    The commands are kept as a :class:`app.replay.model.CommandList` (offsets and columns over ``data``, decoded on
    access), so the parse allocates little per command; the garbage collector still pauses meanwhile, as the
    decoders, strings and long commands it checks are small acyclic objects a collection would only re-scan.
    """
    with gc_paused():
        header = parse_header(data, path)
        replay = Replay(path=path, header=header, footer=None, file_size=len(data))
        _walk_chunks(data, replay)
    return replay


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many small, acyclic, long-lived objects.

    In the GUI's worker thread this matters twice: the collections the allocations trigger would only re-scan them,
    and a full (generation 2) one holds the GIL for 50–100 ms in one go (the heap of a window with its side tabs
    filled), a stall of the event loop that no switch interval can shorten (issue 34: a profile's fact indexes).
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
