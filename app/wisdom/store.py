"""The error-wisdom repository: the only code that reads and writes the ``wisdom_*`` tables.

Everything goes through :class:`app.store.Database` sessions (one per call), so the GUI, the CLI and the pipeline
share one writer and a failed call leaves nothing half written.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, and_, case, func, select
from sqlalchemy.orm import Session

from app.errors import KnownError
from app.store import Database
from app.store.paging import Sort, SortKey, count_rows, page_of, sort_order, where_equal
from app.wisdom import taxonomy as tx
from app.wisdom.entry import ENTRY_ID_RE, PreventionRule, Verification, WisdomEntry, iso, now_utc
from app.wisdom.tables import (
    WisdomEntryRow,
    WisdomPatternRow,
    WisdomRuleRow,
    WisdomSceneChangeRow,
    WisdomSceneStateRow,
    WisdomVerificationRow,
)


class EntryNotFoundError(KnownError):
    """No error-wisdom entry (or rule) has the requested id."""


_DIM_KEYS = (
    ("认知维度分析", "cognitive_dimensions"),
    ("情境维度分析", "situational_dimensions"),
    ("系统维度分析", "system_dimensions"),
)


def _entry_to_row(e: WisdomEntry, row: WisdomEntryRow | None = None) -> WisdomEntryRow:
    row = row or WisdomEntryRow(id=e.id)
    dims = {k: getattr(e, attr) for k, attr in _DIM_KEYS if getattr(e, attr) is not None}
    values: dict[str, Any] = {
        "timestamp": e.timestamp,
        "trace_id": e.trace_id,
        "version": e.version,
        "error_type": e.error_type,
        "type_code": e.type_code,
        "error_subtype": e.error_subtype,
        "subtype_code": e.subtype_code,
        "error_code": e.error_code,
        "description": e.description,
        "severity": e.severity,
        "trigger_scene": e.trigger_scene,
        "impact_scope": e.impact_scope,
        "detection_method": e.detection_method,
        "root_cause": e.root_cause,
        "preventability": e.preventability,
        "cognitive_bias": e.cognitive_bias,
        "environment_factor": e.environment_factor,
        "responsibility": e.responsibility,
        "dimensions": dims or None,
        "root_cause_categories": list(e.root_cause_categories),
        "immediate_fix": e.immediate_fix,
        "fix_cost": e.fix_cost,
        "effectiveness": e.effectiveness,
        "ux_compensation": e.ux_compensation,
        "prevention_strategy": e.prevention_strategy,
        "precheck_rule": e.precheck_rule,
        "applicable_scenes": list(e.applicable_scenes),
        "non_applicable_scenes": list(e.non_applicable_scenes),
        "prevention_priority": e.prevention_priority,
        "prevention_cost": e.prevention_cost,
        "similar_ids": list(e.similar_ids),
        "common_pattern": e.common_pattern,
        "abstract_rule_id": e.abstract_rule_id,
        "created_at": e.created_at,
        "updated_at": e.updated_at,
        "verification_count": e.verification_count,
        "success_count": e.success_count,
        "confidence": e.confidence,
        "status": e.status,
        "cognitive_flag": e.cognitive_flag,
        "tool_name": e.tool_name,
        "model": e.model,
        "mod": e.mod,
        "stage": e.stage,
        "trigger_patterns": list(e.trigger_patterns),
        "params": dict(e.params),
        "dedupe_key": e.dedupe_key,
        "occurrences": e.occurrences,
        "base_confidence": e.base_confidence,
        "counterexamples": e.counterexamples,
        "scene_changes": e.scene_changes,
        "recognized": e.recognized,
        "extras": dict(e.extras),
    }
    for k, v in values.items():
        setattr(row, k, v)
    return row


def _row_to_entry(r: WisdomEntryRow, verifications: list[Verification]) -> WisdomEntry:
    dims = r.dimensions or {}
    return WisdomEntry(
        id=r.id,
        timestamp=r.timestamp,
        trace_id=r.trace_id,
        version=r.version,
        error_type=r.error_type,
        error_subtype=r.error_subtype,
        description=r.description,
        severity=r.severity,
        error_code=r.error_code,
        trigger_scene=r.trigger_scene,
        impact_scope=r.impact_scope,
        detection_method=r.detection_method,
        root_cause=r.root_cause,
        preventability=r.preventability,
        cognitive_bias=r.cognitive_bias,
        environment_factor=r.environment_factor,
        responsibility=r.responsibility,
        cognitive_dimensions=dims.get("认知维度分析"),
        situational_dimensions=dims.get("情境维度分析"),
        system_dimensions=dims.get("系统维度分析"),
        immediate_fix=r.immediate_fix,
        fix_cost=r.fix_cost,
        effectiveness=r.effectiveness,
        ux_compensation=r.ux_compensation,
        prevention_strategy=r.prevention_strategy,
        precheck_rule=r.precheck_rule,
        applicable_scenes=list(r.applicable_scenes),
        non_applicable_scenes=list(r.non_applicable_scenes),
        prevention_priority=r.prevention_priority,
        prevention_cost=r.prevention_cost,
        verifications=verifications,
        similar_ids=list(r.similar_ids),
        common_pattern=r.common_pattern,
        abstract_rule_id=r.abstract_rule_id,
        created_at=r.created_at,
        updated_at=r.updated_at,
        verification_count=r.verification_count,
        success_count=r.success_count,
        confidence=r.confidence,
        status=r.status,
        cognitive_flag=r.cognitive_flag,
        tool_name=r.tool_name,
        model=r.model,
        mod=r.mod,
        stage=r.stage,
        root_cause_categories=list(r.root_cause_categories),
        trigger_patterns=list(r.trigger_patterns),
        params=dict(r.params),
        dedupe_key=r.dedupe_key,
        occurrences=r.occurrences,
        base_confidence=r.base_confidence,
        counterexamples=r.counterexamples,
        scene_changes=r.scene_changes,
        recognized=r.recognized,
        extras=dict(r.extras),
    )


def _ver_to_row(entry_id: str, seq: int, v: Verification) -> WisdomVerificationRow:
    return WisdomVerificationRow(
        entry_id=entry_id,
        seq=seq,
        timestamp=v.timestamp,
        trace_id=v.trace_id,
        scene=v.scene,
        effect=v.effect,
        trigger=v.trigger,
        feedback=v.feedback,
        counterexample=v.counterexample,
        extra=dict(v.extra),
    )


def _row_to_ver(r: WisdomVerificationRow) -> Verification:
    return Verification(
        timestamp=r.timestamp,
        trace_id=r.trace_id,
        scene=r.scene,
        effect=r.effect,
        trigger=r.trigger,
        feedback=r.feedback,
        counterexample=r.counterexample,
        extra=dict(r.extra),
    )


_RULE_FIELDS = (
    "rule_name",
    "created_at",
    "source_ids",
    "trigger",
    "check",
    "action",
    "scope",
    "applied",
    "successes",
    "failures",
    "status",
    "confidence",
    "base_confidence",
    "last_validated",
    "decay_factor",
    "origin",
    "template",
    "tool_name",
    "param_name",
    "model",
    "mod",
    "stage",
    "signature",
    "params",
    "counterexamples",
    "priority",
    "message_zh",
    "message_en",
)


def _rule_to_row(r: PreventionRule, row: WisdomRuleRow | None = None) -> WisdomRuleRow:
    row = row or WisdomRuleRow(rule_id=r.rule_id)
    for f in _RULE_FIELDS:
        v = getattr(r, f)
        setattr(row, f, list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v)
    return row


def _row_to_rule(row: WisdomRuleRow) -> PreventionRule:
    kw = {f: getattr(row, f) for f in _RULE_FIELDS}
    return PreventionRule(rule_id=row.rule_id, **kw)


_INDEX_COLS = (
    "id",
    "error_type",
    "error_subtype",
    "error_code",
    "prevention_strategy",
    "precheck_rule",
    "prevention_priority",
    "confidence",
    "status",
    "model",
    "mod",
    "stage",
    "description",
    "tool_name",
    "params",
    "trigger_patterns",
)


@dataclass(frozen=True, slots=True)
class EntryFilter:
    """Filters of the entry list (None = any). Values are codes (``tool``, ``hallucination``…)."""

    type_code: str | None = None
    subtype_code: str | None = None
    severity: str | None = None
    status: str | None = None
    model: str | None = None
    text: str | None = None


EntrySort = Sort
"""``(column name, descending)`` of the entry list; names are the keys of :data:`ENTRY_SORT_COLUMNS`."""
ENTRY_SORT_COLUMNS: dict[str, Any] = {
    "created": WisdomEntryRow.created_at,
    "id": WisdomEntryRow.id,
    "status": WisdomEntryRow.status,
    "confidence": WisdomEntryRow.confidence,
    "severity": WisdomEntryRow.severity,
    "subtype": WisdomEntryRow.subtype_code,
    "error_code": WisdomEntryRow.error_code,
    "model": WisdomEntryRow.model,
}
"""The columns the entry list sorts by (each indexed, so a sorted page is an index walk)."""


def _entry_query(flt: EntryFilter) -> Select[Any]:
    q = where_equal(
        select(WisdomEntryRow),
        (WisdomEntryRow.type_code, flt.type_code),
        (WisdomEntryRow.subtype_code, flt.subtype_code),
        (WisdomEntryRow.severity, flt.severity),
        (WisdomEntryRow.status, flt.status),
        (WisdomEntryRow.model, flt.model),
    )
    if flt.text:
        q = q.where(WisdomEntryRow.description.contains(flt.text))
    return q


class WisdomStore:
    """Repository over the ``wisdom_*`` tables of one :class:`Database`."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # ---- ids -------------------------------------------------------------------------------------------------
    @staticmethod
    def _next_id(s: Session, day: str, reserved: set[str] | None = None) -> str:
        prefix = f"ew_{day}_"
        ids = s.scalars(select(WisdomEntryRow.id).where(WisdomEntryRow.id.like(prefix + "%"))).all()
        nums = [int(m.group(2)) for i in [*ids, *(reserved or ())] if (m := ENTRY_ID_RE.match(i)) and m.group(1) == day]
        return f"{prefix}{(max(nums) + 1 if nums else 1):03d}"

    # ---- entries ---------------------------------------------------------------------------------------------
    def add_entry(self, entry: WisdomEntry) -> str:
        """Insert ``entry``; an empty id gets the next ``ew_YYYYMMDD_NNN`` of its creation day."""
        with self.db.session() as s:
            if not entry.id:
                day = (entry.timestamp[:10] if entry.timestamp else iso(now_utc())[:10]).replace("-", "")
                entry.id = self._next_id(s, day)
            s.add(_entry_to_row(entry))
            s.flush()
            for i, v in enumerate(entry.verifications):
                s.add(_ver_to_row(entry.id, i, v))
        return entry.id

    def add_entries(self, entries: Sequence[WisdomEntry], replace: bool = False) -> list[str]:
        """Insert many entries in one transaction (import); ``replace`` overwrites entries with the same id."""
        ids: list[str] = []
        with self.db.session() as s:
            for e in entries:
                existing = s.get(WisdomEntryRow, e.id)
                if existing is not None:
                    if not replace:
                        continue
                    for vr in s.scalars(select(WisdomVerificationRow).where(WisdomVerificationRow.entry_id == e.id)):
                        s.delete(vr)
                    _entry_to_row(e, existing)
                else:
                    s.add(_entry_to_row(e))
                s.flush()
                for i, v in enumerate(e.verifications):
                    s.add(_ver_to_row(e.id, i, v))
                ids.append(e.id)
        return ids

    def get_entry(self, entry_id: str) -> WisdomEntry:
        """The entry with its verification history.

        Raises:
            EntryNotFoundError: when no entry has this id.
        """
        with self.db.session() as s:
            row = s.get(WisdomEntryRow, entry_id)
            if row is None:
                raise EntryNotFoundError(f"no error-wisdom entry {entry_id!r}")
            vers = s.scalars(
                select(WisdomVerificationRow)
                .where(WisdomVerificationRow.entry_id == entry_id)
                .order_by(WisdomVerificationRow.seq)
            ).all()
            return _row_to_entry(row, [_row_to_ver(v) for v in vers])

    def find_by_dedupe_key(self, key: str) -> str | None:
        """The id of the entry recorded under ``key``, if any."""
        with self.db.session() as s:
            return s.scalars(select(WisdomEntryRow.id).where(WisdomEntryRow.dedupe_key == key).limit(1)).first()

    def save_entry(self, entry: WisdomEntry) -> None:
        """Overwrite the stored entry's fields (verification history is appended separately)."""
        with self.db.session() as s:
            row = s.get(WisdomEntryRow, entry.id)
            if row is None:
                raise EntryNotFoundError(f"no error-wisdom entry {entry.id!r}")
            _entry_to_row(entry, row)

    def add_verification(self, entry_id: str, v: Verification, success: bool) -> WisdomEntry:
        """Append one verification outcome and update the entry's counters."""
        with self.db.session() as s:
            row = s.get(WisdomEntryRow, entry_id)
            if row is None:
                raise EntryNotFoundError(f"no error-wisdom entry {entry_id!r}")
            seq = (
                s.scalar(
                    select(func.count())
                    .select_from(WisdomVerificationRow)
                    .where(WisdomVerificationRow.entry_id == entry_id)
                )
                or 0
            )
            s.add(_ver_to_row(entry_id, seq, v))
            row.verification_count += 1
            if success:
                row.success_count += 1
            if v.counterexample:
                row.counterexamples += 1
            row.updated_at = v.timestamp
        return self.get_entry(entry_id)

    def list_entries(
        self,
        flt: EntryFilter | None = None,
        limit: int = 500,
        offset: int = 0,
        *,
        sort: EntrySort | None = None,
        total: int | None = None,
    ) -> list[WisdomEntry]:
        """Entries matching ``flt`` without their verification history (a list view), newest first by default.

        ``sort`` orders by one of :data:`ENTRY_SORT_COLUMNS`; with ``total`` (:meth:`count_entries` of the same
        filter) a page past the middle is read from the end (see :mod:`app.store.paging`).
        """
        q = _entry_query(flt or EntryFilter())
        default = [SortKey(WisdomEntryRow.created_at, True), SortKey(WisdomEntryRow.id, True)]
        order = sort_order(sort, ENTRY_SORT_COLUMNS, WisdomEntryRow.id, default)
        with self.db.read() as s:
            return [_row_to_entry(r, []) for r in page_of(s, q, order, offset=offset, limit=limit, total=total)]

    def count_entries(self, flt: EntryFilter | None = None) -> int:
        """How many entries match ``flt``."""
        with self.db.read() as s:
            return count_rows(s, _entry_query(flt or EntryFilter()))

    def iter_entries(self, batch: int = 2000) -> Iterator[WisdomEntry]:
        """Every entry (without history), in id order, a batch per session."""
        last = ""
        while True:
            with self.db.session() as s:
                rows = s.scalars(
                    select(WisdomEntryRow).where(WisdomEntryRow.id > last).order_by(WisdomEntryRow.id).limit(batch)
                ).all()
                out = [_row_to_entry(r, []) for r in rows]
            if not out:
                return
            yield from out
            last = out[-1].id

    def iter_index_entries(self) -> Iterator[WisdomEntry]:
        """Usable (not archived) entries with only the fields the query index needs.

        Selecting columns instead of ORM rows makes loading 100,000 entries several times faster, which is what
        opening the library costs.
        """
        cols = [getattr(WisdomEntryRow, c) for c in _INDEX_COLS]
        with self.db.session() as s:
            rows = s.execute(select(*cols).where(WisdomEntryRow.status != "archived")).all()
        for r in rows:
            yield WisdomEntry(
                id=r[0],
                timestamp="",
                trace_id="",
                version="",
                error_type=r[1],
                error_subtype=r[2],
                error_code=r[3],
                prevention_strategy=r[4],
                precheck_rule=r[5],
                prevention_priority=r[6],
                confidence=r[7],
                status=r[8],
                model=r[9],
                mod=r[10],
                stage=r[11],
                description=r[12],
                tool_name=r[13],
                params=r[14] or {},
                trigger_patterns=r[15] or [],
                severity="none",
            )

    def all_entries_full(self) -> list[WisdomEntry]:
        """Every entry with its verification history (export)."""
        with self.db.session() as s:
            vers: dict[str, list[Verification]] = {}
            for v in s.scalars(
                select(WisdomVerificationRow).order_by(WisdomVerificationRow.entry_id, WisdomVerificationRow.seq)
            ):
                vers.setdefault(v.entry_id, []).append(_row_to_ver(v))
            return [
                _row_to_entry(r, vers.get(r.id, []))
                for r in s.scalars(select(WisdomEntryRow).order_by(WisdomEntryRow.id))
            ]

    def entry_stats(self) -> dict[str, Any]:
        """Counts for the metrics: per status, preventable, cognitive, labelled, audited.

        One aggregate per status in SQL: reading the 100,000 rows of a large library into Python took 0.6 s of a
        worker thread holding the GIL, which the GUI thread felt as 50-100 ms stalls while the metrics refreshed.
        """
        entry = WisdomEntryRow
        cognitive = entry.type_code == tx.COGNITIVE
        with self.db.session() as s:
            rows = s.execute(
                select(
                    entry.status,
                    func.count(),
                    func.sum(case((entry.preventability.in_(("high", "medium")), entry.occurrences), else_=0)),
                    func.sum(case((cognitive, 1), else_=0)),
                    func.sum(case((and_(cognitive, entry.recognized.is_not(None)), 1), else_=0)),
                    func.sum(case((and_(cognitive, entry.recognized.is_(True)), 1), else_=0)),
                    func.sum(case((and_(entry.audited_at.is_not(None), entry.audited_at != ""), 1), else_=0)),
                ).group_by(entry.status)
            ).all()
        out: dict[str, Any] = {
            "total": 0,
            "preventable_errors": 0,
            "cognitive": 0,
            "labelled": 0,
            "recognized": 0,
            "audited": 0,
            "by_status": dict.fromkeys(tx.STATUSES, 0),
        }
        for status, n, preventable, cognitive_n, labelled, recognized, audited in rows:
            out["by_status"][status] = int(n)
            out["total"] += int(n)
            out["preventable_errors"] += int(preventable or 0)
            out["cognitive"] += int(cognitive_n or 0)
            out["labelled"] += int(labelled or 0)
            out["recognized"] += int(recognized or 0)
            out["audited"] += int(audited or 0)
        return out

    def occurrences_between(self, subtype_code: str, start: str, end: str) -> int:
        """Σ occurrences of entries of a subtype created in [start, end) (ISO strings compare in time order)."""
        with self.db.session() as s:
            n = s.scalar(
                select(func.sum(WisdomEntryRow.occurrences)).where(
                    WisdomEntryRow.subtype_code == subtype_code,
                    WisdomEntryRow.created_at >= start,
                    WisdomEntryRow.created_at < end,
                )
            )
        return int(n or 0)

    def set_recognized(self, entry_id: str, recognized: bool | None) -> None:
        """Label whether a cognitive entry was correctly recognised (for the recognition rate)."""
        with self.db.session() as s:
            row = s.get(WisdomEntryRow, entry_id)
            if row is None:
                raise EntryNotFoundError(f"no error-wisdom entry {entry_id!r}")
            row.recognized = recognized

    def update_timeliness(self, updates: Iterable[tuple[str, float, str]], audited_at: str | None) -> None:
        """Write (id, confidence, status) for many entries, stamping ``audited_at`` when given."""
        with self.db.session() as s:
            for eid, conf, status in updates:
                row = s.get(WisdomEntryRow, eid)
                if row is None:
                    continue
                row.confidence = conf
                row.status = status
                if audited_at:
                    row.audited_at = audited_at

    def bump_scene_changes(self, ids: Iterable[str] | None) -> list[str]:
        """Count one more scene change on the given entries (all when None); returns the ids touched."""
        with self.db.session() as s:
            q = select(WisdomEntryRow)
            if ids is not None:
                id_list = list(ids)
                if not id_list:
                    return []
                q = q.where(WisdomEntryRow.id.in_(id_list))
            touched = []
            for row in s.scalars(q):
                if row.status == "archived":
                    continue
                if row.base_confidence is None:
                    row.base_confidence = row.confidence
                row.scene_changes += 1
                touched.append(row.id)
            return touched

    def ids_matching(
        self,
        model: str | None = None,
        mod: str | None = None,
        provider_models: Sequence[str] = (),
        unscoped: bool = False,
    ) -> list[str]:
        """Ids of entries scoped to ``model`` / ``mod`` / ``provider_models``, or to no model (``unscoped``).

        These are the targets of scene changes.
        """
        q = select(WisdomEntryRow.id)
        if unscoped:
            q = q.where(WisdomEntryRow.model.is_(None))
        if model is not None:
            q = q.where(WisdomEntryRow.model == model)
        if mod is not None:
            q = q.where(WisdomEntryRow.mod == mod)
        if provider_models:
            q = q.where(WisdomEntryRow.model.in_(list(provider_models)))
        with self.db.session() as s:
            return list(s.scalars(q))

    # ---- rules -----------------------------------------------------------------------------------------------
    def upsert_rule(self, rule: PreventionRule) -> None:
        """Insert or overwrite a rule by id."""
        with self.db.session() as s:
            row = s.get(WisdomRuleRow, rule.rule_id)
            if row is None:
                s.add(_rule_to_row(rule))
            else:
                _rule_to_row(rule, row)

    def get_rule(self, rule_id: str) -> PreventionRule:
        """A rule by id.

        Raises:
            EntryNotFoundError: when no rule has this id.
        """
        with self.db.session() as s:
            row = s.get(WisdomRuleRow, rule_id)
            if row is None:
                raise EntryNotFoundError(f"no prevention rule {rule_id!r}")
            return _row_to_rule(row)

    def rule_by_signature(self, signature: str) -> PreventionRule | None:
        """The rule generated for ``signature`` (template + scope), if any."""
        with self.db.session() as s:
            row = s.scalars(select(WisdomRuleRow).where(WisdomRuleRow.signature == signature)).first()
            return None if row is None else _row_to_rule(row)

    def list_rules(self, statuses: Sequence[str] | None = None) -> list[PreventionRule]:
        """Rules, optionally of some states, builtins first."""
        q = select(WisdomRuleRow).order_by(WisdomRuleRow.origin, WisdomRuleRow.rule_id)
        if statuses:
            q = q.where(WisdomRuleRow.status.in_(list(statuses)))
        with self.db.session() as s:
            return [_row_to_rule(r) for r in s.scalars(q)]

    def add_rule_stats(self, deltas: dict[str, tuple[int, int, int]]) -> None:
        """Add (applied, successes, failures) to rules (flush of the engine's in-memory counters)."""
        if not deltas:
            return
        with self.db.session() as s:
            for rid, (a, ok, bad) in deltas.items():
                row = s.get(WisdomRuleRow, rid)
                if row is None:
                    continue
                row.applied += a
                row.successes += ok
                row.failures += bad

    # ---- patterns and scenes ---------------------------------------------------------------------------------
    def upsert_pattern(  # noqa: PLR0917 - one row's fields
        self,
        pattern_id: str,
        name: str,
        members: list[str],
        shared: dict[str, Any],
        mean_similarity: float,
        rule_id: str | None,
    ) -> None:
        """Record a cluster (error pattern) and the rule made from it."""
        with self.db.session() as s:
            row = s.get(WisdomPatternRow, pattern_id)
            if row is None:
                row = WisdomPatternRow(pattern_id=pattern_id, created_at=iso(now_utc()))
                s.add(row)
            row.name, row.member_ids, row.shared_features = name, list(members), dict(shared)
            row.mean_similarity, row.rule_id = mean_similarity, rule_id

    def list_patterns(self) -> list[dict[str, Any]]:
        """Every error pattern as a dict (export, GUI)."""
        with self.db.session() as s:
            return [
                {
                    "pattern_id": r.pattern_id,
                    "共性模式": r.name,
                    "创建时间": r.created_at,
                    "成员": list(r.member_ids),
                    "共性特征": dict(r.shared_features),
                    "平均相似度": r.mean_similarity,
                    "rule_id": r.rule_id,
                }
                for r in s.scalars(select(WisdomPatternRow).order_by(WisdomPatternRow.pattern_id))
            ]

    def set_links(self, member_ids: Sequence[str], pattern: str, rule_id: str) -> None:
        """Fill 关联错误 of a cluster's members (similar ids, common pattern, abstract rule id)."""
        with self.db.session() as s:
            for row in s.scalars(select(WisdomEntryRow).where(WisdomEntryRow.id.in_(list(member_ids)))):
                row.similar_ids = [m for m in member_ids if m != row.id][:20]
                row.common_pattern = pattern
                row.abstract_rule_id = rule_id

    def add_scene_change(self, change_type: str, description: str, affected: list[str], factor: float) -> int:
        """Log a scene change; returns its id."""
        with self.db.session() as s:
            row = WisdomSceneChangeRow(
                timestamp=iso(now_utc()),
                change_type=change_type,
                description=description,
                affected=affected,
                factor=factor,
            )
            s.add(row)
            s.flush()
            return int(row.id)

    def list_scene_changes(self) -> list[dict[str, Any]]:
        """Every registered scene change, newest first."""
        with self.db.session() as s:
            return [
                {
                    "id": r.id,
                    "timestamp": r.timestamp,
                    "change_type": r.change_type,
                    "description": r.description,
                    "affected": len(r.affected),
                    "factor": r.factor,
                }
                for r in s.scalars(select(WisdomSceneChangeRow).order_by(WisdomSceneChangeRow.id.desc()))
            ]

    def scene_state(self) -> dict[str, str]:
        """The last seen scene values."""
        with self.db.session() as s:
            return {r.key: r.value for r in s.scalars(select(WisdomSceneStateRow))}

    def set_scene_state(self, values: dict[str, str]) -> None:
        """Remember scene values."""
        with self.db.session() as s:
            for k, v in values.items():
                row = s.get(WisdomSceneStateRow, k)
                if row is None:
                    s.add(WisdomSceneStateRow(key=k, value=v))
                else:
                    row.value = v
