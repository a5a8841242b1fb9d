"""The error-wisdom taxonomy: error types, subtypes, severities and root-cause dimensions as codes.

The spec writes categories as Chinese labels and its own examples are not consistent ("参数构造类" in the table,
"参数构造错误" in the entries, "幻觉倾向" vs "幻觉倾向类"). Entries keep the label they were written with (so JSON
round-trips byte for byte), and every label is also normalised to a stable code here, which is what queries,
clustering and rules use. Root causes are structured as ``dimension/category`` codes, because the rule generator
compares them with a Jaccard similarity and free text cannot be compared that way.
"""

from __future__ import annotations

from typing import Final

from app.i18n import NC_, Lang, Msg

TOOL: Final = "tool"
COGNITIVE: Final = "cognitive"

TYPE_LABELS: Final[dict[str, str]] = {TOOL: "工具性错误", COGNITIVE: "认知性错误"}
TYPE_NAMES: Final[dict[str, Msg]] = {
    TOOL: NC_("wisdom type", "Tool error"),
    COGNITIVE: NC_("wisdom type", "Cognitive error"),
}
"""The error types as the interface names them (:data:`TYPE_LABELS` are the spec's labels the entries keep)."""

# subtype code -> (type code, canonical Chinese label, name: its English text in the catalogue)
SUBTYPES: Final[dict[str, tuple[str, str, Msg]]] = {
    "call_failure": (TOOL, "调用失败类", NC_("wisdom subtype", "Call failure")),
    "parameter": (TOOL, "参数构造类", NC_("wisdom subtype", "Parameter construction")),
    "result_processing": (TOOL, "结果处理类", NC_("wisdom subtype", "Result processing")),
    "tool_selection": (TOOL, "工具选择类", NC_("wisdom subtype", "Tool selection")),
    "hallucination": (COGNITIVE, "幻觉倾向类", NC_("wisdom subtype", "Hallucination")),
    "reasoning_jump": (COGNITIVE, "推理跳跃类", NC_("wisdom subtype", "Reasoning jump")),
    "knowledge_gap": (COGNITIVE, "知识缺失类", NC_("wisdom subtype", "Knowledge gap")),
    "bias": (COGNITIVE, "偏见影响类", NC_("wisdom subtype", "Bias")),
}

_SUBTYPE_ALIASES: Final[dict[str, str]] = {
    "调用失败": "call_failure",
    "参数构造": "parameter",
    "结果处理": "result_processing",
    "工具选择": "tool_selection",
    "幻觉倾向": "hallucination",
    "幻觉": "hallucination",
    "推理跳跃": "reasoning_jump",
    "知识缺失": "knowledge_gap",
    "偏见影响": "bias",
    "偏见": "bias",
}

SEVERITIES: Final = ("none", "mild", "moderate", "severe", "critical")
PREVENTABILITY: Final = ("high", "medium", "low")
STATUSES: Final = ("active", "deprecated", "archived")
RULE_STATUSES: Final = ("observation", "active", "deprecated", "archived", "rejected")
PRIORITIES: Final = ("critical", "high", "medium", "low")

CODE_WORDS: Final[dict[str, Msg]] = {
    # severities
    "none": NC_("wisdom code", "none"),
    "mild": NC_("wisdom code", "mild"),
    "moderate": NC_("wisdom code", "moderate"),
    "severe": NC_("wisdom code", "severe"),
    "critical": NC_("wisdom code", "critical"),
    # preventability and priority
    "high": NC_("wisdom code", "high"),
    "medium": NC_("wisdom code", "medium"),
    "low": NC_("wisdom code", "low"),
    # entry and rule states
    "observation": NC_("wisdom code", "observation"),
    "active": NC_("wisdom code", "active"),
    "deprecated": NC_("wisdom code", "deprecated"),
    "archived": NC_("wisdom code", "archived"),
    "rejected": NC_("wisdom code", "rejected"),
    # emotional tone of the error's context
    "neutral": NC_("wisdom code", "neutral"),
    "positive": NC_("wisdom code", "positive"),
    "negative": NC_("wisdom code", "negative"),
}
"""The codes of severity, preventability, priority and state as people read them (the store keeps the codes;
the Chinese interface showed "active", "severe/high/neutral", issue 30)."""


DIMENSION_WORDS: Final[dict[str, Msg]] = {
    "certainty_without_evidence": NC_("objectivity dimension", "certainty without evidence"),
    "unsupported_specifics": NC_("objectivity dimension", "unsupported specifics"),
    "speculative_as_fact": NC_("objectivity dimension", "speculation stated as fact"),
    "one_sided_attribution": NC_("objectivity dimension", "one-sided attribution"),
}
"""The objectivity evaluator's dimensions (:mod:`app.wisdom.objectivity`) as people read them: entries store the
keys, in the description and the trigger patterns."""


def code_word(code: str | None, lang: Lang) -> str:
    """A severity, priority or state code in ``lang`` ("active" → 启用); an unknown code is shown as it is."""
    if not code:
        return ""
    word = CODE_WORDS.get(code)
    return word(lang) if word is not None else code


# Root-cause dimensions of the spec's two frameworks, as ``dimension/category`` codes.
TOOL_ROOT_CAUSES: Final[dict[str, tuple[str, ...]]] = {
    "param_source": ("user_input", "model_generated", "knowledge_data", "context_reasoning"),
    "tool_interface": ("incomplete_docs", "interface_change", "version_mismatch", "unclear_constraint"),
    "environment": ("network", "service_state", "resource_limit", "concurrency"),
    "timing": ("too_early", "too_late", "wrong_order"),
}
COGNITIVE_ROOT_CAUSES: Final[dict[str, tuple[str, ...]]] = {
    "knowledge_defect": ("unknown", "incomplete", "misremembered"),
    "reasoning_bias": ("over_inference", "missing_premise", "logic_jump"),
    "attention": ("ignored_key_info", "overfocus_minor"),
    "situational": ("task_complexity", "information_incomplete", "time_pressure"),
    "system": ("personality", "learning_stage", "resource_constraint"),
}
ROOT_CAUSE_LABELS: Final[dict[str, str]] = {
    "param_source/user_input": "参数来源/用户输入错误",
    "param_source/model_generated": "参数来源/模型生成错误",
    "param_source/knowledge_data": "参数来源/知识库数据错误",
    "param_source/context_reasoning": "参数来源/上下文推理错误",
    "tool_interface/incomplete_docs": "工具接口/文档不完整",
    "tool_interface/interface_change": "工具接口/接口变更",
    "tool_interface/version_mismatch": "工具接口/版本不匹配",
    "tool_interface/unclear_constraint": "工具接口/约束不明确",
    "environment/network": "环境因素/网络问题",
    "environment/service_state": "环境因素/服务状态",
    "environment/resource_limit": "环境因素/资源限制",
    "environment/concurrency": "环境因素/并发竞争",
    "timing/too_early": "调用时机/过早调用",
    "timing/too_late": "调用时机/过晚调用",
    "timing/wrong_order": "调用时机/错误顺序",
    "knowledge_defect/unknown": "知识缺陷/完全不知道",
    "knowledge_defect/incomplete": "知识缺陷/知道但不完整",
    "knowledge_defect/misremembered": "知识缺陷/知道但记错",
    "reasoning_bias/over_inference": "推理偏差/过度推断",
    "reasoning_bias/missing_premise": "推理偏差/遗漏前提",
    "reasoning_bias/logic_jump": "推理偏差/逻辑跳跃",
    "attention/ignored_key_info": "注意力分配/忽略关键信息",
    "attention/overfocus_minor": "注意力分配/过度关注次要信息",
    "situational/task_complexity": "情境/任务复杂性",
    "situational/information_incomplete": "情境/信息完整性",
    "situational/time_pressure": "情境/时间压力",
    "system/personality": "系统/人格特质影响",
    "system/learning_stage": "系统/学习阶段影响",
    "system/resource_constraint": "系统/资源约束影响",
}
ALL_ROOT_CAUSES: Final = frozenset(ROOT_CAUSE_LABELS)

# Keywords that let a free-text root cause (an imported entry) be mapped onto the structured codes.
_ROOT_CAUSE_KEYWORDS: Final[dict[str, tuple[str, ...]]] = {
    "param_source/user_input": ("用户输入", "user input"),
    "param_source/model_generated": ("模型生成", "模型知道", "model generated"),
    "param_source/knowledge_data": ("知识库数据", "knowledge data"),
    "param_source/context_reasoning": ("上下文", "context reasoning"),
    "tool_interface/incomplete_docs": ("文档", "documentation"),
    "tool_interface/interface_change": ("接口变更", "interface change"),
    "tool_interface/version_mismatch": ("版本", "version"),
    "tool_interface/unclear_constraint": ("枚举", "约束", "格式", "constraint", "enum", "format"),
    "environment/network": ("网络", "network", "timeout", "超时"),
    "environment/service_state": ("服务", "server", "5xx"),
    "environment/resource_limit": ("上下文长度", "资源", "限额", "context length", "rate limit", "quota", "429"),
    "environment/concurrency": ("并发", "concurrency"),
    "timing/too_early": ("过早", "too early"),
    "timing/too_late": ("过晚", "过期", "too late"),
    "timing/wrong_order": ("顺序", "order"),
    "knowledge_defect/unknown": ("不知道", "完全不知道", "unknown"),
    "knowledge_defect/incomplete": ("不完整", "incomplete"),
    "reasoning_bias/over_inference": ("推测", "过度推断", "over-infer", "speculat"),
    "reasoning_bias/missing_premise": ("未验证", "遗漏前提", "未检查", "unverified"),
    "reasoning_bias/logic_jump": ("逻辑跳跃", "logic jump"),
    "attention/ignored_key_info": ("忽略", "ignored"),
}


def type_code(label: str) -> str:
    """Normalise an error-type label (``工具性错误``, ``工具性``, ``tool``…) to ``tool`` or ``cognitive``.

    Raises:
        ValueError: when the label names neither type.
    """
    t = label.strip().lower()
    if t in (TOOL, "tool_error") or t.startswith("工具"):
        return TOOL
    if t in (COGNITIVE, "cognitive_error") or t.startswith("认知"):
        return COGNITIVE
    raise ValueError(f"unknown error type {label!r}: use 工具性错误 or 认知性错误")


def subtype_code(label: str, type_hint: str | None = None) -> str:
    """Normalise a subtype label (``参数构造错误``, ``幻觉倾向``, ``call_failure``…) to its code.

    Unknown labels map to ``other`` so imports of foreign data never fail on a category name.
    """
    t = label.strip()
    if t in SUBTYPES:
        return t
    for key, code in _SUBTYPE_ALIASES.items():
        if t.startswith(key):
            return code
    for code, (_tc, zh, name) in SUBTYPES.items():
        if t == zh or t.lower() == name.msgid.lower():
            return code
    del type_hint
    return "other"


def subtype_label(code: str) -> str:
    """The canonical Chinese label of a subtype code."""
    return SUBTYPES[code][1] if code in SUBTYPES else code


def subtype_name(code: str, lang: Lang) -> str:
    """A subtype code as the interface names it in ``lang`` (an unknown code as it is)."""
    return SUBTYPES[code][2](lang) if code in SUBTYPES else code


def type_name(code: str, lang: Lang) -> str:
    """An error type code as the interface names it in ``lang`` (an unknown code as it is)."""
    name = TYPE_NAMES.get(code)
    return name(lang) if name is not None else code


def infer_root_causes(*texts: str | None) -> list[str]:
    """Structured root-cause codes guessed from free text (used for entries imported without codes)."""
    joined = " ".join(t for t in texts if t).lower()
    found = [code for code, words in _ROOT_CAUSE_KEYWORDS.items() if any(w.lower() in joined for w in words)]
    return sorted(found)


def validate_root_causes(codes: list[str]) -> list[str]:
    """Check that every code is a known ``dimension/category`` code.

    Raises:
        ValueError: naming the first unknown code.
    """
    for c in codes:
        if c not in ALL_ROOT_CAUSES:
            raise ValueError(
                f"unknown root-cause category {c!r}: expected one of the spec's dimensions, e.g. "
                "'environment/resource_limit'"
            )
    return sorted(set(codes))


def status_for_confidence(confidence: float) -> str:
    """The spec's timeliness state: active > 0.7, deprecated 0.3–0.7 (inclusive), archived < 0.3."""
    if confidence > 0.7:
        return "active"
    if confidence >= 0.3:
        return "deprecated"
    return "archived"
