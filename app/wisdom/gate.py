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

The gate is a facade: :class:`~app.wisdom.request_checks.RequestChecks` (checks and their outcomes),
:class:`~app.wisdom.pitfalls.PitfallTracker` (pitfalls), :func:`~app.wisdom.scene_watch.observe_scene` and the
tables of :mod:`app.wisdom.error_kinds` each answer one question; the gate records errors with them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from app import deadline
from app.i18n import Lang
from app.store import Database
from app.wisdom import taxonomy as tx
from app.wisdom.error_kinds import (
    DEFAULT_ISSUE,
    EN_STRATEGY,
    FAILURES,
    ISSUES,
    claim_key,
    detection_only,
    parse_limit,
    severity_of,
)
from app.wisdom.manager import ErrorWisdomManager
from app.wisdom.objectivity import EvidenceContext, ObjectivityEvaluator, ObjectivityMetric
from app.wisdom.pitfalls import PitfallTracker
from app.wisdom.prevention import PreCheckResult, stage_kind
from app.wisdom.request_checks import RequestChecks
from app.wisdom.scene_watch import observe_scene
from app.wisdom.store import EntryFilter

log = logging.getLogger("replaysage.wisdom")

MAX_ISSUE_ENTRIES = 3
"""Validator issues of one reviewed reply that become entries (the worst first, one per claim)."""
MAX_REVIEW_CHARS = 40_000
"""How much of a reply the objectivity check reads (an analysis is a few thousand characters)."""


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
        self.checks = RequestChecks(self.manager)
        self.pitfalls = PitfallTracker(self.manager, self.lang)

    claim_key = staticmethod(claim_key)

    def pre_request(
        self,
        tool_name: str = "chat_completion",
        params: Mapping[str, Any] | None = None,
        trace_id: str = "",
        stage: str | None = None,
    ) -> PreCheckResult:
        """Check a request; use ``result.params`` (auto-fixed) and do not send when ``result.passed`` is False."""
        return self.checks.check(tool_name, params, trace_id, stage)

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
        """Active prevention knowledge for this model + mod + stage (see :meth:`PitfallTracker.lines`)."""
        return self.pitfalls.lines(model, mod, stage, lang, limit=limit, trace_id=trace_id)

    def record_outcome(
        self, trace_id: str, stage: str | None, success: bool, error_code: str | None = None, feedback: str = "neutral"
    ) -> None:
        """Tell the library how a checked request (or stage) ended (see :meth:`RequestChecks.outcome`)."""
        self.checks.outcome(trace_id, stage, success, error_code, feedback)

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
        """Register every change of the scene since the last run (see :func:`app.wisdom.scene_watch.observe_scene`)."""
        return observe_scene(self.manager, model_id, model_version, provider, knowledge_hash, mod_version, mod=mod)

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
        sub, code, roots, root_zh, strat_zh, _en = FAILURES.get(kind, FAILURES["server"])
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
        self.checks.failed(trace_id, stage, code)
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
            ISSUES[-1][4],
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
        sev = severity_of(severity)
        if sev is None:
            return None
        low = code.lower()
        sub, roots, root_zh, strat_zh = (
            "reasoning_jump",
            ["reasoning_bias/missing_premise"],
            *DEFAULT_ISSUE,
        )
        for keys, s, r, rz, sz, _se in ISSUES:
            if any(k in low for k in keys):
                sub, roots, root_zh, strat_zh = s, r, rz, sz
                break
        claim = claim_key(code, unit_id, time_seconds, detail)
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
        self.pitfalls.contradicted(trace_id, stage, eid)
        return eid

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
                claims.add(claim_key(code, unit, t, msg))
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
                        self.manager._merge(eid, detection_only("客观性评估器"))
            eid2 = self.evaluator._record_cognitive_error(metric, text[:MAX_REVIEW_CHARS], record)
            if eid2:
                ids.append(eid2)
                self.pitfalls.contradicted(trace_id, stage, eid2)
        for eid in dict.fromkeys(ids):  # once per new entry's scope, after the review (not once per issue)
            self._maybe_generate(eid)
        self.pitfalls.settle(trace_id, stage)
        return metric, ids

    def _worst_issues(self, issues: Iterable[Any]) -> list[Any]:
        """The issues a review records: above Info, the worst first, one per claim, at most :data:`MAX_ISSUE_ENTRIES`.

        One pass over the issues (plus a sort of those above Info): a reply with thousands of wrong claims costs
        time linear in them, and adds a few entries, not thousands (issue 29).
        """
        ranked: list[tuple[int, Any]] = []
        for i in issues:
            sev = severity_of(getattr(i, "severity", "Warning"))
            if sev is not None:
                ranked.append((-tx.SEVERITIES.index(sev), i))
        ranked.sort(key=lambda p: p[0])  # the worst first; stable, so equal ones keep the reply's order
        chosen: list[Any] = []
        seen: set[str] = set()
        for _rank, iss in ranked:
            deadline.check()
            key = claim_key(
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

    def validate_rule(self, rule_id: str, approve: bool = True) -> None:
        """Validate (or reject) a learned rule so it may act."""
        self.manager.validate_rule(rule_id, approve)

    def rules_for(self, model: str | None) -> list[Any]:
        """Learned rules scoped to ``model`` (or unscoped)."""
        return [r for r in self.manager.store.list_rules() if r.origin != "builtin" and r.model in (None, model)]


__all__ = ["EN_STRATEGY", "MAX_ISSUE_ENTRIES", "MAX_REVIEW_CHARS", "WisdomGate", "parse_limit"]
