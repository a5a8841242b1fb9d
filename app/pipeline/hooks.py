"""What the learning libraries see of a run: error wisdom around every request, memory before and after.

* :class:`WisdomHooks` checks each request with the error-wisdom gate (auto-fixes applied, refusals respected),
  records failed calls and validation issues, injects the model's known pitfalls into window instructions and
  reports outcomes so rules learn whether they worked.
* :func:`memory_injection` gives the facts about these players, this map and this model for the system prompt
  (inside the stable prefix), and :func:`remember_run` turns the finished analysis into an episode for
  distillation (the immediate track).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from app.claims.issues import Severity, ValidationIssue
from app.errors import KnownError
from app.i18n import Lang, pick, tr
from app.pipeline import events as ev
from app.pipeline.streaming import RequestOutcome
from app.store.db import Database

if TYPE_CHECKING:
    from app.facts import ReplayFactIndex
    from app.pipeline.prepare import PreparedReplay
    from app.wisdom.objectivity import EvidenceContext

log = logging.getLogger("replaysage.pipeline")

TOOL_NAME = "chat_completion"


class RequestRefusedError(KnownError):
    """A learned or built-in prevention rule refused to send a request."""


class WisdomHooks:
    """Error wisdom wired into one run (see the module docstring).

    Args:
        db: the store.
        model: the model id requested.
        provider: the provider's name (scene changes).
        mod: the replay's mod.
        mod_version: the mod's version.
        lang: language of pitfalls.
        trace_id: identifies the run in entries (e.g. ``analysis:12``).
        evidence: what the replay contains (ids, names), so the objectivity check can tell invented specifics.
    """

    def __init__(
        self,
        db: Database,
        *,
        model: str,
        provider: str,
        mod: str,
        mod_version: str,
        lang: Lang,
        trace_id: str = "",
        evidence: EvidenceContext | None = None,
    ) -> None:
        from app.wisdom.gate import WisdomGate

        self.gate = WisdomGate(db, lang)
        self.evidence = evidence
        self.model = model
        self.mod = mod
        self.lang = lang
        self.trace_id = trace_id
        self._params: dict[str, dict[str, Any]] = {}
        self.gate.observe_scene(model, provider=provider, mod_version=mod_version or None, mod=mod)

    def instruction_extra(self, stage: ev.StageRef) -> str:
        """Known pitfalls of this model, mod and stage, as a short list."""
        lines = self.gate.pitfalls_for(self.model, self.mod, stage.kind.value, self.lang, trace_id=self.trace_id)
        if not lines:
            return ""
        head = tr(self.lang, "Known pitfalls (from earlier validation results):")
        return head + "\n" + "\n".join(f"- {x}" for x in lines)

    def before_request(self, stage: ev.StageRef, params: dict[str, Any]) -> dict[str, Any]:
        """Pre-check; auto-fixed parameters come back, a refusal raises :class:`RequestRefusedError`."""
        res = self.gate.pre_request(TOOL_NAME, params, trace_id=self.trace_id, stage=stage.key)
        if not res.passed:
            raise RequestRefusedError(
                pick(
                    self.lang,
                    f"错误智慧规则拒绝发送请求（{', '.join(res.blocked_by)}）：{'；'.join(res.warnings)}",
                    f"an error-wisdom rule refused the request ({', '.join(res.blocked_by)}): "
                    f"{'; '.join(res.warnings)}",
                )
            )
        fixed = dict(res.params) if res.params else dict(params)
        self._params[stage.key] = fixed
        return fixed

    def after_request(self, stage: ev.StageRef, outcome: RequestOutcome) -> None:
        """Record a failed call (tool error) or report success to the fired rules."""
        err = outcome.error
        if err is None:
            self.gate.record_outcome(self.trace_id, stage.key, success=True)
            return
        kind = str(getattr(err, "kind", "server"))
        self.gate.record_call_failure(
            kind,
            str(err),
            model=self.model,
            status=getattr(err, "status", None),
            params=self._params.get(stage.key),
            trace_id=self.trace_id,
            stage=stage.key,
            mod=self.mod,
            retry_after_s=getattr(err, "retry_after_s", None),
        )

    def after_validation(self, stage: ev.StageRef, issues: Sequence[ValidationIssue], text: str) -> None:
        """Record the stage's remaining issues and its objectivity (one entry per wrong claim).

        A disputed issue (the model disputed it and the check no longer confirms it) is left out: it teaches
        nothing until a person rules on it (issue 28 §3).
        """
        self.gate.review_stage_text(
            text,
            evidence=self.evidence,
            issues=[i for i in issues if i.severity > Severity.INFO and not i.disputed],
            model=self.model,
            mod=self.mod,
            stage=stage.key,
            trace_id=self.trace_id,
            context_type="summary" if stage.kind is ev.StageKind.SUMMARY_ROUND else "window",
        )


def replay_evidence(index: ReplayFactIndex) -> EvidenceContext:
    """Ids and names the replay supports, against the mod's whole vocabulary.

    Numbers are left unknown: an analysis derives many (APM, counts) that no fact states verbatim.
    """
    from app.knowledge.errors import KnowledgeError
    from app.knowledge.loader import load_knowledge
    from app.wisdom.objectivity import EvidenceContext

    ids = {oid for ev in index.events for oid in ev.object_ids}
    present = {h for ev in index.events if ev.type_hash is not None for h in (ev.type_hash,)}
    terms: set[str] = {n for p in index.players for n in (p.name, p.label) if n}
    vocabulary: set[str] = set()
    try:
        knowledge = load_knowledge(index.replay.header.mod_name)
    except KnowledgeError:
        knowledge = None
    if knowledge is not None:
        for entry in knowledge:
            names = {n for n in (entry.id, entry.name_zh, entry.name_en) if n}
            vocabulary |= names
            if index.hash_of(entry.id) in present:
                terms |= names
    terms |= {index.name_of(h) for h in present}
    return EvidenceContext.from_facts("", unit_ids=ids, terms=terms, vocabulary=vocabulary)


def memory_injection(
    db: Database, players: Sequence[str], map_name: str, model: str, *, lang: Lang, analyst: str = ""
) -> tuple[str, tuple[int, ...]]:
    """Memory facts for the system prompt (by the injection policy) and their ids."""
    from app.memory import MemoryStore

    inj = MemoryStore(db).injection_for(players, map_name, model, analyst, lang)
    return inj.text, tuple(inj.fact_ids)


def remember_run(
    db: Database,
    analysis_id: int,
    prepared: PreparedReplay,
    model: str,
    *,
    injected: Sequence[int] = (),
    analyst: str = "",
) -> None:
    """Distil a finished analysis into memory (immediate track); never fails the analysis."""
    from app.memory import ClaimInput, IssueInput, MemoryStore, episode_from_index
    from app.pipeline.repository import AnalysisRepository

    try:
        rec = AnalysisRepository(db).load(analysis_id)
        issues = [
            IssueInput(i.code, Severity(i.severity).label, i.message)
            for s in rec.stages
            for i in s.issues
            if (not i.after_revision or s.revised) and not i.disputed  # a disputed issue teaches nothing (issue 28)
        ]
        claims: list[ClaimInput] = []
        for s in rec.stages:
            if any(i.code.startswith("Protocol") and i.severity > Severity.INFO for i in s.issues):
                continue  # only validated protocol claims become evidence
            for c in (s.claims or {}).get("eventClaims", []) or []:
                if isinstance(c, dict) and str(c.get("kind", "")).lower() == "protocol":
                    name = str(c.get("name", ""))
                    claims.append(
                        ClaimInput(
                            f"{c.get('player', '')} {name}",
                            "protocol",
                            str(c.get("player", "")),
                            f"protocol:{name}",
                            str(c.get("time", "")),
                        )
                    )
        store = MemoryStore(db)
        if injected:
            store.record_injection(analysis_id, list(injected))
        store.record_run(
            episode_from_index(
                prepared.index,
                prepared.sha256[:16],
                str(prepared.path),
                model=model,
                analyst=analyst,
                analysis_id=analysis_id,
                claims=tuple(claims),
                issues=tuple(issues),
            )
        )
    except KnownError as exc:
        log.warning("memory: analysis %s not distilled: %s", analysis_id, exc)
