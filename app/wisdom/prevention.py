"""The prevention engine: built-in parameter checks, learned rules, and the prevention-knowledge index.

``pre_check`` runs before every model request, so it must cost well under a millisecond: tool schemas are plain
dicts, learned rules are indexed by (tool, parameter) and then by model, and nothing touches the database on the
hot path (statistics are counted in memory and flushed by the caller). ``query_prevention`` is served from an
in-memory inverted index over usable entries (feature → entry ids), scanning the smallest postings first, so its
cost depends on how selective the query is rather than on how many entries exist.

Rule states decide what a rule may do: ``active`` rules auto-fix or refuse; ``deprecated`` rules only advise
(the spec: 仅作参考，不自动执行); ``observation`` rules (new, unvalidated) run in shadow and only leave a suggestion
and a shadow hit that outcome tracking uses to validate them; ``archived``/``rejected`` rules are not loaded.
"""

from __future__ import annotations

import difflib
import heapq
import itertools
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app.i18n import NC_, Lang, Msg, pick, system_lang, tr
from app.wisdom.entry import PreventionRule, WisdomEntry, iso, now_utc

LOOKBACK_RE = re.compile(r"^\s*(\d{1,3}):([0-5]\d)\s*[~～-]\s*(\d{1,3}):([0-5]\d)\s*$")
"""A lookback range ``mm:ss~mm:ss`` (plan §5.7)."""

CONTEXT_GUARD_RATIO = 0.9
"""Plan §4.3: refuse a request whose estimated prompt exceeds 90% of ContextLength."""

PRIORITY_ORDER = {"critical": 0, "high": 1, "medium": 2, "low": 3}
BLOCKING_PRIORITIES = ("critical", "high")
"""A failed check of these priorities that was not auto-fixed makes ``pass`` false; lower ones only warn."""


@dataclass(frozen=True, slots=True)
class ParamSpec:
    """Constraints of one tool parameter (what the built-in rules check).

    Attributes:
        type: ``str``, ``int``, ``float``, ``bool``, ``list`` or ``dict``.
        required: a missing value is a critical failure.
        enum: allowed values; ``enum_from`` names a parameter that carries them per call (e.g. ``known_models``).
        minimum / maximum: range bounds; ``maximum_from`` computes the bound from the call's other parameters.
        clamp: whether a range violation is auto-clamped (else it refuses with the range rule's priority).
        range_priority: priority of the range rule for this parameter (spec default: medium).
        pattern: a format regex for strings, or for every item of a list.
    """

    type: str
    required: bool = False
    enum: tuple[Any, ...] = ()
    enum_from: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    maximum_from: Callable[[Mapping[str, Any]], float | None] | None = None
    clamp: bool = True
    range_priority: str = "medium"
    pattern: re.Pattern[str] | None = None


def _max_output(p: Mapping[str, Any]) -> float | None:
    v = p.get("model_max_tokens")
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) and v > 0 else None


def _prompt_guard(p: Mapping[str, Any]) -> float | None:
    v = p.get("context_length")
    return CONTEXT_GUARD_RATIO * float(v) if isinstance(v, int | float) and not isinstance(v, bool) and v > 0 else None


CHAT_COMPLETION_SCHEMA: dict[str, ParamSpec] = {
    "model": ParamSpec("str", required=True, enum_from="known_models"),
    "max_tokens": ParamSpec("int", required=True, minimum=1, maximum_from=_max_output),
    "temperature": ParamSpec("float", minimum=0.0, maximum=2.0),
    "estimated_prompt_tokens": ParamSpec(
        "int", minimum=0, maximum_from=_prompt_guard, clamp=False, range_priority="critical"
    ),
    "context_length": ParamSpec("int", minimum=1),
    "lookback_ranges": ParamSpec("list", pattern=LOOKBACK_RE),
}
"""The model request as a tool (issue 9 §6): model known to the provider, max_tokens within the model's limit,
temperature range, estimated prompt within 90% of ContextLength, lookback range format."""

BUILTIN_RULES: dict[str, tuple[str, str, bool, str, Msg]] = {
    # rule_id: (priority, check kind, auto-fixable, the spec's 中文 name (stored), the name shown) — the spec's table
    "builtin_required": ("critical", "required", False, "必需参数检查", NC_("builtin rule", "Required parameters")),
    "builtin_enum": ("high", "enum", True, "枚举参数验证", NC_("builtin rule", "Enum validation")),
    "builtin_type": ("high", "type", False, "类型验证", NC_("builtin rule", "Type validation")),
    "builtin_range": ("medium", "range", True, "范围验证", NC_("builtin rule", "Range validation")),
    "builtin_format": ("low", "format", False, "格式验证", NC_("builtin rule", "Format validation")),
}


def builtin_rule_records() -> list[PreventionRule]:
    """The five built-in rules as store records (so their statistics show next to learned rules)."""
    out = []
    stamp = iso(now_utc())
    for rid, (prio, kind, fixable, zh, en) in BUILTIN_RULES.items():
        out.append(
            PreventionRule(
                rule_id=rid,
                rule_name=zh,
                created_at=stamp,
                source_ids=[],
                trigger={"工具类型": "any", "参数类型": kind, "场景": "工具调用前"},
                check={
                    "条件": "参数存在" if kind != "required" else "参数为必需",
                    "验证": kind,
                    "失败处理": "自动修正" if fixable else "拒绝并提示",
                },
                action={
                    "auto_fixable": fixable,
                    "fix_method": {"enum": "convert_to_nearest_valid_value", "range": "clamp_to_bounds"}.get(kind),
                    "fallback_action": "reject_with_suggestion",
                },
                scope={"工具列表": ["*"], "参数模式": ["*"], "排除场景": []},
                status="active",
                confidence=1.0,
                origin="builtin",
                template=f"builtin_{kind}",
                signature=f"builtin:{kind}",
                priority=prio,
                message_zh=zh,
                message_en=en.msgid,
            )
        )
    return out


@dataclass(slots=True)
class PreCheckResult:
    """What ``pre_check`` decided.

    Attributes:
        passed: False when a critical/high check failed and was not auto-fixed (the call must not be made).
        warnings: problems found (fixed or not), in the engine's language.
        auto_fixes: parameter → {"from", "to", "rule_id", "reason"} for every value that was changed.
        suggestions: advice (deprecated rules, observation rules, how to fix a refusal).
        params: the parameters after auto-fixes (what the caller should send).
        fired: ids of rules that acted (applied) on this call.
        blocked_by: ids of rules whose failure made ``passed`` false.
        shadow: ids of observation rules that would have fired.
    """

    passed: bool = True
    warnings: list[str] = field(default_factory=list)
    auto_fixes: dict[str, dict[str, Any]] = field(default_factory=dict)
    suggestions: list[str] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)
    fired: list[str] = field(default_factory=list)
    blocked_by: list[str] = field(default_factory=list)
    shadow: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The spec's return shape: pass, warnings, auto_fixes (param → new value), suggestions."""
        return {
            "pass": self.passed,
            "warnings": list(self.warnings),
            "auto_fixes": {k: v["to"] for k, v in self.auto_fixes.items()},
            "suggestions": list(self.suggestions),
        }


def _type_ok(kind: str, v: Any) -> bool:
    if kind == "int":
        return isinstance(v, int) and not isinstance(v, bool)
    if kind == "float":
        return isinstance(v, int | float) and not isinstance(v, bool)
    return isinstance(v, {"str": str, "bool": bool, "list": list | tuple, "dict": dict}.get(kind, object))


def nearest_valid(value: Any, allowed: Iterable[Any]) -> Any | None:
    """The allowed value nearest to ``value``: numeric distance for numbers, string similarity otherwise.

    Returns None when nothing is reasonably close (string similarity below 0.5): a model id that resembles no
    known model is better refused than silently swapped for an unrelated one.
    """
    options = list(allowed)
    if not options:
        return None
    if (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and all(isinstance(o, int | float) for o in options)
    ):
        return min(options, key=lambda o: abs(float(o) - float(value)))
    text = str(value).lower()
    best, best_score = None, 0.0
    for o in options:
        score = difflib.SequenceMatcher(None, text, str(o).lower()).ratio()
        if score > best_score:
            best, best_score = o, score
    return best if best_score >= 0.5 else None


class PreventionEngine:
    """Executes built-in checks and learned rules; holds the rule index and the query index.

    Args:
        lang: language of warnings and suggestions.
    """

    def __init__(self, lang: Lang | None = None) -> None:
        self.lang = lang or system_lang()
        self.schemas: dict[str, dict[str, ParamSpec]] = {"chat_completion": CHAT_COMPLETION_SCHEMA}
        self._rule_index: dict[tuple[str, str], dict[str | None, list[PreventionRule]]] = {}
        self._rules: dict[str, PreventionRule] = {}
        self._stats: dict[str, list[int]] = {}
        self.query_index = PreventionIndex()

    # ---- configuration ---------------------------------------------------------------------------------------
    def register_tool_schema(self, tool_name: str, schema: dict[str, ParamSpec]) -> None:
        """Declare a tool's parameters so the built-in rules can check its calls."""
        self.schemas[tool_name] = dict(schema)

    def load_rules(self, rules: Iterable[PreventionRule]) -> None:
        """Replace the learned-rule index (archived, rejected and builtin records are skipped)."""
        self._rule_index.clear()
        self._rules.clear()
        for r in rules:
            self.add_rule(r)

    def add_rule(self, r: PreventionRule) -> None:
        """Index (or re-index) one learned rule under (tool, parameter) and model."""
        self.remove_rule(r.rule_id)
        if r.origin == "builtin" or r.status in ("archived", "rejected") or r.template in ("pitfall", "advice"):
            if r.origin != "builtin" and r.status not in ("archived", "rejected"):
                self._rules[r.rule_id] = r  # kept for rule lookup (pitfalls), not for parameter checks
            return
        self._rules[r.rule_id] = r
        bucket = self._rule_index.setdefault((r.tool_name, r.param_name), {})
        bucket.setdefault(r.model, []).append(r)
        bucket[r.model].sort(key=lambda x: PRIORITY_ORDER.get(x.priority, 9))

    def remove_rule(self, rule_id: str) -> None:
        """Drop a rule from the index."""
        old = self._rules.pop(rule_id, None)
        if old is None:
            return
        bucket = self._rule_index.get((old.tool_name, old.param_name), {})
        lst = bucket.get(old.model, [])
        bucket[old.model] = [x for x in lst if x.rule_id != rule_id]

    def rules(self) -> list[PreventionRule]:
        """Loaded learned rules."""
        return list(self._rules.values())

    def take_stats(self) -> dict[str, tuple[int, int, int]]:
        """The (applied, successes, failures) counted since the last call, and reset them."""
        out = {k: (v[0], v[1], v[2]) for k, v in self._stats.items() if any(v)}
        self._stats.clear()
        return out

    def count(self, rule_id: str, applied: int = 0, success: int = 0, failure: int = 0) -> None:
        """Add to a rule's in-memory statistics."""
        s = self._stats.setdefault(rule_id, [0, 0, 0])
        s[0] += applied
        s[1] += success
        s[2] += failure

    # ---- pre_check -------------------------------------------------------------------------------------------
    def pre_check(self, tool_name: str, params: Mapping[str, Any]) -> PreCheckResult:
        """Check (and auto-fix) one call's parameters: built-ins from the tool's schema, then learned rules."""
        res = PreCheckResult(params=dict(params))
        schema = self.schemas.get(tool_name)
        if schema:
            self._builtins(schema, res)
        self._learned(tool_name, res)
        return res

    def _say(self, zh: str, en: str) -> str:
        return pick(self.lang, zh, en)

    def _fail(self, res: PreCheckResult, rule_id: str, priority: str, msg: str, suggestion: str = "") -> None:
        res.warnings.append(msg)
        if suggestion:
            res.suggestions.append(suggestion)
        if priority in BLOCKING_PRIORITIES:
            res.passed = False
            res.blocked_by.append(rule_id)
            self.count(rule_id, applied=1, success=1)  # a refused call cannot fail
        else:
            self.count(rule_id, applied=1)
        res.fired.append(rule_id)

    def _fix(  # noqa: PLR0917 - private helper
        self,
        res: PreCheckResult,
        rule_id: str,
        name: str,
        old: Any,
        new: Any,
        reason: str,
    ) -> None:
        res.params[name] = new
        res.auto_fixes[name] = {"from": old, "to": new, "rule_id": rule_id, "reason": reason}
        res.warnings.append(reason)
        res.fired.append(rule_id)
        self.count(rule_id, applied=1)

    def _builtins(self, schema: Mapping[str, ParamSpec], res: PreCheckResult) -> None:
        p = res.params
        for name, spec in schema.items():
            if name not in p or p[name] is None:
                if spec.required:
                    self._fail(
                        res,
                        "builtin_required",
                        "critical",
                        tr(self.lang, "required parameter {name} is missing", name=name),
                        tr(self.lang, "provide {name}", name=name),
                    )
                continue
            v = p[name]
            if not _type_ok(spec.type, v):
                self._fail(
                    res,
                    "builtin_type",
                    "high",
                    tr(
                        self.lang,
                        "parameter {name} must be {type}, got {name_2}",
                        name=name,
                        type=spec.type,
                        name_2=type(v).__name__,
                    ),
                )
                continue
            allowed = spec.enum or (tuple(p.get(spec.enum_from) or ()) if spec.enum_from else ())
            if allowed and v not in allowed:
                best = nearest_valid(v, allowed)
                if best is not None:
                    self._fix(
                        res,
                        "builtin_enum",
                        name,
                        v,
                        best,
                        tr(
                            self.lang,
                            "{name}={v!r} is not an allowed value; auto-fixed to {best!r}",
                            name=name,
                            v=v,
                            best=best,
                        ),
                    )
                else:
                    self._fail(
                        res,
                        "builtin_enum",
                        "high",
                        tr(self.lang, "{name}={v!r} is not allowed", name=name, v=v),
                        tr(self.lang, "allowed values: {map}", map=", ".join(map(str, allowed))),
                    )
                continue
            if spec.type in ("int", "float"):
                self._range(name, spec, v, res)
            if spec.pattern is not None:
                items = list(v) if isinstance(v, list | tuple) else [v]
                bad = [
                    x
                    for x in items
                    if not (isinstance(x, str) and spec.pattern.match(x))
                    or (name == "lookback_ranges" and _lookback_reversed(x))
                ]
                if bad:
                    self._fail(
                        res,
                        "builtin_format",
                        "low",
                        tr(self.lang, "parameter {name} is malformed: {bad}", name=name, bad=bad),
                        tr(self.lang, "lookback ranges are mm:ss~mm:ss with start before end"),
                    )

    def _range(self, name: str, spec: ParamSpec, v: float, res: PreCheckResult) -> None:
        hi = spec.maximum
        if spec.maximum_from is not None:
            dyn = spec.maximum_from(res.params)
            hi = dyn if dyn is not None else hi
        lo = spec.minimum
        target: float | None = None
        if lo is not None and v < lo:
            target = lo
        elif hi is not None and v > hi:
            target = hi
        if target is None:
            return
        if spec.clamp:
            new: float = int(target) if spec.type == "int" else float(target)
            self._fix(
                res,
                "builtin_range",
                name,
                v,
                new,
                tr(
                    self.lang,
                    "{name}={v} is outside [{lo}, {hi}]; auto-clamped to {new}",
                    name=name,
                    v=v,
                    lo=lo,
                    hi=hi,
                    new=new,
                ),
            )
            return
        if name == "estimated_prompt_tokens":
            self._fail(
                res,
                "builtin_range",
                spec.range_priority,
                tr(
                    self.lang,
                    "estimated prompt {v} tokens exceeds 90% of the context length ({value}); request refused",
                    v=int(v),
                    value=int(hi or 0),
                ),
                tr(self.lang, "shrink the slice or the found facts and retry"),
            )
            return
        self._fail(
            res,
            "builtin_range",
            spec.range_priority,
            tr(self.lang, "{name}={v} is outside [{lo}, {hi}]", name=name, v=v, lo=lo, hi=hi),
        )

    def _learned(self, tool_name: str, res: PreCheckResult) -> None:
        model = res.params.get("model")
        seen: set[str] = set()
        for key in list(res.params):
            for tool in (tool_name, "*"):
                bucket = self._rule_index.get((tool, key))
                if not bucket:
                    continue
                for rules in (bucket.get(model) if isinstance(model, str) else None, bucket.get(None)):
                    for r in rules or ():
                        if r.rule_id not in seen:
                            seen.add(r.rule_id)
                            self._apply(r, res)

    def _apply(self, r: PreventionRule, res: PreCheckResult) -> None:
        p = res.params
        cite = f"[{r.rule_id}]"
        finding: tuple[str, str, Any] | None = None  # (zh, en, fixed value or None)
        name = r.param_name
        if r.template == "token_limit":
            limit = int(r.params.get("limit", 0))
            prompt, mt = p.get("estimated_prompt_tokens"), p.get("max_tokens")
            if not (isinstance(prompt, int) and limit > 0):
                return
            mt_i = mt if isinstance(mt, int) else 0
            if prompt + mt_i <= limit:
                return
            room = limit - prompt
            min_out = int(r.params.get("min_output", 1024))
            name = "max_tokens"
            fixed = room if room >= min_out and mt_i > room else None
            finding = (
                f"{cite} 该模型实测上下文上限约 {limit} token：提示 {prompt} + 输出 {mt_i} 将溢出",
                f"{cite} this model overflowed at about {limit} tokens: prompt {prompt} + output {mt_i} would overflow",
                fixed,
            )
        elif r.template == "param_guard":
            v = p.get(name)
            bad = r.params.get("bad_values", [])
            if v is None or v not in bad:
                return
            finding = (
                f"{cite} 参数 {name}={v!r} 曾多次导致错误",
                f"{cite} {name}={v!r} caused repeated errors",
                r.params.get("replacement"),
            )
        elif r.template == "rate_limit":
            msg = (
                f"{cite} 该模型曾连续触发 429 限流，请求间隔至少 {r.params.get('min_interval_s', 2)} 秒",
                f"{cite} this model hit repeated 429s; space requests by ≥ {r.params.get('min_interval_s', 2)} s",
            )
            if r.status == "active":
                res.warnings.append(self._say(*msg))
                res.fired.append(r.rule_id)
                self.count(r.rule_id, applied=1)
            else:
                res.suggestions.append(self._say(*msg))
            return
        else:
            return
        zh, en, fixed = finding
        if r.status == "observation":
            res.suggestions.append(tr(self.lang, "(observation) ") + self._say(zh, en))
            res.shadow.append(r.rule_id)
            return
        if r.status == "deprecated":
            res.suggestions.append(tr(self.lang, "(advice only) ") + self._say(zh, en))
            return
        if fixed is not None and r.action.get("auto_fixable", True):
            old = p.get(name)
            self._fix(
                res,
                r.rule_id,
                name,
                old,
                fixed,
                self._say(zh + f"，已将 {name} 调整为 {fixed}", en + f"; {name} auto-fixed to {fixed}"),
            )
        else:
            self._fail(
                res,
                r.rule_id,
                "critical" if r.template == "token_limit" else r.priority,
                self._say(zh + "，拒绝发起请求", en + "; request refused"),
                tr(self.lang, "shrink the slice/prompt and retry"),
            )


def _lookback_reversed(text: Any) -> bool:
    m = LOOKBACK_RE.match(str(text))
    if not m:
        return True
    a = int(m.group(1)) * 60 + int(m.group(2))
    b = int(m.group(3)) * 60 + int(m.group(4))
    return a >= b


# ---- query index -------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class IndexedEntry:
    """What the query index keeps per usable entry (enough to answer without the database)."""

    id: str
    type_code: str
    subtype_code: str
    error_code: str | None
    strategy: str
    precheck_rule: dict[str, Any] | None
    priority: str | None
    confidence: float
    status: str
    model: str | None
    mod: str | None
    stage: str | None
    description: str


def stage_kind(stage: str | None) -> str | None:
    """``window:2:1`` → ``window`` (pitfalls are per stage kind, not per window)."""
    return stage.split(":", 1)[0] if stage else None


def entry_keys(e: WisdomEntry) -> set[str]:
    """Features an entry is indexed under."""
    keys = {f"type:{e.type_code}", f"subtype:{e.subtype_code}"}
    if e.tool_name:
        keys.add(f"tool:{e.tool_name}")
    if e.error_code:
        keys.add(f"code:{e.error_code}")
    if e.model:
        keys.add(f"model:{e.model}")
    if e.mod:
        keys.add(f"mod:{e.mod}")
    if e.stage:
        keys.add(f"stage:{stage_kind(e.stage)}")
    keys.update(f"param:{k}" for k in e.params)
    keys.update(e.trigger_patterns)
    return keys


def query_keys(context: Mapping[str, Any], tool_name: str | None, params: Mapping[str, Any] | None) -> set[str]:
    """Features of a query (context: model, mod, stage, error_type, error_subtype, error_code, keywords)."""
    keys: set[str] = set()
    if tool_name:
        keys.add(f"tool:{tool_name}")
    for ck, prefix in (
        ("model", "model"),
        ("mod", "mod"),
        ("error_code", "code"),
        ("error_type", "type"),
        ("error_subtype", "subtype"),
    ):
        v = context.get(ck)
        if v:
            keys.add(f"{prefix}:{v}")
    if context.get("stage"):
        keys.add(f"stage:{stage_kind(str(context['stage']))}")
    keys.update(str(k) for k in context.get("patterns", ()) or ())
    if params:
        keys.update(f"param:{k}" for k in params)
    return keys


class PreventionIndex:
    """Inverted index feature → entry ids over usable (active/deprecated) entries."""

    CANDIDATE_CAP = 2000

    def __init__(self) -> None:
        self.entries: dict[str, IndexedEntry] = {}
        self.postings: dict[str, set[str]] = {}
        self._keys: dict[str, set[str]] = {}

    def __len__(self) -> int:
        return len(self.entries)

    def add(self, e: WisdomEntry) -> None:
        """Index (or re-index) an entry; archived entries are removed instead."""
        self.remove(e.id)
        if e.status == "archived":
            return
        self.entries[e.id] = IndexedEntry(
            id=e.id,
            type_code=e.type_code,
            subtype_code=e.subtype_code,
            error_code=e.error_code,
            strategy=e.prevention_strategy,
            precheck_rule=e.precheck_rule,
            priority=e.prevention_priority,
            confidence=e.confidence,
            status=e.status,
            model=e.model,
            mod=e.mod,
            stage=stage_kind(e.stage),
            description=e.description,
        )
        keys = entry_keys(e)
        self._keys[e.id] = keys
        for k in keys:
            self.postings.setdefault(k, set()).add(e.id)

    def remove(self, entry_id: str) -> None:
        """Drop an entry from the index."""
        if self.entries.pop(entry_id, None) is None:
            return
        for k in self._keys.pop(entry_id, ()):
            post = self.postings.get(k)
            if post is not None:
                post.discard(entry_id)

    def query(
        self, keys: set[str], model: str | None = None, mod: str | None = None, limit: int = 10, min_score: int = 1
    ) -> list[tuple[IndexedEntry, int]]:
        """Best entries for ``keys``: score = matched features, then confidence.

        Candidates come from intersecting postings rarest first, skipping a feature whenever it would leave fewer
        than ``limit`` candidates; so the candidates match every selective feature they can, and the work is
        bounded by the rarest posting instead of by the index size. Entries scoped to another model or mod than
        the query's are skipped (their lesson is about that scope); when that leaves fewer than ``limit``, the
        previous, wider intersection is scored too, and when even the rarest feature has too few entries, the
        next postings fill up the candidates (at most :data:`CANDIDATE_CAP` looked at).
        """
        posts = sorted((self.postings[k] for k in keys if self.postings.get(k)), key=len)
        if not posts:
            return []
        levels: list[set[str]] = [posts[0]]
        for p in posts[1:]:
            narrowed = levels[-1] & p
            if len(narrowed) >= limit:
                levels.append(narrowed)
        seen: set[str] = set()
        scored: list[tuple[int, float, str]] = []
        # narrowest level first; widen while the scope filter leaves fewer than ``limit`` results
        for level in reversed(levels):
            for eid in itertools.islice(level, self.CANDIDATE_CAP):
                if eid in seen:
                    continue
                seen.add(eid)
                ie = self.entries[eid]
                if (model and ie.model and ie.model != model) or (mod and ie.mod and ie.mod != mod):
                    continue
                score = sum(1 for p in posts if eid in p)
                if score >= min_score:
                    scored.append((score, ie.confidence, eid))
            if len(scored) >= limit or len(seen) >= self.CANDIDATE_CAP:
                break
        if len(scored) < limit and len(seen) < self.CANDIDATE_CAP:
            for p in posts[1:]:  # even the rarest feature was too rare: fill up from the others
                for eid in itertools.islice(p, self.CANDIDATE_CAP):
                    if eid in seen:
                        continue
                    seen.add(eid)
                    ie = self.entries[eid]
                    if (model and ie.model and ie.model != model) or (mod and ie.mod and ie.mod != mod):
                        continue
                    scored.append((sum(1 for q in posts if eid in q), ie.confidence, eid))
                if len(scored) >= limit or len(seen) >= self.CANDIDATE_CAP:
                    break
        top = heapq.nlargest(limit, scored)
        return [(self.entries[eid], score) for score, _c, eid in top]
