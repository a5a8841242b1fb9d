"""Objectivity evaluation and cognitive-error analysis of model text (the spec's Phase 2 flow).

The evaluator scores a window's or summary's text against the replay's facts on four subjectivity dimensions,
sentence by sentence:

* ``certainty_without_evidence`` — certainty words ("显然", "毫无疑问", "clearly"…) in a sentence that cites no
  evidence (no game time, no known unit id, no number from the facts);
* ``unsupported_specifics`` — numbers or unit ids that do not occur in the facts, or unit names of the game's
  vocabulary that the facts never mention (the hallucination signal);
* ``speculative_as_fact`` — intent or mind-reading ("想要", "故意", "intended to") stated without a hedge;
* ``one_sided_attribution`` — an outcome put on one cause or one player alone ("完全是因为", "solely because").

Scores: each dimension is the share of sentences flagged; ``subjectivity_score`` is their weighted sum (weights
below, hallucination-like specifics weigh most because they are the costliest for a fact-checked analysis);
``objectivity_score`` is the share of sentences that cite evidence; ``gap`` = subjectivity − objectivity.
Severity: < 0.10 none, < 0.20 mild, < 0.35 moderate, otherwise severe; one level worse when the text cites
almost no evidence (objectivity < 0.2). Moderate or severe text goes to :class:`CognitiveErrorAnalyzer`, whose
result becomes one error-wisdom entry. The thresholds are ours (the spec gives none) and are constants here.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app import deadline
from app.wisdom import taxonomy as tx
from app.wisdom.entry import WisdomEntry, iso, now_utc

if TYPE_CHECKING:
    from app.wisdom.manager import ErrorWisdomManager

DIMENSION_WEIGHTS = {
    "certainty_without_evidence": 0.30,
    "unsupported_specifics": 0.35,
    "speculative_as_fact": 0.20,
    "one_sided_attribution": 0.15,
}
if set(tx.DIMENSION_WORDS) != set(DIMENSION_WEIGHTS):  # import-time: a new dimension cannot miss its words
    raise RuntimeError("objectivity dimensions without words")
SEVERITY_THRESHOLDS = ((0.10, "none"), (0.20, "mild"), (0.35, "moderate"))
LOW_EVIDENCE = 0.2

CERTAINTY = (
    "显然",
    "毫无疑问",
    "肯定",
    "一定",
    "必然",
    "无疑",
    "毋庸置疑",
    "确定无疑",
    "clearly",
    "certainly",
    "definitely",
    "obviously",
    "undoubtedly",
    "without doubt",
    "no doubt",
)
HEDGES = (
    "可能",
    "也许",
    "大概",
    "或许",
    "推测",
    "似乎",
    "疑似",
    "估计",
    "不确定",
    "likely",
    "probably",
    "might",
    "perhaps",
    "maybe",
    "possibly",
    "may ",
    "seems",
    "appears",
)
INTENT = (
    "想要",
    "打算",
    "意图",
    "企图",
    "故意",
    "目的是",
    "蓄意",
    "intended to",
    "wanted to",
    "planned to",
    "deliberately",
    "tried to bait",
    "meant to",
)
ONE_SIDED = (
    "完全是因为",
    "全是因为",
    "都怪",
    "唯一原因",
    "只因为",
    "完全由于",
    "全怪",
    "entirely because",
    "solely because",
    "only because",
    "all because",
    "entirely due to",
    "the sole reason",
)
IGNORANCE = ("不知道", "不清楚", "无法确定", "没有信息", "don't know", "not sure", "unknown")

_SENT_SPLIT = re.compile(r"(?<=[。！？!?；;\n])|(?<=\.)\s+")
_TIME = re.compile(r"\b\d{1,3}:[0-5]\d\b")
_UNIT_ID = re.compile(r"(?:#|unit\s*id\s*|unitid\s*|单位\s*(?:id|ID)?\s*)(\d{2,})", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\d:.#])\d+(?:\.\d+)?(?![\d:])")


@dataclass(frozen=True, slots=True)
class EvidenceContext:
    """What the facts contain, to tell supported specifics from invented ones.

    Attributes:
        numbers: every number occurring in the facts (as text, e.g. ``"12"``, ``"3.5"``).
        unit_ids: object ids present in the replay.
        terms: unit/structure/player names the facts mention.
        vocabulary: every unit name of the mod (a name from here missing in ``terms`` is unsupported).
    """

    numbers: frozenset[str] = frozenset()
    unit_ids: frozenset[int] = frozenset()
    terms: frozenset[str] = frozenset()
    vocabulary: frozenset[str] = frozenset()

    # An empty part means "not known", not "nothing exists": without facts no number or id can be called invented,
    # so the unsupported-specifics check only uses the parts that were given.

    @classmethod
    def from_facts(
        cls, facts_text: str, unit_ids: Iterable[int] = (), terms: Iterable[str] = (), vocabulary: Iterable[str] = ()
    ) -> EvidenceContext:
        """Build from the facts' text (numbers are extracted from it) and the known ids, terms and vocabulary."""
        nums = {_norm_num(n) for n in _NUMBER.findall(_TIME.sub(" ", facts_text))}
        ids = set(unit_ids) | {int(m) for m in _UNIT_ID.findall(facts_text)}
        return cls(frozenset(nums), frozenset(ids), frozenset(terms), frozenset(vocabulary))


def _norm_num(n: str) -> str:
    return n.rstrip("0").rstrip(".") if "." in n else n


@dataclass(frozen=True, slots=True)
class Finding:
    """One flagged sentence."""

    dimension: str
    sentence: str
    unit_ids: tuple[int, ...] = ()
    numbers: tuple[str, ...] = ()
    terms: tuple[str, ...] = ()

    def claim_key(self) -> str:
        """Identity of the claim, shared with the validator's issues: ``unit:<id>`` or a sentence hash."""
        if self.unit_ids:
            return f"unit:{self.unit_ids[0]}"
        norm = re.sub(r"\s+", "", self.sentence).lower()
        return "claim:" + hashlib.sha1(norm.encode()).hexdigest()[:12]


@dataclass(slots=True)
class ObjectivityMetric:
    """Result of :meth:`ObjectivityEvaluator.evaluate` (the spec's fields plus the flagged sentences)."""

    subjectivity_score: float
    objectivity_score: float
    gap: float
    subjectivity_dimensions: dict[str, float]
    severity: str
    sentences: int
    findings: list[Finding] = field(default_factory=list)
    context_type: str = ""

    @property
    def needs_analysis(self) -> bool:
        """Moderate or severe results go to the cognitive-error analyser."""
        return self.severity in ("moderate", "severe")


def split_sentences(text: str) -> list[str]:
    """Sentences of a Chinese or English text (empty pieces dropped)."""
    return [s.strip() for s in _SENT_SPLIT.split(text) if s and s.strip()]


def _has(s: str, words: Iterable[str]) -> bool:
    low = s.lower()
    return any(w in low for w in words)


def severity_of(subjectivity: float, objectivity: float) -> str:
    """Map scores to none/mild/moderate/severe (thresholds in the module docstring)."""
    level = next((i for i, (t, _n) in enumerate(SEVERITY_THRESHOLDS) if subjectivity < t), 3)
    if objectivity < LOW_EVIDENCE and level > 0:
        level = min(3, level + 1)
    return ("none", "mild", "moderate", "severe")[level]


class ObjectivityEvaluator:
    """Scores text for subjectivity against the facts; records cognitive errors when it is bad enough.

    Args:
        error_wisdom_manager: where moderate/severe results are recorded (None: evaluate only).
        cognitive_error_analyzer: the analyser (a default one when None).
    """

    def __init__(
        self,
        error_wisdom_manager: ErrorWisdomManager | None = None,
        cognitive_error_analyzer: CognitiveErrorAnalyzer | None = None,
    ) -> None:
        self.manager = error_wisdom_manager
        self.analyzer = cognitive_error_analyzer or CognitiveErrorAnalyzer()

    def evaluate(
        self,
        response: str,
        context_type: str = "window",
        evidence: EvidenceContext | None = None,
        record: Mapping[str, Any] | None = None,
    ) -> ObjectivityMetric:
        """Score ``response``, and record it when it is bad enough.

        With a manager and ``record`` (trace_id, model, mod, stage, skip_claims), a moderate/severe result is
        analysed and recorded.
        """
        metric = self.score(response, context_type, evidence or EvidenceContext())
        if self.manager is not None and record is not None and metric.needs_analysis:
            self._record_cognitive_error(metric, response, dict(record))
        return metric

    def score(self, response: str, context_type: str, ev: EvidenceContext) -> ObjectivityMetric:
        """The scores alone (no recording)."""
        sents = split_sentences(response)
        n = len(sents)
        flags: dict[str, int] = dict.fromkeys(DIMENSION_WEIGHTS, 0)
        findings: list[Finding] = []
        evidenced = 0
        vocab_missing = {t for t in ev.vocabulary if t not in ev.terms}
        for s in sents:
            deadline.check()  # CPU-bound over model output: the run's deadline stops it too
            ids = tuple(int(x) for x in _UNIT_ID.findall(s))
            bad_ids = tuple(i for i in ids if i not in ev.unit_ids) if ev.unit_ids else ()
            stripped = _UNIT_ID.sub(" ", _TIME.sub(" ", s))
            nums = [_norm_num(x) for x in _NUMBER.findall(stripped)]
            bad_nums = tuple(x for x in nums if x not in ev.numbers) if ev.numbers else ()
            bad_terms = tuple(sorted(t for t in vocab_missing if t in s))
            has_evidence = (
                bool(_TIME.search(s))
                or any(i in ev.unit_ids for i in ids)
                or any(x in ev.numbers for x in nums)
                or _has(s, ("证据", "evidence", "记录显示", "the log shows"))
            )
            evidenced += has_evidence
            if bad_ids or bad_nums or bad_terms:
                flags["unsupported_specifics"] += 1
                findings.append(Finding("unsupported_specifics", s, bad_ids, bad_nums, bad_terms))
            hedged = _has(s, HEDGES)
            if _has(s, CERTAINTY) and not has_evidence:
                flags["certainty_without_evidence"] += 1
                findings.append(Finding("certainty_without_evidence", s, ids))
            if _has(s, INTENT) and not hedged:
                flags["speculative_as_fact"] += 1
                findings.append(Finding("speculative_as_fact", s, ids))
            if _has(s, ONE_SIDED):
                flags["one_sided_attribution"] += 1
                findings.append(Finding("one_sided_attribution", s, ids))
        dims = {k: (v / n if n else 0.0) for k, v in flags.items()}
        subj = sum(DIMENSION_WEIGHTS[k] * dims[k] for k in dims)
        obj = evidenced / n if n else 1.0
        return ObjectivityMetric(
            subjectivity_score=round(subj, 6),
            objectivity_score=round(obj, 6),
            gap=round(subj - obj, 6),
            subjectivity_dimensions=dims,
            severity=severity_of(subj, obj) if n else "none",
            sentences=n,
            findings=findings,
            context_type=context_type,
        )

    def _record_cognitive_error(self, metric: ObjectivityMetric, response: str, record: dict[str, Any]) -> str | None:
        """Analyse and record one entry for the text (the spec's hook).

        Findings about claims already recorded from validator issues (``record["skip_claims"]``) are left out,
        so one wrong claim makes one entry.
        """
        skip = set(record.get("skip_claims", ()))
        kept = [f for f in metric.findings if f.claim_key() not in skip]
        if not kept or self.manager is None:
            return None
        metric = ObjectivityMetric(
            metric.subjectivity_score,
            metric.objectivity_score,
            metric.gap,
            metric.subjectivity_dimensions,
            metric.severity,
            metric.sentences,
            kept,
            metric.context_type,
        )
        analysis = self.analyzer.analyze(metric, response, record)
        entry = self.analyzer.to_error_wisdom_entry(analysis, record)
        return self.manager.record_entry(entry)


@dataclass(slots=True)
class CognitiveAnalysis:
    """What :meth:`CognitiveErrorAnalyzer.analyze` found.

    The four class scores, the primary class and the three root-cause dimensions.
    """

    class_scores: dict[str, float]
    primary: str
    cognitive: dict[str, str]
    situational: dict[str, str]
    system: dict[str, str]
    root_cause_categories: list[str]
    metric: ObjectivityMetric
    evidence_sentences: list[str]
    claim_keys: list[str]


_CLASS_PROFILE: dict[str, tuple[dict[str, str], list[str], str, str]] = {
    # class: (cognitive dimension analysis, root-cause codes, root cause zh, prevention strategy zh); their English
    # is in app.wisdom.error_kinds (STRATEGY_EN, OBJECTIVITY_EN), read by app.wisdom.wording
    "hallucination": (
        {
            "知识缺陷": "知道但不完整：事实中没有该数字/单位",
            "推理偏差": "过度推断",
            "注意力分配": "忽略了事实中没有此项的事实",
        },
        ["knowledge_defect/incomplete", "reasoning_bias/over_inference", "attention/ignored_key_info"],
        "模型写出了事实中不存在的数字、单位或 UnitId，未与事实核对",
        "提及任何数字、单位或 UnitId 前先在已给事实中核对，事实中没有的不写",
    ),
    "reasoning_jump": (
        {"知识缺陷": "无", "推理偏差": "遗漏前提、逻辑跳跃", "注意力分配": "过度关注次要信息"},
        ["reasoning_bias/missing_premise", "reasoning_bias/logic_jump"],
        "结论的确定性高于证据所能支撑的程度，缺少推理前提",
        "每个结论给出时间点与证据；仅有移动/选择类证据时降低置信度",
    ),
    "knowledge_gap": (
        {"知识缺陷": "完全不知道", "推理偏差": "无", "注意力分配": "无"},
        ["knowledge_defect/unknown", "system/learning_stage"],
        "知识库中缺少回答所需的信息",
        "知识不足时明确说明边界，不臆测",
    ),
    "bias": (
        {"知识缺陷": "无", "推理偏差": "过度推断", "注意力分配": "选择性注意"},
        ["attention/overfocus_minor", "system/personality"],
        "把结果归因于单一原因或单一玩家，忽略了其他因素",
        "归因时同时考察双方的操作与多种原因",
    ),
}
_CLASS_LABEL = {
    "hallucination": "幻觉倾向",
    "reasoning_jump": "推理跳跃",
    "knowledge_gap": "知识缺失",
    "bias": "偏见影响",
}


class CognitiveErrorAnalyzer:
    """Classifies a subjective text into the four cognitive classes and analyses its root causes."""

    def analyze(
        self, metric: ObjectivityMetric, response: str = "", context: Mapping[str, Any] | None = None
    ) -> CognitiveAnalysis:
        """Score the four classes from the metric's dimensions, pick the primary one, fill the dimensions."""
        ctx = dict(context or {})
        d = metric.subjectivity_dimensions
        sents = split_sentences(response) if response else []
        ignorance = (sum(1 for s in sents if _has(s, IGNORANCE)) / len(sents)) if sents else 0.0
        unknown_terms = any(f.terms for f in metric.findings)
        scores = {
            "hallucination": d.get("unsupported_specifics", 0.0),
            "reasoning_jump": d.get("certainty_without_evidence", 0.0) + 0.5 * d.get("speculative_as_fact", 0.0),
            "knowledge_gap": ignorance
            + (
                0.5 * d.get("unsupported_specifics", 0.0)
                if unknown_terms and not any(f.unit_ids or f.numbers for f in metric.findings)
                else 0.0
            ),
            "bias": d.get("one_sided_attribution", 0.0) + 0.5 * d.get("speculative_as_fact", 0.0),
        }
        primary = max(scores, key=lambda k: (scores[k], -list(scores).index(k)))
        cog, codes, _rc, _ps = _CLASS_PROFILE[primary]
        n = metric.sentences
        situational = {
            "任务复杂性": "高" if n > 20 else "中等" if n > 8 else "低",
            "信息完整性": "事实不完整" if ctx.get("facts_incomplete") else "事实完整",
            "时间压力": "预算紧张" if ctx.get("budget_pressure") else "无",
        }
        prior = int(ctx.get("prior_entries", 0))
        system = {
            "人格特质影响": "倾向确定性表述" if d.get("certainty_without_evidence", 0) > 0 else "无",
            "学习阶段": "早期" if prior < 10 else "成熟",
            "资源约束影响": "上下文预算受限" if ctx.get("budget_pressure") else "无",
        }
        extra_codes = []
        if ctx.get("facts_incomplete"):
            extra_codes.append("situational/information_incomplete")
        if ctx.get("budget_pressure"):
            extra_codes.append("system/resource_constraint")
        return CognitiveAnalysis(
            class_scores=scores,
            primary=primary,
            cognitive=dict(cog),
            situational=situational,
            system=system,
            root_cause_categories=tx.validate_root_causes(codes + extra_codes),
            metric=metric,
            evidence_sentences=[f.sentence for f in metric.findings][:5],
            claim_keys=sorted({f.claim_key() for f in metric.findings}),
        )

    def to_error_wisdom_entry(
        self,
        analysis: CognitiveAnalysis,
        context: Mapping[str, Any] | None = None,
    ) -> WisdomEntry:
        """The analysis as an entry in the spec's cognitive-error format (id assigned when recorded)."""
        ctx = dict(context or {})
        _cog, _codes, root_zh, strategy = _CLASS_PROFILE[analysis.primary]
        m = analysis.metric
        stamp = iso(now_utc())
        stage = ctx.get("stage")
        trace = str(ctx.get("trace_id", ""))
        sample = "；".join(analysis.evidence_sentences[:3])
        dims = ", ".join(f"{k}={v:.2f}" for k, v in m.subjectivity_dimensions.items() if v)
        return WisdomEntry(
            id="",
            timestamp=stamp,
            trace_id=trace,
            version="2.0",
            error_type="认知性错误",
            error_subtype=_CLASS_LABEL[analysis.primary],
            error_code=f"SUBJECTIVITY_{analysis.primary.upper()}",
            description=f"客观性评估：主观性 {m.subjectivity_score:.2f}，客观性 {m.objectivity_score:.2f}"
            f"（{dims}）；例：{sample}",
            severity=m.severity,
            trigger_scene=f"{m.context_type} 文本" + (f"（{stage}）" if stage else ""),
            impact_scope="分析结论可信度",
            detection_method="客观性评估器检测到高主观性分数",
            root_cause=root_zh,
            preventability="high",
            cognitive_dimensions=analysis.cognitive,
            situational_dimensions=analysis.situational,
            system_dimensions=analysis.system,
            immediate_fix="修订该窗口文本，删除或降级无证据的断言",
            fix_cost="low",
            effectiveness="待验证",
            ux_compensation="在报告中标注已修正的结论",
            prevention_strategy=strategy,
            precheck_rule={
                "rule_id": f"cognitive_{analysis.primary}",
                "condition": "生成窗口分析前",
                "check": "窗口指令包含已知陷阱提示",
                "action": "注入预防提示",
                "auto_fixable": False,
                "fix_method": "inject_pitfall_hint",
            },
            applicable_scenes=[f"{m.context_type} 分析"],
            non_applicable_scenes=[],
            prevention_priority="high",
            prevention_cost="低（提示词中增加一行）",
            created_at=stamp,
            updated_at=stamp,
            confidence=0.85,
            base_confidence=0.85,
            status="active",
            cognitive_flag=True,
            tool_name="analysis_text",
            model=ctx.get("model"),
            mod=ctx.get("mod"),
            stage=stage,
            root_cause_categories=analysis.root_cause_categories,
            trigger_patterns=sorted(
                {f"dimension:{f.dimension}" for f in m.findings}
                | ({f"stage:{str(stage).split(':', 1)[0]}"} if stage else set())
            ),
            params={"claims": analysis.claim_keys[:20]},
            dedupe_key=f"{trace}|{stage}|objectivity|{','.join(analysis.claim_keys[:20])}",
        )
