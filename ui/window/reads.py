"""What the main window reads in worker threads: an opened replay with its stored analyses, one stored analysis.

Plain data out, no Qt (CONTRIBUTING "Threads and Qt objects"): the GUI side makes the widgets. The pipeline
modules are imported inside the functions, on the one import thread (:func:`ui.imports.imported`).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from app.errors import KnownError
from app.i18n import Lang
from ui.imports import imported
from ui.replay_info import ReplayInfo, load_info
from ui.services import Database

if TYPE_CHECKING:
    from app.pipeline.records import AnalysisRecord

log = logging.getLogger(__name__)


def is_sample(path: Path) -> bool:
    """Whether ``path`` is the bundled sample replay (the window opens it at start when no file is given)."""
    from app.paths import sample_replay

    try:
        return path.resolve() == sample_replay().resolve()
    except OSError:
        return False


def analyses_of(db: Database, path: Path) -> list[AnalysisRecord]:
    """The stored analyses of a replay, newest first.

    The pipeline modules are imported here, in the worker thread: imported on the GUI thread they froze the
    window for 80 ms when the first replay opened.
    """
    imported("app.pipeline.service")  # on the one import thread, never beside another first import
    from app.pipeline.service import analyses_of as stored

    records: list[AnalysisRecord] = stored(db, path)
    return records


def resume_target(db: Database, path: Path, profile: str, lang: Lang) -> tuple[str, int | None]:
    """What a resume finds (worker thread; :func:`app.pipeline.service.resume_target`)."""
    imported("app.pipeline.service")
    from app.pipeline.service import resume_target as target

    return target(db, path, profile, lang)


def load_analysis(db: Database, analysis_id: int) -> AnalysisRecord:
    """One stored analysis (imports on the import thread, as :func:`analyses_of`)."""
    imported("app.pipeline.repository")
    from app.pipeline.repository import AnalysisRepository

    return AnalysisRepository(db).load(analysis_id)


@dataclass(frozen=True)
class OpenedReplay:
    """Everything opening a replay shows, loaded together in one worker thread so it lands (or is dropped) whole.

    Attributes:
        info: the parsed header, players and statistics.
        records: its stored analyses, newest first.
        latest: the newest of them with its stages loaded, shown as it was left (None when there is none).
        problem: why the stored analyses could not be read (the replay itself still opens).
    """

    info: ReplayInfo
    records: list[AnalysisRecord]
    latest: AnalysisRecord | None
    problem: str = ""


def open_replay(db: Database, path: Path) -> OpenedReplay:
    """Parse ``path`` and read its stored analyses (runs in a worker thread)."""
    from sqlalchemy.exc import SQLAlchemyError

    from app.library.opened import remember_opened

    info = load_info(path)
    if info.error:
        raise KnownError(info.error)
    try:
        remember_opened(db, path)  # the library lists it at the next start, with or without a replay folder
    except SQLAlchemyError as exc:  # a busy or read-only store must not keep the replay from opening
        log.warning("could not remember %s: %s", path, exc)
    try:
        records = analyses_of(db, path)
        latest = load_analysis(db, records[0].id) if records else None
    except KnownError as exc:
        return OpenedReplay(info, [], None, str(exc))
    return OpenedReplay(info, records, latest)


@dataclass(frozen=True)
class ReplayHistory:
    """The stored analyses of one replay, for refreshing its history picker."""

    path: Path
    records: list[AnalysisRecord]


def started(request: asyncio.Future[None] | None) -> asyncio.Future[None]:
    """A loader request's future: the window lives on the qasync loop, so the loader always has one to run on."""
    if request is None:
        raise RuntimeError("the main window needs a running asyncio loop")
    return request
