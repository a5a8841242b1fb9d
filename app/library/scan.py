"""Scanning a replay folder incrementally: only new or changed files are read, the rest comes from the cache.

The cache (:class:`app.library.tables.LibraryFileRow`) keys each file by path and remembers its size and
modification time; a rescan of an unchanged folder therefore costs one directory listing and one query. Files
that left the folder leave the cache too. Everything here blocks: the GUI calls it from a worker thread.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import delete, insert, select

from app.library.headers import HeaderSummary, PlayerSummary, read_summary
from app.library.tables import LibraryFileRow
from app.replay.files import is_replay_name
from app.store import Database

WRITE_BATCH = 500
"""Parsed files written to the cache per transaction (keeps each write short)."""

Progress = Callable[[int, int], None]
"""``progress(done, total)`` while new or changed files are read."""


@dataclass(frozen=True)
class ScanResult:
    """A folder's replays after a scan, and what the scan had to do."""

    summaries: list[HeaderSummary]
    parsed: int
    removed: int


def list_folder(folder: Path) -> dict[str, tuple[int, int]]:
    """``path → (size, mtime_ns)`` of the regular replay files directly in ``folder``."""
    out: dict[str, tuple[int, int]] = {}
    with os.scandir(folder) as it:
        for entry in it:
            if not is_replay_name(entry.name):
                continue
            try:
                if not entry.is_file():
                    continue
                st = entry.stat()
            except OSError:
                continue
            out[entry.path] = (st.st_size, st.st_mtime_ns)
    return out


def scan_folder(db: Database, folder: Path, progress: Progress | None = None, *, unchanged: bool = True) -> ScanResult:
    """The replays of ``folder``: cached summaries of unchanged files, fresh ones of new or changed files.

    With ``unchanged=False`` a scan that finds nothing new, changed or removed returns no summaries at all
    (the caller shows them already): a rescan of an unchanged folder then reads only sizes and times.
    """
    key = str(folder)
    present = list_folder(folder)
    with db.read() as s:
        cached = {
            path: (size, mtime)
            for path, size, mtime in s.execute(
                select(LibraryFileRow.path, LibraryFileRow.size, LibraryFileRow.mtime_ns).where(
                    LibraryFileRow.folder == key
                )
            )
        }
    todo = [(path, size, mtime) for path, (size, mtime) in present.items() if cached.get(path) != (size, mtime)]
    gone = [p for p in cached if p not in present]
    if not unchanged and not todo and not gone:
        return ScanResult([], parsed=0, removed=0)
    out: list[HeaderSummary] = []
    if len(todo) < len(present):
        with db.read() as s:
            for path, size, mtime, summary in s.execute(
                select(LibraryFileRow.path, LibraryFileRow.size, LibraryFileRow.mtime_ns, LibraryFileRow.summary).where(
                    LibraryFileRow.folder == key
                )
            ):
                if present.get(path) == (size, mtime):
                    out.append(summary_from_json(path, size, mtime, summary))
    fresh: list[HeaderSummary] = []
    for i, (path, size, mtime) in enumerate(todo, 1):
        fresh.append(read_summary(Path(path), size, mtime))
        if len(fresh) % WRITE_BATCH == 0:
            _store(db, key, fresh[-WRITE_BATCH:], cached)
        if progress is not None and (i % 50 == 0 or i == len(todo)):
            progress(i, len(todo))
    _store(db, key, fresh[len(fresh) - len(fresh) % WRITE_BATCH :], cached)
    if gone:
        with db.session() as s:
            for start in range(0, len(gone), WRITE_BATCH):
                s.execute(delete(LibraryFileRow).where(LibraryFileRow.path.in_(gone[start : start + WRITE_BATCH])))
    return ScanResult(out + fresh, parsed=len(fresh), removed=len(gone))


def _store(db: Database, folder: str, summaries: Iterable[HeaderSummary], cached: dict[str, tuple[int, int]]) -> None:
    """Write fresh summaries (replacing the stale rows of changed files) in one short transaction."""
    rows = [
        {"path": h.path, "folder": folder, "size": h.size, "mtime_ns": h.mtime_ns, "summary": summary_to_json(h)}
        for h in summaries
    ]
    if not rows:
        return
    stale = [r["path"] for r in rows if r["path"] in cached]
    with db.session() as s:
        if stale:
            s.execute(delete(LibraryFileRow).where(LibraryFileRow.path.in_(stale)))
        s.execute(insert(LibraryFileRow), rows)


def summary_to_json(h: HeaderSummary) -> dict[str, Any]:
    """The cached part of a summary (path, size and mtime are columns of their own)."""
    return {
        "map_name": h.map_name,
        "mod": h.mod,
        "game": h.game,
        "played_at": h.played_at,
        "duration": h.duration,
        "players": [[p.name, p.faction, p.team, p.color, p.observer] for p in h.players],
        "truncated": h.truncated,
        "error": h.error,
    }


def summary_from_json(path: str, size: int, mtime_ns: int, d: dict[str, Any]) -> HeaderSummary:
    """A cached summary back as a value (the inverse of :func:`summary_to_json`)."""
    return HeaderSummary(
        path,
        size,
        mtime_ns,
        map_name=str(d.get("map_name", "")),
        mod=str(d.get("mod", "")),
        game=str(d.get("game", "")),
        played_at=d.get("played_at"),
        duration=float(d.get("duration", 0.0)),
        players=tuple(PlayerSummary(str(n), str(f), int(t), int(c), bool(o)) for n, f, t, c, o in d.get("players", [])),
        truncated=bool(d.get("truncated", False)),
        error=str(d.get("error", "")),
    )
