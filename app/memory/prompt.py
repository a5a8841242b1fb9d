"""The optional model step of candidate generation (spec §2.1 ``CANDIDATE_PROMPT`` + §7.1 causal review).

The prompt asks for self-contained, typed candidates with evidence and a mechanism; a candidate whose model
cannot name a mechanism comes back as an observation and the gates keep it out of injection. The call itself
is injectable (:data:`ModelStep`: prompt text in, reply text out) so tests feed a fixed reply and the app plugs
in :func:`provider_step` over an ``app.llm`` ``ChatProvider``.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from app import jsonlimits
from app.errors import KnownError
from app.i18n import Lang
from app.memory.model import Candidate, EvidenceKind, FactType, RunEpisodeInput
from app.safetext import one_line, storable_json

ModelStep = Callable[[str], Awaitable[str]]
LLM_PIPELINE_VERSION = "memory-llm/1"

CANDIDATE_PROMPT_ZH = """从以下分析记录中提取可作为长期事实的候选。
仅提取跨会话仍成立的知识，格式（JSON数组）：
[{"type": "preference|project_fact|domain|lesson",
  "subject": "player:玩家名|model:模型名|analyst:分析师|mod:模组",
  "attribute": "简短的属性键，如 opening",
  "value": "属性值",
  "content": "一句话事实，自包含无指代",
  "evidence": "支撑该事实的记录原文片段",
  "evidence_kind": "doc_extraction|explicit_statement|behavior_inference",
  "fields": {"scope": {...}, "version_anchor": "...", "applicability": {...}},
  "generalizes": true,
  "mechanism": "成立机制（一句话）"}]
排除：会话内指代、临时状态、单次巧合。
对每条候选附加说明：
- 成立机制：为什么这个规律成立（一句话）
- 若说不清机制但观察到相关：mechanism 留空，该候选只作为观察
- 必附字段：preference 要 scope；project_fact 要 source_file 与 observed_at；domain 要 version_anchor；
  lesson 要 applicability 与 learned_from"""

CANDIDATE_PROMPT_EN = """Extract candidates for long-term facts from the analysis record below.
Only knowledge that still holds across sessions, as a JSON array:
[{"type": "preference|project_fact|domain|lesson",
  "subject": "player:NAME|model:ID|analyst:NAME|mod:MOD",
  "attribute": "a short attribute key such as opening",
  "value": "the value",
  "content": "one self-contained sentence, no references to this session",
  "evidence": "the record excerpt that supports it",
  "evidence_kind": "doc_extraction|explicit_statement|behavior_inference",
  "fields": {"scope": {...}, "version_anchor": "...", "applicability": {...}},
  "generalizes": true,
  "mechanism": "why it holds (one sentence)"}]
Exclude: references inside this session, temporary state, one-off coincidences.
For every candidate:
- mechanism: why the regularity holds (one sentence)
- if you see a correlation but cannot name a mechanism, leave mechanism empty: it stays an observation
- required fields: preference needs scope; project_fact needs source_file and observed_at; domain needs
  version_anchor; lesson needs applicability and learned_from"""


class CandidateReplyError(KnownError):
    """The model's candidate reply holds no JSON array of candidates."""


def render_episode(ep: RunEpisodeInput) -> str:
    """The episode as compact text for the prompt (players, openings, protocols, claims, issues)."""
    lines = [
        f"replay {ep.replay_hash} map={one_line(ep.map_name)} mod={ep.mod} {ep.mod_version}".rstrip(),
        f"model={ep.model or 'offline'}",
    ]
    for p in ep.players:  # names and map come from the replay file: one line each, never raw
        op = ", ".join(f"{t.name}@{t.seconds:.0f}s" for t in ep.openings.get(p.name, ()))
        pr = ", ".join(f"{t.name}@{t.seconds:.0f}s" for t in ep.protocols.get(p.name, ()))
        lines.append(f"player {one_line(p.name)} ({p.faction}, team {p.team}): opening [{op}] protocols [{pr}]")
    lines.extend(f"claim [{c.topic}] {c.player}: {c.text}" for c in ep.claims)
    lines.extend(f"issue {i.code} ({i.severity}): {i.message}" for i in ep.issues)
    return "\n".join(lines)


def build_candidate_prompt(ep: RunEpisodeInput, lang: Lang = Lang.ZH) -> str:
    """The full prompt text in ``lang`` (Chinese by default, as model prompts are)."""
    head = CANDIDATE_PROMPT_ZH if lang is Lang.ZH else CANDIDATE_PROMPT_EN
    label = "记录" if lang is Lang.ZH else "Record"
    return f"{head}\n\n{label}:\n{render_episode(ep)}"


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)
MAX_CANDIDATES = 20
"""Candidates read from one model reply (the prompt asks for a few): a reply is model output, bounded like claims."""


def _extract_array(text: str) -> list[Any]:
    for chunk in [*(m.group(1) for m in _FENCE.finditer(text)), text]:
        start, end = chunk.find("["), chunk.rfind("]")
        if start < 0 or end <= start:
            continue
        try:
            array_text = chunk[start : end + 1]
            jsonlimits.check_nesting(array_text)  # model output: no recursion without bound
            data = storable_json(array_text)  # a model's strings, bound for the store
        except ValueError:  # not JSON, or nested too deep
            continue
        if isinstance(data, list):
            return data
    raise CandidateReplyError("the model's candidate reply holds no JSON array")


_KINDS = {k.value: k for k in EvidenceKind}
_KIND_ALIASES = {
    "file_content": EvidenceKind.DOCUMENT,
    "config": EvidenceKind.DOCUMENT,
    "user_correction": EvidenceKind.BEHAVIOUR,
    "preference_signal": EvidenceKind.BEHAVIOUR,
    "style_reaction": EvidenceKind.BEHAVIOUR,
}


def parse_candidate_reply(text: str, ep: RunEpisodeInput, model: str = "") -> list[Candidate]:
    """Candidates from a model reply; malformed items are skipped, an unreadable reply raises.

    Model candidates are never trusted as extraction: whatever kind the model claims, a model's reading of a
    record is behavioural evidence unless it quotes an explicit statement. One reply gives at most
    :data:`MAX_CANDIDATES` (the rest are not read).
    """
    out: list[Candidate] = []
    for item in _extract_array(text)[:MAX_CANDIDATES]:
        if not isinstance(item, Mapping):
            continue
        try:
            ftype = FactType(str(item.get("type", "")))
        except ValueError:
            continue
        content = str(item.get("content", "")).strip()
        subject = str(item.get("subject", "")).strip()
        if not content or not subject:
            continue
        kind = _KINDS.get(str(item.get("evidence_kind", "")), _KIND_ALIASES.get(str(item.get("evidence_kind", ""))))
        if kind is not EvidenceKind.EXPLICIT:
            kind = EvidenceKind.BEHAVIOUR
        raw_fields = item.get("fields")
        fields: dict[str, Any] = dict(raw_fields) if isinstance(raw_fields, Mapping) else {}
        scope_raw = fields.pop("scope", None)
        scope = {str(k): str(v) for k, v in scope_raw.items()} if isinstance(scope_raw, Mapping) else {}
        if ftype is FactType.LESSON and fields.get("applicability"):
            fields.setdefault("learned_from", [f"replay:{ep.replay_hash}"])
        out.append(
            Candidate(
                type=ftype,
                subject=subject,
                attribute=str(item.get("attribute", "")).strip() or "llm",
                value=str(item.get("value", "")).strip() or content,
                content_zh=content,
                content_en=content,
                kind=kind,
                quote=str(item.get("evidence", ""))[:500],
                scope=scope,
                fields=fields,
                context={"map": ep.map_name},
                mechanism=str(item.get("mechanism", "") or "").strip(),
                generalizes=bool(item.get("generalizes", True)),
                dedupe=f"replay:{ep.replay_hash}",
                produced_by=f"{LLM_PIPELINE_VERSION}:{model}" if model else LLM_PIPELINE_VERSION,
                ts=ep.played_at,
            )
        )
    return out


async def model_candidates(
    step: ModelStep, ep: RunEpisodeInput, lang: Lang = Lang.ZH, model: str = ""
) -> list[Candidate]:
    """Run the model step on one episode and parse its reply (one call: the immediate-track budget)."""
    reply = await step(build_candidate_prompt(ep, lang))
    return parse_candidate_reply(reply, ep, model)


def provider_step(provider: Any, max_tokens: int = 1200) -> ModelStep:
    """A :data:`ModelStep` over an ``app.llm`` ``ChatProvider`` (its async ``stream(request)``)."""

    async def step(prompt: str) -> str:
        from app.llm.base import ChatRequest, collect

        result = await collect(provider.stream(ChatRequest.simple(prompt, max_tokens=max_tokens)))
        err = result.error
        if err is not None:
            raise err
        return str(result.text)

    return step
