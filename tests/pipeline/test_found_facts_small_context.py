"""At 32K the found facts keep every window (issue 28 §2, issue 31): compressed, oldest hardest, never dropped.

A blind 32K run (6 segments of 1 window) sent a summary round whose "[Found facts]" held windows 4–6 only: the
2,000-token reserve kept the newest items whole and left the first three windows out. Now every window keeps its
label, its player headings and its corrections within the same reserve.

The pipeline test runs the Kane's Wrath test replay (7 segments of 1 window at 32,768: BoolBada, Nod, slot 0, and
joohan, Black Hand, slot 1) against the scripted server. Object #241 is BoolBada's: the first command of the
replay (0:01.27, slot 0) names it. Window 1 first claims it for joohan, is flagged, and its revision gives it to
BoolBada: a correction. Every window answers with five long sentences, so whole items cannot all fit 2,000 tokens.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from app.budget.calibration import Calibration
from app.budget.profile import ModelProfile
from app.budget.prompt import fit_facts
from app.claims.timeparse import format_time
from app.i18n import Lang
from app.llm.openai_compat import OpenAICompatProvider
from app.pipeline.digest import DigestClaim, WindowDigest, fit_digests
from app.pipeline.prepare import prepare_replay
from app.pipeline.repository import AnalysisRepository
from app.pipeline.service import ModelChoice, run_analysis
from app.store import open_database
from app.tokens import count_tokens
from tests.conftest import corpus_file
from tests.support.scripted_server import Reply, ScriptedServer

KW = "kw_test.KWReplay"
CONTEXT = 32_768
BUDGET_32K = 2_000  # TIER_SPECS[32k].found_facts_cap: 2 items of the plan's 1K (app/budget/profile.py)


def _cost(lines: list[str]) -> int:
    est = Calibration().estimator()
    return sum(est.from_raw(count_tokens(f"- {line}\n")) for line in lines)


def _digest(n: int, *, corrected: bool = False, contradicted: bool = False) -> WindowDigest:
    start = (n - 1) * 90
    label = f"窗口 {n}（段 {n}，{format_time(start)}~{format_time(start + 90)}）"
    summary = " ".join(
        f"第 {n} 窗口第 {k} 句：BoolBada 在 {format_time(start + k * 7)} 从机场连续生产了三架毒蛇战机，"
        f"并把它们编入第 {k} 队去骚扰 joohan 的矿车，joohan 随即补了两座防空塔。"
        for k in range(1, 6)
    )
    d = WindowDigest(label, summary)
    for player in ("BoolBada", "joohan"):
        for k in range(8):
            d.claims.append(DigestClaim(player, f"#{n * 1000 + k} Unit{n}x{k} (likely)", n * 1000 + k, f"Unit{n}x{k}"))
    if corrected:
        d.claims.append(DigestClaim("joohan", f"#{n * 1000 + 99} FixedType{n} (confirmed)", corrected=True))
    if contradicted:
        d.claims.append(DigestClaim("BoolBada", f"#{n * 1000 + 98} Withdrawn{n}", contradicted=True))
    return d


@pytest.mark.parametrize("lang", [Lang.ZH, Lang.EN])
def test_six_windows_fit_the_32k_reserve_each_with_its_players_and_corrections(lang: Lang) -> None:
    digests = [_digest(n, corrected=n in (1, 2, 5), contradicted=n == 3) for n in range(1, 7)]
    whole = [d.render(lang) for d in digests]
    est = Calibration().estimator()
    assert _cost(whole) > 2 * BUDGET_32K  # whole items are far too many for the reserve
    assert len(fit_facts(whole, BUDGET_32K, est)) < 6  # the old rule: the newest that fit, the oldest dropped

    carried = fit_digests(digests, BUDGET_32K, est, lang)
    assert len(carried) == 6
    assert _cost(carried) <= BUDGET_32K
    for n, item in enumerate(carried, start=1):
        assert item.startswith(f"窗口 {n}（段 {n}，")  # every window, in order, under its own label
        assert "[BoolBada]" in item  # player headings stay
        assert "[joohan]" in item
    for n in (1, 2, 5):  # every correction stays, word for word
        assert f"#{n * 1000 + 99} FixedType{n} (confirmed)" in carried[n - 1]
    withdrawn = carried[2].split("#3098 Withdrawn3")[0]
    assert withdrawn.rstrip().endswith(("后来被推翻（未验证）：", "contradicted later (not validated):"))
    # the oldest are compressed first and hardest: the newest window keeps at least as many claims and words
    assert carried[0] != whole[0]
    assert carried[-1].count("(likely)") >= carried[0].count("(likely)")
    assert "#6000 Unit6x0 (likely)" in carried[-1]
    assert "第 6 窗口第 1 句" in carried[-1]


def test_items_that_fit_are_carried_whole() -> None:
    digests = [_digest(n) for n in range(1, 3)]
    whole = [d.render(Lang.ZH) for d in digests]
    assert fit_digests(digests, 100_000, Calibration().estimator(), Lang.ZH) == whole
    assert fit_digests(["窗口 1（段 1，0:00.00~1:00.00）：stored"], 100_000, Calibration().estimator(), Lang.ZH) == [
        "窗口 1（段 1，0:00.00~1:00.00）：stored"
    ]


def _last(body: Mapping[str, Any]) -> str:
    return str(body["messages"][-1]["content"])


def _window(start: float) -> Any:
    return lambda body: f"请重点分析 {format_time(start)} 至" in _last(body) and len(body["messages"]) == 2


def _is_revision(body: Mapping[str, Any]) -> bool:
    return _last(body).startswith("[验证结果]")


def _answer(n: int, claims: list[dict[str, Any]]) -> str:
    sentences = "".join(
        f"第 {n} 窗口第 {k} 句：BoolBada 持续生产单位并派往前线，joohan 补建防御，"
        "双方在中路反复交火，经济差距逐渐拉开。"
        for k in range(1, 6)
    )
    return f"{sentences}\n[机器可读声明]\n```json\n" + json.dumps({"unitClaims": claims}, ensure_ascii=False) + "\n```"


def test_the_32k_summary_round_carries_every_window(tmp_path: Path) -> None:
    profile = ModelProfile(context_length=CONTEXT, max_tokens=4096, provider="scripted", model="scripted-model")
    prepared = prepare_replay(corpus_file(KW), profile, Lang.ZH, calibration=Calibration())
    segments = prepared.plan.segments
    windows = [w for s in segments for w in s.windows]
    assert len(windows) >= 6
    budget = prepared.plan.found_facts_budget
    assert budget == BUDGET_32K  # the reserve the plan shows (``found_facts_budget`` of plan --json)
    assert 241 in prepared.index.owned_objects(0)
    own = {"unitId": 241, "player": "BoolBada", "confidence": "likely"}
    server = ScriptedServer(default=Reply.chat(_answer(0, []), piece_chars=500)).start()
    db = open_database(tmp_path / "store.sqlite3")
    try:
        server.enqueue(
            Reply.chat(_answer(1, [{**own, "player": "joohan"}]), piece_chars=500),
            match=_window(windows[0].start_seconds),
        )
        server.enqueue(Reply.chat("[更正]\n" + _answer(1, [own]), piece_chars=500), match=_is_revision)
        for n, w in enumerate(windows[1:], start=2):
            server.enqueue(Reply.chat(_answer(n, [own]), piece_chars=500), match=_window(w.start_seconds))

        async def main() -> int:
            provider = OpenAICompatProvider("scripted", server.base_url, "scripted-model", api_key="k")
            try:
                return await run_analysis(
                    corpus_file(KW),
                    db=db,
                    provider=provider,
                    choice=ModelChoice("scripted", profile),
                    lang=Lang.ZH,
                    emit=lambda _e: None,
                    prepared=prepared,
                    learn=False,
                )
            finally:
                await provider.aclose()

        rec = AnalysisRepository(db).load(asyncio.run(main()))
    finally:
        db.close()
        server.stop()
    assert rec.status == "completed"
    posts = [r for r in server.requests if r.method == "POST"]
    final = _last(posts[-1].json)
    assert "[已发现事实]\n" in final  # the summary round: found facts, no log
    assert "[操作日志" not in final
    facts = final.split("[已发现事实]\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert len(facts) == len(windows)
    for n, line in enumerate(facts, start=1):
        assert line.startswith(f"- 窗口 {n}（段 {n}，")
        assert "[BoolBada]" in line
    assert "修订更正：#241" in facts[0]  # window 1's correction reached the summary round
    assert _cost([f[2:] for f in facts]) <= budget
    # whole, the windows' items would not have fit: what the store keeps is the uncompressed item
    stored = [s.found_fact for s in rec.stages if s.key.startswith("window:")]
    assert len(stored) == len(windows)
    assert _cost(stored) > budget
    assert facts[0][2:] != stored[0]  # compressed, not dropped
    assert facts[-1].count("第 ") >= facts[0].count("第 ")  # the newest keeps at least as much of its text
