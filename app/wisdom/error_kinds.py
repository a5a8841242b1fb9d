"""How the pipeline's failures and validator issues map onto the error-wisdom taxonomy, in zh and en.

Why a module: the gate records them, the pitfalls show their strategies in English, and both must agree on one
table.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from app.budget.limits import MAX_LOOKBACKS_PER_SEGMENT
from app.wisdom import taxonomy as tx
from app.wisdom.entry import WisdomEntry

_LIMIT_RES = (
    re.compile(r"maximum context length is (\d+)", re.I),
    re.compile(r"context length (?:of|is) (\d+)", re.I),
    re.compile(r"(\d{4,}) tokens? (?:limit|max)", re.I),
    re.compile(r"上下文.*?(\d{4,})"),
)

# provider error kind -> (subtype, code, root causes, root cause zh, strategy zh, strategy en)
FAILURES: dict[str, tuple[str, str, list[str], str, str, str]] = {
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
ISSUES: list[tuple[tuple[str, ...], str, list[str], str, str, str]] = [
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


def severity_of(sev: Any) -> str | None:
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


STRATEGY_EN = {
    "提及任何数字、单位或 UnitId 前先在已给事实中核对，事实中没有的不写": (
        "check every number, unit and unit id against the given facts; leave out what the facts do not show"
    ),
    "每个结论给出时间点与证据；仅有移动/选择类证据时降低置信度": (
        "give a game time and evidence for every conclusion; lower confidence when only move/select evidence exists"
    ),
    "知识不足时明确说明边界，不臆测": "say where knowledge ends instead of guessing",
    "归因时同时考察双方的操作与多种原因": "weigh both players' actions and several causes before attributing",
}
"""English variants of the objectivity entries' strategies (:mod:`app.wisdom.objectivity`; entries store the Chinese
text, the prompt language picks)."""
OBJECTIVITY_EN = {
    # root causes
    "模型写出了事实中不存在的数字、单位或 UnitId，未与事实核对": (
        "the model wrote numbers, units or unit ids the facts do not contain, without checking them"
    ),
    "结论的确定性高于证据所能支撑的程度，缺少推理前提": (
        "the conclusions are more certain than the evidence supports; premises are missing"
    ),
    "知识库中缺少回答所需的信息": "the knowledge base lacks what the answer needs",
    "把结果归因于单一原因或单一玩家，忽略了其他因素": (
        "the outcome was put down to one cause or one player, ignoring other factors"
    ),
    # the dimension analyses (keys and values)
    "知识缺陷": "Knowledge defect",
    "推理偏差": "Reasoning bias",
    "注意力分配": "Attention",
    "知道但不完整：事实中没有该数字/单位": "known but incomplete: the facts lack this number or unit",
    "过度推断": "over-inference",
    "忽略了事实中没有此项的事实": "ignored that the facts do not contain it",
    "无": "none",
    "遗漏前提、逻辑跳跃": "missing premises, logical jumps",
    "过度关注次要信息": "too much attention to minor details",
    "完全不知道": "not known at all",
    "选择性注意": "selective attention",
    "任务复杂性": "Task complexity",
    "信息完整性": "Information completeness",
    "时间压力": "Time pressure",
    "高": "high",
    "中等": "medium",
    "低": "low",
    "事实不完整": "facts incomplete",
    "事实完整": "facts complete",
    "预算紧张": "tight budget",
    "人格特质影响": "Personality",
    "学习阶段": "Learning stage",
    "资源约束影响": "Resource constraints",
    "倾向确定性表述": "tends to state things as certain",
    "早期": "early",
    "成熟": "mature",
    "上下文预算受限": "limited context budget",
    # the entry's other texts
    "客观性评估器检测到高主观性分数": "the objectivity evaluator found a high subjectivity score",
    "修订该窗口文本，删除或降级无证据的断言": "revise the window's text: remove or soften claims without evidence",
    "待验证": "to be verified",
    "在报告中标注已修正的结论": "mark the corrected conclusions in the report",
    "生成窗口分析前": "before a window's analysis is generated",
    "窗口指令包含已知陷阱提示": "the window instruction carries the known pitfalls",
    "注入预防提示": "inject a prevention hint",
    "低（提示词中增加一行）": "low (one more line in the prompt)",
    "幻觉倾向": "Hallucination",
    "推理跳跃": "Reasoning jump",
    "知识缺失": "Knowledge gap",
    "偏见影响": "Bias",
}
"""English versions of the other 中文 texts an objectivity entry stores (:mod:`app.wisdom.objectivity`;
:mod:`app.wisdom.wording` renders them)."""
DEFAULT_ISSUE: tuple[str, str] = ("结论与事实不符", "下结论前核对事实")
"""Root cause and strategy (中文) of a validator issue no row of :data:`ISSUES` matches."""

ROOT_CAUSE_EN: dict[str, str] = {
    "提示加输出超过了模型实际的上下文长度（估算偏低或配置的 ContextLength 偏大）": (
        "prompt plus output exceeded the model's real context length (estimate too low or ContextLength set too high)"
    ),
    "请求频率超过服务商限额": "requests came faster than the provider allows",
    "网络中断或超时": "the network dropped or timed out",
    "服务端错误 (5xx)": "server error (5xx)",
    "API 密钥缺失、错误或无权限": "the API key is missing, wrong or not allowed",
    "服务商不认识该模型 id": "the provider does not know this model id",
    "流式响应中断或格式异常": "the streamed reply broke off or was malformed",
    "请求参数不被服务商接受": "the provider refused the request's parameters",
    "声明了回放中不存在的 UnitId": "claimed a unit id that is not in the replay",
    "仅凭移动类证据给出高置信度结论": "a confident conclusion from move evidence alone",
    "单位归属与所有权证据矛盾（可能把选中的敌方单位当成己方）": (
        "unit ownership contradicts the ownership evidence (perhaps a selected enemy unit taken for one's own)"
    ),
    "技能施法者与事实矛盾": "the caster of a power contradicts the facts",
    "声称了回放中没有选择过的协议": "claimed a protocol the replay never shows being chosen",
    "单位在首次生产前就被操作，时间线矛盾": (
        "a unit was commanded before it was first produced: the timeline contradicts"
    ),
    "结论缺少足够证据": "the conclusion lacks enough evidence",
    "回查请求格式或范围不合法": "a lookback request had an invalid form or range",
    "机器可读声明缺失或无法解析": "the machine-readable claims are missing or could not be parsed",
    DEFAULT_ISSUE[0]: "the conclusion disagrees with the facts",
}
"""English versions of the root causes above (entries store the 中文; :mod:`app.wisdom.wording` renders them)."""

EN_STRATEGY: dict[str, str] = {
    **{f[4]: f[5] for f in FAILURES.values()},
    **{i[4]: i[5] for i in ISSUES},
    **STRATEGY_EN,
    DEFAULT_ISSUE[1]: "check the facts before concluding",
}
"""English variants of the strategies this library writes (entries store the Chinese text)."""


def claim_key(code: str, unit_id: int | None, time_seconds: float | None, detail: str) -> str:
    """The identity of the claim an issue is about (shared with objectivity findings)."""
    if unit_id is not None:
        return f"unit:{unit_id}"
    norm = re.sub(r"\s+", "", detail).lower()
    raw = f"{code}|{time_seconds}|{norm}"
    return "claim:" + hashlib.sha1(raw.encode()).hexdigest()[:12]


def detection_only(method: str) -> WisdomEntry:
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
