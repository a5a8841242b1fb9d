from __future__ import annotations

import functools
import itertools
import json

import pytest

from app.budget.errors import ContextLimitError
from app.budget.focus import FocusPlanner, Window
from app.budget.guard import GuardStatus
from app.budget.profile import ModelProfile
from app.budget.prompt import (
    AssembledRequest,
    PromptAssembler,
    StablePrefix,
    format_game_time,
    segments_metadata,
    window_instruction,
)
from app.budget.segment import Block, Segment, segment_log
from app.i18n import Lang
from app.tokens import TokenEstimator, count_tokens

EST = TokenEstimator()


@functools.cache
def make_blocks(n: int) -> tuple[Block, ...]:
    out = []
    for i in range(n):
        text = "\n".join(f"{(10 * i + k) // 60}:{(10 * i + k) % 60:02d} P{k % 2} build unit {i}-{k}" for k in range(10))
        out.append(Block(10.0 * i, 10.0 * i + 10, text, count_tokens(text), 10))
    return tuple(out)


@pytest.fixture
def planned() -> list[Segment]:
    # 800 blocks of ~120 raw tokens (~115K budget tokens); slices of ≤ 36K budget tokens:
    # several segments with 2-3 windows each.
    seg = segment_log(make_blocks(800), slice_max=36_000, hard_slice_max=36_000, estimator=EST)
    planner = FocusPlanner(EST)
    for s in seg.segments:
        planner.plan(s)
    assert len(seg.segments) >= 2
    assert all(len(s.windows) >= 2 for s in seg.segments)
    return seg.segments


def assembler(lang: Lang = Lang.ZH) -> PromptAssembler:
    prefix = StablePrefix(
        system="你是红警3录像分析助手。" * 50, summary="玩家 A（盟军） vs 玩家 B（帝国）", overview="第 1 段：开局。"
    )
    return PromptAssembler(ModelProfile(context_length=1_000_000), EST, lang, prefix)


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(30, "0:30.00"), (120, "2:00.00"), (90.5, "1:30.50"), (59.999, "1:00.00"), (1445.25, "24:05.25"), (0, "0:00.00")],
)
def test_format_game_time(seconds: float, text: str) -> None:
    assert format_game_time(seconds) == text


def test_window_instruction_leads_with_time_range() -> None:
    blocks = [Block(0, 30, "a", 1, 1), Block(30, 120, "b", 1, 1), Block(120, 200, "c", 1, 1)]
    seg = Segment(0, list(blocks), 0, 3, 0)
    w = Window(index=1, count=3, start_seconds=30, end_seconds=120, raw_tokens=1, event_count=1)
    zh = window_instruction(Lang.ZH, seg, w)
    assert zh.startswith("请重点分析 0:30.00 至 2:00.00 时间段的操作数据")
    assert "本段已按时间划分为 3 个重点时间段，当前是第 2 个" in zh
    assert zh.index("本段已按时间划分") > zh.index("请重点分析")
    assert "第 2/3" not in zh
    assert "窗口" not in zh.split("\n")[0]
    en = window_instruction(Lang.EN, seg, w)
    assert en.startswith("Focus on the operations between 0:30.00 and 2:00.00")
    assert "divided into 3 focus periods by time; this is period 2" in en
    single = Window(index=0, count=1, start_seconds=0, end_seconds=200, raw_tokens=3, event_count=3)
    assert "重点时间段，当前是第" not in window_instruction(Lang.ZH, seg, single)


def test_message_order(planned: list[Segment]) -> None:
    a = assembler()
    s = planned[1]
    req = a.window(s, len(planned), s.windows[0], ["事实一", "事实二"])
    system, user = req.messages
    assert system["role"] == "system"
    assert user["role"] == "user"
    content = user["content"]
    order = ["[对局摘要]", "[总览]", "[操作日志：第 2/", "[已发现事实]", "[本轮任务]"]
    positions = [content.index(h) for h in order]
    assert positions == sorted(positions)
    assert s.blocks[0].text in content  # the whole slice, overlap included
    assert s.blocks[-1].text in content
    assert req.breakdown.reserve == 32_000
    assert req.verdict.status is GuardStatus.OK


def test_prefix_identical_across_windows_and_segments(planned: list[Segment]) -> None:
    a = assembler()
    facts: list[str] = []
    requests = []
    for s in planned:
        for w in s.windows:
            requests.append((s.index, a.window(s, len(planned), w, list(facts))))
            facts.append(f"第 {s.index + 1} 段窗口 {w.index + 1}（Window）的小结：某玩家 3:10.00 建造兵营。")

    def user(r: AssembledRequest) -> str:
        return r.messages[1]["content"]

    def dumped(r: AssembledRequest) -> str:
        return json.dumps(r.messages, ensure_ascii=False)

    for (si, r1), (sj, r2) in itertools.pairwise(requests):
        assert r1.messages[0] == r2.messages[0]  # system byte-identical
        u1, u2 = user(r1), user(r2)
        if si == sj:
            # Same segment: identical through the slice and the earlier window's found facts.
            stable = u1[: u1.index("[本轮任务]") - 1]
            assert "[操作日志" in stable
        else:
            # New segment: identical through summary + overview, differing from the slice header on.
            stable = u1[: u1.index("[操作日志")]
            assert u2[len(stable) :].startswith("[操作日志")
            assert "[总览]" in stable
        assert u2.startswith(stable)
        d1 = dumped(r1)
        json_stable = d1[
            : d1.index(json.dumps(stable, ensure_ascii=False)[1:-1]) + len(json.dumps(stable, ensure_ascii=False)[1:-1])
        ]
        assert dumped(r2).startswith(json_stable)
        # Token breakdown agrees with the shared parts.
        assert r1.breakdown.system == r2.breakdown.system
        assert r1.breakdown.summary == r2.breakdown.summary
        assert r1.breakdown.overview == r2.breakdown.overview


def test_overview_and_final_share_the_prefix(planned: list[Segment]) -> None:
    a0 = assembler(Lang.EN)
    ov = a0.overview("[Segment metadata]\n" + segments_metadata(Lang.EN, planned) + "\nWrite the overview.")
    a = a0.with_overview("Segment 1: opening.")
    win = a.window(planned[0], len(planned), planned[0].windows[0], [])
    fin = a.final(["fact"], "Write the summary.")
    summary_part = ov.messages[1]["content"][: ov.messages[1]["content"].index("[Task]")]
    assert summary_part.startswith("[Match summary]")
    assert win.messages[1]["content"].startswith(summary_part)
    win_user = win.messages[1]["content"]
    assert fin.messages[1]["content"].startswith(win_user[: win_user.index("[Order")])
    assert ov.breakdown.overview == 0
    assert ov.breakdown.slice == 0
    assert fin.breakdown.slice == 0
    assert fin.breakdown.found_facts > 0
    assert "Segment 1: 0:00.00 to" in segments_metadata(Lang.EN, planned)


def test_breakdown_sums_and_raw_tokens(planned: list[Segment]) -> None:
    a = assembler()
    req = a.window(planned[0], len(planned), planned[0].windows[0], ["x"])
    bd = req.breakdown
    # Raw count of the whole message list (content + 4 per message + 3 priming) against the per-part sum.
    raw = count_tokens(req.messages[0]["content"]) + count_tokens(req.messages[1]["content"]) + 2 * 4 + 3
    assert abs(req.raw_tokens - raw) <= 5  # BPE merges across section joins may differ by a token or two
    assert bd.prompt == bd.system + bd.summary + bd.overview + bd.slice + bd.found_facts + bd.instruction
    assert bd.slice >= EST.from_raw(planned[0].raw_tokens)


def test_guard_refuses_oversized_request() -> None:
    blocks = make_blocks(1200)  # ~120K+ raw tokens: far above 90% of 128K once ×1.2
    seg = Segment(0, list(blocks), 0, sum(b.tokens for b in blocks), 0)
    w = Window(0, 1, 0, 12_000, seg.raw_tokens, 12_000)
    a = PromptAssembler(ModelProfile(context_length=128_000), EST, Lang.EN, StablePrefix("sys", "sum"))
    with pytest.raises(ContextLimitError, match="115,200"):
        a.window(seg, 1, w, [])


def test_followup_guard_counts_appended_messages(planned: list[Segment]) -> None:
    profile = ModelProfile(context_length=256_000)  # budget 100K, hard 230,400
    a = PromptAssembler(profile, EST, Lang.EN, StablePrefix("sys", "sum"))
    req = a.window(planned[0], len(planned), planned[0].windows[0], [])
    assert req.verdict.ok
    small = a.check_followup(req, [{"role": "assistant", "content": "draft"}], stage="revision")
    assert small.ok
    lookback_text = "\n".join(b.text for b in make_blocks(500))  # ~50K raw -> over the 100K budget
    warn = a.check_followup(req, [{"role": "user", "content": lookback_text}], stage="lookback")
    assert warn.status is GuardStatus.OVER_BUDGET
    huge = "\n".join(b.text for b in make_blocks(2000))
    with pytest.raises(ContextLimitError, match="lookback"):
        a.check_followup(req, [{"role": "user", "content": huge}], stage="lookback")


def test_over_budget_window_shrinks_slice_around_the_window(planned: list[Segment]) -> None:
    profile = ModelProfile(context_length=256_000, context_budget=60_000)  # 28,000 for the prompt after the reserve
    a = PromptAssembler(profile, EST, Lang.EN, StablePrefix("system", "summary", "overview"))
    s = planned[1]
    w = s.windows[1]
    full = a.window(s, len(planned), w, [])
    assert full.verdict.status is GuardStatus.OVER_BUDGET
    req, removed = a.window_within_budget(s, len(planned), w, [])
    assert removed > 0
    assert req.verdict.ok
    assert req.breakdown.total <= 60_000
    content = req.messages[1]["content"]
    for b in s.blocks:
        if b.start_seconds >= w.start_seconds and b.end_seconds <= w.end_seconds:
            assert b.text in content  # the focus window itself is never cut
    kept = [b for b in s.blocks if b.text in content]
    assert len(kept) == len(s.blocks) - removed
    # Fits already -> unchanged.
    roomy = PromptAssembler(ModelProfile(context_length=1_000_000), EST, Lang.EN, StablePrefix("system", "summary"))
    same, none_removed = roomy.window_within_budget(s, len(planned), w, [])
    assert none_removed == 0
    assert same.messages == roomy.window(s, len(planned), w, []).messages


def test_fit_facts_keeps_newest_within_budget() -> None:
    from app.budget.prompt import fit_facts

    facts = [f"fact number {i} " + "word " * 100 for i in range(20)]  # ~100+ raw tokens each
    per = EST.estimate_tokens(f"- {facts[0]}\n")
    kept = fit_facts(facts, per * 5 + 1, EST)
    assert kept == facts[-5:]
    assert fit_facts(facts, 0, EST) == []
    assert fit_facts(facts, 10**9, EST) == facts
