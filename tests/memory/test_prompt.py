"""The optional model step: prompt text (zh/en), reply parsing, and candidates through the gates."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from app.i18n import Lang
from app.memory import FactType
from app.memory.prompt import (
    CandidateReplyError,
    build_candidate_prompt,
    model_candidates,
    parse_candidate_reply,
)
from tests.memory.helpers import Clock, make_store, run_ep

REPLY = """好的，候选如下：
```json
[
 {"type": "preference", "subject": "player:p", "attribute": "harass", "value": "early dogs",
  "content": "玩家 p 喜欢早期用军犬骚扰", "evidence": "dogs@40s", "evidence_kind": "behavior_inference",
  "fields": {"scope": {"player": "p", "faction": "Soviets"}}, "generalizes": true,
  "mechanism": "军犬便宜且快，适合早期骚扰矿车"},
 {"type": "lesson", "subject": "model:m", "attribute": "caster", "value": "confuses",
  "content": "模型 m 会混淆施法者与目标", "evidence": "claim 3", "evidence_kind": "file_content",
  "fields": {}, "generalizes": true, "mechanism": "技能指令的参数顺序不直观"},
 {"type": "preference", "subject": "player:p", "attribute": "wins_on_map", "value": "yes",
  "content": "玩家 p 在这张图上总是赢", "evidence": "won", "evidence_kind": "behavior_inference",
  "fields": {"scope": {"player": "p"}}, "generalizes": true, "mechanism": ""},
 {"type": "bogus", "subject": "x", "content": "ignored"},
 "not an object"
]
```"""


def test_prompt_text_in_both_languages() -> None:
    ep = run_ep("r1", "p", ("A", "B"))
    zh = build_candidate_prompt(ep, Lang.ZH)
    en = build_candidate_prompt(ep, Lang.EN)
    assert zh.startswith("从以下分析记录中提取可作为长期事实的候选。")
    assert "成立机制" in zh
    assert "排除：会话内指代、临时状态、单次巧合。" in zh
    assert en.startswith("Extract candidates for long-term facts")
    assert "player p (Allies, team -1): opening [A@5s, B@10s]" in zh
    assert "player p (Allies, team -1): opening [A@5s, B@10s]" in en


def test_parse_reply_keeps_valid_items_and_never_trusts_extraction() -> None:
    ep = run_ep("r1", "p", ("A", "B"))
    cands = parse_candidate_reply(REPLY, ep, "m")
    assert [c.attribute for c in cands] == ["harass", "caster", "wins_on_map"]
    assert cands[0].scope == {"player": "p", "faction": "Soviets"}
    assert cands[1].type is FactType.LESSON
    assert cands[1].kind.value == "behavior_inference"  # "file_content" from a model is not extraction
    assert cands[0].produced_by == "memory-llm/1:m"
    with pytest.raises(CandidateReplyError):
        parse_candidate_reply("I cannot help with that", ep)


def test_model_candidates_through_the_gates(tmp_path: Path) -> None:
    ep = run_ep("r1", "p", ("A", "B"))
    prompts: list[str] = []

    async def fake_step(prompt: str) -> str:
        prompts.append(prompt)
        return REPLY

    cands = asyncio.run(model_candidates(fake_step, ep, Lang.ZH, "m"))
    assert len(prompts) == 1
    store = make_store(tmp_path, Clock())
    outcomes = store.commit(cands)
    by_attr = {c.attribute: o for c, o in zip(cands, outcomes, strict=True)}
    assert (by_attr["harass"].action, by_attr["harass"].status) == ("new", "hypothesis")
    assert by_attr["caster"].action == "blocked"  # lesson without applicability / learned_from
    assert by_attr["wins_on_map"].status == "observation"  # no mechanism: correlation only
    assert [f.attribute for f in store.recall_by_version("memory-llm/1:m")] == ["wins_on_map", "harass"]


class _FakeStream:
    """A provider stream that replays fixed events (the app.llm event types), no network."""

    def __init__(self, events: list[object]) -> None:
        self._events = list(events)

    def __aiter__(self) -> _FakeStream:
        return self

    async def __anext__(self) -> object:
        if not self._events:
            raise StopAsyncIteration
        return self._events.pop(0)

    async def aclose(self) -> None:
        self._events.clear()

    async def __aenter__(self) -> _FakeStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class _FakeProvider:
    name, model, rule_based = "fake", "m", False

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.requests: list[object] = []

    def stream(self, request: object) -> _FakeStream:
        from app.llm.events import Finished, ReasoningDelta, TextDelta

        self.requests.append(request)
        half = len(self.reply) // 2
        return _FakeStream(
            [ReasoningDelta("thinking"), TextDelta(self.reply[:half]), TextDelta(self.reply[half:]), Finished("stop")]
        )

    async def aclose(self) -> None:
        return None


def test_provider_step_joins_the_streamed_answer() -> None:
    pytest.importorskip("app.llm.base")
    from app.memory.prompt import provider_step

    provider = _FakeProvider(REPLY)
    ep = run_ep("r1", "p", ("A", "B"))
    cands = asyncio.run(model_candidates(provider_step(provider), ep, Lang.EN, "m"))
    assert [c.attribute for c in cands] == ["harass", "caster", "wins_on_map"]
    [req] = provider.requests
    assert req.messages[-1].content.startswith("Extract candidates")  # type: ignore[attr-defined]


def test_a_hostile_candidate_reply_is_bounded() -> None:
    import json

    from app.memory.prompt import MAX_CANDIDATES

    ep = run_ep("r1", "p", ("A", "B"))
    # 5,000 nested arrays: json.loads alone would raise RecursionError
    with pytest.raises(CandidateReplyError):
        parse_candidate_reply("```json\n" + "[" * 5000 + "]" * 5000 + "\n```", ep)
    many = [{"type": "preference", "subject": "p", "content": f"c{k}", "attribute": f"a{k}"} for k in range(500)]
    cands = parse_candidate_reply(json.dumps(many), ep)
    assert [c.attribute for c in cands] == [f"a{k}" for k in range(MAX_CANDIDATES)]
