"""The offline rule-based analyst on real corpus replays, through the ChatProvider interface only.

Requests are built with the pipeline's own window-instruction wording (``app.budget.prompt``), the replies are
checked with the pipeline's claim validator, and protocol claims are also checked against the raw 0x24E commands
of the replay (independent of the fact index).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.budget.profile import ModelProfile
from app.budget.prompt import window_instruction
from app.claims.lookback import find_lookbacks, strip_lookbacks
from app.claims.parse import parse_claims
from app.claims.timeparse import format_time, parse_time
from app.claims.validate import ClaimValidator
from app.i18n import Lang
from app.llm.base import ChatMessage, ChatProvider, ChatRequest, collect
from app.llm.factory import build_provider
from app.llm.offline import OfflineAnalyst
from app.pipeline.prepare import PreparedReplay, prepare_replay
from app.pipeline.prompts import lookback_reply
from app.settings import BUILTIN_OFFLINE, Settings
from tests.conftest import corpus_file

PROTOCOL_COMMAND = 0x24E  # sage-replay-format notes §4.3: select protocol (purchase science)
TICKS = 15.0

REPLAYS = [
    ("ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay", Lang.EN),
    ("ra3_3v3_spring_showdown_19m.RA3Replay", Lang.ZH),
]


@pytest.fixture(scope="module", params=REPLAYS, ids=[r[0].split(".")[0] for r in REPLAYS])
def prepared(request: pytest.FixtureRequest) -> tuple[PreparedReplay, Lang]:
    name, lang = request.param
    profile = ModelProfile.from_mapping(BUILTIN_OFFLINE.budget_mapping())
    return prepare_replay(corpus_file(name), profile, lang), lang


def windows(p: PreparedReplay) -> Iterator[tuple[Any, Any]]:
    for seg in p.plan.segments:
        for win in seg.windows:
            yield seg, win


def request_for(lang: Lang, seg: Any, win: Any) -> ChatRequest:
    text = window_instruction(lang, seg, win)
    return ChatRequest((ChatMessage("user", text),), tag=f"window:{seg.index}:{win.index}")


def compose(provider: ChatProvider, request: ChatRequest) -> str:
    return asyncio.run(collect(provider.stream(request))).text


def protocol_commands(p: PreparedReplay) -> set[tuple[int, int]]:
    """(player slot, time code) of every raw 0x24E command, read from the replay, not from the index."""
    return {(c.player, c.time_code) for c in p.replay.commands if c.command_id == PROTOCOL_COMMAND}


def test_every_window_validates_with_zero_issues(prepared: tuple[PreparedReplay, Lang]) -> None:
    p, lang = prepared
    analyst = OfflineAnalyst().bind(p.index)
    validator = ClaimValidator(p.index, lang)
    raw_protocols = protocol_commands(p)
    slots = {pl.name: pl.slot for pl in p.index.playing}
    lookbacks_asked = 0
    claims_total = 0
    assert len(list(windows(p))) >= 6
    for seg, win in windows(p):
        request = request_for(lang, seg, win)
        text = compose(analyst, request)
        parsed = parse_claims(strip_lookbacks(text))
        assert parsed.marker_found, (seg.index, win.index)
        issues = validator.validate(parsed, text)
        assert issues == [], (seg.index, win.index, issues)
        claims_total += len(parsed.unit_claims) + len(parsed.event_claims) + len(parsed.timeline_claims)
        # independent of the index: every protocol claim is a raw 0x24E command of that player at that time
        for claim in parsed.event_claims:
            if claim.get("kind") == "protocol":
                seconds = parse_time(claim["time"])
                assert seconds is not None
                assert (slots[claim["player"]], round(seconds * TICKS)) in raw_protocols, claim
        found = find_lookbacks(text)
        assert not found.issues
        if found.ranges:
            lookbacks_asked += 1
            start, end = found.ranges[0]
            assert start < seg.start_seconds  # it reaches back before this segment's slice
            raw = "\n".join(line.text for line in p.log.lines_between(start, end))
            served = lookback_reply(lang, format_time(start), format_time(end), raw)
            follow = ChatRequest(
                (*request.messages, ChatMessage("assistant", text), ChatMessage("user", served)), tag=request.tag
            )
            follow_text = compose(analyst, follow)
            assert not find_lookbacks(follow_text).ranges
            assert validator.validate(parse_claims(follow_text), follow_text) == []
    assert claims_total > 50
    assert lookbacks_asked >= 1


def test_streamed_reply_is_deterministic_and_labelled(prepared: tuple[PreparedReplay, Lang]) -> None:
    p, lang = prepared
    seg, win = next(windows(p))
    analyst = OfflineAnalyst().bind(p.index)
    assert isinstance(analyst, ChatProvider)
    assert analyst.rule_based
    assert analyst.model == "offline"
    first = asyncio.run(collect(analyst.stream(request_for(lang, seg, win))))
    second = asyncio.run(collect(analyst.stream(request_for(lang, seg, win))))
    assert first.text == second.text
    assert first.ok
    assert first.text_deltas > 1  # streamed in chunks, not one block
    assert ("规则" if lang is Lang.ZH else "rule") in first.text.splitlines()[0].lower()
    for pl in p.index.playing:
        assert pl.name in first.text


def test_unbound_analyst_introduces_itself() -> None:
    result = asyncio.run(collect(OfflineAnalyst().stream(ChatRequest.simple("hello"))))
    assert result.ok
    assert "rule-based" in result.text


def test_factory_returns_offline_for_offline_profile(tmp_path: Path) -> None:
    provider = build_provider(Settings(tmp_path / "s.json"))
    assert isinstance(provider, OfflineAnalyst)
    assert provider.rule_based
    assert provider.model == "offline"


def test_full_offline_analysis_run_has_no_issues(tmp_path: Path) -> None:
    """The pipeline end to end with the offline analyst: no stage fails, no validation issue, lookbacks served."""
    from app.pipeline import events as ev
    from app.pipeline.orchestrator import AnalysisRun
    from app.pipeline.repository import AnalysisRepository
    from app.store import open_database

    lang = Lang.EN
    profile = ModelProfile.from_mapping(BUILTIN_OFFLINE.budget_mapping())
    p = prepare_replay(corpus_file("ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"), profile, lang)
    db = open_database(tmp_path / "store.sqlite3")
    events: list[Any] = []
    run = AnalysisRun(p, OfflineAnalyst().bind(p.index), AnalysisRepository(db), lang=lang, emit=events.append,
                      model_label="offline")  # fmt: skip
    try:
        asyncio.run(run.run())
    finally:
        db.close()
    assert not [e for e in events if isinstance(e, ev.StageFailed)]
    assert [i for e in events if isinstance(e, ev.IssuesFound) for i in e.issues] == []
    assert any(isinstance(e, ev.LookbackServed) for e in events)
    finished = [e for e in events if isinstance(e, ev.StageFinished)]
    assert len(finished) == len(run.planned_stages())
    assert isinstance(events[-1], ev.RunFinished)
    assert events[-1].status == "completed"
