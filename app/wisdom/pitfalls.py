"""Pitfalls: the active prevention knowledge injected into window instructions, and whether it worked.

An injected pitfall whose error class still shows up in the stage gets a counterexample; one the stage's review
did not contradict gets a verification ("成功预防").
"""

from __future__ import annotations

from app.i18n import Lang
from app.wisdom import taxonomy as tx
from app.wisdom.manager import ErrorWisdomManager
from app.wisdom.prevention import stage_kind
from app.wisdom.store import EntryNotFoundError
from app.wisdom.wording import entry_text, rule_message


def _key(trace_id: str, stage: str | None) -> str:
    return f"{trace_id}|{stage or ''}"


class PitfallTracker:
    """Chooses the pitfalls for a stage and learns from what the stage then got wrong.

    Args:
        manager: the error-wisdom library.
        lang: the language of the lines when a call does not name one.
    """

    def __init__(self, manager: ErrorWisdomManager, lang: Lang) -> None:
        self.manager = manager
        self.lang = lang
        self._pitfalls: dict[str, list[str]] = {}  # trace|stage kind -> entries injected as pitfalls

    def lines(
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
            lines.append(rule_message(r.message_zh, r.message_en, lang))
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
            text = entry_text(ie.strategy, lang)  # the stored 中文, or its English for an English prompt
            if text and text not in lines:
                lines.append(text)
                injected.append(ie.id)
        if trace_id:
            self._pitfalls[_key(trace_id, kind)] = injected
        return lines[:limit]

    def contradicted(self, trace_id: str, stage: str | None, entry_id: str) -> None:
        """A pitfall injected for this stage did not prevent an error of its own class: a counterexample."""
        key = _key(trace_id, stage_kind(stage))
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

    def settle(self, trace_id: str, stage: str | None) -> None:
        """After a stage's review: pitfalls that were injected and not contradicted prevented their error."""
        for pid in self._pitfalls.pop(_key(trace_id, stage_kind(stage)), []):
            try:
                self.manager.add_verification(
                    pid, f"{stage or ''} 窗口", "成功预防", "已注入窗口指令", trace_id=trace_id
                )
            except EntryNotFoundError:
                continue
