"""Batch analysis: every replay of some folders, in worker processes, resumable (issue 19).

Each replay runs through :func:`app.pipeline.worker.run_with_settings`, the same path as the GUI, so retries are
decided by the provider client, the store is written by the repositories, and a provider's configured rate is
shared by every worker through the store's ledger (:mod:`app.pipeline.rates`).

Resuming is the store's: every finished stage is stored as it ends, so after Ctrl+C (or a crash) a rerun skips the
replays already analysed with the same model and language, and resumes the unfinished analyses where they
stopped. On Ctrl+C the workers are told to stop; each cancels its run, which marks the analysis resumable.

Two batches over one folder share the work: a worker takes the replay's lease (:mod:`app.pipeline.leases`) before
it starts and looks again, under the lease, whether the replay is done by now; a replay another process is
analysing is left to it (``busy``). Replays are found as ``analyze`` reads them (:mod:`app.replay.files`): by name
or by header, so a ``.kwr`` is analysed and an empty ``.RA3Replay`` is an error, never a duplicate of another
empty file. A truncated replay is analysed for what it holds and says so (``truncated``). ``--out`` writes a
report for every analysed replay, those analysed before included.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.errors import KnownError
from app.i18n import tr

if TYPE_CHECKING:
    from multiprocessing.synchronize import Event

    from app.pipeline.records import AnalysisRecord
    from app.pipeline.repository import AnalysisRepository
    from app.settings import Settings
    from app.store.db import Database

log = logging.getLogger(__name__)

COMPLETED = "completed"
TRUNCATED = "truncated"
SKIPPED = "skipped"
DUPLICATE = "duplicate"
BUSY = "busy"
INTERRUPTED = "interrupted"
ERROR = "error"
OK_STATUSES = (COMPLETED, TRUNCATED, SKIPPED, DUPLICATE)
"""Statuses that leave nothing to do; any other makes the batch's exit code 1."""

STOP_POLL_S = 0.2


def find_replays(paths: Iterable[str | Path]) -> list[Path]:
    """The replay files named, and those under the folders named (recursively, sorted), each once.

    Raises:
        KnownError: a path does not exist.
    """
    from app.replay.files import is_replay_file

    found: dict[Path, None] = {}
    for item in paths:
        p = Path(item)
        if p.is_dir():
            files = sorted(f for f in p.rglob("*") if is_replay_file(f))
            found.update(dict.fromkeys(files))
        elif p.is_file():
            found[p] = None
        else:
            raise KnownError(f"{p}: no such file or folder; 文件或文件夹不存在")
    return list(found)


@dataclass(frozen=True, slots=True)
class BatchJob:
    """One replay for a worker: what to analyse, with which settings, into which store.

    Attributes:
        path: the replay file.
        profile: the model profile name in ``settings``.
        settings: the settings as the command loaded them.
        db_path: the store (None: the default one).
        force: start a new analysis even when an unfinished one could be resumed.
        report: where to write the Markdown report (None: none).
        api_key: the provider's key (never written anywhere; masked in ``repr``).
        limits: deadlines put over the provider's limits (the command's flags), as ``(field, seconds)`` pairs.
    """

    path: str
    profile: str
    settings: Settings
    db_path: str | None
    force: bool = False
    report: str | None = None
    api_key: str | None = None
    limits: tuple[tuple[str, float], ...] = ()

    def __repr__(self) -> str:  # the key must never reach a log or a traceback
        return f"BatchJob(path={self.path!r}, profile={self.profile!r}, api_key={'***' if self.api_key else None})"


@dataclass(slots=True)
class ReplayResult:
    """How one replay went (the summary table's row; ``--json`` keys are stable).

    Attributes:
        path: the replay file.
        status: ``completed``, ``truncated`` (completed, but the replay file is cut off: analysed up to where it
            ends), ``partial`` (some stage unfinished: rerun to resume), ``cancelled``/``interrupted`` (stopped:
            rerun to resume), ``error`` (the replay could not be analysed), ``skipped`` (already analysed with
            these settings), ``duplicate`` (the same file as an earlier one in the batch) or ``busy`` (another
            process is analysing it now).
        analysis_id: the stored analysis, when there is one.
        stages: stages planned.
        stages_done: stages finished (or skipped by design).
        issues: validation issues found.
        prompt_tokens: prompt tokens of the run.
        completion_tokens: completion tokens of the run.
        cost: cost of the run in the profile's currency.
        seconds: wall time in the worker.
        message: the error, or what the status refers to.
        report: the report written for it (``--out``), if any.
    """

    path: str
    status: str
    analysis_id: int | None = None
    stages: int = 0
    stages_done: int = 0
    issues: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    seconds: float = 0.0
    message: str = ""
    report: str = ""

    @property
    def ok(self) -> bool:
        """Nothing is left to do for this replay."""
        return self.status in OK_STATUSES

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` form."""
        return asdict(self)


def summarise(path: str, rec: AnalysisRecord, *, with_stages: bool = True) -> ReplayResult:
    """The result row of a stored analysis (``with_stages`` False: a record loaded without its stages)."""
    from app.pipeline.repository import SETTLED

    totals = rec.totals or {}
    row = ReplayResult(
        path=path,
        status=rec.status,
        analysis_id=rec.id,
        prompt_tokens=int(totals.get("prompt_tokens", 0)),
        completion_tokens=int(totals.get("completion_tokens", 0)),
        cost=float(totals.get("cost", 0.0)),
        message=rec.message,
    )
    if with_stages:
        row.stages = len(rec.stages)
        row.stages_done = sum(1 for s in rec.stages if s.status in SETTLED)
        row.issues = sum(len(s.issues) for s in rec.stages)
    return row


@dataclass(slots=True)
class BatchPlan:
    """What a batch will do: the jobs to run and the replays it leaves alone (already done, or duplicates)."""

    jobs: list[BatchJob] = field(default_factory=list)
    settled: list[ReplayResult] = field(default_factory=list)

    @property
    def total(self) -> int:
        """Every replay of the batch."""
        return len(self.jobs) + len(self.settled)


def plan_batch(
    files: Sequence[Path],
    *,
    db: Database,
    settings: Settings,
    profile: str,
    force: bool = False,
    out_dir: Path | None = None,
    root: Path | None = None,
    api_key: str | None = None,
) -> BatchPlan:
    """Decide per replay: analyse (or resume), skip (done with this model and language), or duplicate.

    A replay is identified by its content (SHA-256), as the store does, so a copy under another name is the same
    replay. ``force`` analyses every file anew.
    """
    from app.pipeline.prepare import file_sha256
    from app.pipeline.repository import AnalysisRepository
    from app.replay.files import not_a_replay

    repo = AnalysisRepository(db)
    lang = settings.analysis_lang().value
    ui = settings.ui_lang()
    plan = BatchPlan()
    seen: dict[str, Path] = {}
    for path in files:
        problem = not_a_replay(path)  # before the content decides duplicates: two empty files are not one replay
        if problem is not None:
            plan.settled.append(ReplayResult(str(path), ERROR, message=problem))
            continue
        try:
            sha = file_sha256(path)
        except OSError as exc:
            text = tr(ui, "cannot read the file: {strerror}", strerror=exc.strerror)
            plan.settled.append(ReplayResult(str(path), ERROR, message=text))
            continue
        if not force and sha in seen:
            text = tr(ui, "same replay as {seen}", seen=seen[sha])
            plan.settled.append(ReplayResult(str(path), DUPLICATE, message=text))
            continue
        seen[sha] = path
        report = _report_path(path, out_dir, root)
        done = None if force else repo.finished(sha, profile, lang)
        if done is not None:
            plan.settled.append(_skipped(str(path), done.id, repo, report, settings))
            continue
        plan.jobs.append(BatchJob(str(path), profile, settings, _db_location(db), force, report, api_key))
    return plan


def _report_path(path: Path, out_dir: Path | None, root: Path | None) -> str | None:
    """Where ``--out`` puts the report of ``path`` (None without ``--out``)."""
    if out_dir is None:
        return None
    rel = path.relative_to(root) if root is not None and path.is_relative_to(root) else Path(path.name)
    return str((out_dir / rel).with_suffix(".md"))


def _skipped(
    path: str, analysis_id: int, repo: AnalysisRepository, report: str | None, settings: Settings
) -> ReplayResult:
    """The row of a replay analysed before; its report is written too when ``--out`` asks for reports."""
    ui = settings.ui_lang()
    rec = repo.load(analysis_id)
    row = summarise(path, rec)
    row.status = SKIPPED
    row.message = tr(ui, "analysed before as #{analysis_id}", analysis_id=analysis_id)
    if report is not None:
        _write(rec, report, settings)
        row.report = report
    return row


def _write(rec: AnalysisRecord, report: str, settings: Settings) -> None:
    from app.pipeline.report import write_report

    Path(report).parent.mkdir(parents=True, exist_ok=True)
    write_report(rec, Path(report), settings.analysis_lang())


def _db_location(db: Database) -> str | None:
    return str(db.path) if db.path is not None else None


# -- the worker side -----------------------------------------------------------------------------------------

_stop: Event | None = None
_databases: dict[str | None, Database] = {}


def _init_worker(stop: Event, log_level: str | None, session: dict[str, str]) -> None:
    """Pool initializer: the log file and names as in the command; Ctrl+C is the parent's to decide (``stop``).

    ``session`` holds the credentials the command keeps in memory only (no keyring): a worker is another process.
    """
    from app.knowledge.names import ensure_registered
    from app.logs import configure_logging
    from app.secrets import seed_session

    seed_session(session)

    global _stop  # noqa: PLW0603 - the pool's per-process state is what an initializer sets up
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C reaches the whole process group
    _stop = stop
    configure_logging(log_level)
    ensure_registered()


def _database(location: str | None) -> Database:
    from app.store import open_database

    if location not in _databases:
        _databases[location] = open_database(location)
    return _databases[location]


async def _run_until_stopped(job: BatchJob, db: Database, renew: Callable[[], None]) -> int:
    """Run the analysis; cancel it (the run stores what it has and marks itself resumable) when told to stop.

    ``renew`` keeps the replay's lease alive while the run goes on.
    """
    from app.pipeline.repository import LEASE_HEARTBEAT_S
    from app.pipeline.worker import run_with_settings

    task = asyncio.create_task(
        run_with_settings(
            Path(job.path),
            settings=job.settings,
            profile=job.profile,
            db=db,
            emit=lambda _event: None,
            resume=not job.force,
            api_key=job.api_key,
            limits=dict(job.limits),
        )
    )
    renewed = time.monotonic()
    while not task.done():
        await asyncio.wait({task}, timeout=STOP_POLL_S)
        if _stop is not None and _stop.is_set() and not task.done():
            task.cancel()
        if time.monotonic() - renewed >= LEASE_HEARTBEAT_S:
            renewed = time.monotonic()
            await asyncio.to_thread(renew)
    return task.result()


def analyse_one(job: BatchJob) -> ReplayResult:
    """Analyse one replay in a worker process; every failure becomes the replay's result, never the batch's."""
    started = time.monotonic()
    ui = job.settings.ui_lang()
    if _stop is not None and _stop.is_set():
        return ReplayResult(job.path, INTERRUPTED, message=tr(ui, "not started"))
    try:
        result = _analyse_leased(job, _database(job.db_path))
    except asyncio.CancelledError:
        result = ReplayResult(job.path, INTERRUPTED, message=tr(ui, "stopped; rerun to resume"))
    except KnownError as exc:
        result = ReplayResult(job.path, ERROR, message=str(exc))
    except Exception as exc:  # a bug, but one replay's: the batch goes on and the log keeps the traceback
        log.exception("batch: analysing %s failed", job.path)
        what = f"{type(exc).__name__}: {exc}"
        result = ReplayResult(job.path, ERROR, message=tr(ui, "internal error ({what}); see the log", what=what))
    result.seconds = round(time.monotonic() - started, 3)
    return result


def _analyse_leased(job: BatchJob, db: Database) -> ReplayResult:
    """Take the replay's lease, look again whether it is done by now, else run it; the lease is given up after."""
    from app.pipeline.leases import release_lease, renew_lease, take_lease
    from app.pipeline.prepare import file_sha256
    from app.pipeline.repository import AnalysisRepository, new_owner

    ui = job.settings.ui_lang()
    repo = AnalysisRepository(db)
    key = (file_sha256(Path(job.path)), job.profile, job.settings.analysis_lang().value)
    owner = new_owner()
    holder = take_lease(db, key, owner)
    if holder is not None:
        pid = holder.split(":")[1] if holder.count(":") >= 2 else "?"
        text = tr(ui, "another process (pid {pid}) is analysing it", pid=pid)
        return ReplayResult(job.path, BUSY, message=text)
    try:
        done = None if job.force else repo.finished(*key)
        if done is not None:  # another batch finished it after this one was planned
            return _skipped(job.path, done.id, repo, job.report, job.settings)
        analysis_id = asyncio.run(_run_until_stopped(job, db, lambda: renew_lease(db, key, owner)))
        rec = repo.load(analysis_id)
        result = summarise(job.path, rec)
        if result.status == COMPLETED:
            _note_truncation(result, Path(job.path), job.settings)
        if job.report is not None:
            _write(rec, job.report, job.settings)
            result.report = job.report
        return result
    finally:
        release_lease(db, key, owner)


def _note_truncation(result: ReplayResult, path: Path, settings: Settings) -> None:
    """Mark a completed analysis of a cut-off replay: it covers the replay only up to where the file ends."""
    from app.replay.reader import read_replay
    from app.timefmt import format_clock

    try:
        replay = read_replay(path)
    except (KnownError, OSError):  # analysed all the same: the run read it
        return
    if replay.truncated:
        ui = settings.ui_lang()
        end = format_clock(replay.duration_seconds)
        result.status = TRUNCATED
        result.message = tr(
            ui,
            "the replay is cut off: analysed up to {end} ({truncation_reason}); `replaysage repair` makes it playable",
            end=end,
            truncation_reason=replay.truncation_reason,
        )


# -- the parent side -----------------------------------------------------------------------------------------


def run_batch(
    jobs: Sequence[BatchJob],
    workers: int,
    on_result: Callable[[ReplayResult], None],
    log_level: str | None = None,
) -> tuple[list[ReplayResult], bool]:
    """Run ``jobs`` on ``workers`` processes; ``on_result`` sees each result as it arrives.

    Returns the results (in the order of ``jobs``) and whether the batch was interrupted. On Ctrl+C the workers
    stop their runs (each stores what it has) and the jobs not started are reported as ``interrupted``.
    """
    if not jobs:
        return [], False
    ctx = multiprocessing.get_context("spawn")  # never fork a process that may hold threads or a Qt loop
    stop = ctx.Event()
    interrupted = False
    size = max(1, min(workers, len(jobs)))
    from app.secrets import session_keys

    init = (stop, log_level, session_keys())
    with (
        _ctrl_c_noted() as ctrl_c,
        ProcessPoolExecutor(size, mp_context=ctx, initializer=_init_worker, initargs=init) as pool,
    ):
        futures = [pool.submit(analyse_one, job) for job in jobs]
        index: dict[Future[ReplayResult], int] = {f: i for i, f in enumerate(futures)}
        pending = set(futures)
        while pending:
            done, pending = wait(pending, timeout=STOP_POLL_S, return_when="FIRST_COMPLETED")
            for fut in sorted(done, key=index.__getitem__):
                on_result(_result_of(fut, jobs[index[fut]]))
            if ctrl_c.is_set() and not interrupted:  # the workers stop their runs (each stores what it has)
                interrupted = True
                stop.set()
    return [_result_of(f, job) for f, job in zip(futures, jobs, strict=True)], interrupted


@contextlib.contextmanager
def _ctrl_c_noted() -> Iterator[threading.Event]:
    """Ctrl+C sets an event that the batch loop reads between polls, instead of raising ``KeyboardInterrupt``.

    Why: a ``KeyboardInterrupt`` lands wherever the main thread happens to be. Raised inside
    ``concurrent.futures.wait`` while it holds the futures' locks, it left one held, and the pool's manager thread
    then blocked for good on that future: Ctrl+C hung the batch instead of stopping it (seen under load). Off the
    main thread no handler can be installed, and Ctrl+C keeps Python's default.
    """
    noted = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield noted
        return
    previous = signal.signal(signal.SIGINT, lambda _sig, _frame: noted.set())
    try:
        yield noted
    finally:
        signal.signal(signal.SIGINT, previous)


def _result_of(fut: Future[ReplayResult], job: BatchJob) -> ReplayResult:
    """A future's result; a worker that died (killed, out of memory) is that replay's error."""
    try:
        return fut.result()
    except Exception as exc:  # BrokenProcessPool and the like: the replay has a result all the same
        return ReplayResult(
            job.path, ERROR, message=f"the worker process failed (工作进程失败): {type(exc).__name__}: {exc}"
        )
