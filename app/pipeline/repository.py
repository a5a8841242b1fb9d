"""Reads and writes stored analyses. The pipeline writes through here, stage by stage.

A running analysis holds a *lease*: its row names the owner (``host:pid:token``) and a heartbeat the run refreshes
every :data:`LEASE_HEARTBEAT_S`. A second process never resumes an analysis whose lease is alive; a run that
crashed (its process is gone, or its heartbeat is older than :data:`LEASE_STALE_S`) is stale and offered for resume.
"""

from __future__ import annotations

import json
import os
import socket
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Exists, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, selectinload

from app.claims.issues import Severity, ValidationIssue
from app.claims.parse import unit_id_of
from app.errors import KnownError
from app.memory.tables import MemObservation
from app.pipeline.events import StageKind, StageRef
from app.pipeline.records import (
    AnalysisRecord,
    ClaimRecord,
    IssueRecord,
    LookbackRecord,
    OutputRecord,
    RequestRecord,
    StageRecord,
    utcnow,
)
from app.store.blocks import (
    PromptIntegrityError,
    collect_garbage,
    is_reference_form,
    join_blocks,
    pack_blocks,
    read_blocks,
    rebuild_messages,
    request_digest,
    store_messages,
    store_texts,
)
from app.store.db import Database

FINISHED = "done"
SKIPPED = "skipped"  # failed, but the run went on without it by design (the overview, plan §5.4); resume re-runs it
SETTLED = (FINISHED,)  # only a stage that really finished is settled: every other one keeps its run resumable
UNFINISHED_RUN_STATES = ("running", "interrupted", "cancelled", "failed", "partial")
LEASE_HEARTBEAT_S = 10.0
LEASE_STALE_S = 60.0


def new_owner() -> str:
    """A lease owner for one run: this host, this process, and a token (a process may run several analyses)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def _naive_utc(when: datetime) -> datetime:
    return when.replace(tzinfo=None) if when.tzinfo is None else when.astimezone(UTC).replace(tzinfo=None)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # exists, owned by someone else (or we cannot tell: assume alive)
    return True


def lease_alive(owner: str, heartbeat_at: datetime | None, now: datetime | None = None) -> bool:
    """True while the owner of a lease still runs: a fresh heartbeat and, on this host, a living process."""
    if not owner or heartbeat_at is None:
        return False
    now = now or utcnow()
    if _naive_utc(now) - _naive_utc(heartbeat_at) > timedelta(seconds=LEASE_STALE_S):
        return False
    host, _, rest = owner.partition(":")
    pid = rest.partition(":")[0]
    if host == socket.gethostname() and pid.isdigit():
        return _process_alive(int(pid))
    return True


class LeaseHeldError(KnownError):
    """Another living process runs (or resumes) this analysis."""


class StoreLostError(KnownError):
    """A committed analysis cannot be read back as it was stored: "done" would not mean stored."""


@dataclass(slots=True)
class RequestLog:
    """One request as it is stored."""

    purpose: str
    messages: list[dict[str, Any]]
    breakdown: dict[str, Any] = field(default_factory=dict)
    usage: dict[str, Any] = field(default_factory=dict)
    ttft_seconds: float | None = None
    tokens_per_second: float | None = None
    duration_seconds: float | None = None
    resolved_model: str = ""
    finish_reason: str = ""
    error: str = ""


@dataclass(slots=True)
class StageResult:
    """Everything a finished stage stores at once."""

    text: str
    reasoning: str = ""
    found_fact: str = ""
    claims: dict[str, Any] = field(default_factory=dict)
    revised: bool = False
    truncated: bool = False
    requests: list[RequestLog] = field(default_factory=list)
    outputs: list[tuple[str, str, str]] = field(default_factory=list)  # (role, text, reasoning)
    issues: list[tuple[ValidationIssue, bool]] = field(default_factory=list)  # (issue, after_revision)
    lookbacks: list[tuple[float, float, int, bool, str]] = field(default_factory=list)


def _request_record(s: Session, r: RequestLog, default_error: str = "") -> RequestRecord:
    """A request row; its prompt goes into the shared block store (see :mod:`app.store.blocks`)."""
    return RequestRecord(
        purpose=r.purpose,
        messages=store_messages(s, r.messages),
        prompt_sha256=request_digest(r.messages),
        breakdown=r.breakdown,
        usage=r.usage,
        ttft_seconds=r.ttft_seconds,
        tokens_per_second=r.tokens_per_second,
        duration_seconds=r.duration_seconds,
        resolved_model=r.resolved_model,
        finish_reason=r.finish_reason,
        error=r.error or default_error,
    )


BlockRow = AnalysisRecord | StageRecord | OutputRecord
_JSON_FIELDS = frozenset({"plan", "claims"})


def _put_texts(s: Session, row: BlockRow, **values: Any) -> None:
    """Set block fields of ``row``: a non-empty value goes to the block store, its column keeps the empty value."""
    refs = dict(row.blocks or {})
    names: list[str] = []
    texts: list[str] = []
    for name, value in values.items():
        if name not in row.block_fields:
            raise ValueError(f"{name} is not a block field of {type(row).__name__}")
        refs.pop(name, None)
        if not value:
            setattr(row, name, value)
            continue
        names.append(name)
        texts.append(json.dumps(value, ensure_ascii=False) if name in _JSON_FIELDS else str(value))
        setattr(row, name, {} if name in _JSON_FIELDS else "")
    refs.update(zip(names, store_texts(s, texts), strict=True))
    row.blocks = refs


def _fill_texts(row: BlockRow, texts: Mapping[str, str]) -> None:
    """Put a row's block fields back from the blocks read (on a detached row: nothing is written back)."""
    for name, hashes in (row.blocks or {}).items():
        text = join_blocks(texts, hashes, f"{type(row).__name__} {row.id}.{name}")
        setattr(row, name, json.loads(text) if name in _JSON_FIELDS else text)


def _row_digests(
    blocks: Iterable[Mapping[str, Sequence[str]] | None], requests: Iterable[Sequence[Mapping[str, Any]]]
) -> Iterator[str]:
    """Every block hash of request references (``messages`` columns) and of rows' ``blocks``, in order of use."""
    for messages in requests:
        if is_reference_form(messages):
            for ref in messages:
                yield from ref["blocks"]
    for refs in blocks:
        for hashes in (refs or {}).values():
            yield from hashes


def _prompt_of(texts: Mapping[str, str], req: RequestRecord) -> list[dict[str, Any]]:
    """A request row's messages as sent: rebuilt from blocks, or as stored by a pre-block row (no hash)."""
    stored = list(req.messages or [])
    if not is_reference_form(stored):
        return stored
    return list(rebuild_messages(texts, stored, req.prompt_sha256 or None, request_id=req.id))


def _output(s: Session, role: str, text: str, reasoning: str) -> OutputRecord:
    out = OutputRecord(role=role, text=text, reasoning=reasoning, blocks={})
    _put_texts(s, out, text=text, reasoning=reasoning)
    return out


def _issue_record(issue: ValidationIssue, after_revision: bool) -> IssueRecord:
    ref = issue.ref
    return IssueRecord(
        severity=int(issue.severity),
        code=issue.code,
        message=issue.message,
        time_seconds=issue.time_seconds,
        unit_id=unit_id_of(issue.unit_id),
        after_revision=after_revision,
        disputed=issue.disputed,
        claim_kind=ref.kind if ref else None,
        claim_index=ref.index if ref else None,
    )


def issue_of(record: IssueRecord) -> ValidationIssue:
    """A stored issue as the validator made it, its claim reference included (live and reopened views agree)."""
    return ValidationIssue(
        Severity(record.severity),
        record.code,
        record.message,
        record.time_seconds,
        record.unit_id,
        claim=record.claim_key,
        disputed=record.disputed,
    )


def stage_ref_of(record: StageRecord) -> StageRef:
    """The event-side reference of a stored stage."""
    return StageRef(StageKind(record.kind), record.segment, record.window, record.start_seconds, record.end_seconds)


def _has_open_stage() -> Exists:
    """SQL: the analysis (of the enclosing query) has a stage that did not really finish."""
    return (
        select(StageRecord.id)
        .where(StageRecord.analysis_id == AnalysisRecord.id, StageRecord.status.not_in(SETTLED))
        .exists()
    )


def _lost(analysis_id: int, location: str, why: str) -> str:
    """The message of :class:`StoreLostError`, in both languages."""
    return (
        f"analysis #{analysis_id} was written to the store {location}, but {why}: another program may have changed "
        "the database's files during the run (for example removed its -wal or -shm file); do not count on it being "
        f"kept, run the analysis again; 分析 #{analysis_id} 已写入数据库，但重新读取核对失败，"
        "数据库文件可能在运行中被其他程序改动（例如删除了 -wal 或 -shm 文件），该分析未必已保存，请重新分析"
    )


class AnalysisRepository:
    """Persistence of analyses; every write is one short transaction."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def create(
        self,
        *,
        replay_path: str,
        replay_sha256: str,
        replay_name: str,
        model_label: str,
        provider: str,
        model_id: str,
        lang: str,
        plan: dict[str, Any],
        stages: Sequence[StageRef],
        summary_text: str,
        owner: str = "",
    ) -> int:
        """Store a new analysis with all its planned stages pending (leased to ``owner``); returns its id."""
        with self.db.session() as s:
            rec = AnalysisRecord(
                replay_path=replay_path,
                replay_sha256=replay_sha256,
                replay_name=replay_name,
                model_label=model_label,
                provider=provider,
                model_id=model_id,
                lang=lang,
                status="running",
                overview_text="",
                totals={},
                message="",
                owner=owner,
                heartbeat_at=utcnow() if owner else None,
            )
            _put_texts(s, rec, plan=plan, summary_text=summary_text)
            for i, ref in enumerate(stages):
                rec.stages.append(
                    StageRecord(
                        ordinal=i,
                        key=ref.key,
                        kind=ref.kind.value,
                        segment=ref.segment,
                        window=ref.window,
                        start_seconds=ref.start_seconds,
                        end_seconds=ref.end_seconds,
                        status="pending",
                        text="",
                        reasoning="",
                        found_fact="",
                        claims={},
                        blocks={},
                        revised=False,
                        truncated=False,
                        message="",
                    )
                )
            s.add(rec)
            s.flush()
            return rec.id

    def acquire(self, analysis_id: int, owner: str) -> None:
        """Take the lease of an analysis (in one write transaction, so exactly one of two racing processes wins).

        Raises:
            LeaseHeldError: a living process holds it.
        """
        with self.db.session() as s:
            rec = s.get_one(AnalysisRecord, analysis_id, with_for_update=True)
            if rec.owner != owner and lease_alive(rec.owner, rec.heartbeat_at):
                pid = rec.owner.split(":")[1] if rec.owner.count(":") >= 2 else "?"
                raise LeaseHeldError(
                    f"analysis #{analysis_id} is being run by another process (pid {pid}); "
                    f"分析 #{analysis_id} 正由另一个进程（pid {pid}）运行，请等它结束"
                )
            rec.owner = owner
            rec.heartbeat_at = utcnow()

    def heartbeat(self, analysis_id: int, owner: str) -> None:
        """Refresh the lease (only the owner's own)."""
        with self.db.session() as s:
            rec = s.get_one(AnalysisRecord, analysis_id)
            if rec.owner == owner:
                rec.heartbeat_at = utcnow()

    def release(self, analysis_id: int, owner: str) -> None:
        """Give the lease up (only the owner's own)."""
        with self.db.session() as s:
            rec = s.get_one(AnalysisRecord, analysis_id)
            if rec.owner == owner:
                rec.owner = ""
                rec.heartbeat_at = None

    def set_status(self, analysis_id: int, status: str, message: str = "") -> None:
        """Mark the run (running, interrupted…)."""
        with self.db.session() as s:
            rec = s.get_one(AnalysisRecord, analysis_id)
            rec.status = status
            rec.message = message

    def _stage(self, s: Any, analysis_id: int, key: str) -> StageRecord:
        row = s.scalars(select(StageRecord).where(StageRecord.analysis_id == analysis_id, StageRecord.key == key)).one()
        assert isinstance(row, StageRecord)
        return row

    def stage_started(self, analysis_id: int, ref: StageRef) -> None:
        """Note that a stage began (it stays unfinished until :meth:`stage_done`)."""
        with self.db.session() as s:
            st = self._stage(s, analysis_id, ref.key)
            st.status = "running"
            st.outcome = ""
            st.started_at = utcnow()

    def stage_done(self, analysis_id: int, ref: StageRef, result: StageResult) -> None:
        """Store a completed stage with its requests, outputs, claims, issues and lookbacks."""
        with self.db.session() as s:
            st = self._stage(s, analysis_id, ref.key)
            st.status = FINISHED
            st.outcome = "stop"
            _put_texts(
                s, st, text=result.text, reasoning=result.reasoning, found_fact=result.found_fact, claims=result.claims
            )
            st.revised = result.revised
            st.truncated = result.truncated
            st.finished_at = utcnow()
            st.requests.clear()
            st.outputs.clear()
            st.issues.clear()
            st.lookbacks.clear()
            st.requests.extend(_request_record(s, r) for r in result.requests)
            for role, text, reasoning in result.outputs:
                st.outputs.append(_output(s, role, text, reasoning))
            st.issues.extend(_issue_record(issue, after) for issue, after in result.issues)
            for start, end, tokens, served, reason in result.lookbacks:
                st.lookbacks.append(
                    LookbackRecord(start_seconds=start, end_seconds=end, tokens=tokens, served=served, reason=reason)
                )
            s.flush()
            for kind, key in (("unit", "unitClaims"), ("event", "eventClaims"), ("timeline", "timelineClaims")):
                for position, claim in enumerate(result.claims.get(key, []) or []):
                    unit_id = unit_id_of(claim.get("unitId")) if isinstance(claim, dict) else None
                    s.add(
                        ClaimRecord(
                            stage_id=st.id,
                            kind=kind,
                            unit_id=unit_id,
                            player=str(claim.get("player", "")) if isinstance(claim, dict) else "",
                            position=position,
                        )
                    )
            if ref.kind is StageKind.OVERVIEW:
                _put_texts(s, st.analysis, overview_text=result.text)

    def add_stage_issues(
        self, analysis_id: int, key: str, issues: Sequence[ValidationIssue]
    ) -> tuple[bool, list[ValidationIssue]]:
        """Add issues to a finished stage (the summary round's corrections of a window, plan §5.8).

        They join the stage's final issues: those after its revision when it was revised, else its draft's.

        Returns:
            Whether the stage was revised, and its final issues now (the ones a view shows).
        """
        with self.db.session() as s:
            st = self._stage(s, analysis_id, key)
            after = bool(st.revised)
            st.issues.extend(_issue_record(i, after) for i in issues)
            s.flush()
            final = [issue_of(r) for r in st.issues if r.after_revision == after]
            return after, final

    def update_stage_texts(
        self,
        analysis_id: int,
        key: str,
        *,
        text: str | None = None,
        claims: dict[str, Any] | None = None,
        found_fact: str | None = None,
    ) -> None:
        """Replace a finished stage's text, annotated claims or found fact (later marks, verdicts, withdrawals)."""
        values: dict[str, Any] = {}
        if found_fact is not None:
            values["found_fact"] = found_fact
        if text is not None:
            values["text"] = text
        if claims is not None:
            values["claims"] = claims
        if not values:
            return
        with self.db.session() as s:
            _put_texts(s, self._stage(s, analysis_id, key), **values)

    def stage_failed(
        self,
        analysis_id: int,
        ref: StageRef,
        message: str,
        partial_text: str,
        requests: Sequence[RequestLog] = (),
        *,
        status: str = "failed",
        outcome: str = "error",
    ) -> None:
        """Store an unfinished stage's partial text (role ``partial``), its outcome and error; resume re-runs it."""
        with self.db.session() as s:
            st = self._stage(s, analysis_id, ref.key)
            st.status = status
            st.outcome = outcome
            st.message = message
            st.finished_at = utcnow()
            if partial_text:
                st.outputs.append(_output(s, "partial", partial_text, ""))
            st.requests.extend(_request_record(s, r, default_error=message) for r in requests)

    def unfinished_stages(self, analysis_id: int) -> list[str]:
        """Keys of the stages of an analysis that are not done (a skipped overview is one of them)."""
        with self.db.read() as s:
            rows = s.scalars(
                select(StageRecord.key)
                .where(StageRecord.analysis_id == analysis_id, StageRecord.status.not_in(SETTLED))
                .order_by(StageRecord.ordinal)
            )
            return list(rows)

    def finish(self, analysis_id: int, status: str, totals: dict[str, Any], message: str = "") -> None:
        """Close the run."""
        with self.db.session() as s:
            rec = s.get_one(AnalysisRecord, analysis_id)
            rec.status = status
            rec.totals = totals
            rec.message = message
            rec.finished_at = utcnow()

    def verify_stored(self, analysis_id: int, status: str, unfinished: Sequence[str]) -> None:
        """Check, on a connection of its own, that a closed run reads back as it was committed.

        The check a fresh process would make: the analysis has ``status`` and exactly ``unfinished`` stages left.
        Something outside the app (the SQLite file's ``-wal``/``-shm`` removed during the run, issue 29) can make a
        commit visible to this process alone; then the run must not be reported as done.

        Raises:
            StoreLostError: the analysis is missing, reads back otherwise, or cannot be read.
        """
        try:
            with self.db.fresh_read() as s:
                found = s.execute(select(AnalysisRecord.status).where(AnalysisRecord.id == analysis_id)).first()
                left = list(
                    s.scalars(
                        select(StageRecord.key)
                        .where(StageRecord.analysis_id == analysis_id, StageRecord.status.not_in(SETTLED))
                        .order_by(StageRecord.ordinal)
                    )
                )
        except (SQLAlchemyError, OSError) as exc:
            why = str(getattr(exc, "orig", None) or exc).split("\n", 1)[0]
            raise StoreLostError(_lost(analysis_id, self.db.location, f"it cannot be read back ({why})")) from exc
        if found is None:
            raise StoreLostError(_lost(analysis_id, self.db.location, "it is not there when read back"))
        if found[0] != status or left != list(unfinished):
            raise StoreLostError(
                _lost(
                    analysis_id,
                    self.db.location,
                    f"it reads back as {found[0]} with {len(left)} unfinished stage(s), not as {status} with "
                    f"{len(unfinished)}",
                )
            )

    def load(self, analysis_id: int) -> AnalysisRecord:
        """An analysis with its stages, requests, outputs, issues and lookbacks loaded (a detached snapshot).

        Each request's ``messages`` holds the prompt as it was sent, rebuilt from the block store and checked
        against its hash (:class:`~app.store.blocks.PromptIntegrityError` when it cannot be).
        """
        with self.db.read() as s:
            rec = s.scalars(
                select(AnalysisRecord)
                .where(AnalysisRecord.id == analysis_id)
                .options(
                    selectinload(AnalysisRecord.stages).selectinload(StageRecord.requests),
                    selectinload(AnalysisRecord.stages).selectinload(StageRecord.outputs),
                    selectinload(AnalysisRecord.stages).selectinload(StageRecord.issues),
                    selectinload(AnalysisRecord.stages).selectinload(StageRecord.lookbacks),
                )
            ).one()
            assert isinstance(rec, AnalysisRecord)
            rows: list[BlockRow] = [rec, *rec.stages, *(o for st in rec.stages for o in st.outputs)]
            requests = [req for st in rec.stages for req in st.requests]
            texts = read_blocks(s, _row_digests((r.blocks for r in rows), (req.messages or [] for req in requests)))
        for row in rows:  # detached now: filling in the text never writes it back
            _fill_texts(row, texts)
        prompts = {req.id: _prompt_of(texts, req) for req in requests}
        for req in requests:
            req.messages = prompts[req.id]
        return rec

    def pack(self, analysis_id: int) -> int:
        """Pack the loose blocks once an analysis ends, in the order it used them (see :mod:`app.store.blocks`)."""
        with self.db.session() as s:
            return pack_blocks(s, _row_digests(*self._rows(s, [analysis_id])))

    def apply_retention(self, keep_last: int | None) -> int:
        """Drop the full prompts of all but the newest ``keep_last`` analyses (None: keep all); returns how many.

        Each request keeps its ``prompt_sha256`` (what was sent is still known); blocks no row refers to any more
        are deleted. The file shrinks at the next ``replaysage db vacuum``.
        """
        if keep_last is None:
            return 0
        with self.db.session() as s:
            ids = list(s.scalars(select(AnalysisRecord.id).order_by(AnalysisRecord.id.desc())))
            old = [i for i in ids[max(keep_last, 0) :] if i not in self._running(s)]
            dropped = 0
            for start in range(0, len(old), 500):
                stage_ids = select(StageRecord.id).where(StageRecord.analysis_id.in_(old[start : start + 500]))
                for req in s.scalars(select(RequestRecord).where(RequestRecord.stage_id.in_(stage_ids))):
                    if req.messages:
                        req.messages = []
                        dropped += 1
            s.flush()
            if dropped:
                self._collect(s)
            return dropped

    def vacuum_blocks(self) -> tuple[int, int, int]:
        """Pack loose blocks and delete unreferenced ones: ``(packed, deleted, packs rewritten)``."""
        with self.db.session() as s:
            packed = pack_blocks(s, _row_digests(*self._rows(s, None)))
            deleted, rewritten = self._collect(s)
            return packed, deleted, rewritten

    def _collect(self, s: Session) -> tuple[int, int]:
        """Delete the blocks no row refers to: the analyses' rows, and memory observations' candidates."""
        live = set(_row_digests(*self._rows(s, None)))
        live.update(h for refs in s.scalars(select(MemObservation.candidate_blocks)) for h in refs or [])
        return collect_garbage(s, live)

    @staticmethod
    def _running(s: Session) -> set[int]:
        rows = s.execute(select(AnalysisRecord.id, AnalysisRecord.owner, AnalysisRecord.heartbeat_at))
        return {i for i, owner, beat in rows if lease_alive(owner, beat)}

    @staticmethod
    def _rows(
        s: Session, analysis_ids: Sequence[int] | None
    ) -> tuple[list[dict[str, list[str]]], list[list[dict[str, Any]]]]:
        """The ``blocks`` of the rows and the request references of some analyses (None: all), in order of use."""
        where = [] if analysis_ids is None else [StageRecord.analysis_id.in_(analysis_ids)]
        requests = s.scalars(
            select(RequestRecord.messages)
            .join(StageRecord, RequestRecord.stage_id == StageRecord.id)
            .where(*where)
            .order_by(StageRecord.analysis_id, StageRecord.ordinal, RequestRecord.id)
        ).all()
        own = [] if analysis_ids is None else [AnalysisRecord.id.in_(analysis_ids)]
        blocks = list(s.scalars(select(AnalysisRecord.blocks).where(*own)))
        blocks += s.scalars(
            select(StageRecord.blocks).where(*where).order_by(StageRecord.analysis_id, StageRecord.ordinal)
        )
        blocks += s.scalars(
            select(OutputRecord.blocks)
            .join(StageRecord, OutputRecord.stage_id == StageRecord.id)
            .where(*where)
            .order_by(OutputRecord.id)
        )
        return [dict(b or {}) for b in blocks], [list(m or []) for m in requests]

    def request_messages(self, request_id: int) -> list[dict[str, Any]]:
        """The prompt of one stored request exactly as it was sent (hash-checked)."""
        with self.db.session() as s:
            req = s.get(RequestRecord, request_id)
            if req is None:
                raise PromptIntegrityError(f"request {request_id} does not exist")
            return _prompt_of(read_blocks(s, _row_digests((), [req.messages or []])), req)

    def for_replay(self, replay_sha256: str) -> list[AnalysisRecord]:
        """Past analyses of a replay, newest first (without their stages)."""
        with self.db.read() as s:
            rows = s.scalars(
                select(AnalysisRecord)
                .where(AnalysisRecord.replay_sha256 == replay_sha256)
                .order_by(AnalysisRecord.id.desc())
            ).all()
            return list(rows)

    def finished(self, replay_sha256: str, model_label: str, lang: str) -> AnalysisRecord | None:
        """The newest completed analysis of this replay with this model and language, without its stages, if any.

        A batch leaves such a replay alone.
        """
        with self.db.read() as s:
            found = s.scalars(
                select(AnalysisRecord)
                .where(
                    AnalysisRecord.replay_sha256 == replay_sha256,
                    AnalysisRecord.model_label == model_label,
                    AnalysisRecord.lang == lang,
                    AnalysisRecord.status == "completed",
                    ~_has_open_stage(),
                )
                .order_by(AnalysisRecord.id.desc())
                .limit(1)
            ).first()
            return found if isinstance(found, AnalysisRecord) else None

    def resumable(self, replay_sha256: str, model_label: str) -> int | None:
        """The newest unfinished analysis of this replay with this model, if any.

        Unfinished: its run did not complete, or one of its stages did not really finish (an analysis stored
        ``completed`` with a skipped overview by an earlier version, issue 29). Also when its lease is alive:
        :meth:`acquire` then says who runs it, rather than a second copy starting.
        """
        with self.db.read() as s:
            found = s.scalars(
                select(AnalysisRecord.id)
                .where(
                    AnalysisRecord.replay_sha256 == replay_sha256,
                    AnalysisRecord.model_label == model_label,
                    AnalysisRecord.status.in_(UNFINISHED_RUN_STATES) | _has_open_stage(),
                )
                .order_by(AnalysisRecord.id.desc())
                .limit(1)
            ).first()
            return int(found) if found is not None else None
