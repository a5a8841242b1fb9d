"""What ``replaysage plan`` shows is what ``replaysage analyze`` sends (issue 31: the GUI's expected line uses it).

Two blind runs found the plan predicting other segments than the run used (13 vs 12 at 128K, 7 vs 6 at 32K): the
plan counted a reference system prompt, the run its real one. Here both commands run in process with the same
flags, the run against the scripted OpenAI-compatible server, and the segments the plan prints (their data ranges,
as ``m:ss.cc``) must be the ones the window requests carry in their slice headers, with the planned number of
windows and the planned ``max_tokens`` on every request. Both ways of naming a model are covered: ``--base-url``
with ``--context-length`` (given to ``plan`` too) and a settings profile, each with and without ``--max-tokens``.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from typing import Any

import pytest

from app.cli import main
from app.settings import ModelProfileSettings, ProviderSettings, Settings
from tests.conftest import corpus_file
from tests.support.scripted_server import Reply, ScriptedServer

KW = "kw_test.KWReplay"  # 7 / 3 / 2 / 1 segments at 32K / 64K / 128K / 200K
LONG_1V1 = "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"  # the blind 128K run's replay
CLEAN = '本窗口分析：双方按常规发展。\n[机器可读声明]\n```json\n{"unitClaims": []}\n```'
# max_tokens above each size's reserve floor, so the flag moves the reserve and with it every slice
MAX_TOKENS = {32_768: 10_000, 64_000: 20_000, 128_000: 20_000, 200_000: 20_000}
HEADER = re.compile(r"\[操作日志：第 (\d+)/(\d+) 段，(\d+:\d\d\.\d\d) 至 (\d+:\d\d\.\d\d)\]")


def _clock(seconds: float) -> str:
    """``m:ss.cc`` written here, not by the app (90.5 → 1:30.50)."""
    cs = round(seconds * 100)
    return f"{cs // 6000}:{cs % 6000 // 100:02d}.{cs % 100:02d}"


def _run_cli(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(list(args))
    return code, out.getvalue()


def _plan_and_run(replay: str, context: int, max_tokens: int | None, via: str) -> tuple[dict[str, Any], list[Any]]:
    path = str(corpus_file(replay))
    extra = [] if max_tokens is None else ["--max-tokens", str(max_tokens)]
    with ScriptedServer(default=Reply.chat(CLEAN, piece_chars=2000), context_limit=context) as server:
        if via == "base-url":
            model = ["--context-length", str(context)]
            plan_model = [*model, "--base-url", server.base_url, "--model-id", "scripted-model"]
            run_model = [*model, "--base-url", server.base_url, "--model-id", "scripted-model"]
        else:
            settings = Settings.load()
            settings.put_provider(ProviderSettings("Local", server.base_url))
            fields: dict[str, Any] = {"context_length": context}
            if max_tokens is not None:  # a profile's own max_tokens, as the settings page stores it
                fields["max_tokens"] = max_tokens
            settings.put_profile(ModelProfileSettings("local", "Local", "scripted-model", **fields))
            settings.save()
            plan_model = run_model = ["--model", "local"]
            extra = []
        code, printed = _run_cli("plan", path, *plan_model, *extra, "--lang", "zh", "--json")
        assert code == 0
        plan = json.loads(printed)
        code, _ = _run_cli("analyze", path, *run_model, *extra, "--lang", "zh", "--quiet")
        assert code == 0
        posts = [r for r in server.requests if r.method == "POST"]
    return plan, posts


def _check(plan: dict[str, Any], posts: list[Any], context: int, max_tokens: int | None) -> None:
    assert not any(r.refused for r in posts)
    planned_max = plan["profile"]["max_tokens"]
    if max_tokens is not None:
        assert planned_max == max_tokens
    assert {r.json["max_tokens"] for r in posts} == {planned_max}  # the plan's reserve is built on what is sent
    n = len(plan["segments"])
    planned = [(i + 1, n, _clock(s["start_seconds"]), _clock(s["end_seconds"])) for i, s in enumerate(plan["segments"])]
    first_requests = [r for r in posts if len(r.json["messages"]) == 2]  # the first request of each stage
    sent: list[tuple[int, int, str, str]] = []
    for r in first_requests:
        found = HEADER.search(str(r.json["messages"][-1]["content"]))
        if found:
            sent.append((int(found[1]), int(found[2]), found[3], found[4]))
    # one header per window request: the segments in order, each repeated once per planned window
    expected = [seg for seg, s in zip(planned, plan["segments"], strict=True) for _ in s["windows"]]
    assert sent == expected
    assert len(first_requests) == plan["totals"]["requests"]  # overview, every window, the summary round


@pytest.mark.corpus
@pytest.mark.parametrize("via", ["base-url", "profile"])
@pytest.mark.parametrize("with_max_tokens", [False, True])
@pytest.mark.parametrize("context", [32_768, 64_000, 128_000, 200_000])
def test_the_planned_segments_are_the_segments_the_run_sends(context: int, with_max_tokens: bool, via: str) -> None:
    max_tokens = MAX_TOKENS[context] if with_max_tokens else None
    plan, posts = _plan_and_run(KW, context, max_tokens, via)
    _check(plan, posts, context, max_tokens)


@pytest.mark.corpus
def test_the_blind_128k_case_plans_the_segments_it_runs() -> None:
    # the reported mismatch: plan showed 13 segments (first ending 2:27.73), the run sent 12 (first ending 2:33.13)
    plan, posts = _plan_and_run(LONG_1V1, 128_000, 8192, "base-url")
    _check(plan, posts, 128_000, 8192)
    assert plan["profile"]["reserve"] == 32_000  # max(2 × 8192, 32K): the reserve is not what is sent as max_tokens
    assert len(plan["segments"]) == 12
    # now the store exists (the run wrote it): plan reads its memory facts as the next run would, same plan
    flags = ["--context-length", "128000", "--max-tokens", "8192", "--lang", "zh", "--json"]
    code, again = _run_cli("plan", str(corpus_file(LONG_1V1)), *flags)
    assert code == 0
    assert [s["end_seconds"] for s in json.loads(again)["segments"]] == [s["end_seconds"] for s in plan["segments"]]
