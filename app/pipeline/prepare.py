"""Everything an analysis needs from the replay before the first request: facts, log, summary and plan.

CPU-bound and synchronous: the GUI runs it in a worker thread, the CLI directly.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.budget.calibration import Calibration
from app.budget.from_replay import plan_for_index
from app.budget.plan import RunPlan
from app.budget.profile import ModelProfile
from app.facts import CompactLog, ReplayFactIndex, build_fact_index
from app.i18n import Lang
from app.pipeline.system_prompt import build_system_prompt, slice_knowledge
from app.replay import Replay, ReplayFormatError


@dataclass(slots=True)
class PreparedReplay:
    """A replay ready to analyse.

    Attributes:
        path: The replay file.
        sha256: Hash of its bytes (identifies stored analyses of the same file).
        replay: The parsed replay.
        index: Its fact index.
        log: The level-1 compact log (lookbacks are cut from it).
        summary: The deterministic match summary, with the planned segments.
        system: The system prompt (role, workflow, claims format, game knowledge).
        plan: Segments, windows and the planned requests.
        slice_knowledge: Knowledge entry lines of the types a slice names (used below 200K, where they go next to
            the slice instead of into the system prompt); None for mods without knowledge.
    """

    path: Path
    sha256: str
    replay: Replay
    index: ReplayFactIndex
    log: CompactLog
    summary: str
    system: str
    plan: RunPlan
    slice_knowledge: Callable[[str], list[str]] | None = None


def file_sha256(path: Path) -> str:
    """SHA-256 of a file, read in blocks."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class _ParsedCache:
    """The bytes' hash, the parsed replay and its fact index of the last file read with ``reuse=True``.

    The settings page and the main window replan the open replay on every edit of a model's numbers: the file is
    parsed and indexed once per (path, mtime, size), the prompt and the plan are rebuilt every time.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._key: tuple[str, int, int] | None = None
        self._value: tuple[str, Replay, ReplayFactIndex] | None = None

    def get(self, path: Path) -> tuple[str, Replay, ReplayFactIndex] | None:
        st = path.stat()
        key = (str(path.resolve()), st.st_mtime_ns, st.st_size)
        with self._lock:
            return self._value if self._key == key else None

    def put(self, path: Path, value: tuple[str, Replay, ReplayFactIndex]) -> None:
        st = path.stat()
        with self._lock:
            self._key, self._value = (str(path.resolve()), st.st_mtime_ns, st.st_size), value


_PARSED = _ParsedCache()


def _parse(p: Path, reuse: bool) -> tuple[str, Replay, ReplayFactIndex]:
    from app.replay import parse_replay
    from app.replay.reader import read_replay_bytes

    cached = _PARSED.get(p) if reuse else None
    if cached is not None:
        return cached
    data = read_replay_bytes(p)
    replay = parse_replay(data, str(p))
    if not replay.commands:
        raise ReplayFormatError(str(p), replay.header.chunk_offset, "the replay holds no commands to analyse")
    value = (hashlib.sha256(data).hexdigest(), replay, build_fact_index(replay))
    if reuse:
        _PARSED.put(p, value)
    return value


def prepare_replay(
    path: str | Path,
    profile: ModelProfile,
    lang: Lang,
    *,
    calibration: Calibration | None = None,
    extra_system: str | Callable[[Replay], str] = "",
    user_knowledge: str | Path | None = None,
    reuse: bool = False,
) -> PreparedReplay:
    """Parse, index, log, summarise and plan one replay for one model.

    This is the one place a run's plan is made: an analysis, ``replaysage plan``, the settings page's budget
    preview and the main window's expected run all plan through it (:mod:`app.pipeline.planning`), so the
    segments a user is shown are the segments the run sends. The system prompt is the run's own (its size decides
    every slice's room), never a reference size.

    ``extra_system`` is appended to the system prompt (a function of the parsed replay, e.g. memory facts about
    its players), so the file is read once. ``reuse`` keeps the parsed file for the next call on the same file
    (previews that replan on every edit).

    Raises:
        ReplayFormatError: The file is not a readable replay.
        BudgetError: The replay does not fit the model.
    """
    p = Path(path)
    sha, replay, index = _parse(p, reuse)
    extra = extra_system(replay) if callable(extra_system) else extra_system
    size = profile.spec.prompt
    system = build_system_prompt(replay, lang, extra=extra, user_knowledge=user_knowledge, size=size)
    planned = plan_for_index(index, profile, lang=lang, system_text=system, calibration=calibration)
    types = slice_knowledge(replay, lang, user_knowledge) if size.per_slice_knowledge else None
    return PreparedReplay(p, sha, replay, index, planned.log, planned.summary, system, planned.plan, types)
