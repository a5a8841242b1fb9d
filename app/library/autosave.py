"""Every game kept: the game's last-replay file copied under a name that says what it is, before the next match.

RA3, Kane's Wrath and Tiberium Wars write every match to one file in the replay folder and overwrite it at the
next match. Its name is localised, and the game records it in the replay's own header (format notes §1.1, item
19): ``Last Replay`` (English), ``最新录像`` (Simplified Chinese RA3), ``최종 리플레이`` (Korean KW),
``Последний ролик`` (Russian RA3), as the corpus shows. So a file is the game's last replay when its name is one
of those, or when its name is the one its header records (a language not listed here). Only the newest few
files are read to find the latter: the game has just written it.

A copy is made once the file is complete and quiet: the same size and time for ``settle_s`` seconds across two
looks, the bytes read equal to what the file held before and after the read, a header that parses and an intact
footer. A file without its footer is a match still being written, unless nothing touched it for
``abandoned_s`` seconds: then the game crashed, and the truncated replay is kept too (``replaysage repair``
makes it playable). The copy is those same bytes, written to a temporary name and renamed, and read back to
check its SHA-256. A replay whose bytes are already in the target (or source) folder is a duplicate: nothing is
written. Blocking file I/O throughout: the GUI polls from a worker thread.
"""

from __future__ import annotations

import hashlib
import os
import re
import string
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from app.errors import KnownError
from app.library.headers import HEAD_BYTES, final_time_code
from app.replay.files import is_replay_name
from app.replay.model import Header
from app.replay.reader import MAX_FOOTER_LENGTH, parse_header, read_replay_bytes
from app.settings import DEFAULT_AUTOSAVE_PATTERN

KNOWN_LAST_REPLAY_NAMES = ("Last Replay", "最新录像", "최종 리플레이", "Последний ролик")
"""Last-replay file names (without extension) recorded in the corpus replays' headers."""
NEWEST_CHECKED = 3
"""Files (newest first) whose header is read to learn a last-replay name not listed above."""
PATTERN_FIELDS = ("date", "lineup", "players", "factions", "map", "game", "mod", "duration")
"""Fields of the name pattern: ``{date}`` ``2026-12-03 0915`` (the recorder's local time), ``{lineup}``
``Kirov (Soviets) vs Rival (Allies)``, ``{players}`` ``Kirov vs Rival``, ``{factions}`` ``Soviets vs Allies``,
``{map}``, ``{game}`` (RA3, KW, TW), ``{mod}``, ``{duration}`` (``14m``)."""
MAX_NAME = 150
"""Characters of a kept file's name before its extension (Windows paths stay under 260 characters)."""
_FORBIDDEN = re.compile(r'[<>:"/\\|?*\x00-\x1f\x7f]')
_RESERVED = re.compile(r"^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$", re.IGNORECASE)

Signature = tuple[int, int]
"""A file's (size, modification time in ns)."""


class AutosaveError(KnownError):
    """The autosave cannot run as configured (a bad pattern, a folder that is not there)."""


@dataclass(frozen=True, slots=True)
class Kept:
    """What one look at a last-replay file did.

    Attributes:
        source: the game's last-replay file.
        status: ``copied``, ``duplicate`` (its bytes are already kept), ``waiting`` (being written, or not quiet
            for long enough yet), ``unreadable`` (not a replay the reader accepts) or ``failed`` (the copy could
            not be written; tried again at the next look).
        target: the copy, or the file that already holds the same bytes.
        detail: why it waits or cannot be read.
        complete: the replay has its footer (False: a crashed game's truncated replay).
    """

    source: Path
    status: str
    target: Path | None = None
    detail: str = ""
    complete: bool = True


def check_pattern(pattern: str) -> str:
    """``pattern`` when every field it names is known; otherwise an :class:`AutosaveError` naming the field."""
    try:
        fields = [f for _, f, spec, conv in string.Formatter().parse(pattern) if f is not None or spec or conv]
    except ValueError as exc:
        raise AutosaveError(f"autosave pattern {pattern!r}: {exc}") from None
    for name in fields:
        if name not in PATTERN_FIELDS:
            known = ", ".join(f"{{{f}}}" for f in PATTERN_FIELDS)
            raise AutosaveError(f"autosave pattern {pattern!r}: unknown field {{{name}}}; known fields: {known}")
    if not fields and not pattern.strip():
        raise AutosaveError("autosave pattern is empty")
    return pattern


def _teams(header: Header) -> list[list[tuple[str, str]]]:
    """The playing slots as teams of (name, faction); a slot without a team is a team of its own."""
    placeholder = header.post_commentator_slot
    teams: dict[int, list[tuple[str, str]]] = {}
    alone: list[list[tuple[str, str]]] = []
    for slot in header.slots:
        if not slot.is_player or slot.index == placeholder:
            continue
        person = (slot.display_name, slot.faction or "?")
        if slot.team < 0:
            alone.append([person])
        else:
            teams.setdefault(slot.team, []).append(person)
    return [*teams.values(), *alone]


def name_fields(header: Header, duration_s: float) -> dict[str, str]:
    """The values of :data:`PATTERN_FIELDS` for a replay."""
    year, month, _weekday, day, hour, minute, _s, _ms = header.local_time_fields
    teams = _teams(header)

    def join(show: Callable[[str, str], str]) -> str:
        return " vs ".join(" & ".join(show(n, f) for n, f in team) for team in teams)

    return {
        "date": f"{year:04d}-{month:02d}-{day:02d} {hour:02d}{minute:02d}",
        "lineup": join(lambda n, f: f"{n} ({f})"),
        "players": join(lambda n, _f: n),
        "factions": join(lambda _n, f: f),
        "map": header.map_name,
        "game": header.game.name,
        "mod": header.mod_name,
        "duration": f"{round(duration_s / 60)}m",
    }


def safe_file_name(text: str) -> str:
    """``text`` as a file name every system accepts: no reserved characters or names, no trailing dot or space."""
    name = " ".join(_FORBIDDEN.sub("_", text).split())[:MAX_NAME].rstrip(" .")
    if not name:
        return "replay"
    return f"_{name}" if _RESERVED.match(name) else name


def render_name(pattern: str, header: Header, duration_s: float, *, complete: bool = True) -> str:
    """The kept file's name (without extension) from ``pattern``."""
    name = check_pattern(pattern).format(**name_fields(header, duration_s))
    return safe_file_name(name if complete else f"{name} (incomplete)")


def _signature(path: Path) -> Signature | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def _mtime_ns(entry: os.DirEntry[str]) -> int:
    try:
        return entry.stat().st_mtime_ns
    except OSError:  # gone meanwhile
        return 0


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class AutoSaver:
    """Watches replay folders (by polling: no extra dependency) and keeps each last replay once.

    Not thread-safe: one thread polls it at a time.

    Args:
        folders: the replay folders to watch.
        target: where copies go (None: beside the last replay).
        pattern: the name pattern (:data:`PATTERN_FIELDS`).
        settle_s: how long a file must stay unchanged before it is copied.
        abandoned_s: how long a file without a footer must stay unchanged to be a crashed game's.
        clock: wall-clock seconds (tests pass their own).
    """

    def __init__(
        self,
        folders: Iterable[Path],
        *,
        target: Path | None = None,
        pattern: str = DEFAULT_AUTOSAVE_PATTERN,
        settle_s: float = 2.0,
        abandoned_s: float = 600.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.folders = list(dict.fromkeys(folders))
        self.target = target
        self.pattern = check_pattern(pattern)
        self.settle_s = settle_s
        self.abandoned_s = abandoned_s
        self.clock = clock
        self._seen: dict[Path, tuple[Signature, float]] = {}  # signature and when it was first seen
        self._done: dict[Path, Signature] = {}  # handled (copied or found kept) with this signature
        self._names: dict[Path, tuple[Signature, str]] = {}  # a file's header file name, by signature
        self._hashes: dict[Path, tuple[Signature, str]] = {}

    def last_replay_files(self, folder: Path) -> list[Path]:
        """The game's last-replay files in ``folder`` (one per game and language at most)."""
        try:
            entries = [e for e in os.scandir(folder) if is_replay_name(e.name) and e.is_file()]
        except OSError:
            return []
        known = {n.casefold() for n in KNOWN_LAST_REPLAY_NAMES}
        found = [Path(e.path) for e in entries if Path(e.name).stem.casefold() in known]
        others = sorted((e for e in entries if Path(e.path) not in found), key=lambda e: -_mtime_ns(e))
        for entry in others[:NEWEST_CHECKED]:
            path = Path(entry.path)
            if self._recorded_name(path).casefold() == path.stem.casefold():
                found.append(path)
        return found

    def _recorded_name(self, path: Path) -> str:
        """The last-replay name ``path``'s header records ("" when it cannot be read)."""
        sig = _signature(path)
        cached = self._names.get(path)
        if sig is None:
            return ""
        if cached is not None and cached[0] == sig:
            return cached[1]
        try:
            with open(path, "rb") as f:
                name = parse_header(f.read(HEAD_BYTES), str(path)).file_name
        except (OSError, KnownError):
            name = ""
        self._names[path] = (sig, name)
        return name

    def poll(self) -> list[Kept]:
        """Look at every watched folder once; copy what is complete and quiet. Returns what each file did."""
        now = self.clock()
        out: list[Kept] = []
        for folder in self.folders:
            for path in self.last_replay_files(folder):
                sig = _signature(path)
                if sig is None or sig[0] == 0 or self._done.get(path) == sig:
                    continue
                first = self._seen.get(path)
                if first is None or first[0] != sig:
                    self._seen[path] = (sig, now)
                    out.append(Kept(path, "waiting", detail="changed since the last look"))
                elif now - first[1] < self.settle_s:
                    out.append(Kept(path, "waiting", detail="not quiet for long enough yet"))
                else:
                    try:
                        out.append(self._keep(path, sig, now))
                    except OSError as exc:  # the copy could not be written (disk full, no permission)
                        out.append(Kept(path, "failed", detail=f"{exc.strerror or exc}: {exc.filename or ''}"))
        return out

    def _keep(self, path: Path, sig: Signature, now: float) -> Kept:
        try:
            data = read_replay_bytes(path)
        except KnownError as exc:
            self._done[path] = sig  # read again only once it changes
            return Kept(path, "unreadable", detail=str(exc))
        if _signature(path) != sig or len(data) != sig[0]:
            self._seen.pop(path, None)
            return Kept(path, "waiting", detail="written to while it was read")
        try:
            header = parse_header(data[:HEAD_BYTES] if len(data) > HEAD_BYTES else data, str(path))
        except KnownError:
            try:
                header = parse_header(data, str(path))
            except KnownError as exc:
                self._done[path] = sig
                return Kept(path, "unreadable", detail=str(exc))
        tail = data[-(MAX_FOOTER_LENGTH + 8) :]
        final = final_time_code(tail, header.game, header.chunk_offset, len(data))
        complete = final is not None
        if not complete and now - sig[1] / 1e9 < self.abandoned_s:
            return Kept(path, "waiting", detail="no footer yet: the match is still being written", complete=False)
        digest = hashlib.sha256(data).hexdigest()
        folder = self.target or path.parent
        same = self._same_bytes(len(data), digest, [folder, path.parent], exclude=path)
        if same is not None:
            self._done[path] = sig
            return Kept(path, "duplicate", same, complete=complete)
        duration = final / 15.0 if final is not None else 0.0
        name = render_name(self.pattern, header, duration, complete=complete)
        target = self._write(folder, name, path.suffix, data, digest)
        try:  # the copy looks like the game's file: its permissions and its time
            os.chmod(target, path.stat().st_mode & 0o777)
            os.utime(target, ns=(sig[1], sig[1]))
        except OSError:
            pass
        self._done[path] = sig
        return Kept(path, "copied", target, complete=complete)

    def _same_bytes(self, size: int, digest: str, folders: Sequence[Path], exclude: Path) -> Path | None:
        """A replay file in ``folders`` holding exactly these bytes (only files of the same size are hashed)."""
        for folder in dict.fromkeys(folders):
            try:
                entries = [e for e in os.scandir(folder) if is_replay_name(e.name) and e.is_file()]
            except OSError:
                continue
            for entry in entries:
                path = Path(entry.path)
                sig = _signature(path)
                if path == exclude or sig is None or sig[0] != size:
                    continue
                cached = self._hashes.get(path)
                if cached is None or cached[0] != sig:
                    try:
                        cached = (sig, _sha256(path))
                    except OSError:
                        continue
                    self._hashes[path] = cached
                if cached[1] == digest:
                    return path
        return None

    @staticmethod
    def _write(folder: Path, name: str, suffix: str, data: bytes, digest: str) -> Path:
        """Write ``data`` as a new file ``name`` (numbered when taken), atomically, and check it reads back."""
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".replaysage-", suffix=".part", dir=folder)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            for n in range(1, 1000):
                target = folder / (f"{name}{suffix}" if n == 1 else f"{name} ({n}){suffix}")
                if not target.exists():
                    break
            else:
                raise AutosaveError(f"{folder}: no free file name for {name}{suffix}")
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        if _sha256(target) != digest:
            target.unlink(missing_ok=True)
            raise AutosaveError(f"{target}: the copy does not read back as written; nothing was kept")
        return target
