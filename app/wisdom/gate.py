"""WisdomGate: the small facade the analysis pipeline calls around every model request.

The pipeline should not need to know the taxonomy, the dedupe keys or the rule life cycle. It calls:

* :meth:`WisdomGate.observe_scene` when a run starts (model, provider, knowledge, mod version): any difference
  from what was seen last registers a scene change automatically;
* :meth:`WisdomGate.pre_request` before each request: built-in checks and learned rules, auto-fixes applied to
  the returned parameters and logged, ``passed`` false means "do not send";
* :meth:`WisdomGate.pitfalls_for` when building a window instruction: a short list of known pitfalls;
* :meth:`WisdomGate.record_call_failure` / :meth:`record_unparsable_claims` / :meth:`record_validation_issue`
  / :meth:`review_stage_text` after things went wrong;
* :meth:`WisdomGate.record_outcome` when a request (or a stage) ended, so rules and pitfalls learn whether they
  worked (verification history, counterexamples, validation of observation rules).

Errors of the same kind on the same scope trigger rule generation right away (a cheap, scoped run), so three
context overflows on one model become an observation rule without waiting for a periodic batch.

A stage's review is model output turned into entries, so it is bounded per reply (issue 29): at most
:data:`MAX_ISSUE_ENTRIES` validator issues become entries (the worst, one per claim), the objectivity check reads
at most :data:`MAX_REVIEW_CHARS`, and rule generation runs once per scope after the review, not once per entry.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app import deadline
from app.budget.limits import MAX_LOOKBACKS_PER_SEGMENT
from app.i18n import Lang, pick
from app.store import Database
from app.wisdom import taxonomy as tx
from app.wisdom.entry import WisdomEntry
from app.wisdom.manager import ErrorWisdomManager
from app.wisdom.objectivity import STRATEGY_EN, EvidenceContext, ObjectivityEvaluator, ObjectivityMetric
from app.wisdom.prevention import PreCheckResult, stage_kind
from app.wisdom.store import EntryFilter, EntryNotFoundError

log = logging.getLogger("replaysage.wisdom")

MAX_ISSUE_ENTRIES = 3
"""Validator issues of one reviewed reply that become entries (the worst first, one per claim)."""
MAX_REVIEW_CHARS = 40_000
"""How much of a reply the objectivity check reads (an analysis is a few thousand characters)."""

_LIMIT_RES = (
    re.compile(r"maximum context length is (\d+)", re.I),
    re.compile(r"context length (?:of|is) (\d+)", re.I),
    re.compile(r"(\d{4,}) tokens? (?:limit|max)", re.I),
    re.compile(r"上下文.*?(\d{4,})"),
)

# provider error kind -> (subtype, code, root causes, root cause zh, strategy zh, strategy en)
_FAILURES: dict[str, tuple[str, str, list[str], str, str, str]] = {
    "context_overflow": (
        "call_failure",
        "CONTEXT_OVERFLOW",
        ["environment/resource_limit", "tool_interface/unclear_constraint"],
        "提示加输出超过了模型实际的上下文长度（估算偏低或配置的 ContextLength 偏大）",
        "请求前确保 估算提示 + max_tokens 不超过该模型实测的上下文上限",
        "before a request, keep estimated prompt + max_tokens under the model's measured limit",
    ),
    "rate_limit": (
        "call_failure",
        "RATE_LIMITED",
        ["environment/resource_limit", "environment/concurrency"],
        "请求频率超过服务商限额",
        "降低请求频率，遵守 Retry-After",
        "slow down and honour Retry-After",
    ),
    "network": (
        "call_failure",
        "TIMEOUT",
        ["environment/network"],
        "网络中断或超时",
        "检查网络，适当延长读取超时",
        "check the network; use a longer read timeout",
    ),
    "server": (
        "call_failure",
        "SERVER_ERROR",
        ["environment/service_state"],
        "服务端错误 (5xx)",
        "稍后重试或切换服务商",
        "retry later or switch provider",
    ),
    "auth": (
        "call_failure",
        "401",
        ["param_source/user_input"],
        "API 密钥缺失、错误或无权限",
        "在设置中检查 API 密钥",
        "check the API key in the settings",
    ),
    "not_found": (
        "call_failure",
        "MODEL_NOT_FOUND",
        ["tool_interface/version_mismatch"],
        "服务商不认识该模型 id",
        "从服务商的模型列表中选择模型",
        "pick the model from the provider's list",
    ),
    "protocol": (
        "result_processing",
        "STREAM_ERROR",
        ["environment/service_state"],
        "流式响应中断或格式异常",
        "保留已到达内容，必要时重新生成",
        "keep what arrived; regenerate if needed",
    ),
    "bad_request": (
        "parameter",
        "INVALID_VALUE",
        ["param_source/model_generated", "tool_interface/unclear_constraint"],
        "请求参数不被服务商接受",
        "请求前校验参数范围与格式",
        "validate parameter ranges and formats",
    ),
}

# validation issue code (lower-case substring) -> (subtype, root causes, root cause zh, strategy zh, strategy en)
_ISSUES: list[tuple[tuple[str, ...], str, list[str], str, str, str]] = [
    (
        ("nonexistent", "unknownunit", "unitnotfound"),
        "hallucination",
        ["knowledge_defect/incomplete", "reasoning_bias/over_inference"],
        "声明了回放中不存在的 UnitId",
        "只引用事实中出现过的 UnitId",
        "cite only unit ids that occur in the facts",
    ),
    (
        ("moveonly", "move_only", "moveevidence"),
        "reasoning_jump",
        ["reasoning_bias/over_inference", "reasoning_bias/missing_premise"],
        "仅凭移动类证据给出高置信度结论",
        "move 证据不带 UnitId，不能单独支撑 confirmed/highly likely",
        "move evidence alone never supports high confidence",
    ),
    (
        ("ownership",),
        "reasoning_jump",
        ["attention/ignored_key_info", "reasoning_bias/over_inference"],
        "单位归属与所有权证据矛盾（可能把选中的敌方单位当成己方）",
        "判断归属时以编队、建造、出售等强证据为准，选择单位只是弱证据",
        "decide ownership from strong evidence (groups, production, selling); selection is weak evidence",
    ),
    (
        ("caster",),
        "reasoning_jump",
        ["attention/ignored_key_info", "reasoning_bias/logic_jump"],
        "技能施法者与事实矛盾",
        "只对 0x1FE/0x200 指令判断施法者",
        "attribute casters only from 0x1FE/0x200 commands",
    ),
    (
        ("protocol",),
        "hallucination",
        ["knowledge_defect/misremembered", "reasoning_bias/over_inference"],
        "声称了回放中没有选择过的协议",
        "只写事实中出现过的协议选择",
        "mention only protocols the facts show being chosen",
    ),
    (
        ("timeline", "firstproduction", "beforeproduction"),
        "reasoning_jump",
        ["reasoning_bias/logic_jump"],
        "单位在首次生产前就被操作，时间线矛盾",
        "核对首次出兵时间表后再下结论",
        "check the first-production timeline",
    ),
    (
        ("weakevidence", "evidence"),
        "reasoning_jump",
        ["reasoning_bias/missing_premise"],
        "结论缺少足够证据",
        "为每个结论给出时间点与证据",
        "give a time and evidence for each conclusion",
    ),
    (
        ("lookback",),
        "parameter",
        ["param_source/model_generated", "tool_interface/unclear_constraint"],
        "回查请求格式或范围不合法",
        f"回查格式为 mm:ss~mm:ss，每段最多 {MAX_LOOKBACKS_PER_SEGMENT} 次",
        f"lookback is mm:ss~mm:ss, ≤ {MAX_LOOKBACKS_PER_SEGMENT} per segment",
    ),
    (
        ("claims", "parse", "machinereadable"),
        "result_processing",
        ["param_source/model_generated"],
        "机器可读声明缺失或无法解析",
        "在回复末尾输出完整的机器可读声明 JSON",
        "end the reply with a complete machine-readable claims JSON",
    ),
]

_SEVERITY_BY_LABEL = {
    "info": None,
    "warning": "mild",
    "weakevidence": "moderate",
    "contradiction": "severe",
    "fatal": "critical",
}


@dataclass(slots=True)
class _Pending:
    fired: list[str] = field(default_factory=list)
    shadow: list[str] = field(default_factory=list)


def _severity(sev: Any) -> str | None:
    """Map a validator severity (enum, int or label) onto the spec's scale; Info → None (not an error)."""
    label = getattr(sev, "label", sev)
    if isinstance(label, int):
        label = ("info", "warning", "weakevidence", "contradiction", "fatal")[max(0, min(4, label))]
    key = str(label).lower().replace("_", "").replace(" ", "")
    if key in tx.SEVERITIES:
        return None if key == "none" else key
    return _SEVERITY_BY_LABEL.get(key, "moderate")


def parse_limit(message: str) -> int | None:
    """The real context limit a provider stated in an overflow message, if any."""
    for rx in _LIMIT_RES:
        m = rx.search(message or "")
        if m:
            return int(m.group(1))
    return None


class WisdomGate:
    """The pipeline's entry point into the error-wisdom library.

    Args:
        db: the store, or an existing manager (the GUI and the pipeline can share one).
        lang: language of messages and pitfalls.
        auto_generate: generate rules as soon as a scope has enough similar errors.
    """

    def __init__(self, db: Database | ErrorWisdomManager, lang: Lang | None = None, auto_generate: bool = True) -> None:
        self.manager = db if isinstance(db, ErrorWisdomManager) else ErrorWisdomManager(db, lang)
        self.lang = lang or self.manager.lang
        self.auto_generate = auto_generate
        self.evaluator = ObjectivityEvaluator(self.manager)
        self._pending: dict[str, _Pending] = {}
        self._pitfalls: dict[str, list[str]] = {}  # trace|stage kind -> entries injected as pitfalls

    @staticmethod
    def _key(trace_id: str, stage: str | None) -> str:
        return f"{trace_id}|{stage or ''}"

    # ---- before a request ------------------------------------------------------------------------------------
    def pre_request(
        self,
        tool_name: str = "chat_completion",
        params: Mapping[str, Any] | None = None,
        trace_id: str = "",
        stage: str | None = None,
    ) -> PreCheckResult:
        """Check a request; use ``result.params`` (auto-fixed) and do not send when ``result.passed`` is False."""
        res = self.manager.pre_check_result(tool_name, params or {})
        for name, fix in res.auto_fixes.items():
            log.warning("wisdom: auto-fix %s %s: %r -> %r (%s)", trace_id, name, fix["from"], fix["to"], fix["rule_id"])
        if not res.passed:
            log.warning("wisdom: request refused %s by %s", trace_id, ",".join(res.blocked_by))
        pend = self._pending.setdefault(self._key(trace_id, stage), _Pending())
        pend.fired = [r for r in res.fired if not r.startswith("builtin_")]
        pend.shadow = list(res.shadow)
        if res.fired:
            self.manager.flush_stats()
        return res

    def pitfalls_for(
        self,
        model: str | None,
        mod: str | None,
        stage: str | None,
        lang: Lang | None = None,
        *,
        limit: int = 5,
        trace_id: str = "",
    ) -> list[str]:
        """Active prevention knowledge for this model + mod + stage, as short lines for the window instruction.

        Only ``active`` knowledge is injected (deprecated knowledge is reference only). Lines come from active
        pitfall/advice rules first, then from the best-matching active entries, without duplicates.
        """
        lang = lang or self.lang
        lines: list[str] = []
        kind = stage_kind(stage)
        for r in self.manager.engine.rules():
            if r.status != "active" or r.template not in ("pitfall", "advice", "token_limit", "rate_limit"):
                continue
            if (r.model and r.model != model) or (r.mod and r.mod != mod) or (r.stage and r.stage != kind):
                continue
            if r.template in ("token_limit", "rate_limit"):
                continue  # enforced by pre_check, not something the model can act on
            lines.append(pick(lang, r.message_zh, r.message_en or r.message_zh))
        injected: list[str] = []
        for ie, _score in self.manager.engine.query_index.query(
            {
                k
                for k in (
                    f"model:{model}" if model else "",
                    f"mod:{mod}" if mod else "",
                    f"stage:{kind}" if kind else "",
                    "type:cognitive",
                )
                if k
            },
            model,
            mod,
            limit * 4,
        ):
            if ie.status != "active" or ie.type_code != tx.COGNITIVE:
                continue
            text = ie.strategy
            if lang is Lang.EN:
                text = _EN_STRATEGY.get(text, text)
            if text and text not in lines:
                lines.append(text)
                injected.append(ie.id)
        if trace_id:
            self._pitfalls[self._key(trace_id, kind)] = injected
        return lines[:limit]

    # ---- after a failure -------------------------------------------------------------------------------------
    def record_call_failure(
        self,
        kind: str,
        message: str = "",
        *,
        model: str | None = None,
        provider: str | None = None,
        status: int | None = None,
        params: Mapping[str, Any] | None = None,
        trace_id: str = "",
        stage: str | None = None,
        mod: str | None = None,
        retry_after_s: float | None = None,
        limit_tokens: int | None = None,
        request_id: str | None = None,
    ) -> str:
        """Record an HTTP/stream failure or a context-overflow reply (a tool error); returns the entry id.

        ``kind`` is the provider error's kind (``context_overflow``, ``rate_limit``, ``network``, ``server``,
        ``auth``, ``not_found``, ``protocol``, ``bad_request``); ``params`` are the request's parameters as given
        to :meth:`pre_request` (model, max_tokens, estimated_prompt_tokens, context_length…). Secrets never go in.
        """
        sub, code, roots, root_zh, strat_zh, _en = _FAILURES.get(kind, _FAILURES["server"])
        p = {
            k: v
            for k, v in (params or {}).items()
            if k in ("max_tokens", "temperature", "estimated_prompt_tokens", "context_length", "model_max_tokens")
        }
        limit = limit_tokens or (parse_limit(message) if kind == "context_overflow" else None)
        if limit:
            p["limit_tokens"] = limit
        if retry_after_s is not None:
            p["retry_after_s"] = retry_after_s
        tool = "chat_completion"
        triggers = {f"tool:{tool}", f"code:{code}"} | {
            f"param:{k}" for k in p if k not in ("limit_tokens", "retry_after_s")
        }
        if model:
            triggers.add(f"model:{model}")
        detail = (message or "").strip()[:400]
        desc = (
            f"{provider or ''} / {model or ''}: {kind}"
            + (f" (HTTP {status})" if status else "")
            + (f"：{detail}" if detail else "")
        )
        md: dict[str, Any] = {
            "severity": "severe" if kind == "context_overflow" else "moderate",
            "preventability": "high" if kind in ("context_overflow", "bad_request", "not_found") else "medium",
            "trigger_scene": f"{stage or '请求'} 模型请求",
            "impact_scope": "单次调用",
            "tool_name": tool,
            "model": model,
            "mod": mod,
            "stage": stage,
            "params": p,
            "root_cause_categories": roots,
            "trigger_patterns": sorted(triggers),
            "environment_factor": provider,
            "responsibility": "请求构造阶段" if kind != "network" else "网络",
            "detection_method": "HTTP/流式错误",
            "prevention_priority": "high",
            "dedupe_key": f"{trace_id}|{stage}|{code}|{request_id}" if request_id else None,
        }
        eid = self.manager.record_error(
            "工具性错误",
            tx.subtype_label(sub),
            code,
            desc,
            root_zh,
            "缩小请求后重试" if kind == "context_overflow" else "按错误类型重试或提示用户",
            strat_zh,
            trace_id,
            md,
        )
        self._after_failure(trace_id, stage, code, eid)
        self._maybe_generate(eid)
        return eid

    def record_unparsable_claims(
        self,
        detail: str,
        *,
        model: str | None = None,
        mod: str | None = None,
        stage: str | None = None,
        trace_id: str = "",
    ) -> str:
        """Record that a reply's machine-readable claims could not be parsed (a result-processing tool error)."""
        md = {
            "severity": "moderate",
            "preventability": "high",
            "tool_name": "claims_parser",
            "model": model,
            "mod": mod,
            "stage": stage,
            "root_cause_categories": ["param_source/model_generated"],
            "trigger_patterns": sorted(
                {"tool:claims_parser", "code:PARSE_ERROR"} | ({f"model:{model}"} if model else set())
            ),
            "detection_method": "声明解析器",
            "dedupe_key": f"{trace_id}|{stage}|PARSE_ERROR",
            "prevention_priority": "medium",
        }
        eid = self.manager.record_error(
            "工具性错误",
            "结果处理类",
            "PARSE_ERROR",
            f"机器可读声明无法解析：{detail[:300]}",
            "模型输出的 JSON 块不完整或格式错误",
            "请求一次修订",
            _ISSUES[-1][4],
            trace_id,
            md,
        )
        self._maybe_generate(eid)
        return eid

    def record_validation_issue(  # noqa: PLR0917 - the pipeline's agreed positional signature
        self,
        code: str,
        severity: Any,
        model: str | None,
        mod: str | None,
        stage: str | None,
        detail: str,
        *,
        trace_id: str = "",
        unit_id: int | None = None,
        time_seconds: float | None = None,
    ) -> str | None:
        """Record a validator issue as a cognitive (or tool) error; Info issues are not errors (None).

        One wrong claim makes one entry: the dedupe key is the claim (``unit:<id>`` when the issue names a unit),
        shared with :meth:`review_stage_text`'s objectivity findings.
        """
        eid = self._record_issue(
            code,
            severity,
            model,
            mod,
            stage,
            detail,
            trace_id=trace_id,
            unit_id=unit_id,
            time_seconds=time_seconds,
        )
        if eid is not None:
            self._maybe_generate(eid)
        return eid

    def _record_issue(  # noqa: PLR0917 - as record_validation_issue
        self,
        code: str,
        severity: Any,
        model: str | None,
        mod: str | None,
        stage: str | None,
        detail: str,
        *,
        trace_id: str = "",
        unit_id: int | None = None,
        time_seconds: float | None = None,
    ) -> str | None:
        """:meth:`record_validation_issue` without rule generation (a review generates once, at its end)."""
        sev = _severity(severity)
        if sev is None:
            return None
        low = code.lower()
        sub, roots, root_zh, strat_zh = (
            "reasoning_jump",
            ["reasoning_bias/missing_premise"],
            "结论与事实不符",
            "下结论前核对事实",
        )
        for keys, s, r, rz, sz, _se in _ISSUES:
            if any(k in low for k in keys):
                sub, roots, root_zh, strat_zh = s, r, rz, sz
                break
        claim = self.claim_key(code, unit_id, time_seconds, detail)
        etype = tx.SUBTYPES[sub][0]
        kind = stage_kind(stage)
        md: dict[str, Any] = {
            "severity": sev,
            "preventability": "high",
            "tool_name": "analysis_text",
            "model": model,
            "mod": mod,
            "stage": stage,
            "root_cause_categories": roots,
            "detection_method": f"验证器 {code}",
            "trigger_patterns": sorted(
                {f"issue:{code}"} | ({f"stage:{kind}"} if kind else set()) | ({f"model:{model}"} if model else set())
            ),
            "params": {
                "claim": claim,
                **({"unit_id": unit_id} if unit_id is not None else {}),
                **({"time_seconds": time_seconds} if time_seconds is not None else {}),
            },
            "dedupe_key": f"{trace_id}|{stage}|{claim}",
            "prevention_priority": "high",
            "trigger_scene": f"{stage or ''} 验证",
            "impact_scope": "分析结论可信度",
            "cognitive_flag": True if etype == tx.COGNITIVE else None,
        }
        eid = self.manager.record_error(
            tx.TYPE_LABELS[etype],
            tx.subtype_label(sub),
            code,
            detail[:500] or code,
            root_zh,
            "修订该窗口",
            strat_zh,
            trace_id,
            md,
        )
        self._after_issue(trace_id, stage, eid)
        return eid

    @staticmethod
    def claim_key(code: str, unit_id: int | None, time_seconds: float | None, detail: str) -> str:
        """The identity of the claim an issue is about (shared with objectivity findings)."""
        if unit_id is not None:
            return f"unit:{unit_id}"
        norm = re.sub(r"\s+", "", detail).lower()
        raw = f"{code}|{time_seconds}|{norm}"
        return "claim:" + hashlib.sha1(raw.encode()).hexdigest()[:12]

    def review_stage_text(
        self,
        text: str,
        *,
        evidence: EvidenceContext | None = None,
        issues: Iterable[Any] = (),
        model: str | None = None,
        mod: str | None = None,
        stage: str | None = None,
        trace_id: str = "",
        context_type: str = "window",
        context: Mapping[str, Any] | None = None,
    ) -> tuple[ObjectivityMetric, list[str]]:
        """Record a stage's validator issues, then evaluate its text; a claim found by both makes one entry.

        ``issues`` are :class:`app.claims.issues.ValidationIssue`-like objects (code, severity, message,
        unit_id, time_seconds). Returns the objectivity metric and the ids of entries written or merged.
        """
        ids: list[str] = []
        claims: set[str] = set()
        for iss in self._worst_issues(issues):
            code = str(getattr(iss, "code", "Issue"))
            unit = getattr(iss, "unit_id", None)
            t = getattr(iss, "time_seconds", None)
            msg = str(getattr(iss, "message", ""))
            eid = self._record_issue(
                code,
                getattr(iss, "severity", "Warning"),
                model,
                mod,
                stage,
                msg,
                trace_id=trace_id,
                unit_id=unit,
                time_seconds=t,
            )
            if eid:
                ids.append(eid)
                claims.add(self.claim_key(code, unit, t, msg))
        prior = len(self.manager.store.ids_matching(model=model)) if model else 0
        record = {
            "trace_id": trace_id,
            "model": model,
            "mod": mod,
            "stage": stage,
            "skip_claims": claims,
            "prior_entries": prior,
            **dict(context or {}),
        }
        metric = self.evaluator.score(text[:MAX_REVIEW_CHARS], context_type, evidence or EvidenceContext())
        if metric.needs_analysis:
            # findings about claims the validator already reported are merged into those entries instead
            for ck in sorted({f.claim_key() for f in metric.findings}):
                if ck in claims:
                    eid = self.manager.store.find_by_dedupe_key(f"{trace_id}|{stage}|{ck}")
                    if eid:
                        self.manager._merge(eid, _detection_only("客观性评估器"))
            eid2 = self.evaluator._record_cognitive_error(metric, text[:MAX_REVIEW_CHARS], record)
            if eid2:
                ids.append(eid2)
                self._after_issue(trace_id, stage, eid2)
        for eid in dict.fromkeys(ids):  # once per new entry's scope, after the review (not once per issue)
            self._maybe_generate(eid)
        self._settle_pitfalls(trace_id, stage)
        return metric, ids

    def _worst_issues(self, issues: Iterable[Any]) -> list[Any]:
        """The issues a review records: above Info, the worst first, one per claim, at most :data:`MAX_ISSUE_ENTRIES`.

        One pass over the issues (plus a sort of those above Info): a reply with thousands of wrong claims costs
        time linear in them, and adds a few entries, not thousands (issue 29).
        """
        ranked: list[tuple[int, Any]] = []
        for i in issues:
            sev = _severity(getattr(i, "severity", "Warning"))
            if sev is not None:
                ranked.append((-tx.SEVERITIES.index(sev), i))
        ranked.sort(key=lambda p: p[0])  # the worst first; stable, so equal ones keep the reply's order
        chosen: list[Any] = []
        seen: set[str] = set()
        for _rank, iss in ranked:
            deadline.check()
            key = self.claim_key(
                str(getattr(iss, "code", "Issue")),
                getattr(iss, "unit_id", None),
                getattr(iss, "time_seconds", None),
                str(getattr(iss, "message", "")),
            )
            if key in seen:
                continue
            seen.add(key)
            chosen.append(iss)
            if len(chosen) == MAX_ISSUE_ENTRIES:
                break
        if len(ranked) > len(chosen):
            log.info("wisdom: %d of %d issues of one reply recorded (the worst)", len(chosen), len(ranked))
        return chosen

    # ---- after an outcome ------------------------------------------------------------------------------------
    def record_outcome(
        self, trace_id: str, stage: str | None, success: bool, error_code: str | None = None, feedback: str = "neutral"
    ) -> None:
        """Tell the library how a checked request (or stage) ended.

        Success: rules that auto-fixed it count a successful prevention and their source entries get a 验证历史
        line (pitfalls are verified by :meth:`review_stage_text`). Failure with ``error_code``: the fired rules
        count a failure and their source entries a counterexample (×0.7); observation rules that predicted it get
        a confirmation.
        """
        pend = self._pending.pop(self._key(trace_id, stage), None)
        if pend is None:
            return
        m = self.manager
        for rid in pend.fired:
            try:
                rule = m.store.get_rule(rid)
            except EntryNotFoundError:  # removed meanwhile
                continue
            if success:
                m.engine.count(rid, success=1)
                for eid in rule.source_ids[-3:]:
                    m.add_verification(
                        eid,
                        f"{stage or ''} 请求",
                        "成功预防",
                        f"规则 {rid} 自动修正",
                        feedback=feedback,
                        trace_id=trace_id,
                    )
            else:
                m.engine.count(rid, failure=1)
                for eid in rule.source_ids[-3:]:
                    m.timeliness.register_counterexample(eid, f"规则 {rid} 修正后仍失败 {error_code or ''}", trace_id)
                    m.refresh_index(eid)
        for rid in pend.shadow if not success else ():
            m.rule_generator.record_shadow_confirmation(rid)
        m.flush_stats()
        m.reload_rules()

    def _after_failure(self, trace_id: str, stage: str | None, code: str, entry_id: str) -> None:
        pend = self._pending.get(self._key(trace_id, stage))
        if pend is None:
            return
        if pend.fired or pend.shadow:
            self.record_outcome(trace_id, stage, success=False, error_code=code)
        del entry_id

    def _after_issue(self, trace_id: str, stage: str | None, entry_id: str) -> None:
        """A pitfall injected for this stage did not prevent an error of its own class: a counterexample."""
        key = self._key(trace_id, stage_kind(stage))
        injected = self._pitfalls.get(key)
        if not injected:
            return
        e = self.manager.store.get_entry(entry_id)
        keep = []
        for pid in injected:
            try:
                p = self.manager.store.get_entry(pid)
            except EntryNotFoundError:
                continue
            if p.subtype_code == e.subtype_code and pid != entry_id:
                self.manager.timeliness.register_counterexample(pid, f"注入后仍出现 {e.error_code}", trace_id)
                self.manager.refresh_index(pid)
            else:
                keep.append(pid)
        self._pitfalls[key] = keep

    def _settle_pitfalls(self, trace_id: str, stage: str | None) -> None:
        """After a stage's review: pitfalls that were injected and not contradicted prevented their error."""
        for pid in self._pitfalls.pop(self._key(trace_id, stage_kind(stage)), []):
            try:
                self.manager.add_verification(
                    pid, f"{stage or ''} 窗口", "成功预防", "已注入窗口指令", trace_id=trace_id
                )
            except EntryNotFoundError:
                continue

    def _maybe_generate(self, entry_id: str) -> None:
        """Run rule generation on the new entry's scope (same type, subtype and model): cheap and immediate."""
        if not self.auto_generate:
            return
        e = self.manager.store.get_entry(entry_id)
        scope = [
            x
            for x in self.manager.store.list_entries(
                EntryFilter(type_code=e.type_code, subtype_code=e.subtype_code, model=e.model), limit=500
            )
            if x.status != "archived" and x.model == e.model
        ]
        if len(scope) >= 3:
            report = self.manager.generate_rules(scope)
            if report["rules_generated"]:
                log.info("wisdom: generated %s", [r["rule_id"] for r in report["rules"]])

    # ---- scene changes ---------------------------------------------------------------------------------------
    def observe_scene(
        self,
        model_id: str,
        model_version: str | None = None,
        provider: str | None = None,
        knowledge_hash: str | None = None,
        mod_version: str | None = None,
        *,
        mod: str | None = None,
    ) -> list[dict[str, Any]]:
        """Compare the current scene with the last one seen and register every change (×0.65).

        Model version change → entries of that model; model id change → entries learned without a model scope;
        provider change → everything; knowledge or mod version change → entries of that mod (everything when
        the mod is unknown). The first observation only records the scene.
        """
        st = self.manager.store.scene_state()
        now: dict[str, str] = {"model_id": model_id}
        if model_version is not None:
            now[f"model_version:{model_id}"] = model_version
        if provider is not None:
            now["provider"] = provider
        if knowledge_hash is not None:
            now[f"knowledge:{mod or '*'}"] = knowledge_hash
        if mod_version is not None:
            now[f"mod_version:{mod or '*'}"] = mod_version
        changes: list[dict[str, Any]] = []
        for key, value in now.items():
            old = st.get(key)
            if old is None or old == value:
                continue
            if key == "model_id":
                what = "model_change"
                out = self.manager.register_scene_change(
                    what, f"模型 {old} → {value}", self.manager.store.ids_matching(unscoped=True)
                )
            elif key.startswith("model_version:"):
                what = "model_upgrade"
                out = self.manager.register_scene_change(
                    what, f"{model_id} 版本 {old} → {value}", [f"model:{model_id}"]
                )
            elif key == "provider":
                what = "provider_change"
                out = self.manager.register_scene_change(what, f"服务商 {old} → {value}", None)
            else:
                what = "knowledge_update" if key.startswith("knowledge:") else "mod_version_change"
                out = self.manager.register_scene_change(
                    what, f"{key} {old} → {value}", [f"mod:{mod}"] if mod else None
                )
            changes.append(
                {
                    "change_type": what,
                    "key": key,
                    "from": old,
                    "to": value,
                    "affected_entries": len(out["affected_entries"]),
                    "affected_rules": len(out["affected_rules"]),
                }
            )
        self.manager.store.set_scene_state(now)
        return changes

    # ---- pass-throughs ---------------------------------------------------------------------------------------
    def validate_rule(self, rule_id: str, approve: bool = True) -> None:
        """Validate (or reject) a learned rule so it may act."""
        self.manager.validate_rule(rule_id, approve)

    def rules_for(self, model: str | None) -> list[Any]:
        """Learned rules scoped to ``model`` (or unscoped)."""
        return [r for r in self.manager.store.list_rules() if r.origin != "builtin" and r.model in (None, model)]


_EN_STRATEGY: dict[str, str] = {
    **{f[4]: f[5] for f in _FAILURES.values()},
    **{i[4]: i[5] for i in _ISSUES},
    **STRATEGY_EN,
}
"""English variants of the strategies this library writes (entries store the Chinese text)."""


def _detection_only(method: str) -> WisdomEntry:
    """A stub entry carrying only a detection method, used to note a second detector on a merged entry."""
    return WisdomEntry(
        id="",
        timestamp="",
        trace_id="",
        version="2.0",
        error_type="认知性错误",
        error_subtype="幻觉倾向类",
        description="",
        severity="none",
        detection_method=method,
    )
