"""Checks before a model request and what their rules learn from how it ended.

The rules that fired (auto-fixes) and the observation rules that only watched (shadow) are remembered per trace
and stage until the outcome is known; then each counts a success or a failure.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.wisdom.manager import ErrorWisdomManager
from app.wisdom.prevention import PreCheckResult
from app.wisdom.store import EntryNotFoundError

log = logging.getLogger("replaysage.wisdom")


@dataclass(slots=True)
class _Pending:
    fired: list[str] = field(default_factory=list)
    shadow: list[str] = field(default_factory=list)


def _key(trace_id: str, stage: str | None) -> str:
    return f"{trace_id}|{stage or ''}"


class RequestChecks:
    """Runs the pre-request checks and credits or blames their rules by the request's outcome.

    Args:
        manager: the error-wisdom library.
    """

    def __init__(self, manager: ErrorWisdomManager) -> None:
        self.manager = manager
        self._pending: dict[str, _Pending] = {}

    def check(
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
        pend = self._pending.setdefault(_key(trace_id, stage), _Pending())
        pend.fired = [r for r in res.fired if not r.startswith("builtin_")]
        pend.shadow = list(res.shadow)
        if res.fired:
            self.manager.flush_stats()
        return res

    def outcome(
        self, trace_id: str, stage: str | None, success: bool, error_code: str | None = None, feedback: str = "neutral"
    ) -> None:
        """Tell the library how a checked request (or stage) ended.

        Success: rules that auto-fixed it count a successful prevention and their source entries get a 验证历史
        line (pitfalls are verified by the gate's ``review_stage_text``). Failure with ``error_code``: the fired rules
        count a failure and their source entries a counterexample (×0.7); observation rules that predicted it get
        a confirmation.
        """
        pend = self._pending.pop(_key(trace_id, stage), None)
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

    def failed(self, trace_id: str, stage: str | None, code: str) -> None:
        """A checked request failed with ``code``: its fired and shadow rules learn it now."""
        pend = self._pending.get(_key(trace_id, stage))
        if pend is None:
            return
        if pend.fired or pend.shadow:
            self.outcome(trace_id, stage, success=False, error_code=code)
