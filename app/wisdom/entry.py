"""Error-wisdom entries, prevention rules and their JSON form with the spec's Chinese keys.

An entry is kept flat (one attribute per spec field) because the store maps each to a column and the GUI filters
on them. ``to_spec`` / ``from_spec`` convert to and from the spec's nested JSON. Optional spec keys absent from an
imported document stay absent on export, and keys this code does not know are kept per section, so an exported
document equals the imported one. Our own additions (model, mod, stage, structured root causes, dedupe key…)
live under one extra top-level key ``扩展`` that is written only when it holds something.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from app.errors import KnownError
from app.wisdom import taxonomy as tx

ENTRY_ID_RE = re.compile(r"^ew_(\d{8})_(\d{3,})$")


class WisdomFormatError(KnownError):
    """An error-wisdom document (import file or API argument) is malformed; the message names the field."""


def now_utc() -> datetime:
    """The current time in UTC (one place, so tests and the store agree)."""
    return datetime.now(UTC)


def iso(dt: datetime) -> str:
    """ISO 8601 with a ``Z`` suffix, the spec's timestamp form."""
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_iso(text: str, what: str = "timestamp") -> datetime:
    """Parse an ISO 8601 timestamp (``Z`` or an offset; naive means UTC).

    Raises:
        WisdomFormatError: naming ``what`` when the text is not a timestamp.
    """
    try:
        dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (ValueError, AttributeError) as exc:
        raise WisdomFormatError(f"{what}: {text!r} is not an ISO 8601 timestamp") from exc
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


@dataclass(slots=True)
class Verification:
    """One line of 验证历史: an outcome of applying the entry's prevention knowledge."""

    timestamp: str
    trace_id: str
    scene: str
    effect: str
    trigger: str
    feedback: str
    counterexample: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def to_spec(self) -> dict[str, Any]:
        """The spec's keys (timestamp, trace_id, 场景, 效果, 预防触发, 用户反馈)."""
        d: dict[str, Any] = {
            "timestamp": self.timestamp,
            "trace_id": self.trace_id,
            "场景": self.scene,
            "效果": self.effect,
            "预防触发": self.trigger,
            "用户反馈": self.feedback,
        }
        d.update(self.extra)
        return d

    @classmethod
    def from_spec(cls, d: dict[str, Any]) -> Verification:
        """Inverse of :meth:`to_spec`; ``效果`` 预防失败/反例 marks a counterexample."""
        known = {"timestamp", "trace_id", "场景", "效果", "预防触发", "用户反馈"}
        effect = str(d.get("效果", ""))
        return cls(
            timestamp=str(d.get("timestamp", "")),
            trace_id=str(d.get("trace_id", "")),
            scene=str(d.get("场景", "")),
            effect=effect,
            trigger=str(d.get("预防触发", "")),
            feedback=str(d.get("用户反馈", "")),
            counterexample=effect in COUNTEREXAMPLE_EFFECTS,
            extra={k: v for k, v in d.items() if k not in known},
        )


COUNTEREXAMPLE_EFFECTS = ("预防失败", "反例", "failed", "counterexample")


@dataclass(slots=True)
class WisdomEntry:
    """One error-wisdom entry: every field of the spec's entry structure plus our scope extension."""

    id: str
    timestamp: str
    trace_id: str
    version: str
    # 错误发现
    error_type: str
    error_subtype: str
    description: str
    severity: str
    error_code: str | None = None
    trigger_scene: str | None = None
    impact_scope: str | None = None
    detection_method: str | None = None
    # 原因分析
    root_cause: str = ""
    preventability: str = "medium"
    cognitive_bias: str | None = None
    environment_factor: str | None = None
    responsibility: str | None = None
    cognitive_dimensions: dict[str, Any] | None = None
    situational_dimensions: dict[str, Any] | None = None
    system_dimensions: dict[str, Any] | None = None
    # 解决方案
    immediate_fix: str | None = None
    fix_cost: str | None = None
    effectiveness: str | None = None
    ux_compensation: str | None = None
    # 预防知识
    prevention_strategy: str = ""
    precheck_rule: dict[str, Any] | None = None
    applicable_scenes: list[str] = field(default_factory=list)
    non_applicable_scenes: list[str] = field(default_factory=list)
    prevention_priority: str | None = None
    prevention_cost: str | None = None
    # 验证历史
    verifications: list[Verification] = field(default_factory=list)
    # 关联错误
    similar_ids: list[str] = field(default_factory=list)
    common_pattern: str | None = None
    abstract_rule_id: str | None = None
    # 元数据
    created_at: str = ""
    updated_at: str = ""
    verification_count: int = 0
    success_count: int = 0
    confidence: float = 0.8
    status: str = "active"
    cognitive_flag: bool | None = None
    # 扩展 (ours)
    tool_name: str | None = None
    model: str | None = None
    mod: str | None = None
    stage: str | None = None
    root_cause_categories: list[str] = field(default_factory=list)
    trigger_patterns: list[str] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)
    dedupe_key: str | None = None
    occurrences: int = 1
    base_confidence: float | None = None
    counterexamples: int = 0
    scene_changes: int = 0
    recognized: bool | None = None
    # unknown keys per section ("" = top level), kept for a lossless round trip
    extras: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def type_code(self) -> str:
        """``tool`` or ``cognitive``."""
        return tx.type_code(self.error_type)

    @property
    def subtype_code(self) -> str:
        """The normalised subtype code (``call_failure``, ``hallucination``…)."""
        return tx.subtype_code(self.error_subtype)

    def effective_root_causes(self) -> list[str]:
        """Structured root causes, inferred from the text when the entry was imported without them."""
        if self.root_cause_categories:
            return list(self.root_cause_categories)
        return tx.infer_root_causes(self.root_cause, self.cognitive_bias, self.environment_factor, self.responsibility)

    def effective_trigger_patterns(self) -> list[str]:
        """Trigger features: explicit patterns, else tool, code, scene words (for clustering imported entries)."""
        feats = set(self.trigger_patterns)
        if not feats:
            if self.tool_name:
                feats.add(f"tool:{self.tool_name}")
            if self.error_code:
                feats.add(f"code:{self.error_code}")
            for k in self.params:
                feats.add(f"param:{k}")
            if self.model:
                feats.add(f"model:{self.model}")
            if self.common_pattern:
                feats.add(f"pattern:{self.common_pattern}")
        return sorted(feats)

    def _ext(self) -> dict[str, Any]:
        ext: dict[str, Any] = {}
        for key, value in (
            ("工具名", self.tool_name),
            ("模型", self.model),
            ("mod", self.mod),
            ("阶段", self.stage),
            ("去重键", self.dedupe_key),
            ("基础置信度", self.base_confidence),
            ("识别正确", self.recognized),
        ):
            if value is not None:
                ext[key] = value
        for key, lst in (("根因类别", self.root_cause_categories), ("触发模式", self.trigger_patterns)):
            if lst:
                ext[key] = list(lst)
        if self.params:
            ext["参数"] = dict(self.params)
        derived = sum(1 for v in self.verifications if v.counterexample)
        for key, n, default in (
            ("出现次数", self.occurrences, 1),
            ("反例次数", self.counterexamples, derived),
            ("场景变化次数", self.scene_changes, 0),
        ):
            if n != default:
                ext[key] = n
        return ext

    def to_spec(self) -> dict[str, Any]:
        """The spec's JSON document (Chinese keys, the spec's key order)."""
        ex = self.extras

        def sect(name: str, pairs: list[tuple[str, Any, bool]]) -> dict[str, Any]:
            out = {k: v for k, v, required in pairs if required or v is not None}
            out.update(copy.deepcopy(ex.get(name, {})))
            return out

        doc: dict[str, Any] = {
            "id": self.id,
            "timestamp": self.timestamp,
            "trace_id": self.trace_id,
            "version": self.version,
        }
        doc["错误发现"] = sect(
            "错误发现",
            [
                ("错误类型", self.error_type, True),
                ("子类型", self.error_subtype, True),
                ("错误码", self.error_code, False),
                ("错误描述", self.description, True),
                ("严重程度", self.severity, True),
                ("触发场景", self.trigger_scene, False),
                ("影响范围", self.impact_scope, False),
                ("检测方法", self.detection_method, False),
            ],
        )
        doc["原因分析"] = sect(
            "原因分析",
            [
                ("根本原因", self.root_cause, True),
                ("认知偏差", self.cognitive_bias, False),
                ("环境因素", self.environment_factor, False),
                ("责任归属", self.responsibility, False),
                ("认知维度分析", copy.deepcopy(self.cognitive_dimensions), False),
                ("情境维度分析", copy.deepcopy(self.situational_dimensions), False),
                ("系统维度分析", copy.deepcopy(self.system_dimensions), False),
                ("可预防性", self.preventability, True),
            ],
        )
        doc["解决方案"] = sect(
            "解决方案",
            [
                ("即时纠错", self.immediate_fix, False),
                ("纠错成本", self.fix_cost, False),
                ("有效性", self.effectiveness, False),
                ("用户体验补偿", self.ux_compensation, False),
            ],
        )
        doc["预防知识"] = sect(
            "预防知识",
            [
                ("预防策略", self.prevention_strategy, True),
                ("前置检查规则", copy.deepcopy(self.precheck_rule), False),
                ("适用场景", list(self.applicable_scenes), True),
                ("不适用场景", list(self.non_applicable_scenes), True),
                ("预防优先级", self.prevention_priority, False),
                ("预防成本", self.prevention_cost, False),
            ],
        )
        doc["验证历史"] = [v.to_spec() for v in self.verifications]
        doc["关联错误"] = sect(
            "关联错误",
            [
                ("相似错误ID", list(self.similar_ids), True),
                ("共性模式", self.common_pattern, False),
                ("抽象规则ID", self.abstract_rule_id, False),
            ],
        )
        doc["元数据"] = sect(
            "元数据",
            [
                ("创建时间", self.created_at, True),
                ("最后更新", self.updated_at, True),
                ("验证次数", self.verification_count, True),
                ("成功预防次数", self.success_count, True),
                ("置信度", self.confidence, True),
                ("时效性标记", self.status, True),
                ("认知性错误标记", self.cognitive_flag, False),
            ],
        )
        ext = self._ext()
        if ext:
            doc["扩展"] = ext
        doc.update(copy.deepcopy(ex.get("", {})))
        return doc

    @classmethod
    def from_spec(cls, doc: dict[str, Any]) -> WisdomEntry:
        """Build an entry from the spec's JSON, checking the required fields of the spec's field table.

        Raises:
            WisdomFormatError: naming the missing or malformed field.
        """
        if not isinstance(doc, dict):
            raise WisdomFormatError("an error-wisdom entry must be a JSON object")
        eid = _req(doc, "id", "")
        if not ENTRY_ID_RE.match(str(eid)):
            raise WisdomFormatError(f"id {eid!r} is not of the form ew_YYYYMMDD_NNN")
        where = f"entry {eid}"
        for k in ("timestamp", "trace_id", "version"):
            _req(doc, k, where)
        parse_iso(str(doc["timestamp"]), f"{where}: timestamp")
        disc = _sect(doc, "错误发现", where)
        cause = _sect(doc, "原因分析", where)
        sol = doc.get("解决方案", {}) or {}
        prev = _sect(doc, "预防知识", where)
        hist = doc.get("验证历史")
        if not isinstance(hist, list):
            raise WisdomFormatError(f"{where}: 验证历史 must be a list")
        rel = doc.get("关联错误", {}) or {}
        meta = _sect(doc, "元数据", where)
        ext = doc.get("扩展", {}) or {}
        etype = str(_req(disc, "错误类型", where))
        try:
            tx.type_code(etype)
        except ValueError as exc:
            raise WisdomFormatError(f"{where}: 错误发现.错误类型: {exc}") from exc
        severity = str(_req(disc, "严重程度", where))
        if severity not in tx.SEVERITIES:
            raise WisdomFormatError(f"{where}: 错误发现.严重程度 {severity!r} is not one of {', '.join(tx.SEVERITIES)}")
        preventability = str(_req(cause, "可预防性", where))
        if preventability not in tx.PREVENTABILITY:
            raise WisdomFormatError(f"{where}: 原因分析.可预防性 {preventability!r} is not high/medium/low")
        conf = _req(meta, "置信度", where)
        if not isinstance(conf, int | float) or not 0.0 <= float(conf) <= 1.0:
            raise WisdomFormatError(f"{where}: 元数据.置信度 {conf!r} must be a number in 0.0–1.0")
        status = str(_req(meta, "时效性标记", where))
        if status not in tx.STATUSES:
            raise WisdomFormatError(f"{where}: 元数据.时效性标记 {status!r} is not active/deprecated/archived")
        roots = list(ext.get("根因类别", []))
        try:
            tx.validate_root_causes(roots)
        except ValueError as exc:
            raise WisdomFormatError(f"{where}: 扩展.根因类别: {exc}") from exc

        def extra(section: dict[str, Any], known: set[str]) -> dict[str, Any]:
            return {k: copy.deepcopy(v) for k, v in section.items() if k not in known}

        extras = {
            "错误发现": extra(
                disc, {"错误类型", "子类型", "错误码", "错误描述", "严重程度", "触发场景", "影响范围", "检测方法"}
            ),
            "原因分析": extra(
                cause,
                {
                    "根本原因",
                    "认知偏差",
                    "环境因素",
                    "责任归属",
                    "认知维度分析",
                    "情境维度分析",
                    "系统维度分析",
                    "可预防性",
                },
            ),
            "解决方案": extra(sol, {"即时纠错", "纠错成本", "有效性", "用户体验补偿"}),
            "预防知识": extra(prev, {"预防策略", "前置检查规则", "适用场景", "不适用场景", "预防优先级", "预防成本"}),
            "关联错误": extra(rel, {"相似错误ID", "共性模式", "抽象规则ID"}),
            "元数据": extra(
                meta, {"创建时间", "最后更新", "验证次数", "成功预防次数", "置信度", "时效性标记", "认知性错误标记"}
            ),
            "": extra(
                doc,
                {
                    "id",
                    "timestamp",
                    "trace_id",
                    "version",
                    "错误发现",
                    "原因分析",
                    "解决方案",
                    "预防知识",
                    "验证历史",
                    "关联错误",
                    "元数据",
                    "扩展",
                },
            ),
        }
        extras = {k: v for k, v in extras.items() if v}
        return cls(
            id=str(eid),
            timestamp=str(doc["timestamp"]),
            trace_id=str(doc["trace_id"]),
            version=str(doc["version"]),
            error_type=etype,
            error_subtype=str(_req(disc, "子类型", where)),
            description=str(_req(disc, "错误描述", where)),
            severity=severity,
            error_code=_opt_str(disc, "错误码"),
            trigger_scene=_opt_str(disc, "触发场景"),
            impact_scope=_opt_str(disc, "影响范围"),
            detection_method=_opt_str(disc, "检测方法"),
            root_cause=str(_req(cause, "根本原因", where)),
            preventability=preventability,
            cognitive_bias=_opt_str(cause, "认知偏差"),
            environment_factor=_opt_str(cause, "环境因素"),
            responsibility=_opt_str(cause, "责任归属"),
            cognitive_dimensions=copy.deepcopy(cause.get("认知维度分析")),
            situational_dimensions=copy.deepcopy(cause.get("情境维度分析")),
            system_dimensions=copy.deepcopy(cause.get("系统维度分析")),
            immediate_fix=_opt_str(sol, "即时纠错"),
            fix_cost=_opt_str(sol, "纠错成本"),
            effectiveness=_opt_str(sol, "有效性"),
            ux_compensation=_opt_str(sol, "用户体验补偿"),
            prevention_strategy=str(_req(prev, "预防策略", where)),
            precheck_rule=copy.deepcopy(prev.get("前置检查规则")),
            applicable_scenes=list(prev.get("适用场景", [])),
            non_applicable_scenes=list(prev.get("不适用场景", [])),
            prevention_priority=_opt_str(prev, "预防优先级"),
            prevention_cost=_opt_str(prev, "预防成本"),
            verifications=[Verification.from_spec(v) for v in hist],
            similar_ids=list(rel.get("相似错误ID", [])),
            common_pattern=_opt_str(rel, "共性模式"),
            abstract_rule_id=_opt_str(rel, "抽象规则ID"),
            created_at=str(_req(meta, "创建时间", where)),
            updated_at=str(_req(meta, "最后更新", where)),
            verification_count=int(meta.get("验证次数", 0)),
            success_count=int(meta.get("成功预防次数", 0)),
            confidence=float(conf),
            status=status,
            cognitive_flag=meta.get("认知性错误标记"),
            tool_name=ext.get("工具名"),
            model=ext.get("模型"),
            mod=ext.get("mod"),
            stage=ext.get("阶段"),
            root_cause_categories=roots,
            trigger_patterns=list(ext.get("触发模式", [])),
            params=dict(ext.get("参数", {})),
            dedupe_key=ext.get("去重键"),
            occurrences=int(ext.get("出现次数", 1)),
            base_confidence=ext.get("基础置信度"),
            # without our extension, the history's failed preventions are the counterexamples
            counterexamples=int(
                ext.get(
                    "反例次数",
                    sum(1 for v in hist if isinstance(v, dict) and str(v.get("效果", "")) in COUNTEREXAMPLE_EFFECTS),
                )
            ),
            scene_changes=int(ext.get("场景变化次数", 0)),
            recognized=ext.get("识别正确"),
            extras=extras,
        )


def _req(d: dict[str, Any], key: str, where: str) -> Any:
    if key not in d or d[key] is None:
        raise WisdomFormatError(
            f"{where}: required field {key!r} is missing" if where else f"required field {key!r} is missing"
        )
    return d[key]


def _sect(d: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    v = _req(d, key, where)
    if not isinstance(v, dict):
        raise WisdomFormatError(f"{where}: {key} must be an object")
    return v


def _opt_str(d: dict[str, Any], key: str) -> str | None:
    v = d.get(key)
    return None if v is None else str(v)


@dataclass(slots=True)
class PreventionRule:
    """An executable prevention rule (the spec's 预防规则结构) plus the scope it is indexed by.

    ``template`` says how :mod:`app.wisdom.prevention` executes it (``token_limit``, ``param_guard``,
    ``rate_limit``, ``pitfall``, ``advice``, or ``builtin_*``); ``params`` holds the template's learned values.
    """

    rule_id: str
    rule_name: str
    created_at: str
    source_ids: list[str]
    trigger: dict[str, Any]
    check: dict[str, Any]
    action: dict[str, Any]
    scope: dict[str, Any]
    applied: int = 0
    successes: int = 0
    failures: int = 0
    status: str = "observation"
    confidence: float = 0.8
    base_confidence: float | None = None
    last_validated: str | None = None
    decay_factor: float = 1.0
    origin: str = "generated"
    template: str = "advice"
    tool_name: str = "*"
    param_name: str = "*"
    model: str | None = None
    mod: str | None = None
    stage: str | None = None
    signature: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    counterexamples: int = 0
    priority: str = "medium"
    message_zh: str = ""
    message_en: str = ""

    @property
    def success_rate(self) -> float:
        """成功率 = successes / applications (0 when never applied)."""
        return self.successes / self.applied if self.applied else 0.0

    def to_spec(self) -> dict[str, Any]:
        """The spec's rule JSON (Chinese keys), with our executable part under ``扩展``."""
        return {
            "rule_id": self.rule_id,
            "rule_name": self.rule_name,
            "创建时间": self.created_at,
            "来源错误ID": list(self.source_ids),
            "触发条件": copy.deepcopy(self.trigger),
            "检查逻辑": copy.deepcopy(self.check),
            "预防动作": copy.deepcopy(self.action),
            "适用范围": copy.deepcopy(self.scope),
            "效果统计": {
                "应用次数": self.applied,
                "成功预防次数": self.successes,
                "失败次数": self.failures,
                "成功率": round(self.success_rate, 3),
            },
            "时效性": {
                "状态": self.status,
                "置信度": round(self.confidence, 6),
                "最后验证": self.last_validated,
                "衰减系数": self.decay_factor,
            },
            "扩展": {
                "来源": self.origin,
                "模板": self.template,
                "工具": self.tool_name,
                "参数": self.param_name,
                "模型": self.model,
                "mod": self.mod,
                "阶段": self.stage,
                "签名": self.signature,
                "模板参数": copy.deepcopy(self.params),
                "反例次数": self.counterexamples,
                "基础置信度": self.base_confidence,
                "优先级": self.priority,
                "提示": {"zh": self.message_zh, "en": self.message_en},
            },
        }

    @classmethod
    def from_spec(cls, d: dict[str, Any]) -> PreventionRule:
        """Inverse of :meth:`to_spec` (rules from other tools without ``扩展`` become advice rules).

        Raises:
            WisdomFormatError: naming the missing field.
        """
        rid = str(_req(d, "rule_id", "rule"))
        where = f"rule {rid}"
        stats = d.get("效果统计", {}) or {}
        tm = d.get("时效性", {}) or {}
        ext = d.get("扩展", {}) or {}
        status = str(tm.get("状态", "observation"))
        if status not in tx.RULE_STATUSES:
            raise WisdomFormatError(f"{where}: 时效性.状态 {status!r} is not one of {', '.join(tx.RULE_STATUSES)}")
        hint = ext.get("提示", {}) or {}
        return cls(
            rule_id=rid,
            rule_name=str(_req(d, "rule_name", where)),
            created_at=str(d.get("创建时间", iso(now_utc()))),
            source_ids=list(d.get("来源错误ID", [])),
            trigger=dict(d.get("触发条件", {})),
            check=dict(d.get("检查逻辑", {})),
            action=dict(d.get("预防动作", {})),
            scope=dict(d.get("适用范围", {})),
            applied=int(stats.get("应用次数", 0)),
            successes=int(stats.get("成功预防次数", 0)),
            failures=int(stats.get("失败次数", 0)),
            status=status,
            confidence=float(tm.get("置信度", 0.8)),
            last_validated=tm.get("最后验证"),
            decay_factor=float(tm.get("衰减系数", 1.0)),
            origin=str(ext.get("来源", "imported")),
            template=str(ext.get("模板", "advice")),
            tool_name=str(ext.get("工具", "*")),
            param_name=str(ext.get("参数", "*")),
            model=ext.get("模型"),
            mod=ext.get("mod"),
            stage=ext.get("阶段"),
            signature=str(ext.get("签名", f"imported:{rid}")),
            params=dict(ext.get("模板参数", {})),
            counterexamples=int(ext.get("反例次数", 0)),
            base_confidence=ext.get("基础置信度"),
            priority=str(ext.get("优先级", "medium")),
            message_zh=str(hint.get("zh", "")),
            message_en=str(hint.get("en", "")),
        )


def day_of(entry_id: str) -> str:
    """The ``YYYYMMDD`` part of an entry id."""
    m = ENTRY_ID_RE.match(entry_id)
    if not m:
        raise WisdomFormatError(f"{entry_id!r} is not an error-wisdom id (ew_YYYYMMDD_NNN)")
    return m.group(1)
