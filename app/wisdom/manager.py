"""ErrorWisdomManager: the library's service object (record, query, pre-check, audit, rules, export, metrics).

It owns the store, the timeliness and rule-generation managers and the in-memory prevention engine, and keeps
the engine's indexes in step with what it writes. The CLI, the GUI tab and :class:`app.wisdom.gate.WisdomGate`
all go through it; the module-level functions in :mod:`app.wisdom` use a default instance.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from collections.abc import Mapping, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

from app.i18n import Lang, system_lang
from app.safetext import storable_json
from app.store import Database
from app.store.meta import read_meta, write_meta
from app.wisdom import taxonomy as tx
from app.wisdom.entry import PreventionRule, Verification, WisdomEntry, WisdomFormatError, iso, now_utc
from app.wisdom.prevention import PreCheckResult, PreventionEngine, builtin_rule_records, query_keys
from app.wisdom.rules import RuleGenerationManager
from app.wisdom.store import EntryFilter, WisdomStore
from app.wisdom.timeliness import TimelinessManager, as_store, entry_confidence, state_of
from app.wisdom.wording import rule_message

log = logging.getLogger("replaysage.wisdom")

EXPORT_FORMAT = "replaysage-error-wisdom"
EXPORT_VERSION = 1
DEFAULT_CONFIDENCE = 0.85

# metadata keys of record_error that map straight onto entry attributes
_META_FIELDS = (
    "severity",
    "trigger_scene",
    "impact_scope",
    "detection_method",
    "preventability",
    "cognitive_bias",
    "environment_factor",
    "responsibility",
    "cognitive_dimensions",
    "situational_dimensions",
    "system_dimensions",
    "fix_cost",
    "effectiveness",
    "ux_compensation",
    "precheck_rule",
    "applicable_scenes",
    "non_applicable_scenes",
    "prevention_priority",
    "prevention_cost",
    "tool_name",
    "model",
    "mod",
    "stage",
    "trigger_patterns",
    "params",
    "dedupe_key",
    "recognized",
    "cognitive_flag",
    "version",
    "common_pattern",
)


AUDIT_INTERVAL_S = 86400.0
"""The timeliness audit runs at most once a day on its own (entries decay by age; a day is the finest step)."""
LAST_AUDIT_KEY = "wisdom.last_audit"
LAST_AUDIT_REPORT_KEY = "wisdom.last_audit_report"


def audit_summary(report: Mapping[str, Any]) -> dict[str, Any]:
    """An audit report's counts under English keys (the full report keeps the spec's Chinese keys)."""
    return {
        "audited": report.get("审计条目数", 0),
        "total": report.get("总条目数", 0),
        "states": dict(report.get("状态分布", {})),
        "state_changes": len(report.get("状态变化", [])),
        "rule_state_changes": len(report.get("规则状态变化", [])),
    }


def last_audit(db: Database) -> float | None:
    """When the timeliness audit last ran (Unix seconds), or None; needs no manager (no index load)."""
    with db.session() as s:
        value = read_meta(s, LAST_AUDIT_KEY)
    return float(value) if value is not None else None


def wisdom_audit_due(db: Database, now: float | None = None) -> bool:
    """True when the timeliness audit has not run in the last :data:`AUDIT_INTERVAL_S`."""
    last = last_audit(db)
    return last is None or (now if now is not None else time.time()) - last >= AUDIT_INTERVAL_S


def wisdom_metrics(store: WisdomStore) -> dict[str, Any]:
    """The spec's Phase 2 and 3 metrics computed from the store (None where nothing was measured yet).

    * 预防策略有效性 (prevention success rate) = Σ rule successes / Σ rule applications;
    * 预防前置拦截率 (pre-intercept rate) = intercepted / (intercepted + preventable errors that happened),
      intercepted = Σ successful preventions, preventable = occurrences of entries with 可预防性 high/medium;
    * 规则自动生成率 = generated rules / all learned rules (the five built-ins are not learned);
    * 时效性审计覆盖率 = audited entries / entries;
    * 认知性错误识别率 = entries labelled correctly recognised / labelled cognitive entries;
    * 聚类准确性 = generated rules validated / generated rules validated or rejected;
    * 幻觉倾向降低率 = (baseline − current) / baseline, hallucination occurrences recorded in the 30 days
      before the last 30 days (baseline) against the last 30 days (current).
    """
    rules = store.list_rules()
    st = store.entry_stats()
    applied = sum(r.applied for r in rules)
    succ = sum(r.successes for r in rules)
    learned = [r for r in rules if r.origin != "builtin"]
    generated = [r for r in learned if r.origin == "generated"]
    decided = [r for r in generated if r.last_validated]
    good = [r for r in decided if r.status != "rejected"]

    def ratio(a: int, b: int) -> float | None:
        return a / b if b else None

    now = now_utc()
    cur = store.occurrences_between("hallucination", iso(now - timedelta(days=30)), iso(now + timedelta(seconds=1)))
    base = store.occurrences_between("hallucination", iso(now - timedelta(days=60)), iso(now - timedelta(days=30)))

    return {
        "entries": st["total"],
        "by_status": st["by_status"],
        "rules": len(rules),
        "learned_rules": len(learned),
        "active_rules": sum(r.status == "active" for r in rules),
        "prevention_success_rate": ratio(succ, applied),
        "pre_intercept_rate": ratio(succ, succ + st["preventable_errors"]),
        "rule_auto_generation_rate": ratio(len(generated), len(learned)),
        "audit_coverage": ratio(st["audited"], st["total"]),
        "recognition_rate": ratio(st["recognized"], st["labelled"]),
        "cluster_accuracy": ratio(len(good), len(decided)),
        "hallucination_reduction_rate": ratio(base - cur, base),
        "targets": {
            "prevention_success_rate": 0.75,
            "pre_intercept_rate": 0.70,
            "rule_auto_generation_rate": 0.60,
            "audit_coverage": 1.0,
            "recognition_rate": 0.80,
            "cluster_accuracy": 0.80,
            "hallucination_reduction_rate": 0.50,
        },
    }


def ensure_builtin_rules(store: WisdomStore) -> None:
    """Store the built-in prevention rules that are missing (a new store has none)."""
    have = {r.rule_id for r in store.list_rules()}
    for r in builtin_rule_records():
        if r.rule_id not in have:
            store.upsert_rule(r)


class ErrorWisdomManager:
    """The error-wisdom library over one database.

    Args:
        db: the store, or a path as in the spec (``ErrorWisdomManager("./agi_memory")``: a folder gets
            ``error_wisdom.sqlite3`` inside it).
        lang: language of pre-check messages (system language when None).
    """

    def __init__(self, db: Database | str | Path, lang: Lang | None = None) -> None:
        self.store = as_store(db)
        self.db = self.store.db
        self.lang = lang or system_lang()
        self.timeliness = TimelinessManager(self.store)
        self.rule_generator = RuleGenerationManager(self.store, self.timeliness)
        self.engine = PreventionEngine(self.lang)
        self._ensure_builtins()
        self.reload()

    # ---- loading ---------------------------------------------------------------------------------------------
    def _ensure_builtins(self) -> None:
        ensure_builtin_rules(self.store)

    def reload(self) -> None:
        """Rebuild the rule index and the query index from the store."""
        self.reload_rules()
        self.engine.query_index = type(self.engine.query_index)()
        for e in self.store.iter_index_entries():
            self.engine.query_index.add(e)

    def refresh_index(self, entry_id: str) -> None:
        """Re-index one entry after its confidence or state changed (archived entries leave the index)."""
        self.engine.query_index.add(self.store.get_entry(entry_id))

    def reload_rules(self) -> None:
        """Rebuild the rule index from the store."""
        self.engine.load_rules(self.store.list_rules())

    # ---- recording -------------------------------------------------------------------------------------------
    def record_error(  # noqa: PLR0917 - the spec's signature
        self,
        error_type: str,
        error_subtype: str,
        error_code: str,
        error_description: str,
        root_cause: str,
        solution: str,
        prevention_strategy: str,
        trace_id: str,
        metadata: Mapping[str, Any] | None = None,
    ) -> str:
        """Record an error (the spec's signature); returns the entry id (an existing one when deduplicated).

        ``metadata`` may carry any entry field by its English attribute name (severity, preventability, model, mod,
        stage, tool_name, params, root_cause_categories, trigger_patterns, dedupe_key, confidence…).

        Raises:
            WisdomFormatError: naming the bad argument (unknown type, severity, root-cause code…).
        """
        md = dict(metadata or {})
        try:
            tx.type_code(error_type)
        except ValueError as exc:
            raise WisdomFormatError(f"error_type: {exc}") from exc
        sub = tx.subtype_code(error_subtype)
        if sub != "other" and tx.SUBTYPES[sub][0] != tx.type_code(error_type):
            raise WisdomFormatError(f"error_subtype {error_subtype!r} does not belong to {error_type!r}")
        if not error_description.strip():
            raise WisdomFormatError("error_description is empty")
        severity = str(md.get("severity", "moderate"))
        if severity not in tx.SEVERITIES:
            raise WisdomFormatError(f"severity {severity!r} is not one of {', '.join(tx.SEVERITIES)}")
        prev = str(md.get("preventability", "medium"))
        if prev not in tx.PREVENTABILITY:
            raise WisdomFormatError(f"preventability {prev!r} is not high/medium/low")
        try:
            roots = tx.validate_root_causes(list(md.get("root_cause_categories", [])))
        except ValueError as exc:
            raise WisdomFormatError(str(exc)) from exc
        conf = float(md.get("confidence", DEFAULT_CONFIDENCE))
        if not 0.0 <= conf <= 1.0:
            raise WisdomFormatError(f"confidence {conf} must be in 0.0–1.0")
        stamp = iso(now_utc())
        e = WisdomEntry(
            id="",
            timestamp=stamp,
            trace_id=trace_id,
            version="2.0" if tx.type_code(error_type) == tx.COGNITIVE else "1.0",
            error_type=error_type,
            error_subtype=error_subtype,
            description=error_description,
            severity=severity,
            error_code=error_code or None,
            root_cause=root_cause,
            preventability=prev,
            immediate_fix=solution or None,
            prevention_strategy=prevention_strategy,
            created_at=stamp,
            updated_at=stamp,
            confidence=conf,
            base_confidence=conf,
            status=state_of(conf),
            root_cause_categories=roots,
        )
        for k in _META_FIELDS:
            if k in md and k not in ("severity", "preventability"):
                setattr(e, k, md[k])
        return self.record_entry(e)

    def record_entry(self, e: WisdomEntry) -> str:
        """Store a built entry; an entry whose ``dedupe_key`` is already stored is merged into that one."""
        if e.dedupe_key:
            existing = self.store.find_by_dedupe_key(e.dedupe_key)
            if existing is not None:
                return self._merge(existing, e)
        if e.base_confidence is None:
            e.base_confidence = e.confidence
        eid = self.store.add_entry(e)
        self.engine.query_index.add(e)
        log.info("wisdom: recorded %s %s/%s %s", eid, e.type_code, e.subtype_code, e.error_code or "")
        return eid

    def _merge(self, existing_id: str, new: WisdomEntry) -> str:
        """One claim, two detectors: keep one entry, note the second detection and count the occurrence."""
        e = self.store.get_entry(existing_id)
        methods = [m for m in (e.detection_method, new.detection_method) if m]
        merged = "；".join(dict.fromkeys("；".join(methods).split("；"))) if methods else None
        e.detection_method = merged
        e.occurrences += 1
        e.updated_at = iso(now_utc())
        if tx.SEVERITIES.index(new.severity) > tx.SEVERITIES.index(e.severity):
            e.severity = new.severity
        e.root_cause_categories = sorted(set(e.root_cause_categories) | set(new.root_cause_categories))
        self.store.save_entry(e)
        self.engine.query_index.add(e)
        return existing_id

    def add_verification(
        self,
        entry_id: str,
        scene: str,
        effect: str,
        trigger: str,
        *,
        feedback: str = "neutral",
        trace_id: str = "",
        success: bool = True,
    ) -> WisdomEntry:
        """Append a 验证历史 line (a successful prevention raises 成功预防次数)."""
        v = Verification(
            timestamp=iso(now_utc()),
            trace_id=trace_id,
            scene=scene,
            effect=effect,
            trigger=trigger,
            feedback=feedback,
            counterexample=False,
        )
        return self.store.add_verification(entry_id, v, success)

    # ---- prevention ------------------------------------------------------------------------------------------
    def pre_check_result(self, tool_name: str, params: Mapping[str, Any]) -> PreCheckResult:
        """Built-in and learned checks with auto-fixes (full result)."""
        return self.engine.pre_check(tool_name, params)

    def pre_check(self, tool_name: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """The spec's ``pre_check``: ``{"pass", "warnings", "auto_fixes", "suggestions"}``."""
        return self.engine.pre_check(tool_name, params).to_dict()

    def query_prevention(
        self,
        context: Mapping[str, Any],
        tool_name: str | None = None,
        params: Mapping[str, Any] | None = None,
        limit: int = 10,
    ) -> list[dict[str, Any]]:
        """Prevention knowledge relevant to a context (model, mod, stage, error_code…), a tool and parameters.

        Returns the best entries (by matched features, then confidence) and the learned rules in scope, each as a
        dict with 来源 (entry/rule), id, 预防策略, 置信度, 时效性标记, 可自动执行.
        """
        model = context.get("model")
        mod = context.get("mod")
        keys = query_keys(context, tool_name, params)
        out: list[dict[str, Any]] = []
        for ie, score in self.engine.query_index.query(
            keys, model if isinstance(model, str) else None, mod if isinstance(mod, str) else None, limit
        ):
            out.append(
                {
                    "来源": "entry",
                    "id": ie.id,
                    "错误类型": tx.TYPE_LABELS.get(ie.type_code, ie.type_code),
                    "子类型": tx.subtype_label(ie.subtype_code),
                    "错误码": ie.error_code,
                    "预防策略": ie.strategy,
                    "前置检查规则": ie.precheck_rule,
                    "预防优先级": ie.priority,
                    "置信度": ie.confidence,
                    "时效性标记": ie.status,
                    "可自动执行": ie.status == "active",
                    "匹配度": score,
                }
            )
        for r in self.engine.rules():
            if tool_name and r.tool_name not in ("*", tool_name) and r.template != "pitfall":
                continue
            if (r.model and model and r.model != model) or (r.mod and mod and r.mod != mod):
                continue
            out.append(
                {
                    "来源": "rule",
                    "id": r.rule_id,
                    "rule_name": r.rule_name,
                    "预防策略": rule_message(r.message_zh, r.message_en, self.lang),
                    "置信度": r.confidence,
                    "时效性标记": r.status,
                    "可自动执行": r.status == "active",
                }
            )
        return out

    def flush_stats(self) -> None:
        """Persist the engine's rule statistics."""
        self.store.add_rule_stats(self.engine.take_stats())

    # ---- timeliness and rules ----------------------------------------------------------------------------------
    def audit(self, now: float | None = None) -> dict[str, Any]:
        """Run the timeliness audit, remember when it ran and what it found, and refresh the indexes."""
        self.flush_stats()
        report = self.timeliness.run_audit()
        with self.db.session() as s:
            write_meta(s, LAST_AUDIT_KEY, repr(now if now is not None else time.time()))
            write_meta(s, LAST_AUDIT_REPORT_KEY, json.dumps(audit_summary(report), sort_keys=True))
        self.reload()
        return report

    def last_audit(self) -> float | None:
        """When the timeliness audit last ran (Unix seconds), or None."""
        return last_audit(self.db)

    def status(self, now: float | None = None) -> dict[str, Any]:
        """When the audit last ran and is next due, its last result, and entries and rules by state."""
        from sqlalchemy import func, select

        from app.wisdom.tables import WisdomEntryRow, WisdomRuleRow

        now = now if now is not None else time.time()
        last = self.last_audit()
        with self.db.session() as s:
            report = read_meta(s, LAST_AUDIT_REPORT_KEY)
            entries = dict(s.execute(select(WisdomEntryRow.status, func.count()).group_by(WisdomEntryRow.status)).all())
            rules = dict(s.execute(select(WisdomRuleRow.status, func.count()).group_by(WisdomRuleRow.status)).all())
        return {
            "last_audit": last,
            "next_audit_due": (last + AUDIT_INTERVAL_S) if last is not None else now,
            "audit_due": last is None or now - last >= AUDIT_INTERVAL_S,
            "last_audit_result": json.loads(report) if report else None,
            "entries_by_status": {str(k): int(v) for k, v in entries.items()},
            "rules_by_status": {str(k): int(v) for k, v in rules.items()},
        }

    def register_scene_change(
        self, change_type: str, description: str, affected: Sequence[str] | None = None
    ) -> dict[str, Any]:
        """Register a scene change (×0.65 on affected entries and rules) and refresh the indexes."""
        out = self.timeliness.register_scene_change(change_type, description, affected)
        self.reload()
        return out

    def generate_rules(
        self,
        entries: Sequence[WisdomEntry] | None = None,
        min_cluster_size: int = 3,
    ) -> dict[str, Any]:
        """Run the rule-generation pipeline and load the resulting rules."""
        report = self.rule_generator.run_generation_pipeline(entries, min_cluster_size)
        self.reload_rules()
        return report

    def validate_rule(self, rule_id: str, approve: bool = True) -> PreventionRule:
        """Validate (observation → active) or reject a rule."""
        r = self.rule_generator.validate_rule(rule_id, approve)
        self.reload_rules()
        return r

    # ---- reading ---------------------------------------------------------------------------------------------
    def list_entries(self, flt: EntryFilter | None = None, limit: int = 500) -> list[WisdomEntry]:
        """Entries for a list view."""
        return self.store.list_entries(flt, limit)

    def get_entry(self, entry_id: str) -> WisdomEntry:
        """One entry with its history (raises EntryNotFoundError)."""
        return self.store.get_entry(entry_id)

    def list_rules(self, statuses: Sequence[str] | None = None) -> list[PreventionRule]:
        """Prevention rules with statistics."""
        self.flush_stats()
        return self.store.list_rules(statuses)

    def current_confidence(self, e: WisdomEntry) -> float:
        """An entry's confidence now (time decay included)."""
        return entry_confidence(e)

    def metrics(self) -> dict[str, Any]:
        """The spec's Phase 2 and 3 metrics (:func:`wisdom_metrics`), the engine's rule statistics written first."""
        self.flush_stats()
        return wisdom_metrics(self.store)

    # ---- export / import -------------------------------------------------------------------------------------
    def export_data(self) -> dict[str, Any]:
        """The whole library as one JSON document (entries, rules, patterns; Chinese keys inside)."""
        self.flush_stats()
        return {
            "format": EXPORT_FORMAT,
            "version": EXPORT_VERSION,
            "exported_at": iso(now_utc()),
            "error_wisdom_entries": [e.to_spec() for e in self.store.all_entries_full()],
            "prevention_rules": [r.to_spec() for r in self.store.list_rules() if r.origin != "builtin"],
            "error_patterns": self.store.list_patterns(),
        }

    def export_json(self, path: Path | str) -> int:
        """Write :meth:`export_data` to ``path`` atomically; returns the number of entries."""
        data = self.export_data()
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=p.name, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, ensure_ascii=False, indent=2)
        os.replace(tmp, p)
        return len(data["error_wisdom_entries"])

    def import_data(self, data: Any, replace: bool = False) -> dict[str, Any]:
        """Import entries (and rules) from an export, a list of entries or one entry; all or nothing.

        Raises:
            WisdomFormatError: naming the first bad entry; nothing is written then.
        """
        raw_patterns: list[dict[str, Any]] = []
        if isinstance(data, dict) and "error_wisdom_entries" in data:
            raw_entries, raw_rules = data.get("error_wisdom_entries") or [], data.get("prevention_rules") or []
            raw_patterns = data.get("error_patterns") or []
        elif isinstance(data, dict) and "id" in data:
            raw_entries, raw_rules = [data], []
        elif isinstance(data, list):
            raw_entries, raw_rules = data, []
        else:
            raise WisdomFormatError("not an error-wisdom document: expected an export, a list of entries or one entry")
        entries = []
        for i, d in enumerate(raw_entries):
            try:
                entries.append(WisdomEntry.from_spec(d))
            except WisdomFormatError as exc:
                raise WisdomFormatError(f"entry #{i + 1}: {exc}") from exc
        rules = [PreventionRule.from_spec(r) for r in raw_rules]
        ids = self.store.add_entries(entries, replace=replace)
        for r in rules:
            if r.origin == "builtin":
                continue
            if replace or self.store.rule_by_signature(r.signature) is None:
                self.store.upsert_rule(r)
        for p in raw_patterns:
            if isinstance(p, dict) and p.get("pattern_id"):
                self.store.upsert_pattern(
                    str(p["pattern_id"]),
                    str(p.get("共性模式", "")),
                    list(p.get("成员", [])),
                    dict(p.get("共性特征", {})),
                    float(p.get("平均相似度", 0.0)),
                    p.get("rule_id"),
                )
        self.reload()
        return {"imported": len(ids), "skipped": len(entries) - len(ids), "rules": len(rules)}

    def import_json(self, path: Path | str, replace: bool = False) -> dict[str, Any]:
        """Import a JSON file (see :meth:`import_data`).

        Raises:
            WisdomFormatError: when the file is unreadable, not JSON or malformed.
        """
        p = Path(path)
        try:
            data = storable_json(p.read_text(encoding="utf-8"))  # an outside file's strings, bound for the store
        except OSError as exc:
            raise WisdomFormatError(f"cannot read {p}: {exc.strerror or exc}") from exc
        except json.JSONDecodeError as exc:
            raise WisdomFormatError(f"{p} is not valid JSON (line {exc.lineno}: {exc.msg})") from exc
        return self.import_data(data, replace=replace)

    def label_entry(self, entry_id: str, recognized: bool | None) -> None:
        """Label a cognitive entry as correctly recognised or not (None clears the label)."""
        self.store.set_recognized(entry_id, recognized)

    def ids_for_filter(self, flt: EntryFilter) -> list[str]:
        """Ids of entries matching a filter (GUI helpers)."""
        return [e.id for e in self.store.list_entries(flt, limit=100000)]
