"""The offline rule-based analyst through the real pipeline on real corpus replays.

Every window's claims must validate with zero issues (stored issue records, lookback Info aside), and the claims
are also checked here against the raw commands of the replay, independently of the fact index: a unit claim needs
a strong command of that player naming the id (0x1FA group, 0x205 factory, 0x207/0x209 constructor, 0x1FE/0x200
caster…) and none of another player; a protocol claim needs a 0x24E of that player with that science hash at that
time; a timeline claim needs that player's first 0x205/0x207/0x209 of the type hash at that time (or, for a type
with a 0x206/0x208 cancel, some order of the type at that time: the first order may have been taken back).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from app.analyst.provider import OfflineAnalyst
from app.budget.profile import ModelProfile
from app.budget.prompt import window_instruction
from app.claims.issues import Severity
from app.claims.lookback import find_lookbacks, strip_lookbacks
from app.claims.parse import parse_claims
from app.claims.timeparse import format_time, parse_time
from app.claims.validate import ClaimValidator
from app.i18n import Lang
from app.llm.base import ChatMessage, ChatProvider, ChatRequest, collect
from app.llm.events import Finished, TextDelta, UsageReport
from app.llm.factory import build_provider
from app.llm.stage import StageInfo
from app.pipeline import events as ev
from app.pipeline.prepare import PreparedReplay, prepare_replay
from app.pipeline.prompts import lookback_reply
from app.pipeline.records import AnalysisRecord
from app.pipeline.repository import AnalysisRepository
from app.pipeline.service import ModelChoice, run_analysis
from app.replay import ArgKind, read_replay
from app.replay.asset_hash import asset_hash
from app.settings import BUILTIN_OFFLINE, Settings
from app.store import open_database
from tests.conftest import REPO_ROOT, corpus_file

SNOW = "ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay"
MIRROR = "ra3_1v1_infinity_isle_allies_mirror_12m.RA3Replay"
TICKS = 15.0
STRONG_IDS = {0x1FA, 0x202, 0x203, 0x204, 0x205, 0x206, 0x207, 0x208, 0x209, 0x20A, 0x228}
FIRST_ID_ONLY = {0x202, 0x203, 0x204, 0x205, 0x206, 0x207, 0x208, 0x209}
POWER_IDS = {0x1FE, 0x1FF, 0x200, 0x201, 0x232}
"""Commands whose object ids only the owner can issue (plan §7.1); 0x212/0x1FB need tracked state, left out."""
CJK = re.compile(r"[\u4e00-\u9fff]")


@dataclass
class Run:
    record: AnalysisRecord
    events: list[ev.PipelineEvent]
    prepared: PreparedReplay


def _run(name: str, lang: Lang, db_path: Path) -> Run:
    choice = ModelChoice.from_settings(BUILTIN_OFFLINE)
    prepared = prepare_replay(corpus_file(name), choice.profile, lang)
    events: list[ev.PipelineEvent] = []
    db = open_database(db_path)

    async def main() -> int:
        provider = OfflineAnalyst()
        try:
            return await run_analysis(
                corpus_file(name),
                db=db,
                provider=provider,
                choice=choice,
                lang=lang,
                emit=events.append,
                prepared=prepared,
            )
        finally:
            await provider.aclose()

    try:
        record = AnalysisRepository(db).load(asyncio.run(main()))
        for stage in record.stages:  # load the relationships while the session data is at hand
            _ = (stage.issues, stage.lookbacks, stage.outputs, stage.requests)
    finally:
        db.close()
    return Run(record, events, prepared)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Run]]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("REPLAYSAGE_HOME", str(tmp_path_factory.mktemp("home")))
        base = tmp_path_factory.mktemp("offline")
        yield {
            "snow_zh": _run(SNOW, Lang.ZH, base / "a.db"),
            "mirror_en": _run(MIRROR, Lang.EN, base / "c.db"),
        }


# ---------------------------------------------------------------------------------------------- raw facts


@dataclass
class RawFacts:
    """Facts read straight from the replay's commands (not from the fact index)."""

    names: dict[str, int]  # player name → slot
    strong: dict[int, set[int]]  # object id → players with a strong command naming it
    seen: dict[int, float]  # object id → first mention
    protocols: set[tuple[int, int, int]]  # (player, time code, science hash)
    first: dict[tuple[int, int], int]  # (player, type hash) → first 0x205/0x207/0x209 time code
    orders: set[tuple[int, int, int]] = field(default_factory=set)  # (player, type hash, time code)
    cancelled: set[tuple[int, int]] = field(default_factory=set)  # (player, type hash) with a 0x206/0x208


@cache
def raw_facts(name: str) -> RawFacts:
    replay = read_replay(corpus_file(name))
    players = {s.index: s.display_name or f"P{s.index}" for s in replay.header.slots if s.is_player}
    facts = RawFacts({n: slot for slot, n in players.items()}, {}, {}, set(), {})
    for c in replay.commands:
        objs = [int(v) for v in c.values(ArgKind.OBJECT) if v]  # type: ignore[call-overload]
        ints = [int(v) for v in c.values(ArgKind.INT)]  # type: ignore[call-overload]
        for o in objs:
            facts.seen.setdefault(o, c.time_code / TICKS)
        if c.player not in players:
            continue
        if c.command_id in STRONG_IDS:
            named = objs[:1] if c.command_id in FIRST_ID_ONLY else objs
            for o in named:
                facts.strong.setdefault(o, set()).add(c.player)
        if c.command_id in POWER_IDS:  # ``…, k, k sources``: one source is a caster, several are a weak group
            every = [int(v) for v in c.values(ArgKind.OBJECT)]  # type: ignore[call-overload]
            sources = [o for o in (every[: ints[2]] if c.command_id == 0x1FE else every[-ints[-1] :]) if o]
            if len(sources) == 1:
                facts.strong.setdefault(sources[0], set()).add(c.player)
        if c.command_id == 0x24E and ints:
            facts.protocols.add((c.player, c.time_code, ints[0] & 0xFFFFFFFF))
        if c.command_id in (0x205, 0x207, 0x209) and len(c.args) > 1 and c.kinds[1] is ArgKind.INT:
            facts.first.setdefault((c.player, int(c.args[1]) & 0xFFFFFFFF), c.time_code)  # type: ignore[call-overload]
            facts.orders.add((c.player, int(c.args[1]) & 0xFFFFFFFF, c.time_code))  # type: ignore[call-overload]
        if c.command_id in (0x206, 0x208) and len(ints) > 1:
            facts.cancelled.add((c.player, ints[1 if c.command_id == 0x208 else 0] & 0xFFFFFFFF))
    return facts


def _slot(facts: RawFacts, player: Any) -> int:
    return player if isinstance(player, int) else facts.names[str(player)]


def check_claims_against_raw(name: str, claims: dict[str, Any]) -> None:
    facts = raw_facts(name)
    for c in claims.get("unitClaims", []):
        uid, slot = int(c["unitId"]), _slot(facts, c["player"])
        assert facts.strong.get(uid) == {slot}, (c, facts.strong.get(uid))
        assert c["confidence"] == "confirmed"
        assert all(not str(e).startswith("move|") for e in c["evidence"])
    for c in claims.get("eventClaims", []):
        slot = _slot(facts, c["player"])
        tc = round(parse_time(c["time"]) * TICKS)  # type: ignore[operator]
        if c["kind"] == "protocol":
            assert (slot, tc, asset_hash(c["name"])) in facts.protocols, c
        elif c["kind"] == "power":
            assert slot in facts.strong.get(int(c["unitId"]), set()), c
        elif c["kind"] == "build":
            first = facts.first[(slot, asset_hash(c["name"]))]
            assert first <= tc, c
    for c in claims.get("timelineClaims", []):
        slot = _slot(facts, c["player"])
        tc = round(parse_time(c["firstTime"]) * TICKS)  # type: ignore[operator]
        h = asset_hash(c["type"])
        if (slot, h) in facts.cancelled:
            assert (slot, h, tc) in facts.orders, c
        else:
            assert facts.first[(slot, h)] == tc, c


# ---------------------------------------------------------------------------------------------- pipeline runs


@pytest.mark.parametrize(("key", "name"), [("snow_zh", SNOW), ("mirror_en", MIRROR)])
def test_every_stage_done_and_every_claim_validates(runs: dict[str, Run], key: str, name: str) -> None:
    run = runs[key]
    rec = run.record
    assert rec.status == "completed", rec.message
    windows = [s for s in rec.stages if s.kind == "window"]
    planned = sum(len(seg.windows) for seg in run.prepared.plan.segments)
    assert len(windows) == planned >= 2
    for stage in rec.stages:
        assert stage.status == "done", (stage.key, stage.message)
        assert not [i for i in stage.issues if i.severity == Severity.FATAL], stage.key
    for stage in windows:
        bad = [
            (i.code, i.message)
            for i in stage.issues
            if not (i.severity == Severity.INFO and i.code.startswith("Lookback"))
        ]
        assert bad == [], (stage.key, bad)
        assert not stage.revised
        n = sum(len(stage.claims.get(k, [])) for k in ("unitClaims", "eventClaims", "timelineClaims"))
        assert n >= 1, stage.key
        check_claims_against_raw(name, stage.claims)
    summary_round = next(s for s in rec.stages if s.kind == "summary_round")
    assert not [i for i in summary_round.issues if i.severity > Severity.INFO]
    check_claims_against_raw(name, summary_round.claims)


def test_protocol_picks_are_claimed_in_their_window(runs: dict[str, Run]) -> None:
    facts = raw_facts(SNOW)
    slot_name = {v: k for k, v in facts.names.items()}
    claimed = {
        (c["player"], round(parse_time(c["time"]) * TICKS))  # type: ignore[operator]
        for s in runs["snow_zh"].record.stages
        if s.kind == "window"
        for c in s.claims.get("eventClaims", [])
        if c["kind"] == "protocol"
    }
    picks = {(slot_name[p], tc) for p, tc, _h in facts.protocols}
    assert picks
    assert picks <= claimed


def test_lookback_asked_for_an_object_first_seen_before_the_slice(runs: dict[str, Run]) -> None:
    run = runs["snow_zh"]
    facts = raw_facts(SNOW)
    served = [(s, lb) for s in run.record.stages for lb in s.lookbacks if lb.served]
    assert served, "later segments refer to objects from earlier ones: a lookback is expected"
    segs = run.prepared.plan.segments
    for stage, lb in served:
        slice_start = segs[stage.segment].start_seconds
        assert lb.start_seconds < slice_start
        # one lookback, asked in the first reply only: initial request, then the follow-up with the served range
        assert [r.purpose for r in stage.requests] == ["initial", "lookback"], stage.key
        asked, answer = stage.requests[1].messages[-2:]
        assert asked["role"] == "assistant"
        assert "[回查]" in asked["content"]
        assert answer["role"] == "user"
        assert answer["content"].startswith("[回查结果]")
        final = next(o.text for o in stage.outputs if o.role == "draft")
        assert "[回查]" not in final
        assert "回查" in final
        # the served range holds the first mention (raw commands) of an object the window claims
        claimed = [int(c["unitId"]) for c in stage.claims.get("unitClaims", [])]
        early = [u for u in claimed if facts.seen[u] < slice_start]
        assert any(lb.start_seconds <= facts.seen[u] <= lb.end_seconds for u in early), stage.key


def _stage_texts(run: Run) -> list[list[Any]]:
    return [[s.key, s.text, s.claims, [o.text for o in s.outputs]] for s in run.record.stages]


def test_window_text_reports_raw_order_counts_and_placements(runs: dict[str, Run]) -> None:
    """Each player's order count and placed structures in a window, counted from the raw commands."""
    from app.knowledge.loader import load_knowledge
    from app.replay.commands import command_info

    run = runs["snow_zh"]
    replay = read_replay(corpus_file(SNOW))
    knowledge = load_knowledge(replay.header.mod_name)
    players = {s.index: s.display_name for s in replay.header.slots if s.is_player}
    checked = 0
    for stage in (s for s in run.record.stages if s.kind == "window"):
        lo, hi = stage.start_seconds * TICKS - 1e-9, stage.end_seconds * TICKS - 1e-9
        cmds = [
            c
            for c in replay.commands
            if lo <= c.time_code < hi and c.player in players and not command_info(replay.game, c.command_id).automatic
        ]
        for slot, name in players.items():
            own = [c for c in cmds if c.player == slot]
            section = stage.text.split(f"### {name}（", 1)[1].split("\n\n", 1)[0]
            if not own:
                continue
            assert f"共 {len(own)} 条" in section, (stage.key, name)
            placed = [c for c in own if c.command_id == 0x209]
            for c in placed[:12]:  # the build-order line lists up to 12 placements
                entry = knowledge.lookup(int(c.args[1]))  # type: ignore[call-overload]
                assert entry is not None
                assert entry.name_zh in section, (stage.key, name, entry.id)
            checked += len(placed)
    assert checked >= 10


def test_deterministic_bytes_across_processes(runs: dict[str, Run], tmp_path: Path) -> None:
    """A second run in another process (another string-hash seed, fresh parse) gives the same bytes."""
    code = (
        "import json, sys; from pathlib import Path; from app.i18n import Lang; "
        "import tests.analyst.test_offline as t; "
        "print(json.dumps(t._stage_texts(t._run(t.SNOW, Lang.ZH, Path(sys.argv[1])))))"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345", "REPLAYSAGE_HOME": str(tmp_path / "home")}
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "again.db")],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert json.loads(out.stdout.strip().splitlines()[-1]) == _stage_texts(runs["snow_zh"])


def test_languages_and_rule_based_label(runs: dict[str, Run]) -> None:
    zh = [s for s in runs["snow_zh"].record.stages if s.kind != "summary"]
    en = [s for s in runs["mirror_en"].record.stages if s.kind != "summary"]
    for s in zh:
        assert s.text.startswith("> 离线规则分析"), s.key
        assert "不是大模型" in s.text.splitlines()[0]
    for s in en:
        first = s.text.splitlines()[0]
        assert first.startswith("> Offline rule-based analysis")
        assert "not by a language model" in first
        headings = [ln for ln in s.text.splitlines() if ln.startswith("#")]
        assert headings, s.key
        assert not any(CJK.search(h) for h in headings), s.key
    assert runs["mirror_en"].record.provider == OfflineAnalyst().name
    assert "rule-based" in OfflineAnalyst().name


def test_replies_stream_in_many_deltas_with_usage(runs: dict[str, Run]) -> None:
    run = runs["snow_zh"]
    deltas: dict[str, int] = {}
    for e in run.events:
        if isinstance(e, ev.TextDelta):
            deltas[e.stage.key] = deltas.get(e.stage.key, 0) + 1
    for stage in run.record.stages:
        if stage.kind == "summary":
            continue
        assert deltas[stage.key] > 1, stage.key
        for req in stage.requests:
            assert req.resolved_model == "offline"
            assert req.finish_reason == "stop"
            assert req.usage["prompt_tokens"] > 0
            assert req.usage["completion_tokens"] > 0
    # usage.prompt_tokens counts the request's messages: the window prompt (with the slice) outweighs the overview
    usage = {s.key: s.requests[0].usage["prompt_tokens"] for s in run.record.stages if s.requests}
    assert usage["window:0:0"] > usage["overview"]


# ---------------------------------------------------------------------------------------------- provider behaviour


@cache
def _prepared_snow() -> PreparedReplay:
    return prepare_replay(corpus_file(SNOW), ModelChoice.from_settings(BUILTIN_OFFLINE).profile, Lang.EN)


def _bound(lang: Lang = Lang.EN, **kw: Any) -> OfflineAnalyst:
    p = _prepared_snow()
    return OfflineAnalyst(**kw).bind(p.index, p.log, p.plan, lang)


def _window_request(segment: int = 0, window: int = 1) -> ChatRequest:
    """A window request whose wording says nothing: the stage data alone says what is asked."""
    return ChatRequest(
        (ChatMessage("system", "s"), ChatMessage("user", "Focus on the operations.")),
        stage=StageInfo("window", segment=segment, window=window),
    )


def test_factory_builds_the_unbound_analyst_which_introduces_itself(run: Any) -> None:
    provider = build_provider(Settings(Path("/nonexistent/settings.json")), "offline")
    assert isinstance(provider, OfflineAnalyst)
    assert isinstance(provider, ChatProvider)
    assert provider.rule_based
    assert provider.model == "offline"
    result = run(collect(provider.stream(ChatRequest.simple("hello"))))
    assert result.ok
    assert "not a language model" in result.text


def test_cancellation_with_aclose_mid_stream(run: Any) -> None:
    analyst = _bound(chunk_chars=8)

    async def main() -> tuple[list[Any], Any]:
        stream = analyst.stream(_window_request())
        got = [await stream.__anext__(), await stream.__anext__()]
        await stream.aclose()
        await stream.aclose()  # idempotent
        with pytest.raises(StopAsyncIteration):
            await stream.__anext__()
        return got, stream

    got, stream = run(main())
    assert all(isinstance(e, TextDelta) for e in got)
    assert stream.closed


def test_one_terminal_event_after_usage(run: Any) -> None:
    async def main() -> list[Any]:
        out = []
        async with _bound().stream(_window_request()) as stream:
            async for e in stream:
                out.append(e)
        return out

    events = run(main())
    assert isinstance(events[-1], Finished)
    assert events[-1].resolved_model == "offline"
    assert isinstance(events[-2], UsageReport)
    assert sum(isinstance(e, Finished) for e in events) == 1
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert all(len(e.text) <= 32 for e in events if isinstance(e, TextDelta))
    from app.tokens import count_tokens

    assert events[-2].completion_tokens == count_tokens(text)


def test_followups_lookback_and_revision() -> None:
    analyst = _bound()
    p = _prepared_snow()
    seg = p.plan.segments[1]
    first = analyst.compose(_window_request(1, 0))
    m = re.search(r"\[lookback\] (\S+)~(\S+)", first)
    assert m, "segment 2 refers to objects first seen in segment 1"
    lo, hi = parse_time(m.group(1)), parse_time(m.group(2))
    assert lo is not None
    assert hi is not None
    assert lo < seg.start_seconds
    served = ChatMessage("user", f"[Lookback] raw orders from {m.group(1)} to {m.group(2)}:\n...\n\nUse this data.")
    follow = ChatRequest(
        (*_window_request(1, 0).messages, ChatMessage("assistant", first), served),
        stage=StageInfo("window", "lookback", 1, 0, served=((lo, hi),)),
    )
    final = analyst.compose(follow)
    assert "[lookback]" not in final.lower().replace("[lookback] raw", "")
    assert "The lookback" in final
    revision = ChatRequest(
        (
            *follow.messages,
            ChatMessage("assistant", final),
            ChatMessage("user", "[Validation] The program checked your claims..."),
        ),
        stage=StageInfo("window", "revision", 1, 0),
    )
    revised = analyst.compose(revision)
    assert revised.split("[claims]")[1] == final.split("[claims]")[1]
    assert "[lookback]" not in revised


def test_the_stage_comes_from_stage_data_not_from_wording() -> None:
    """Rewording a prompt changes nothing; the pipeline's exact window wording without stage data is no window."""
    analyst = _bound()
    p = _prepared_snow()
    seg, win = p.plan.segments[1], p.plan.segments[1].windows[0]
    stage = StageInfo("window", segment=1, window=0)
    worded = ChatRequest((ChatMessage("user", window_instruction(Lang.EN, seg, win)),), stage=stage)
    reworded = ChatRequest((ChatMessage("user", "完全不同的措辞 / entirely different wording"),), stage=stage)
    text = analyst.compose(worded)
    assert analyst.compose(reworded) == text
    assert f"{format_time(win.start_seconds)[:-3]}–" in text  # the focus period's m:ss heading
    assert "[claims]" in text
    unstaged = analyst.compose(ChatRequest(worded.messages))
    assert "[claims]" not in unstaged  # a short brief, not a window analysis
    assert unstaged.startswith("> Offline rule-based analysis")
    overview = analyst.compose(ChatRequest(reworded.messages, stage=StageInfo("overview")))
    assert "## Overview" in overview
    summary = analyst.compose(ChatRequest(reworded.messages, stage=StageInfo("summary_round")))
    assert "## Match report" in summary


# ---------------------------------------------------------------------------------------------- without a plan
# The analyst bound to the index alone takes the window's ranges from the request's stage data (a 24-minute 1v1 and
# a 3v3), validated with the pipeline's validator; protocol claims are checked against the raw 0x24E commands.

PROTOCOL_COMMAND = 0x24E  # sage-replay-format notes §4.3: select protocol (purchase science)

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


def window_stage(
    lang: Lang, seg: Any, win: Any, phase: Any = "initial", served: tuple[tuple[float, float], ...] = ()
) -> StageInfo:
    return StageInfo(
        "window",
        phase,
        seg.index,
        win.index,
        (win.start_seconds, win.end_seconds),
        (seg.start_seconds, seg.end_seconds),
        served,
        lang,
    )


def request_for(lang: Lang, seg: Any, win: Any) -> ChatRequest:
    text = window_instruction(lang, seg, win)
    return ChatRequest((ChatMessage("user", text),), stage=window_stage(lang, seg, win))


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
                (*request.messages, ChatMessage("assistant", text), ChatMessage("user", served)),
                stage=window_stage(lang, seg, win, "lookback", ((start, end),)),
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
