"""Rule generation: cluster similar entries and turn each cluster's shared features into a prevention rule.

Similarity is the spec's weighted sum::

    sim = 0.25·[type equal] + 0.20·[subtype equal] + 0.25·Jaccard(trigger patterns) + 0.30·Jaccard(root causes)

Clusters need sim ≥ 0.60 and at least 3 members. There is no all-pairs scan: entries are first blocked by
(type, subtype) — a rule template is per subtype, so a cluster never mixes them — and inside a block each entry
is compared only with cluster leaders that share at least one feature with it (found through a feature index
over leaders; without a shared feature the similarity is at most 0.45, below the threshold, so nothing is lost),
at most :data:`MAX_LEADER_COMPARISONS` of them, the ones sharing the most features. An entry joins the most
similar leader at or above the threshold, or becomes a leader itself.

New rules start in ``observation`` (the spec: 新规则先观察，验证后全面启用) and only act after validation, by
a person (CLI/GUI) or automatically after :data:`VALIDATION_CONFIRMATIONS` shadow predictions came true.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.i18n import Lang
from app.store import Database
from app.wisdom import taxonomy as tx
from app.wisdom.entry import PreventionRule, WisdomEntry, iso, now_utc
from app.wisdom.store import WisdomStore
from app.wisdom.timeliness import TimelinessManager, as_store, state_of
from app.wisdom.wording import entry_text

W_TYPE, W_SUBTYPE, W_TRIGGER, W_ROOT = 0.25, 0.20, 0.25, 0.30
SIMILARITY_THRESHOLD = 0.60
MIN_CLUSTER_SIZE = 3
MAX_LEADER_COMPARISONS = 64
VALIDATION_CONFIRMATIONS = 2
_EPS = 1e-9
_MODEL_SCOPED_CODES = ("CONTEXT_OVERFLOW", "CONTEXT_LENGTH_EXCEEDED", "RATE_LIMITED", "429", "RATE_LIMIT")


def jaccard(a: frozenset[str] | set[str], b: frozenset[str] | set[str]) -> float:
    """|a ∩ b| / |a ∪ b|; two empty sets share nothing (0), since no evidence is no similarity."""
    if not a and not b:
        return 0.0
    return len(a & b) / len(a | b)


@dataclass(frozen=True, slots=True)
class Features:
    """The parts of an entry the similarity looks at."""

    id: str
    type_code: str
    subtype_code: str
    triggers: frozenset[str]
    roots: frozenset[str]

    @classmethod
    def of(cls, e: WisdomEntry) -> Features:
        """Features of an entry (structured fields, inferred from text for imported entries)."""
        return cls(
            e.id,
            e.type_code,
            e.subtype_code,
            frozenset(e.effective_trigger_patterns()),
            frozenset(e.effective_root_causes()),
        )

    def tokens(self) -> set[str]:
        """Blocking tokens: every trigger pattern and root cause."""
        return {f"t:{t}" for t in self.triggers} | {f"r:{r}" for r in self.roots}


def similarity(a: Features, b: Features) -> float:
    """The spec's weighted similarity (type 25%, subtype 20%, trigger Jaccard 25%, root-cause Jaccard 30%)."""
    return (
        W_TYPE * (a.type_code == b.type_code)
        + W_SUBTYPE * (a.subtype_code == b.subtype_code)
        + W_TRIGGER * jaccard(a.triggers, b.triggers)
        + W_ROOT * jaccard(a.roots, b.roots)
    )


@dataclass(slots=True)
class Cluster:
    """Members of one cluster; the first is the leader all others were compared with."""

    leader: Features
    members: list[Features] = field(default_factory=list)
    similarities: list[float] = field(default_factory=list)


def cluster_features(
    feats: Sequence[Features], threshold: float = SIMILARITY_THRESHOLD, min_cluster_size: int = MIN_CLUSTER_SIZE
) -> tuple[list[Cluster], int]:
    """Leader clustering inside (type, subtype) blocks.

    Returns:
        Clusters of at least ``min_cluster_size`` members, and the number of similarity evaluations made (to show
        it is far from all pairs).
    """
    blocks: dict[tuple[str, str], list[Features]] = {}
    for f in feats:
        blocks.setdefault((f.type_code, f.subtype_code), []).append(f)
    out: list[Cluster] = []
    comparisons = 0
    for block in blocks.values():
        clusters: list[Cluster] = []
        token_index: dict[str, list[int]] = {}
        for f in block:
            shared: Counter[int] = Counter()
            for t in f.tokens():
                for ci in token_index.get(t, ()):
                    shared[ci] += 1
            best, best_sim = -1, -1.0
            for ci, _n in shared.most_common(MAX_LEADER_COMPARISONS):
                s = similarity(f, clusters[ci].leader)
                comparisons += 1
                if s > best_sim:
                    best, best_sim = ci, s
            if best >= 0 and best_sim + _EPS >= threshold:
                clusters[best].members.append(f)
                clusters[best].similarities.append(best_sim)
            else:
                clusters.append(Cluster(leader=f, members=[f], similarities=[1.0]))
                for t in f.tokens():
                    token_index.setdefault(t, []).append(len(clusters) - 1)
        out.extend(c for c in clusters if len(c.members) >= min_cluster_size)
    return out, comparisons


def _common(values: Sequence[Any]) -> Any | None:
    """The value shared by every member, else None."""
    vals = set(values)
    return next(iter(vals)) if len(vals) == 1 else None


def _majority(values: Sequence[Any]) -> Any | None:
    vals = [v for v in values if v is not None]
    return Counter(vals).most_common(1)[0][0] if vals else None


def shared_features(members: Sequence[WisdomEntry]) -> dict[str, Any]:
    """What a cluster's members have in common (the input of the rule templates)."""
    trig = set.intersection(*(set(m.effective_trigger_patterns()) for m in members))
    roots = set.intersection(*(set(m.effective_root_causes()) for m in members))
    return {
        "type": members[0].type_code,
        "subtype": members[0].subtype_code,
        "error_code": _common([m.error_code for m in members]),
        "tool": _common([m.tool_name for m in members]),
        "model": _common([m.model for m in members]),
        "mod": _common([m.mod for m in members]),
        "stage": _common([(m.stage or "").split(":", 1)[0] or None for m in members]),
        "param": _common([m.params.get("param") for m in members]),
        "triggers": sorted(trig),
        "root_causes": sorted(roots),
        "strategy": _majority([m.prevention_strategy for m in members]),
        "pattern": _majority([m.common_pattern for m in members]),
    }


def _rule_id(template: str, signature: str) -> str:
    return f"rule_{template}_{hashlib.sha1(signature.encode()).hexdigest()[:10]}"


def rule_from_cluster(members: Sequence[WisdomEntry], shared: dict[str, Any]) -> PreventionRule:
    """Match the shared features against the rule templates and build the rule (in observation)."""
    code = (shared["error_code"] or "").upper()
    tool = shared["tool"] or "*"
    model, mod, stage = shared["model"], shared["mod"], shared["stage"]
    scope_label = model or "*"
    params: dict[str, Any] = {}
    param_name = "*"
    priority = "high"
    if code in ("CONTEXT_OVERFLOW", "CONTEXT_LENGTH_EXCEEDED"):
        template, param_name = "token_limit", "estimated_prompt_tokens"
        reported = [int(m.params["limit_tokens"]) for m in members if m.params.get("limit_tokens")]
        sent = [
            int(m.params.get("estimated_prompt_tokens", 0)) + int(m.params.get("max_tokens", 0))
            for m in members
            if m.params.get("estimated_prompt_tokens")
        ]
        # In our estimate's units the model overflowed at ``sent``: when the provider's stated limit is above what
        # we sent, our estimate undercounts, so 90% of the smallest overflowing request is the safe bound.
        bounds = ([min(reported)] if reported else []) + ([int(0.9 * min(sent))] if sent else [])
        limit = min(bounds) if bounds else 0
        params = {"limit": limit, "min_output": 1024}
        zh = f"{scope_label} 上下文溢出 {len(members)} 次：提示+输出须 ≤ {limit} token"
        en = f"{scope_label} overflowed its context {len(members)} times: prompt + output must stay ≤ {limit} tokens"
        name = "上下文长度防溢出规则"
        priority = "critical"
    elif code in ("RATE_LIMITED", "429", "RATE_LIMIT"):
        template, param_name = "rate_limit", "model"
        waits = [float(m.params.get("retry_after_s") or 0) for m in members]
        params = {"min_interval_s": max(2.0, max(waits) if waits else 2.0)}
        zh = f"{scope_label} 多次触发 429 限流：降低请求频率"
        en = f"{scope_label} hit repeated 429 rate limits: slow down requests"
        name = "限流防护规则"
        priority = "medium"
    elif shared["subtype"] == "parameter" and shared["param"]:
        template, param_name = "param_guard", str(shared["param"])
        bad = sorted({m.params.get("value") for m in members if m.params.get("value") is not None}, key=str)
        params = {"bad_values": bad, "replacement": _majority([m.params.get("fixed_value") for m in members])}
        zh = f"参数 {param_name} 的取值 {bad} 多次出错"
        en = f"parameter {param_name} values {bad} failed repeatedly"
        name = f"参数 {param_name} 防护规则"
    elif shared["type"] == tx.COGNITIVE:
        template = "pitfall"
        label = tx.subtype_label(shared["subtype"])
        zh = f"{label}：{shared['strategy'] or members[0].description}"
        en = (
            f"{tx.SUBTYPES[shared['subtype']][2].msgid if shared['subtype'] in tx.SUBTYPES else shared['subtype']}: "
            f"{entry_text(shared['strategy'] or members[0].description, Lang.EN)}"
        )
        name = f"{label}防范规则"
        priority = "medium"
    else:
        template = "advice"
        zh = shared["strategy"] or members[0].prevention_strategy or members[0].description
        en = entry_text(zh, Lang.EN)
        name = f"{tx.subtype_label(shared['subtype'])}建议规则"
        priority = "medium"
    key = code or shared["subtype"]
    signature = f"{template}|{tool}|{param_name}|{model}|{mod}|{stage}|{key}"
    conf = sum(m.confidence for m in members) / len(members)
    stamp = iso(now_utc())
    return PreventionRule(
        rule_id=_rule_id(template, signature),
        rule_name=name,
        created_at=stamp,
        source_ids=[m.id for m in members],
        trigger={
            "工具类型": tool,
            "参数类型": param_name,
            "场景": "工具调用前" if template != "pitfall" else "窗口指令",
            "共同特征": shared["triggers"],
        },
        check={
            "条件": f"{param_name} 存在" if param_name != "*" else "上下文匹配",
            "验证": template,
            "失败处理": "提示或自动修正" if template in ("token_limit", "param_guard") else "提示",
        },
        action={
            "auto_fixable": template in ("token_limit", "param_guard"),
            "fix_method": {"token_limit": "shrink_max_tokens", "param_guard": "replace_known_bad_value"}.get(template),
            "fallback_action": "reject_with_suggestion",
        },
        scope={"工具列表": [tool], "参数模式": [param_name], "排除场景": [], "模型": model, "mod": mod, "阶段": stage},
        status="observation",
        confidence=conf,
        base_confidence=conf,
        origin="generated",
        template=template,
        tool_name=tool,
        param_name=param_name,
        model=model,
        mod=mod,
        stage=stage,
        signature=signature,
        params=params,
        priority=priority,
        message_zh=zh,
        message_en=en,
    )


class RuleGenerationManager:
    """Runs the generation pipeline and validates rules (spec Phase 3 API).

    Args:
        db: the store.
        timeliness_manager: used to refresh rule confidence on validation (optional).
    """

    def __init__(
        self, db: Database | WisdomStore | str | Path, timeliness_manager: TimelinessManager | None = None
    ) -> None:
        self.store = as_store(db)
        self.timeliness = timeliness_manager or TimelinessManager(self.store)

    def run_generation_pipeline(
        self,
        entries: Sequence[WisdomEntry | dict[str, Any]] | None = None,
        min_cluster_size: int = MIN_CLUSTER_SIZE,
        threshold: float = SIMILARITY_THRESHOLD,
    ) -> dict[str, Any]:
        """Cluster ``entries`` (default: every usable stored entry) and create or update one rule per cluster.

        Returns:
            ``{"entries", "clusters", "comparisons", "rules_generated", "rules_updated", "rules": [{"rule_id",
            "rule_name", "confidence", "status", "members"}]}``.
        """
        if entries is None:
            items = [e for e in self.store.iter_entries() if e.status != "archived"]
        else:  # the spec passes entry dicts (its JSON); accept both
            items = [WisdomEntry.from_spec(e) if isinstance(e, dict) else e for e in entries]
        by_id = {e.id: e for e in items}
        clusters, comparisons = cluster_features([Features.of(e) for e in items], threshold, min_cluster_size)
        generated = updated = 0
        rules: list[dict[str, Any]] = []
        groups: list[tuple[list[WisdomEntry], list[float]]] = []
        for c in clusters:
            members = [by_id[f.id] for f in c.members]
            code = (members[0].error_code or "").upper()
            if code in _MODEL_SCOPED_CODES and len({m.model for m in members}) > 1:
                # a token limit or a rate limit belongs to one model: split, keep the groups that are big enough
                by_model: dict[str | None, list[int]] = {}
                for i, m in enumerate(members):
                    by_model.setdefault(m.model, []).append(i)
                for idx in by_model.values():
                    if len(idx) >= min_cluster_size:
                        groups.append(([members[i] for i in idx], [c.similarities[i] for i in idx]))
            else:
                groups.append((members, c.similarities))
        for members, sims in groups:
            shared = shared_features(members)
            rule = rule_from_cluster(members, shared)
            existing = self.store.rule_by_signature(rule.signature)
            if existing is not None:
                existing.source_ids = sorted(set(existing.source_ids) | set(rule.source_ids))
                if rule.template == "token_limit":
                    old = int(existing.params.get("limit", 0)) or rule.params["limit"]
                    existing.params["limit"] = min(old, rule.params["limit"])
                elif rule.template == "param_guard":
                    existing.params["bad_values"] = sorted(
                        set(existing.params.get("bad_values", [])) | set(rule.params["bad_values"]), key=str
                    )
                rule = existing
                updated += 1
            else:
                generated += 1
            self.store.upsert_rule(rule)
            pattern = shared["pattern"] or rule.rule_name
            mean = sum(sims) / len(sims)
            self.store.upsert_pattern(
                f"pat_{rule.rule_id[5:]}",
                pattern,
                [m.id for m in members],
                {k: v for k, v in shared.items() if k != "strategy"},
                round(mean, 4),
                rule.rule_id,
            )
            self.store.set_links([m.id for m in members], pattern, rule.rule_id)
            rules.append(
                {
                    "rule_id": rule.rule_id,
                    "rule_name": rule.rule_name,
                    "confidence": rule.confidence,
                    "status": rule.status,
                    "members": len(members),
                    "template": rule.template,
                }
            )
        return {
            "entries": len(items),
            "clusters": len(clusters),
            "comparisons": comparisons,
            "rules_generated": generated,
            "rules_updated": updated,
            "rules": rules,
        }

    def validate_rule(self, rule_id: str, approve: bool = True) -> PreventionRule:
        """Validate a rule (observation → active when its confidence allows) or reject it."""
        r = self.store.get_rule(rule_id)
        r.last_validated = iso(now_utc())
        if not approve:
            r.status = "rejected"
            self.store.upsert_rule(r)
            return r
        base = r.base_confidence if r.base_confidence is not None else r.confidence
        r.base_confidence = max(base, 0.75)  # a validated rule is trusted at least as an active one
        r.status = "active"
        r.confidence = r.base_confidence
        r.status = state_of(r.confidence)
        self.store.upsert_rule(r)
        return r

    def record_shadow_confirmation(self, rule_id: str) -> PreventionRule:
        """An observation rule predicted a failure that then happened; validate it after enough of these."""
        r = self.store.get_rule(rule_id)
        n = int(r.params.get("_shadow_confirmed", 0)) + 1
        r.params["_shadow_confirmed"] = n
        self.store.upsert_rule(r)
        if r.status == "observation" and n >= VALIDATION_CONFIRMATIONS:
            return self.validate_rule(rule_id)
        return r
