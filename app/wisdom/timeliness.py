"""Timeliness: the spec's triple decay (time, scene change, counterexample), states, and the audit.

Confidence is always recomputed from its causes rather than multiplied in place, so running the audit twice
gives the same answer and nothing drifts::

    confidence = base · e^(−0.01·days) · 0.65^scene_changes · 0.7^counterexamples

``days`` counts from the entry's creation (元数据.创建时间), ``base`` is the confidence it was recorded or
imported with. States follow the spec: active > 0.7, deprecated 0.3–0.7 (advice only), archived < 0.3.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from app.i18n import Lang, tr
from app.store import Database
from app.wisdom import taxonomy as tx
from app.wisdom.entry import PreventionRule, Verification, WisdomEntry, WisdomFormatError, iso, now_utc, parse_iso
from app.wisdom.store import EntryNotFoundError, WisdomStore

LAMBDA_DECAY = 0.01
"""Time decay per day (spec: 每天衰减1%)."""
SCENE_CHANGE_FACTOR = 1 - 0.35
"""Scene change: confidence × (1 − 0.35) (spec Phase 3 table; inside Phase 1's 30–50% band)."""
COUNTEREXAMPLE_FACTOR = 0.7
"""Each counterexample lowers confidence by 30%."""


def time_decay(base_confidence: float, days_since_creation: float) -> float:
    """The spec's time decay: ``base · e^(−0.01·days)`` (negative ages count as zero)."""
    return base_confidence * math.exp(-LAMBDA_DECAY * max(0.0, days_since_creation))


def scene_change_decay(current_confidence: float, scene_changes: int = 1) -> float:
    """Scene-change decay: ``confidence × 0.65^n``."""
    return current_confidence * SCENE_CHANGE_FACTOR ** max(0, scene_changes)


def counterexample_decay(current_confidence: float, counterexample_count: int) -> float:
    """The spec's counterexample decay: ``confidence × 0.7^n``."""
    return current_confidence * COUNTEREXAMPLE_FACTOR ** max(0, counterexample_count)


def compute_confidence(base: float, days: float, scene_changes: int, counterexamples: int) -> float:
    """All three decays applied to ``base``, clamped to 0–1."""
    c = counterexample_decay(scene_change_decay(time_decay(base, days), scene_changes), counterexamples)
    return min(1.0, max(0.0, c))


def state_of(confidence: float) -> str:
    """Active > 0.7, deprecated 0.3–0.7, archived < 0.3."""
    return tx.status_for_confidence(confidence)


def _days(since: str, now: datetime) -> float:
    try:
        start = parse_iso(since)
    except WisdomFormatError:  # a broken timestamp must not stop an audit: treat the entry as new
        return 0.0
    return (now - start).total_seconds() / 86400.0


def entry_confidence(e: WisdomEntry, now: datetime | None = None) -> float:
    """Current confidence of an entry from its base, age, scene changes and counterexamples."""
    now = now or now_utc()
    base = e.base_confidence if e.base_confidence is not None else e.confidence
    return compute_confidence(base, _days(e.created_at or e.timestamp, now), e.scene_changes, e.counterexamples)


def rule_confidence(r: PreventionRule, now: datetime | None = None) -> float:
    """Current confidence of a rule; age counts from its last validation (or creation)."""
    now = now or now_utc()
    base = r.base_confidence if r.base_confidence is not None else r.confidence
    scenes = int(r.params.get("_scene_changes", 0))
    return compute_confidence(base, _days(r.last_validated or r.created_at, now), scenes, r.counterexamples)


def rule_state(r: PreventionRule, confidence: float) -> str:
    """Rule state: observation/rejected stay until validated, unless confidence falls to archived."""
    decayed = state_of(confidence)
    if r.status in ("observation", "rejected"):
        return "archived" if decayed == "archived" else r.status
    return decayed


def as_store(db: Database | WisdomStore | str | Path) -> WisdomStore:
    """A repository from a database, a repository, or a path.

    The spec passes a memory folder like ``"./agi_memory"``: a folder gets ``error_wisdom.sqlite3`` inside it.
    """
    if isinstance(db, WisdomStore):
        return db
    if isinstance(db, Database):
        return WisdomStore(db)
    from app.store import open_database

    p = Path(db)
    if p.is_dir() or not p.suffix:
        p.mkdir(parents=True, exist_ok=True)
        p = p / "error_wisdom.sqlite3"
    return WisdomStore(open_database(p))


def ruling(stage: str, reviewer: str, note: str, *, trace_id: str = "", confirmed: bool) -> Verification:
    """The 验证历史 line of a person's ruling on an entry's issue (``confirmed``: the issue holds; else a false alarm).

    Why structure: the line is read in either interface language, so the store keeps the library's fixed 中文
    texts (rendered at view time by :func:`app.wisdom.wording.entry_text`: 分析员复核, 分析员裁定误报 /
    分析员确认问题) and the reviewer and their note as separate fields (``复核人``, ``复核说明``) shown as they were
    written. Older versions stored "analyst: false alarm: NOTE"; the view recognises that fixed prefix.
    """
    extra = {k: v for k, v in (("复核人", reviewer.strip()), ("复核说明", note.strip())) if v}
    return Verification(
        timestamp=iso(now_utc()),
        trace_id=trace_id,
        scene=f"{stage} 分析员复核" if stage else "分析员复核",
        effect="问题属实" if confirmed else "反例",
        trigger="分析员确认问题" if confirmed else "分析员裁定误报",
        feedback="positive" if confirmed else "negative",
        counterexample=not confirmed,
        extra=extra,
    )


class TimelinessManager:
    """Confidence, usability, scene changes, counterexamples and audits over the store (spec Phase 3 API).

    Args:
        db: the store: a :class:`Database`, a :class:`WisdomStore`, or a path (see :func:`as_store`).
    """

    def __init__(self, db: Database | WisdomStore | str | Path) -> None:
        self.store = as_store(db)

    def get_confidence(
        self, entry_id: str, entry_data: WisdomEntry | dict[str, Any] | None = None, now: datetime | None = None
    ) -> float:
        """Current confidence of an entry (read from the store unless ``entry_data`` is given)."""
        if entry_data is None:
            e = self.store.get_entry(entry_id)
        elif isinstance(entry_data, dict):
            e = WisdomEntry.from_spec(entry_data)
        else:
            e = entry_data
        return entry_confidence(e, now)

    def is_usable(self, entry_id: str, now: datetime | None = None) -> bool:
        """True unless the entry has decayed to archived (deprecated entries still advise)."""
        return state_of(self.get_confidence(entry_id, now=now)) != "archived"

    def register_scene_change(
        self, change_type: str, change_description: str, affected_patterns: Sequence[str] | None = None
    ) -> dict[str, Any]:
        """Lower the confidence of affected entries and rules by 35% and log the change.

        Args:
            change_type: e.g. ``model_upgrade``, ``model_change``, ``provider_change``, ``knowledge_update``,
                ``mod_version_change``.
            change_description: human-readable description (stored).
            affected_patterns: entry ids, ``model:<id>`` / ``mod:<name>`` selectors, ``rule:<id>``; None or
                ``["*"]`` means everything.

        Returns:
            ``{"change_id", "affected_entries", "affected_rules"}``.
        """
        everything = affected_patterns is None or "*" in affected_patterns
        entry_ids: set[str] | None = None
        rule_ids: set[str] | None = None
        models: set[str] = set()
        mods: set[str] = set()
        if not everything:
            entry_ids, rule_ids = set(), set()
            for p in affected_patterns or ():
                if p.startswith("model:"):
                    models.add(p[6:])
                    entry_ids.update(self.store.ids_matching(model=p[6:]))
                elif p.startswith("mod:"):
                    mods.add(p[4:])
                    entry_ids.update(self.store.ids_matching(mod=p[4:]))
                elif p.startswith("rule:"):
                    rule_ids.add(p[5:])
                else:
                    entry_ids.add(p)
        touched = self.store.bump_scene_changes(None if entry_ids is None else sorted(entry_ids))
        rules_touched: list[str] = []
        for r in self.store.list_rules():
            if r.origin == "builtin" or r.status == "archived":
                continue
            hit = (
                everything
                or r.rule_id in (rule_ids or set())
                or (r.model is not None and r.model in models)
                or (r.mod is not None and r.mod in mods)
                or bool(set(r.source_ids) & (entry_ids or set()))
            )
            if hit:
                if r.base_confidence is None:
                    r.base_confidence = r.confidence
                r.params["_scene_changes"] = int(r.params.get("_scene_changes", 0)) + 1
                self._refresh_rule(r)
                rules_touched.append(r.rule_id)
        now = now_utc()
        updates = []
        for eid in touched:
            e = self.store.get_entry(eid)
            c = entry_confidence(e, now)
            updates.append((eid, c, state_of(c)))
        self.store.update_timeliness(updates, None)
        cid = self.store.add_scene_change(
            change_type, change_description, touched + [f"rule:{r}" for r in rules_touched], SCENE_CHANGE_FACTOR
        )
        return {"change_id": cid, "affected_entries": touched, "affected_rules": rules_touched}

    def _refresh_rule(self, r: PreventionRule, now: datetime | None = None) -> PreventionRule:
        c = rule_confidence(r, now)
        base = r.base_confidence if r.base_confidence is not None else r.confidence
        r.confidence = c
        r.decay_factor = round(c / base, 6) if base else 0.0
        r.status = rule_state(r, c)
        self.store.upsert_rule(r)
        return r

    def register_counterexample(self, entry_id: str, reason: str, trace_id: str = "") -> float:
        """Record that the entry's prevention failed (×0.7) and return its new confidence."""
        e = self.store.get_entry(entry_id)
        if e.base_confidence is None:
            e.base_confidence = e.confidence
            self.store.save_entry(e)
        v = Verification(
            timestamp=iso(now_utc()),
            trace_id=trace_id,
            scene=reason,
            effect="反例",
            trigger=reason,
            feedback="negative",
            counterexample=True,
        )
        e = self.store.add_verification(entry_id, v, success=False)
        c = entry_confidence(e)
        self.store.update_timeliness([(entry_id, c, state_of(c))], None)
        for rid in filter(None, [e.abstract_rule_id]):
            try:
                r = self.store.get_rule(rid)
            except EntryNotFoundError:  # an imported abstract rule id may name no stored rule
                continue
            if r.base_confidence is None:
                r.base_confidence = r.confidence
            r.counterexamples += 1
            self._refresh_rule(r)
        return c

    def register_confirmation(
        self, entry_id: str, *, trace_id: str = "", stage: str = "", reviewer: str = "", note: str = ""
    ) -> WisdomEntry:
        """A person ruled the entry's issue right: a successful verification (the structured :func:`ruling`)."""
        return self.store.add_verification(
            entry_id, ruling(stage, reviewer, note, trace_id=trace_id, confirmed=True), True
        )

    def register_retraction(
        self, entry_id: str, *, trace_id: str = "", stage: str = "", reviewer: str = "", note: str = ""
    ) -> list[str]:
        """A person ruled the entry's issue a false alarm: it teaches nothing from now on (issue 28 §3).

        The entry keeps its history (a counterexample verification records the ruling) but its base confidence
        becomes 0, so every audit keeps it archived: it is never injected as a pitfall and no rule is generated
        from it. It leaves the sources of the rules built from it; a learned rule left with no source is archived.
        The ruling is stored as structure (:func:`ruling`): who (``reviewer``), the verdict, and their own words
        (``note``), never as a sentence in one language.

        Returns:
            The ids of the rules archived because of it.
        """
        e = self.store.get_entry(entry_id)
        v = ruling(stage, reviewer, note, trace_id=trace_id, confirmed=False)
        e = self.store.add_verification(entry_id, v, success=False)
        e.base_confidence = 0.0
        e.confidence = 0.0
        e.status = "archived"
        self.store.save_entry(e)
        self.store.update_timeliness([(entry_id, 0.0, "archived")], None)
        self.store.set_recognized(entry_id, False)
        archived: list[str] = []
        for r in self.store.list_rules():
            if r.origin == "builtin" or (entry_id not in r.source_ids and r.rule_id != e.abstract_rule_id):
                continue
            r.source_ids = [x for x in r.source_ids if x != entry_id]
            r.counterexamples += 1
            if not r.source_ids:
                r.base_confidence = 0.0
                archived.append(r.rule_id)
            elif r.base_confidence is None:
                r.base_confidence = r.confidence
            self._refresh_rule(r)
        return archived

    def run_audit(
        self, entries_data: Sequence[WisdomEntry | dict[str, Any]] | None = None, now: datetime | None = None
    ) -> dict[str, Any]:
        """Recompute every entry's and rule's confidence and state, store them, and report what changed.

        Returns:
            A report: 审计时间, 总条目数, 审计条目数, 覆盖率, 状态分布, 状态变化 (id, from, to, confidence),
            规则状态分布, 规则状态变化.
        """
        now = now or now_utc()
        stamp = iso(now)
        entries = (
            [WisdomEntry.from_spec(e) if isinstance(e, dict) else e for e in entries_data]
            if entries_data is not None
            else list(self.store.iter_entries())
        )
        dist = dict.fromkeys(tx.STATUSES, 0)
        changes: list[dict[str, Any]] = []
        updates: list[tuple[str, float, str]] = []
        for e in entries:
            c = entry_confidence(e, now)
            st = state_of(c)
            dist[st] += 1
            if st != e.status:
                changes.append({"id": e.id, "from": e.status, "to": st, "confidence": round(c, 4)})
            updates.append((e.id, c, st))
        self.store.update_timeliness(updates, stamp)
        rule_dist: dict[str, int] = {}
        rule_changes: list[dict[str, Any]] = []
        for r in self.store.list_rules():
            if r.origin == "builtin":
                rule_dist["builtin"] = rule_dist.get("builtin", 0) + 1
                continue
            before = r.status
            fresh = self._refresh_rule(r, now)
            rule_dist[fresh.status] = rule_dist.get(fresh.status, 0) + 1
            if fresh.status != before:
                rule_changes.append(
                    {
                        "rule_id": fresh.rule_id,
                        "from": before,
                        "to": fresh.status,
                        "confidence": round(fresh.confidence, 4),
                    }
                )
        total = self.store.count_entries()
        return {
            "审计时间": stamp,
            "总条目数": total,
            "审计条目数": len(entries),
            "覆盖率": (len(entries) / total) if total else 1.0,
            "状态分布": dist,
            "状态变化": changes,
            "规则状态分布": rule_dist,
            "规则状态变化": rule_changes,
        }


def format_audit_report(report: dict[str, Any], lang: Lang) -> str:
    """A short human-readable audit report in ``lang``."""
    d = report["状态分布"]
    lines = [
        tr(lang, "Timeliness audit {report}", report=report["审计时间"]),
        tr(
            lang,
            "Audited {report}/{report_2} entries (coverage {report_3:.0%})",
            report=report["审计条目数"],
            report_2=report["总条目数"],
            report_3=report["覆盖率"],
        ),
        tr(
            lang,
            "active {active} · deprecated {deprecated} · archived {archived}",
            active=d["active"],
            deprecated=d["deprecated"],
            archived=d["archived"],
        ),
    ]
    for ch in report["状态变化"][:50]:
        lines.append(f"  {ch['id']}: {ch['from']} → {ch['to']} ({ch['confidence']:.3f})")
    for ch in report["规则状态变化"][:50]:
        lines.append(f"  {ch['rule_id']}: {ch['from']} → {ch['to']} ({ch['confidence']:.3f})")
    return "\n".join(lines)
