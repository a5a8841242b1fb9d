"""Every model of 32K or more analyses any replay (issue 31): plan and analyze at 32K, 64K, 128K and 200K.

The two longest replays of the corpus (the 24-minute 1v1 and the 19-minute 3v3, durations in PROVENANCE.tsv) run
through the real pipeline against the scripted server, which plays a model whose context is the profile's: every
request it receives is counted (cl100k, with the chat framing) and one whose messages plus ``max_tokens`` exceed the
context is refused with vLLM's 400, as a real server would. One window asks for a lookback, so lookbacks and found
facts are exercised at every size.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from app.budget.profile import ModelProfile, default_max_tokens
from app.cli import main
from app.i18n import Lang
from app.llm.openai_compat import OpenAICompatProvider
from app.pipeline import events as ev
from app.pipeline.orchestrator import ContextRefusedError
from app.pipeline.prepare import file_sha256
from app.pipeline.repository import AnalysisRepository
from app.pipeline.service import ModelChoice, run_analysis
from app.store import open_database
from tests.conftest import corpus_file
from tests.support.scripted_server import Reply, ScriptedServer, request_tokens

LONG_1V1 = "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"  # 1,447.6 s
LONG_3V3 = "ra3_3v3_spring_showdown_19m.RA3Replay"  # 1,145.1 s
CLEAN = '本窗口分析：双方按常规发展。\n[机器可读声明]\n```json\n{"unitClaims": []}\n```'
LOOKBACK = '需要开局的数据。\n[回查] 0:30~0:33\n[机器可读声明]\n```json\n{"unitClaims": []}\n```'
WRONG = (  # a unit id no command of the replay names: the validator flags it and the window is revised once
    "第三段里 #99999999 是主力。\n[机器可读声明]\n```json\n"
    '{"unitClaims": [{"unitId": 99999999, "player": "x", "confidence": "confirmed", "evidence": []}]}\n```'
)


def _segment_window(n: int) -> Callable[[Mapping[str, Any]], bool]:
    """The first request of a window of segment ``n`` (1-based)."""

    def match(body: Mapping[str, Any]) -> bool:
        messages = body.get("messages")
        assert isinstance(messages, list)
        return f"[操作日志：第 {n}/" in str(messages[-1].get("content", "")) and len(messages) == 2

    return match


@pytest.mark.parametrize("context", [32_768, 64_000, 128_000, 200_000])
@pytest.mark.parametrize("replay", [LONG_1V1, LONG_3V3])
def test_plan_and_analyze_complete_within_the_models_context(
    replay: str, context: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = corpus_file(replay)
    max_tokens = default_max_tokens(context)
    assert main(["plan", str(path), "--context-length", str(context), "--lang", "zh", "--json"]) == 0
    planned = json.loads(capsys.readouterr().out)
    assert len(planned["segments"]) > 1  # long replays are segmented at every size, never refused

    profile = ModelProfile(context_length=context, max_tokens=max_tokens, provider="scripted", model="scripted-model")
    events: list[ev.PipelineEvent] = []
    db = open_database(tmp_path / "store.sqlite3")
    with ScriptedServer(default=Reply.chat(CLEAN, piece_chars=400), context_limit=context) as server:
        server.enqueue(Reply.chat(LOOKBACK, piece_chars=400), match=_segment_window(2))
        server.enqueue(Reply.chat(WRONG, piece_chars=400), match=_segment_window(3))

        async def run() -> int:
            provider = OpenAICompatProvider("scripted", server.base_url, "scripted-model", api_key="k")
            try:
                return await run_analysis(
                    path,
                    db=db,
                    provider=provider,
                    choice=ModelChoice("scripted", profile),
                    lang=Lang.ZH,
                    emit=events.append,
                    learn=False,
                )
            finally:
                await provider.aclose()

        try:
            record = AnalysisRepository(db).load(asyncio.run(run()))
        finally:
            db.close()
        received = [r for r in server.requests if r.method == "POST"]

    assert record.status == "completed"
    assert not any(r.refused for r in received)
    # no request exceeded the model's context: its messages (counted here, not by the app) plus max_tokens
    for r in received:
        assert r.json["max_tokens"] == max_tokens
        assert request_tokens(r.json) + max_tokens <= context
    windows = [r for r in received if "[本轮任务]\n请重点分析" in r.text and len(r.json["messages"]) == 2]
    assert len(windows) == sum(len(s["windows"]) for s in record.plan["segments"])  # every planned window ran
    # lookbacks and found facts work at every size
    assert [e for e in events if isinstance(e, ev.LookbackServed)]
    assert any("[回查结果]" in str(r.json["messages"][-1]["content"]) for r in received)
    assert "[已发现事实]" in windows[-1].text
    assert any(str(r.json["messages"][-1]["content"]).startswith("[验证结果]") for r in received)  # the revision
    system = str(received[0].json["messages"][0]["content"])
    if context < 200_000:  # knowledge entries travel with the slice, only its own types
        assert "## 结构化条目" not in system
        assert all("[本段出现的单位与建筑]" in r.text for r in windows)
    else:
        assert "## 结构化条目" in system


@pytest.mark.parametrize("lang", [Lang.EN, Lang.ZH])
def test_a_length_refusal_stops_the_run_naming_the_real_limit(lang: Lang, tmp_path: Path) -> None:
    # The profile says 128K, the server runs with 24,576 (a llama.cpp `-c 24576`): the overview (about 17-18K
    # tokens with its output reserve) fits, the first window (about 37-49K) is refused with vLLM's wording, and the
    # run stops there instead of retrying or going on with every window.
    profile = ModelProfile(context_length=128_000, max_tokens=8192, provider="scripted", model="scripted-model")
    events: list[ev.PipelineEvent] = []
    db = open_database(tmp_path / "store.sqlite3")
    with ScriptedServer(default=Reply.chat(CLEAN), context_limit=24_576) as server:

        async def run() -> int:
            provider = OpenAICompatProvider("scripted", server.base_url, "scripted-model", api_key="scripted-secret")
            try:
                return await run_analysis(
                    corpus_file(LONG_1V1),
                    db=db,
                    provider=provider,
                    choice=ModelChoice("local-qwen", profile),
                    lang=lang,
                    emit=events.append,
                    learn=False,
                )
            finally:
                await provider.aclose()

        try:
            with pytest.raises(ContextRefusedError) as info:
                asyncio.run(run())
            posts = [r for r in server.requests if r.method == "POST"]
            analyses = AnalysisRepository(db).for_replay(file_sha256(corpus_file(LONG_1V1)))
        finally:
            db.close()
    # the overview fits 24K; the first window request is refused once: no retry, no further stage
    assert [r.refused for r in posts] == [False, True]
    assert info.value.context_limit == 24_576
    message = str(info.value)
    assert "24,576" in message
    assert "128,000" in message
    assert "context_length" in message
    assert "--context-length 24576" in message
    assert "local-qwen" in message
    finished = [e for e in events if isinstance(e, ev.RunFinished)]
    assert [f.status for f in finished] == ["partial"]
    failed = [e for e in events if isinstance(e, ev.StageFailed)]
    assert len(failed) == 1
    assert failed[0].stage.kind is ev.StageKind.WINDOW
    assert failed[0].message == message
    assert analyses[0].status == "partial"


def test_analyze_cli_exits_with_the_limit_and_the_setting(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("REPLAYSAGE_API_KEY", "scripted-secret")
    with ScriptedServer(default=Reply.chat(CLEAN), context_limit=24_576) as server:
        argv = ["analyze", str(corpus_file(LONG_1V1)), "--base-url", server.base_url, "--model-id", "scripted-model"]
        code = main([*argv, "--context-length", "128000", "--lang", "en", "--quiet"])
        refused = [r for r in server.requests if r.refused]
    err = capsys.readouterr().err
    assert code == 2
    assert len(refused) == 1  # stopped at the first refusal, never sent again
    assert "its context is 24,576 tokens" in err
    assert "--context-length 24576" in err
