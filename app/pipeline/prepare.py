"""Everything an analysis needs from the replay before the first request: facts, log, summary and plan.

CPU-bound and synchronous: the GUI runs it in a worker thread, the CLI directly.
"""

from __future__ import annotations

import hashlib
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


def prepare_replay(
    path: str | Path,
    profile: ModelProfile,
    lang: Lang,
    *,
    calibration: Calibration | None = None,
    extra_system: str | Callable[[Replay], str] = "",
    user_knowledge: str | Path | None = None,
) -> PreparedReplay:
    """Parse, index, log, summarise and plan one replay for one model.

    ``extra_system`` is appended to the system prompt (a function of the parsed replay, e.g. memory facts about
    its players), so the file is read once.

    Raises:
        ReplayFormatError: The file is not a readable replay.
        BudgetError: The replay does not fit the model.
    """
    from app.replay import parse_replay
    from app.replay.reader import read_replay_bytes

    p = Path(path)
    data = read_replay_bytes(p)
    replay = parse_replay(data, str(p))
    if not replay.commands:
        raise ReplayFormatError(str(p), replay.header.chunk_offset, "the replay holds no commands to analyse")
    index = build_fact_index(replay)
    extra = extra_system(replay) if callable(extra_system) else extra_system
    size = profile.spec.prompt
    system = build_system_prompt(replay, lang, extra=extra, user_knowledge=user_knowledge, size=size)
    planned = plan_for_index(index, profile, lang=lang, system_text=system, calibration=calibration)
    sha = hashlib.sha256(data).hexdigest()
    types = slice_knowledge(replay, lang, user_knowledge) if size.per_slice_knowledge else None
    return PreparedReplay(p, sha, replay, index, planned.log, planned.summary, system, planned.plan, types)
