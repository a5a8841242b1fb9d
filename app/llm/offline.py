"""The offline analyst: a deterministic, rule-based analyst behind the :class:`~app.llm.base.ChatProvider` interface.

Why it exists: the app must analyse a replay with no network and no model at all, and it is the embedded default
(model id ``offline``). It never reads the prompt's log text to decide anything; it reads the replay's fact index
(the same facts the claim validator checks against) and writes the round the pipeline asks for:

* ``overview`` — a title and one or two sentences per planned segment, the course of the match, cross-segment
  threads (base relocations, tech switches, protocol picks) and lookback suggestions;
* ``window:<segment>:<window>`` — build order, production and tech timing, economy, protocols and powers, army
  movements and the places where orders concentrate, APM per player, and links to events outside the window,
  ending with ``[机器可读声明]`` claims that are true by construction (every claim is derived from the index and
  re-checked with :class:`~app.claims.validate.ClaimValidator`; anything that does not pass cleanly is dropped);
* ``summary_round`` — a whole-match report (openings, turning points, decisive factors, advice per player).

When a unit the window's claims refer to first appears before the segment's slice, the first reply asks for one
lookback (``[回查] a~b``) around that first appearance, as a model would; the follow-up reply folds in what the
served range shows. A revision request is answered with the same analysis (its claims already pass).

It is labelled rule-based everywhere: ``rule_based`` is True, the display name says so and every reply starts by
saying it was written by rules, not by a language model. Output is deterministic: the same replay and request
give the same bytes.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.i18n import Lang, pick
from app.llm.base import ChatMessage, ChatRequest, EventStream
from app.llm.errors import ProviderError
from app.llm.events import Finished, StreamEvent, StreamFailed, TextDelta, UsageReport
from app.llm.streams import ChatStream

if TYPE_CHECKING:
    from app.budget.plan import RunPlan
    from app.facts import CompactLog, ReplayFactIndex
    from app.knowledge.model import Knowledge

OFFLINE_MODEL = "offline"
DISPLAY_NAME = "离线规则分析 / Offline rule-based analyst"
DEFAULT_CHUNK_CHARS = 32
"""Characters per streamed delta: small enough to look like a model stream, large enough to stay cheap."""

CELL = 600.0
"""Side of the map grid (world units) used to find where orders concentrate (RA3 maps span ~5,000 units)."""
NEAR_BASE = 700.0
"""An order lands "at a base" when it is this close to one of the player's placed structures."""
FIGHT_GAP_S = 30.0
"""Two players' orders in one cell within this many seconds count as a likely fight (an inference)."""
LOOKBACK_BEFORE_S = 5.0
LOOKBACK_AFTER_S = 10.0
UNIT_CLAIMS_PER_PLAYER = 4
BUILD_CLAIMS_PER_PLAYER = 3
POWER_CLAIMS_PER_PLAYER = 3
TIMELINE_CLAIMS_PER_PLAYER = 6
MAX_LIST = 8
MAX_EARLY_LISTED = 3
OPENING_S = 180.0
"""Base deploys before this are part of the opening, not turning points."""
MAX_RELOCATIONS = 4
IDLE_GAP_S = 25.0
"""A pause in a player's orders longer than this (after the opening) is worth pointing out."""

QUEUE_UNIT = 0x205
START_UPGRADE = 0x203
CREATE_GROUP = 0x1FA
ATTACK_OBJECT = 0x20D
ATTACK_MOVE = 0x215
HARVEST_FROM_NODE = 0x248
CAST_IDS = (0x1FE, 0x200)

_T = r"(\d{1,4}:\d{2}(?:\.\d{1,3})?)"
_WINDOW = re.compile(rf"(?:请重点分析\s*{_T}\s*至\s*{_T}|Focus on the operations between\s+{_T}\s+and\s+{_T})")
_SLICE = re.compile(rf"(?:整段切片（{_T}\s*至\s*{_T}）|whole segment \({_T} to {_T}\))")
_SERVED = re.compile(rf"(?:\[回查结果\]\s*{_T}\s*至\s*{_T}|\[Lookback\] raw orders from {_T} to {_T})")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_LOOKBACK_PREFIXES = ("[回查结果]", "[Lookback]", "[回查未执行]", "[Lookback not served]")
_REVISION_PREFIXES = ("[验证结果]", "[Validation]")


def fmt(seconds: float) -> str:
    """Game time ``m:ss.cc`` (the format of the prompts and of claims)."""
    total_cs = round(max(0.0, seconds) * 100)
    minutes, cs = divmod(total_cs, 6000)
    return f"{minutes}:{cs // 100:02d}.{cs % 100:02d}"


def short(seconds: float) -> str:
    """Game time ``m:ss`` for prose."""
    s = int(max(0.0, seconds))
    return f"{s // 60}:{s % 60:02d}"


def _parse_t(text: str) -> float:
    minutes, _, rest = text.partition(":")
    return int(minutes) * 60 + float(rest)


def _pairs(m: re.Match[str]) -> tuple[float, float]:
    groups = [g for g in m.groups() if g is not None]
    return _parse_t(groups[0]), _parse_t(groups[1])


# ---------------------------------------------------------------------------------------------- reading requests


@dataclass(frozen=True, slots=True)
class StageRequest:
    """What a request asks for, read from its tag and its last user message.

    Attributes:
        kind: ``overview``, ``window``, ``summary_round`` or ``other``.
        segment: 0-based segment of a window (-1 otherwise).
        window: 0-based window inside the segment (-1 otherwise).
        phase: ``initial``, ``lookback`` (the last message serves lookbacks) or ``revision``.
        served: the ranges a lookback answer served.
        focus: the focus range written in the instruction (used when no plan is bound).
        slice_range: the segment slice written in the instruction (used when no plan is bound).
        cjk: True when the instruction is written in Chinese (the language when none is bound).
    """

    kind: str
    segment: int = -1
    window: int = -1
    phase: str = "initial"
    served: tuple[tuple[float, float], ...] = ()
    focus: tuple[float, float] | None = None
    slice_range: tuple[float, float] | None = None
    cjk: bool = True


def read_request(request: ChatRequest) -> StageRequest:
    """Classify a request by its tag (``overview``, ``window:S:W``, ``summary_round``) and its messages."""
    users = [m.content for m in request.messages if m.role == "user"]
    last = users[-1] if users else ""
    first = users[0] if users else ""
    head = last.lstrip()
    phase = "initial"
    served: tuple[tuple[float, float], ...] = ()
    if head.startswith(_LOOKBACK_PREFIXES):
        phase, served = "lookback", tuple(_pairs(m) for m in _SERVED.finditer(last))
    elif head.startswith(_REVISION_PREFIXES):
        phase = "revision"
    wm = _WINDOW.search(first)
    sm = _SLICE.search(first)
    focus = _pairs(wm) if wm else None
    slice_range = _pairs(sm) if sm else focus
    cjk = bool(_CJK.search(first[-4000:] if first else last))
    tag = request.tag
    if tag.startswith("window:"):
        parts = tag.split(":")
        seg = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else -1
        win = int(parts[2]) if len(parts) > 2 and parts[2].isdigit() else -1
        return StageRequest("window", seg, win, phase, served, focus, slice_range, cjk)
    if tag in ("overview", "summary_round"):
        return StageRequest(tag, phase=phase, served=served, cjk=cjk)
    if focus is not None:
        return StageRequest("window", -1, -1, phase, served, focus, slice_range, cjk)
    if "[分段元数据]" in first or "[Segment metadata]" in first:
        return StageRequest("overview", phase=phase, cjk=cjk)
    if "[各段分析]" in first or "[Segment analyses]" in first:
        return StageRequest("summary_round", phase=phase, served=served, cjk=cjk)
    return StageRequest("other", phase=phase, cjk=cjk)


# ---------------------------------------------------------------------------------------------- the provider


class OfflineAnalyst:
    """The rule-based analyst (a :class:`~app.llm.base.ChatProvider`).

    ``OfflineAnalyst()`` (what the provider factory builds) can only introduce itself; the pipeline binds the
    replay with :meth:`bind` before a run.

    Args:
        index: the replay's fact index.
        log: the level-1 compact log (used to describe served lookback ranges).
        plan: the run plan (segment and window ranges come from it).
        lang: the reply language; None follows the instruction's language.
        chunk_chars: characters per streamed :class:`TextDelta`.
        delay_s: pause between chunks, for demos (0 only yields to the event loop).
    """

    rule_based = True

    def __init__(
        self,
        index: ReplayFactIndex | None = None,
        log: CompactLog | None = None,
        plan: RunPlan | None = None,
        lang: Lang | None = None,
        *,
        chunk_chars: int = DEFAULT_CHUNK_CHARS,
        delay_s: float = 0.0,
    ) -> None:
        self._index = index
        self._log = log
        self._plan = plan
        self._lang = lang
        self._chunk = max(1, chunk_chars)
        self._delay = max(0.0, delay_s)
        self._writers: dict[Lang, _Writer] = {}
        self._token_cache: dict[str, int] = {}

    def __repr__(self) -> str:
        bound = "bound" if self._index is not None else "unbound"
        return f"OfflineAnalyst({bound}, rule-based)"

    @property
    def name(self) -> str:
        """Display name: says that this is rules, not a language model."""
        return DISPLAY_NAME

    @property
    def model(self) -> str:
        """Model id (``offline``)."""
        return OFFLINE_MODEL

    @property
    def index(self) -> ReplayFactIndex | None:
        """The bound fact index (None until :meth:`bind`)."""
        return self._index

    def bind(
        self,
        index: ReplayFactIndex,
        log: CompactLog | None = None,
        plan: RunPlan | None = None,
        lang: Lang | None = None,
    ) -> OfflineAnalyst:
        """A copy of this analyst that analyses one replay (what ``app.pipeline.service.bind_offline`` calls)."""
        return OfflineAnalyst(
            index, log, plan, lang if lang is not None else self._lang, chunk_chars=self._chunk, delay_s=self._delay
        )

    async def aclose(self) -> None:
        """Nothing to release (no connection, no files)."""

    def stream(self, request: ChatRequest) -> EventStream:
        """Compose the reply for ``request`` and stream it in chunks."""
        gen = self._run(request)
        return ChatStream(gen, gen.aclose)

    def compose(self, request: ChatRequest) -> str:
        """The whole reply text (deterministic for a given replay and request)."""
        stage = read_request(request)
        lang = self._lang or (Lang.ZH if stage.cjk else Lang.EN)
        if self._index is None:
            return _intro(lang)
        writer = self._writers.get(lang)
        if writer is None:
            writer = self._writers[lang] = _Writer(self._index, self._log, self._plan, lang)
        if stage.kind == "window":
            return writer.window(stage)
        if stage.kind == "overview":
            return writer.overview()
        if stage.kind == "summary_round":
            return writer.summary_round()
        return writer.match_brief()

    def _prompt_tokens(self, messages: Sequence[ChatMessage]) -> int:
        from app.budget.tokens import MESSAGE_OVERHEAD_TOKENS, REPLY_PRIMING_TOKENS, count_tokens

        total = REPLY_PRIMING_TOKENS
        for m in messages:
            n = self._token_cache.get(m.content)
            if n is None:
                n = count_tokens(m.content)
                if len(self._token_cache) > 256:
                    self._token_cache.clear()
                self._token_cache[m.content] = n
            total += n + MESSAGE_OVERHEAD_TOKENS
        return total

    async def _run(self, request: ChatRequest) -> AsyncGenerator[StreamEvent, None]:
        from app.budget.tokens import count_tokens

        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            text = self.compose(request)
            prompt_tokens = self._prompt_tokens(request.messages)
            completion_tokens = count_tokens(text)
        except Exception as exc:  # a rule bug must not crash the run: it fails like a request would
            yield StreamFailed(ProviderError(DISPLAY_NAME, OFFLINE_MODEL, f"rule-based analyst failed: {exc!r}"))
            return
        first: float | None = None
        for i in range(0, len(text), self._chunk):
            if first is None:
                first = loop.time()
            yield TextDelta(text[i : i + self._chunk])
            await asyncio.sleep(self._delay)  # 0 still yields, so a Stop button and other tasks get a turn
        end = loop.time()
        yield UsageReport(
            prompt_tokens,
            completion_tokens,
            raw={
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
                "rule_based": True,
            },
        )
        span = end - first if first is not None else 0.0
        yield Finished(
            reason="stop",
            ttft_s=(first - started) if first is not None else None,
            tokens_per_s=completion_tokens / span if span > 0 else None,
            resolved_model=OFFLINE_MODEL,
            elapsed_s=end - started,
        )


def _intro(lang: Lang) -> str:
    return pick(
        lang,
        "（离线规则分析，非大模型）我按固定规则从录像的事实索引生成分析，不需要网络。请在分析录像时使用我。",
        "(Offline rule-based analyst, not a language model.) I write analyses from a replay's fact index by fixed "
        "rules and need no network. Use me while analysing a replay.",
    )


# ---------------------------------------------------------------------------------------------- measuring


@dataclass(slots=True)
class _Activity:
    """What one player did in a time range (counts from the fact index)."""

    slot: int
    orders: int = 0
    moves: int = 0
    attack_moves: int = 0
    attacks: int = 0
    attacks_on: Counter[int] = field(default_factory=Counter)  # target's strong owner → attack orders
    harvest: int = 0
    sells: int = 0
    repairs: int = 0
    garrison: int = 0
    queued: Counter[str] = field(default_factory=Counter)
    upgrades: list[tuple[float, str]] = field(default_factory=list)
    powers: list[tuple[float, str]] = field(default_factory=list)
    nodes: set[int] = field(default_factory=set)
    points: list[tuple[float, str, float, float]] = field(default_factory=list)  # t, kind, x, y
    first_t: float = math.inf
    last_t: float = -math.inf


@dataclass(frozen=True, slots=True)
class _Claim:
    section: str  # unitClaims | eventClaims | timelineClaims
    data: dict[str, Any]


class _Writer:
    """Builds the texts and claims of one language from one replay's facts."""

    def __init__(self, index: ReplayFactIndex, log: CompactLog | None, plan: RunPlan | None, lang: Lang) -> None:
        from app.claims.validate import ClaimValidator

        self.ix = index
        self.log = log
        self.plan = plan
        self.lang = lang
        self.validator = ClaimValidator(index, lang)
        self.players = list(index.playing)
        self.kn = _knowledge(index)
        self._names_lower = {n.lower() for n in index.names.values()}
        self._structures = {f.type_hash for f in index.first_productions() if f.kind.value == "structure"}
        self._activity: dict[tuple[float, float], dict[int, _Activity]] = {}
        self._owner_cache: dict[int, int | None] = {}
        from app.facts.index import command_queue_id

        self.queue_id = command_queue_id(index.replay.game)

    # ------------------------------------------------------------------ small helpers

    def t(self, zh: str, en: str) -> str:
        return pick(self.lang, zh, en)

    def header(self) -> str:
        return self.t(
            "> 离线规则分析：由程序按固定规则从录像事实生成，不是大模型的输出。\n\n",
            "> Offline rule-based analysis: written by fixed rules from the replay's facts, not by a language "
            "model.\n\n",
        )

    def pname(self, slot: int) -> str:
        return self.ix.player_name(slot)

    def team(self, slot: int) -> int:
        """Team number; a player without a team (-1) is a team of their own."""
        p = next((p for p in self.ix.players if p.slot == slot), None)
        return p.team if p is not None and p.team >= 0 else 1000 + slot

    def claim_player(self, slot: int) -> str | int:
        """The player as claims name it: the display name when it resolves back to the slot, else the slot."""
        name = self.pname(slot)
        return name if self.ix.player_slot(name) == slot else slot

    def faction(self, slot: int) -> str:
        p = next((p for p in self.ix.players if p.slot == slot), None)
        if p is None:
            return "?"
        raw = getattr(p, "played_faction", "") or p.faction or "?"
        if self.kn is not None:
            try:
                return self.kn.taxonomy.faction_label(raw, self.lang) or raw
            except Exception:  # a label is cosmetic
                return raw
        return raw

    def disp(self, name: str) -> str:
        """Display name of an internal type name (knowledge base), falling back to the internal name."""
        if self.kn is not None:
            e = self.kn.lookup(name)
            if e is not None:
                return e.name(self.lang)
        return name

    def tags(self, name: str) -> tuple[str, ...]:
        if self.kn is not None:
            e = self.kn.lookup(name)
            if e is not None:
                return e.tags
        return ()

    def tier(self, name: str) -> int:
        tags = self.tags(name)
        for n in (3, 2, 1):
            if f"tier{n}" in tags:
                return n
        return 0

    def unit_class(self, name: str) -> str:
        tags = self.tags(name)
        for cls in ("harvester", "mcv", "infantry", "aircraft", "ship", "vehicle"):
            if cls in tags:
                return cls
        low = name.lower()
        if "miner" in low or "harvester" in low:
            return "harvester"
        if "mcv" in low:
            return "mcv"
        return "other"

    def class_label(self, cls: str) -> str:
        zh = {
            "infantry": "步兵",
            "vehicle": "载具",
            "aircraft": "飞机",
            "ship": "舰船",
            "harvester": "矿车",
            "mcv": "基地车",
            "other": "其他",
        }
        en = {
            "infantry": "infantry",
            "vehicle": "vehicles",
            "aircraft": "aircraft",
            "ship": "ships",
            "harvester": "harvesters",
            "mcv": "MCVs",
            "other": "other",
        }
        return self.t(zh.get(cls, cls), en.get(cls, cls))

    def is_refinery(self, name: str) -> bool:
        return "economy" in self.tags(name) or "refinery" in name.lower()

    def lst(self, items: Sequence[str], limit: int = MAX_LIST) -> str:
        head = list(items[:limit])
        more = len(items) - len(head)
        text = self.t("、", ", ").join(head)
        if more > 0:
            text += self.t(f" 等（另 {more} 项）", f" and {more} more")
        return text

    def owner_of(self, uid: int) -> int | None:
        """The single player with strong evidence for ``uid`` (None when nobody or several)."""
        if uid not in self._owner_cache:
            o = self.ix.owner(uid)
            self._owner_cache[uid] = o.strong_players[0] if len(o.strong_players) == 1 and not o.conflict else None
        return self._owner_cache[uid]

    def base_points(self, slot: int, until: float) -> list[tuple[float, float]]:
        """Positions of the structures ``slot`` placed by ``until`` (walls left out: they stretch far)."""
        return [
            s.position
            for s in self.ix.build_order(slot)
            if s.position is not None and s.seconds <= until and not self.is_wall(s.name)
        ]

    def is_wall(self, name: str) -> bool:
        return "wall" in self.tags(name) or "wall" in name.lower()

    def where(self, x: float, y: float, until: float) -> str:
        """Describe a map position: whose structures it is near, else open ground."""
        best: tuple[float, int] | None = None
        for p in self.players:
            for bx, by in self.base_points(p.slot, until):
                d = math.hypot(bx - x, by - y)
                if best is None or d < best[0]:
                    best = (d, p.slot)
        xy = f"({int(x)}, {int(y)})"
        if best is not None and best[0] <= NEAR_BASE:
            return self.t(f"{self.pname(best[1])} 的建筑区 {xy}", f"{self.pname(best[1])}'s base area {xy}")
        return self.t(f"野外 {xy}", f"open ground {xy}")

    # ------------------------------------------------------------------ measuring a range

    def activity(self, a: float, b: float) -> dict[int, _Activity]:
        key = (a, b)
        cached = self._activity.get(key)
        if cached is not None:
            return cached
        from app.replay.commands import Category

        playing = {p.slot for p in self.players}
        out: dict[int, _Activity] = {p.slot: _Activity(p.slot) for p in self.players}
        for ev in self.ix.events_between(a, b):
            if ev.automatic or ev.player not in playing:
                continue
            act = out[ev.player]
            act.orders += 1
            t = ev.seconds
            act.first_t = min(act.first_t, t)
            act.last_t = max(act.last_t, t)
            cat = ev.category
            cid = ev.command_id
            if cat is Category.ORDER_MOVE:
                if cid == ATTACK_MOVE:
                    act.attack_moves += 1
                    kind = "amove"
                else:
                    act.moves += 1
                    kind = "move"
                if ev.position is not None:
                    act.points.append((t, kind, ev.position[0], ev.position[1]))
            elif cat is Category.ORDER_ATTACK:
                act.attacks += 1
                if ev.position is not None:
                    act.points.append((t, "attack", ev.position[0], ev.position[1]))
                if cid == ATTACK_OBJECT and ev.object_ids:
                    target_owner = self.owner_of(ev.object_ids[0])
                    if target_owner is not None and self.team(target_owner) != self.team(ev.player):
                        act.attacks_on[target_owner] += 1
            elif cat is Category.HARVEST:
                act.harvest += 1
                if cid == HARVEST_FROM_NODE:
                    act.nodes.update(o for o in ev.object_ids if o)
            elif cat is Category.SELL:
                act.sells += 1
            elif cat is Category.REPAIR:
                act.repairs += 1
            elif cat is Category.GARRISON:
                act.garrison += 1
            elif cat is Category.PRODUCTION and cid == self.queue_id and ev.type_hash is not None:
                if ev.type_hash not in self._structures:
                    act.queued[self.ix.name_of(ev.type_hash)] += 1
            elif cat is Category.UPGRADE and cid == START_UPGRADE and ev.type_hash is not None:
                act.upgrades.append((t, self.ix.name_of(ev.type_hash)))
            elif cat is Category.POWER and ev.type_hash is not None:
                act.powers.append((t, self.ix.name_of(ev.type_hash)))
        if len(self._activity) > 128:
            self._activity.clear()
        self._activity[key] = out
        return out

    def builds_in(self, slot: int, a: float, b: float) -> list[tuple[float, str]]:
        return [(s.seconds, s.name) for s in self.ix.build_order(slot) if a <= s.seconds < b]

    def firsts_in(self, slot: int, a: float, b: float) -> list[Any]:
        return [f for f in self.ix.first_productions(slot) if a <= f.seconds < b]

    def protocols_in(self, slot: int, a: float, b: float) -> list[Any]:
        return [p for p in self.ix.protocols_of(slot) if a <= p.seconds < b]

    def pack_steps_in(self, slot: int, a: float, b: float) -> list[Any]:
        return [s for c in self.ix.pack_chains if c.player == slot for s in c.steps if a <= s.seconds < b]

    def groups_in(self, slot: int, a: float, b: float) -> list[Any]:
        out: list[Any] = []
        for g in self.ix.groups_of(slot):
            out.extend(s for s in self.ix.group_history(slot, g) if a <= s.seconds < b and s.members)
        return sorted(out, key=lambda s: (s.time_code, s.group))

    def clusters(self, points: Sequence[tuple[float, str, float, float]]) -> list[tuple[tuple[int, int], list[Any]]]:
        cells: dict[tuple[int, int], list[tuple[float, str, float, float]]] = defaultdict(list)
        for p in points:
            cells[(int(p[2] // CELL), int(p[3] // CELL))].append(p)
        return sorted(cells.items(), key=lambda kv: (-len(kv[1]), kv[0]))

    def kinds_text(self, pts: Sequence[tuple[float, str, float, float]]) -> str:
        c = Counter(p[1] for p in pts)
        labels = {
            "move": self.t("移动", "move"),
            "amove": self.t("攻击移动", "attack-move"),
            "attack": self.t("攻击", "attack"),
        }
        return self.t("，", ", ").join(f"{labels[k]} {c[k]}" for k in ("attack", "amove", "move") if c[k])

    # ------------------------------------------------------------------ segments and windows from the plan

    def segment_ranges(self) -> list[tuple[int, float, float, float]]:
        """(index, slice start, own start, end) of every planned segment (one whole-match segment without plan)."""
        if self.plan is not None and self.plan.segments:
            return [(s.index, s.start_seconds, s.own_start_seconds, s.end_seconds) for s in self.plan.segments]
        return [(0, 0.0, 0.0, self.ix.duration_seconds + 1.0)]

    def window_range(self, stage: StageRequest) -> tuple[float, float, float, float, str]:
        """Focus start/end, slice start/end and a label for a window request."""
        if self.plan is not None and 0 <= stage.segment < len(self.plan.segments):
            seg = self.plan.segments[stage.segment]
            if 0 <= stage.window < len(seg.windows):
                w = seg.windows[stage.window]
                label = self.t(
                    f"第 {seg.index + 1} 段 · 重点时间段 {w.index + 1}/{len(seg.windows)}",
                    f"Segment {seg.index + 1} · focus period {w.index + 1}/{len(seg.windows)}",
                )
                return w.start_seconds, w.end_seconds, seg.start_seconds, seg.end_seconds, label
        if stage.focus is not None:
            sa, sb = stage.slice_range or stage.focus
            return stage.focus[0], stage.focus[1], min(sa, stage.focus[0]), max(sb, stage.focus[1]), ""
        end = self.ix.duration_seconds + 1.0
        return 0.0, end, 0.0, end, ""

    # ------------------------------------------------------------------ claims (true by construction)

    def _type_known(self, name: str) -> bool:
        return name.lower() in self._names_lower and not name.lower().startswith("0x")

    def unit_evidence(self, uid: int, slot: int, a: float, b: float) -> str | None:
        """One non-move ``kind|time|detail`` evidence string of ``slot`` for ``uid`` inside [a, b)."""
        # only roles where the command itself names the id (a group recall or a harvester order reaches ids
        # through the tracked selection, one inference more)
        kinds = {
            "group_member": "group",
            "builder": "build",
            "factory": "produce",
            "repair": "repair",
            "sell": "sell",
            "caster": "power",
        }
        details = {
            "group": self.t("编队成员", "control-group member"),
            "build": self.t("建造者", "constructor"),
            "produce": "factory",
            "repair": self.t("维修", "repair"),
            "sell": self.t("出售", "sold"),
            "harvest": self.t("矿车指令", "harvester order"),
            "power": self.t("技能施放者", "power caster"),
        }
        for e in self.ix.evidence(uid):
            if e.player == slot and e.strength.value == "strong" and a <= e.seconds < b:
                kind = kinds.get(e.role.value)
                if kind is not None:
                    return f"{kind}|{fmt(e.seconds)}|{details[kind]}"
        return None

    def window_unit_ids(self, slot: int, a: float, b: float) -> list[tuple[int, str]]:
        """Objects ``slot`` demonstrably owns that act in [a, b): (id, role), factories and builders first."""
        seen: dict[int, str] = {}
        order = {"factory": 0, "builder": 1, "caster": 2, "group_member": 3, "repair": 4, "sell": 5}
        found: list[tuple[int, float, int, str]] = []
        for ev in self.ix.events_between(a, b, player=slot):
            if ev.automatic:
                continue
            for uid in ev.object_ids:
                if not uid or uid in seen:
                    continue
                role = next(
                    (
                        e.role.value
                        for e in self.ix.evidence(uid)
                        if e.player == slot and e.role.value in order and a <= e.seconds < b
                    ),
                    None,
                )
                if role is None:
                    continue
                seen[uid] = role
                found.append((order.get(role, 9), ev.seconds, uid, role))
        found.sort()
        return [(uid, role) for _, _, uid, role in found]

    def window_claims(self, a: float, b: float) -> list[_Claim]:
        claims: list[_Claim] = []
        for p in self.players:
            slot, who = p.slot, self.claim_player(p.slot)
            n = 0
            for uid, _role in self.window_unit_ids(slot, a, b):
                if n >= UNIT_CLAIMS_PER_PLAYER:
                    break
                if self.owner_of(uid) != slot or not self.ix.id_exists(uid):
                    continue
                evidence = self.unit_evidence(uid, slot, a, b)
                if evidence is None:
                    continue
                claims.append(
                    _Claim(
                        "unitClaims", {"unitId": uid, "player": who, "confidence": "confirmed", "evidence": [evidence]}
                    )
                )
                n += 1
            for x in self.protocols_in(slot, a, b):
                claims.append(
                    _Claim("eventClaims", {"time": fmt(x.seconds), "player": who, "kind": "protocol", "name": x.name})
                )
            for t, name in self.builds_in(slot, a, b)[:BUILD_CLAIMS_PER_PLAYER]:
                if self._type_known(name):
                    claims.append(_Claim("eventClaims", {"time": fmt(t), "player": who, "kind": "build", "name": name}))
            for t, uid, power in self.casts_in(slot, a, b)[:POWER_CLAIMS_PER_PLAYER]:
                claims.append(
                    _Claim(
                        "eventClaims", {"time": fmt(t), "player": who, "kind": "power", "name": power, "unitId": uid}
                    )
                )
            for f in self.firsts_in(slot, a, b)[:TIMELINE_CLAIMS_PER_PLAYER]:
                if self._type_known(f.name):
                    claims.append(
                        _Claim("timelineClaims", {"player": who, "type": f.name, "firstTime": fmt(f.seconds)})
                    )
        return self.checked(claims)

    def casts_in(self, slot: int, a: float, b: float) -> list[tuple[float, int, str]]:
        """Casts (0x1FE/0x200) by ``slot`` in [a, b) whose caster has caster evidence of this player only."""
        out: list[tuple[float, int, str]] = []
        done: set[int] = set()
        for ev in self.ix.events_between(a, b, player=slot):
            if ev.command_id not in CAST_IDS or ev.type_hash is None:
                continue
            for uid in ev.object_ids:
                if not uid or uid in done:
                    continue
                casters = {e.player for e in self.ix.evidence(uid) if e.role.value == "caster"}
                if casters == {slot}:
                    done.add(uid)
                    out.append((ev.seconds, uid, self.ix.name_of(ev.type_hash)))
        return out

    def fallback_claims(self, b: float) -> list[_Claim]:
        """When a range has nothing to claim: the latest first production before its end (still exact)."""
        firsts = [
            f
            for f in self.ix.first_productions()
            if f.seconds < b and self._type_known(f.name) and any(p.slot == f.player for p in self.players)
        ]
        if not firsts:
            return []
        f = firsts[-1]
        return self.checked(
            [
                _Claim(
                    "timelineClaims",
                    {"player": self.claim_player(f.player), "type": f.name, "firstTime": fmt(f.seconds)},
                )
            ]
        )

    def checked(self, claims: Sequence[_Claim]) -> list[_Claim]:
        """Keep the claims the validator accepts without any issue (the index-derived claims all should)."""
        from app.claims.parse import ParsedClaims

        kept: list[_Claim] = []
        for c in claims:
            parsed = ParsedClaims(blocks_found=1, blocks_parsed=1, marker_found=True)
            getattr(
                parsed,
                {"unitClaims": "unit_claims", "eventClaims": "event_claims", "timelineClaims": "timeline_claims"}[
                    c.section
                ],
            ).append(c.data)
            if not self.validator.validate(parsed, "claims"):
                kept.append(c)
        return kept

    def claims_block(self, claims: Sequence[_Claim]) -> str:
        """The claims section: one claim per line, so it stays readable."""
        parts = []
        for key in ("unitClaims", "eventClaims", "timelineClaims"):
            items = ",\n".join("  " + json.dumps(c.data, ensure_ascii=False) for c in claims if c.section == key)
            parts.append(f'"{key}": [\n{items}\n ]' if items else f'"{key}": []')
        body = "{\n " + ",\n ".join(parts) + "\n}"
        return self.t("[机器可读声明]", "[claims]") + "\n```json\n" + body + "\n```\n"

    # ------------------------------------------------------------------ window

    def window(self, stage: StageRequest) -> str:
        a, b, sa, _sb, label = self.window_range(stage)
        minutes = max((b - a) / 60.0, 1e-6)
        acts = self.activity(a, b)
        claims = self.window_claims(a, b) or self.fallback_claims(b)
        claimed_units = [int(c.data["unitId"]) for c in claims if c.section == "unitClaims"]
        early = sorted(
            {uid for uid in claimed_units if (self.ix.first_seen(uid) or sa) + 1e-6 < sa},
            key=lambda u: (self.ix.first_seen(u) or 0.0, u),
        )
        out = [self.header()]
        title = (
            self.t(f"## {label}：{short(a)}–{short(b)}\n\n", f"## {label}: {short(a)}–{short(b)}\n\n")
            if label
            else self.t(f"## 重点时间段 {short(a)}–{short(b)}\n\n", f"## Focus period {short(a)}–{short(b)}\n\n")
        )
        out.append(title)
        out.append(self._window_lead(acts, a, b, minutes))
        for p in self.players:
            out.append(self._player_block(p.slot, acts[p.slot], a, b, minutes))
        out.append(self._fights(acts, a, b))
        out.append(self._verified_objects(claims, a, b))
        out.append(self._relations(a, b, sa, early, stage))
        if stage.phase == "initial" and early:
            # the object closest to the slice: its first orders say most about this segment
            uid = early[-1]
            first = self.ix.first_seen(uid) or 0.0
            lo, hi = max(0.0, first - LOOKBACK_BEFORE_S), first + LOOKBACK_AFTER_S
            out.append(
                self.t(
                    f"#{early[0]} 首次出现在本段切片之前，需要核对它最早的操作：\n[回查] {fmt(lo)}~{fmt(hi)}\n\n",
                    f"#{early[0]} first appears before this slice; its earliest orders need checking:\n"
                    f"[lookback] {fmt(lo)}~{fmt(hi)}\n\n",
                )
            )
        if stage.phase == "revision":
            out.append(
                self.t(
                    "（修正说明：以下声明均由事实索引直接导出并已逐条核对，保持不变。）\n\n",
                    "(Revision note: every claim below is derived from the fact index and checked one by one; "
                    "unchanged.)\n\n",
                )
            )
        out.append(self.claims_block(claims))
        return "".join(out)

    def _window_lead(self, acts: dict[int, _Activity], a: float, b: float, minutes: float) -> str:
        total = sum(x.orders for x in acts.values())
        if not total:
            return self.t("这一时间段内没有玩家操作记录。\n\n", "No player issued orders in this period.\n\n")
        busiest = max(self.players, key=lambda p: (acts[p.slot].orders, -p.slot))
        attacks = sum(x.attacks + x.attack_moves for x in acts.values())
        builds = sum(len(self.builds_in(p.slot, a, b)) for p in self.players)
        parts = [
            self.t(
                f"本时间段共 {total} 条玩家指令（约 {total / minutes:.0f} 条/分钟），{busiest.name} 最活跃",
                f"{total} player orders in this period (about {total / minutes:.0f} per minute); "
                f"{busiest.name} is the busiest",
            )
        ]
        if builds:
            parts.append(self.t(f"放置建筑 {builds} 次", f"{builds} structures placed"))
        if attacks:
            parts.append(self.t(f"攻击与攻击移动指令 {attacks} 条", f"{attacks} attack and attack-move orders"))
        steps = [(s, p.slot) for p in self.players for s in self.pack_steps_in(p.slot, a, b)]
        if steps:
            s, slot = steps[0]
            parts.append(
                self.t(
                    f"{self.pname(slot)} 在 {short(s.seconds)} 有基地车{self.pack_label(s.action.value)}",
                    f"{self.pname(slot)} {self.pack_label(s.action.value)} the base vehicle at {short(s.seconds)}",
                )
            )
        return self.t("，".join(parts) + "。\n\n", "; ".join(parts) + ".\n\n")

    def pack_label(self, action: str) -> str:
        zh = {"produce": "生产", "pack": "打包", "unpack": "展开", "new_yard": "新建造场启用"}
        en = {"produce": "queued", "pack": "packed", "unpack": "deployed", "new_yard": "new yard active"}
        return self.t(zh.get(action, action), en.get(action, action))

    def _player_block(self, slot: int, act: _Activity, a: float, b: float, minutes: float) -> str:
        name = self.pname(slot)
        lines = [self.t(f"### {name}（{self.faction(slot)}）\n", f"### {name} ({self.faction(slot)})\n")]
        if not act.orders:
            lines.append(self.t("- 本时间段没有操作。\n\n", "- No orders in this period.\n\n"))
            return "".join(lines)
        apm = act.orders / minutes
        lines.append(
            self.t(
                f"- APM（每分钟指令数）≈ {apm:.0f}：共 {act.orders} 条，其中移动 {act.moves}、"
                f"攻击移动 {act.attack_moves}、攻击 {act.attacks}\n",
                f"- APM (orders per minute) ≈ {apm:.0f}: {act.orders} orders, of which move {act.moves}, attack-move "
                f"{act.attack_moves}, attack {act.attacks}\n",
            )
        )
        builds = self.builds_in(slot, a, b)
        if builds:
            lines.append(
                self.t("- 建造顺序：", "- Build order: ")
                + self.lst([f"{short(t)} {self.disp(n)}" for t, n in builds], 12)
                + "\n"
            )
        firsts = self.firsts_in(slot, a, b)
        if firsts:
            lines.append(
                self.t("- 首次生产/建造（新类型）：", "- New types first ordered: ")
                + self.lst([f"{self.disp(f.name)} {short(f.seconds)}" for f in firsts])
                + "\n"
            )
            top = max(firsts, key=lambda f: (self.tier(f.name), -f.time_code))
            if self.tier(top.name) >= 2:
                lines.append(
                    self.t(
                        f"- 科技：{short(top.seconds)} 首次下单 {self.tier(top.name)} 级科技的 {self.disp(top.name)}\n",
                        f"- Tech: first tier-{self.tier(top.name)} type {self.disp(top.name)} ordered at "
                        f"{short(top.seconds)}\n",
                    )
                )
        if act.queued:
            ranked = sorted(act.queued.items(), key=lambda kv: (-kv[1], kv[0]))
            by_class: Counter[str] = Counter()
            for n, c in act.queued.items():
                by_class[self.unit_class(n)] += c
            mix = self.t("，", ", ").join(
                f"{self.class_label(k)} {v}" for k, v in sorted(by_class.items(), key=lambda kv: (-kv[1], kv[0]))
            )
            lines.append(
                self.t("- 生产下单：", "- Units queued: ")
                + self.lst([f"{self.disp(n)}×{c}" for n, c in ranked])
                + self.t(f"（{mix}）", f" ({mix})")
                + "\n"
            )
        if act.upgrades:
            lines.append(
                self.t("- 升级：", "- Upgrades: ")
                + self.lst([f"{short(t)} {self.disp(n)}" for t, n in act.upgrades])
                + "\n"
            )
        protos = self.protocols_in(slot, a, b)
        if protos:
            lines.append(
                self.t("- 协议：", "- Protocols: ")
                + self.lst([f"{short(x.seconds)} {self.disp(x.name)}" for x in protos])
                + "\n"
            )
        if act.powers:
            counts = Counter(n for _, n in act.powers)
            firsts_at = {n: min(t for t, m in act.powers if m == n) for n in counts}
            lines.append(
                self.t("- 技能：", "- Powers: ")
                + self.lst(
                    [
                        self.t(
                            f"{self.disp(n)}×{c}（首次 {short(firsts_at[n])}）",
                            f"{self.disp(n)}×{c} (first {short(firsts_at[n])})",
                        )
                        for n, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
                    ]
                )
                + "\n"
            )
        econ = []
        refineries = [n for _, n in builds if self.is_refinery(n)]
        if refineries:
            econ.append(self.t(f"新建精炼厂 {len(refineries)} 座", f"{len(refineries)} new refineries"))
        harvesters = sum(c for n, c in act.queued.items() if self.unit_class(n) == "harvester")
        if harvesters:
            econ.append(self.t(f"矿车下单 {harvesters} 辆", f"{harvesters} harvesters queued"))
        if act.harvest:
            econ.append(self.t(f"采矿指令 {act.harvest} 条", f"{act.harvest} harvest orders"))
        if act.nodes:
            econ.append(
                self.t(
                    f"指定矿点 {len(act.nodes)} 个（" + "、".join(f"#{n}" for n in sorted(act.nodes)) + "）",
                    f"{len(act.nodes)} ore node(s) ordered (" + ", ".join(f"#{n}" for n in sorted(act.nodes)) + ")",
                )
            )
        if act.sells:
            econ.append(self.t(f"出售建筑 {act.sells} 次", f"{act.sells} structures sold"))
        if act.repairs:
            econ.append(self.t(f"维修 {act.repairs} 次", f"{act.repairs} repair orders"))
        if econ:
            lines.append(self.t("- 经济：", "- Economy: ") + self.lst(econ) + "\n")
        packs = self.pack_steps_in(slot, a, b)
        if packs:
            lines.append(
                self.t("- 基地车：", "- Base vehicle: ")
                + self.lst(
                    [
                        f"{short(s.seconds)} {self.pack_label(s.action.value)} #{s.object_id}"
                        + (f" ({int(s.position[0])}, {int(s.position[1])})" if s.position else "")
                        for s in packs
                    ]
                )
                + "\n"
            )
        groups = self.groups_in(slot, a, b)
        if groups:
            big = max(groups, key=lambda g: (len(g.members), -g.time_code))
            numbers = "/".join(str(n) for n in sorted({g.group for g in groups}))
            lines.append(
                self.t(
                    f"- 编队：{len(groups)} 次（编队 {numbers}），最大一次是 {short(big.seconds)} 编队 {big.group}"
                    f"（{len(big.members)} 个单位）\n",
                    f"- Control groups: {len(groups)} assignments (groups {numbers}); the largest is group {big.group} "
                    f"at {short(big.seconds)} ({len(big.members)} units)\n",
                )
            )
        if act.points:
            parts = []
            for _cell, pts in self.clusters(act.points)[: 3 if len(self.players) <= 2 else 2]:
                cx = sum(p[2] for p in pts) / len(pts)
                cy = sum(p[3] for p in pts) / len(pts)
                t0, t1 = min(p[0] for p in pts), max(p[0] for p in pts)
                parts.append(
                    self.t(
                        f"{self.where(cx, cy, t1)}：{len(pts)} 条（{self.kinds_text(pts)}，{short(t0)}–{short(t1)}）",
                        f"{self.where(cx, cy, t1)}: {len(pts)} ({self.kinds_text(pts)}, {short(t0)}–{short(t1)})",
                    )
                )
            lines.append(
                self.t("- 部队调动集中在：", "- Army orders concentrate at: ") + "；".join(parts)
                if self.lang is Lang.ZH
                else "- Army orders concentrate at: " + "; ".join(parts)
            )
            lines.append("\n")
        if act.attacks_on:
            lines.append(
                self.t("- 攻击目标：", "- Attack targets: ")
                + self.lst(
                    [
                        self.t(
                            f"{c} 条攻击指令指向 {self.pname(o)} 的已证实对象",
                            f"{c} attack orders on objects proven to be {self.pname(o)}'s",
                        )
                        for o, c in sorted(act.attacks_on.items())
                    ]
                )
                + "\n"
            )
        return "".join(lines) + "\n"

    def _fights(self, acts: dict[int, _Activity], a: float, b: float) -> str:
        """Cells where several players' army orders land close in time: likely fights (an inference)."""
        by_cell: dict[tuple[int, int], dict[int, list[tuple[float, str, float, float]]]] = defaultdict(dict)
        for slot, act in acts.items():
            for cell, pts in self.clusters(act.points):
                by_cell[cell][slot] = pts
        found = []
        for cell, per in by_cell.items():
            if len({self.team(s) for s in per}) < 2:
                continue  # teammates gathering is not a fight
            times = sorted((p[0], self.team(s)) for s, pts in per.items() for p in pts)
            close = any(t2 - t1 <= FIGHT_GAP_S and s1 != s2 for (t1, s1), (t2, s2) in itertools.pairwise(times))
            if close:
                found.append((cell, per))
        found.sort(key=lambda cp: (-sum(len(v) for v in cp[1].values()), cp[0]))
        hits = sum(sum(x.attacks_on.values()) for x in acts.values())
        if not found and not hits:
            return self.t(
                "**交战**：本时间段内没有发现多名玩家的部队指令在同一区域相近时间出现，也没有针对敌方已证实对象的攻击指令；"
                "以调动和运营为主。\n\n",
                "**Fights**: no area received army orders from several players close in time and no attack order "
                "targeted a proven enemy object; the period is about manoeuvre and economy.\n\n",
            )
        lines = [self.t("**交战（推测）**\n", "**Fights (inferred)**\n")]
        for _cell, per in found[:3]:
            pts = [p for v in per.values() for p in v]
            cx = sum(p[2] for p in pts) / len(pts)
            cy = sum(p[3] for p in pts) / len(pts)
            t0, t1 = min(p[0] for p in pts), max(p[0] for p in pts)
            who = self.lst([f"{self.pname(s)} {len(v)}" for s, v in sorted(per.items())])
            lines.append(
                self.t(
                    f"- {short(t0)}–{short(t1)} 在 {self.where(cx, cy, t1)}：{who} 条部队指令，"
                    "敌对双方在此区域相近时间下令，可能发生交战\n",
                    f"- {short(t0)}–{short(t1)} at {self.where(cx, cy, t1)}: {who} army orders from both sides "
                    "close in "
                    f"time, likely a fight\n",
                )
            )
        pairs = [
            f"{self.pname(slot)}→{self.pname(o)} {c}"
            for slot, act in sorted(acts.items())
            for o, c in sorted(act.attacks_on.items())
        ]
        if pairs:
            lines.append(
                self.t("- 直接指向敌方已证实对象的攻击指令：", "- Attack orders on proven enemy objects: ")
                + self.lst(pairs, 12)
                + "\n"
            )
        return "".join(lines) + "\n"

    def _verified_objects(self, claims: Sequence[_Claim], a: float, b: float) -> str:
        """The claimed objects in prose, one line per player and role (what each one demonstrably did)."""
        units = [c.data for c in claims if c.section == "unitClaims"]
        if not units:
            return ""
        what = {
            "group": self.t("被编入编队", "put in a control group"),
            "build": self.t("作为建造者下达建造指令", "ordered structures as constructors"),
            "produce": self.t("作为生产建筑接受生产指令", "took production orders as factories"),
            "power": self.t("施放技能", "cast powers"),
            "repair": self.t("被维修", "were repaired"),
            "sell": self.t("被出售", "were sold"),
        }
        rows: dict[tuple[str, str], list[tuple[int, str]]] = {}
        for d in units:
            kind, time_text = str(d["evidence"][0]).split("|")[:2]
            rows.setdefault((str(d["player"]), kind), []).append((int(d["unitId"]), time_text[:-3]))
        items = []
        for (player, kind), objs in rows.items():
            ids = self.t("、", ", ").join(
                f"#{uid}（{t}）" if self.lang is Lang.ZH else f"#{uid} ({t})" for uid, t in objs
            )
            made = ""
            if kind == "produce":
                slot = self.ix.player_slot(player)
                wanted = {uid for uid, _ in objs}
                types = [
                    n
                    for fid, names in self.ix.factories(slot if slot is not None else -1)
                    if fid in wanted
                    for n in names
                ]
                if types:
                    made = self.t(
                        f"，产出过 {self.lst([self.disp(n) for n in dict.fromkeys(types)], 5)}",
                        f"; they produced {self.lst([self.disp(n) for n in dict.fromkeys(types)], 5)}",
                    )
            items.append(
                self.t(
                    f"- {player}：{ids} {what.get(kind, kind)}{made}\n",
                    f"- {player}: {ids} {what.get(kind, kind)}{made}\n",
                )
            )
        return self.t("**已核实的对象归属**\n", "**Verified object ownership**\n") + "".join(items) + "\n"

    def _relations(self, a: float, b: float, sa: float, early: Sequence[int], stage: StageRequest) -> str:
        """Links to events outside the focus period: earlier tech, base moves, what comes next, early objects."""
        lines: list[str] = []
        sep = self.t("；", "; ")
        for p in self.players:
            bits: list[str] = []
            before = [f for f in self.ix.first_productions(p.slot) if f.seconds < a]
            if before:
                top = max(before, key=lambda f: (self.tier(f.name), -f.time_code))  # first of the highest tier
                if self.tier(top.name) >= 2:
                    bits.append(
                        self.t(
                            f"此前已于 {short(top.seconds)} 解锁 {self.tier(top.name)} 级的 {self.disp(top.name)}",
                            f"reached tier {self.tier(top.name)} earlier with {self.disp(top.name)} at "
                            f"{short(top.seconds)}",
                        )
                    )
            protos = [x for x in self.ix.protocols_of(p.slot) if x.seconds < a]
            if protos:
                bits.append(
                    self.t(
                        f"此前已选协议 {len(protos)} 个（最近：{short(protos[-1].seconds)} "
                        f"{self.disp(protos[-1].name)}）",
                        f"{len(protos)} protocol(s) picked before (latest: {self.disp(protos[-1].name)} at "
                        f"{short(protos[-1].seconds)})",
                    )
                )
            for c in self.ix.pack_chains:
                if c.player != p.slot:
                    continue
                prev = [st for st in c.steps if st.seconds < a]
                nxt = [st for st in c.steps if st.seconds >= b]
                if [st for st in c.steps if a <= st.seconds < b]:
                    if prev:
                        bits.append(
                            self.t(
                                f"基地车此前在 {short(prev[-1].seconds)} {self.pack_label(prev[-1].action.value)}，"
                                "本时间段延续了这条打包/展开链",
                                f"the base vehicle {self.pack_label(prev[-1].action.value)} at "
                                f"{short(prev[-1].seconds)}, "
                                "this period continues that pack/deploy chain",
                            )
                        )
                    if nxt:
                        bits.append(
                            self.t(
                                f"之后 {short(nxt[0].seconds)} 基地车{self.pack_label(nxt[0].action.value)}",
                                f"later the base vehicle {self.pack_label(nxt[0].action.value)} at "
                                f"{short(nxt[0].seconds)}",
                            )
                        )
            after = [f for f in self.ix.first_productions(p.slot) if f.seconds >= b]
            if after:
                bits.append(
                    self.t(
                        f"之后的下一个新类型是 {short(after[0].seconds)} 的 {self.disp(after[0].name)}",
                        f"next new type afterwards: {self.disp(after[0].name)} at {short(after[0].seconds)}",
                    )
                )
            if bits:
                lines.append(f"- {p.name}" + self.t("：", ": ") + sep.join(bits) + self.t("。\n", ".\n"))
        for uid in early[-MAX_EARLY_LISTED:]:  # the objects whose origin is closest to this slice say the most
            first = self.ix.first_seen(uid) or 0.0
            owner = self.owner_of(uid)
            who = self.pname(owner) if owner is not None else "?"
            served = next((r for r in stage.served if r[0] - 1e-6 <= first <= r[1] + 1e-6), None)
            if served is not None:
                evs = [e for e in self.ix.events_for_object(uid) if served[0] <= e.seconds <= served[1]]
                lines.append(
                    self.t(
                        f"- 回查 {short(served[0])}–{short(served[1])}（{self.served_lines(served)} 行原始操作）显示："
                        f"#{uid} 在 {fmt(first)} 首次出现（{self.event_label(evs[0]) if evs else '?'}），"
                        f"之后一直由 {who} 操作，与本段的编队/生产记录一致。\n",
                        f"- The lookback {short(served[0])}–{short(served[1])} "
                        f"({self.served_lines(served)} raw orders) "
                        f"shows #{uid} first appearing at {fmt(first)} ({self.event_label(evs[0]) if evs else '?'}), "
                        f"operated by {who} from then on, consistent with this segment's records.\n",
                    )
                )
            else:
                lines.append(
                    self.t(
                        f"- #{uid}（{who}）早在 {fmt(first)} 就已出现，早于本段切片（{short(sa)} 起）。\n",
                        f"- #{uid} ({who}) already appeared at {fmt(first)}, before this slice (from {short(sa)}).\n",
                    )
                )
        if not lines:
            return ""
        return self.t("**与时间段外事件的关联**\n", "**Links outside this period**\n") + "".join(lines) + "\n"

    def served_lines(self, rng: tuple[float, float]) -> int:
        if self.log is not None:
            return len(self.log.lines_between(rng[0], rng[1]))
        return sum(1 for e in self.ix.events_between(rng[0], rng[1]) if not e.automatic)

    def event_label(self, ev: Any) -> str:
        from app.replay.commands import command_info

        info = command_info(self.ix.replay.game, ev.command_id)
        what = info.name("zh" if self.lang is Lang.ZH else "en")
        extra = f" {self.disp(self.ix.name_of(ev.type_hash))}" if ev.type_hash is not None else ""
        return f"{self.pname(ev.player)} {what}{extra}"

    # ------------------------------------------------------------------ overview

    def overview(self) -> str:
        out = [self.header(), self.t("## 总览\n\n", "## Overview\n\n")]
        dur = self.ix.duration_seconds
        out.append(
            self.t(
                f"本局时长 {short(dur)}，玩家："
                + self.lst([f"{p.name}（{self.faction(p.slot)}）" for p in self.players])
                + "。\n\n",
                f"Match length {short(dur)}; players: "
                + self.lst([f"{p.name} ({self.faction(p.slot)})" for p in self.players])
                + ".\n\n",
            )
        )
        out.append(self.t("### 分段\n", "### Segments\n"))
        segs = self.segment_ranges()
        for n, _sa, a, b in segs:
            out.append(self._segment_line(n, a, b))
        out.append("\n")
        out.append(self._course())
        out.append(self._threads(segs))
        out.append(self._lookback_suggestions(segs))
        return "".join(out)

    def _segment_line(self, n: int, a: float, b: float) -> str:
        acts = self.activity(a, b)
        minutes = max((b - a) / 60.0, 1e-6)
        per_player = max(len(self.players), 1)
        attacks = sum(x.attacks + x.attack_moves for x in acts.values())
        builds = {p.slot: self.builds_in(p.slot, a, b) for p in self.players}
        refineries = sum(1 for v in builds.values() for _, name in v if self.is_refinery(name))
        protos = [(x, p.slot) for p in self.players for x in self.protocols_in(p.slot, a, b)]
        packs = [(s, p.slot) for p in self.players for s in self.pack_steps_in(p.slot, a, b)]
        firsts = [f for p in self.players for f in self.firsts_in(p.slot, a, b)]
        high_tier = [f for f in firsts if self.tier(f.name) >= 2]
        traits: list[tuple[int, str]] = []
        if n == 0:
            traits.append((0, self.t("开局", "Opening")))
        if attacks / minutes / per_player >= 4:
            traits.append((1, self.t("交战", "fighting")))
        if any(s.action.value == "unpack" for s, _slot in packs):
            traits.append((2, self.t("基地转移", "base relocation")))
        if high_tier or protos:
            traits.append((3, self.t("科技提升", "tech-up")))
        if refineries:
            traits.append((4, self.t("经济扩张", "economic expansion")))
        if sum(len(v) for v in builds.values()) / minutes / per_player >= 1:
            traits.append((5, self.t("建设", "build-up")))
        chosen = [t for _, t in sorted(traits)[:2]] or [self.t("调动与运营", "manoeuvre and economy")]
        title = self.t("与", " and ").join(chosen)
        if self.lang is Lang.EN:
            title = title[0].upper() + title[1:]
        sentences = []
        for p in self.players:
            act = acts[p.slot]
            bits = []
            if builds[p.slot]:
                bits.append(self.t(f"放置建筑 {len(builds[p.slot])} 次", f"placed {len(builds[p.slot])} structures"))
            new = [f for f in firsts if f.player == p.slot]
            if new:
                bits.append(self.t("首次下单 ", "first ordered ") + self.lst([self.disp(f.name) for f in new], 3))
            queued = sum(act.queued.values())
            if queued:
                bits.append(self.t(f"生产下单 {queued} 次", f"queued {queued} units"))
            if bits:
                sentences.append(f"{p.name}" + self.t("：", ": ") + self.t("，", ", ").join(bits))
        if protos:
            sentences.append(
                self.t("协议：", "protocols: ")
                + self.lst([f"{self.pname(s)} {short(x.seconds)} {self.disp(x.name)}" for x, s in protos], 4)
            )
        if packs:
            s, slot = packs[0]
            sentences.append(
                self.t(
                    f"{self.pname(slot)} 在 {short(s.seconds)} 基地车{self.pack_label(s.action.value)}",
                    f"{self.pname(slot)}'s base vehicle {self.pack_label(s.action.value)} at {short(s.seconds)}",
                )
            )
        if attacks:
            pts = [p for x in acts.values() for p in x.points if p[1] != "move"]
            if pts:
                _cell, top = self.clusters(pts)[0]
                cx, cy = sum(p[2] for p in top) / len(top), sum(p[3] for p in top) / len(top)
                sentences.append(
                    self.t(
                        f"攻击类指令 {attacks} 条，最集中在 {self.where(cx, cy, b)}",
                        f"{attacks} attack orders, most at {self.where(cx, cy, b)}",
                    )
                )
            else:
                sentences.append(self.t(f"攻击类指令 {attacks} 条", f"{attacks} attack orders"))
        body = (
            self.t("；".join(sentences) + "。", "; ".join(sentences) + ".")
            if sentences
            else self.t("没有值得注意的操作。", "Nothing notable happened.")
        )
        return self.t(
            f"- **第 {n + 1} 段（{short(a)}–{short(b)}）：{title}**。{body}\n",
            f"- **Segment {n + 1} ({short(a)}–{short(b)}): {title}.** {body}\n",
        )

    def _course(self) -> str:
        dur = max(self.ix.duration_seconds, 1.0)
        acts = self.activity(0.0, dur + 1.0)
        lines = [self.t("### 整局走势\n", "### Course of the match\n")]
        for p in self.players:
            act = acts[p.slot]
            if not act.orders:
                continue
            tiers = [(f.seconds, self.tier(f.name), f.name) for f in self.ix.first_productions(p.slot)]
            t2 = next(((t, n) for t, tier, n in tiers if tier >= 2), None)
            t3 = next(((t, n) for t, tier, n in tiers if tier >= 3), None)
            bits = [self.t(f"全场 APM ≈ {act.orders / (dur / 60):.0f}", f"APM ≈ {act.orders / (dur / 60):.0f}")]
            refineries = sum(1 for s in self.ix.build_order(p.slot) if self.is_refinery(s.name))
            bits.append(self.t(f"精炼厂 {refineries} 座", f"{refineries} refineries"))
            if t2 and t2 != t3:
                bits.append(
                    self.t(
                        f"{short(t2[0])} 进入 2 级科技（{self.disp(t2[1])}）",
                        f"tier 2 at {short(t2[0])} ({self.disp(t2[1])})",
                    )
                )
            if t3:
                bits.append(
                    self.t(
                        f"{short(t3[0])} 进入 3 级科技（{self.disp(t3[1])}）",
                        f"tier 3 at {short(t3[0])} ({self.disp(t3[1])})",
                    )
                )
            bits.append(self.t(f"最后一条指令 {short(act.last_t)}", f"last order at {short(act.last_t)}"))
            lines.append(f"- {p.name}" + self.t("：", ": ") + self.t("，", ", ").join(bits) + "\n")
        peaks = self._attack_peaks(3)
        if peaks:
            lines.append(
                self.t("- 交战最密集的分钟：", "- Busiest fighting minutes: ")
                + self.lst([self.t(f"{m}:00–{m + 1}:00（{c} 条）", f"{m}:00–{m + 1}:00 ({c})") for m, c in peaks])
                + "\n"
            )
        return "".join(lines) + "\n"

    def _attack_peaks(self, n: int) -> list[tuple[int, int]]:
        from app.replay.commands import Category

        playing = {p.slot for p in self.players}
        per_minute: Counter[int] = Counter()
        for ev in self.ix.events_between(
            0.0, self.ix.duration_seconds + 1.0, categories=[Category.ORDER_ATTACK, Category.ORDER_MOVE]
        ):
            if (
                ev.player in playing
                and not ev.automatic
                and (ev.category is Category.ORDER_ATTACK or ev.command_id == ATTACK_MOVE)
            ):
                per_minute[int(ev.seconds // 60)] += 1
        top = sorted(per_minute.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
        return sorted(top)

    def _threads(self, segs: Sequence[tuple[int, float, float, float]]) -> str:
        def seg_of(t: float) -> int:
            for n, _sa, a, b in segs:
                if a <= t < b:
                    return n + 1
            return segs[-1][0] + 1 if segs else 1

        lines: list[str] = []
        for c in self.ix.pack_chains:
            for i, s in enumerate(c.steps):
                if s.action.value != "pack":
                    continue
                nxt = next((x for x in c.steps[i + 1 :] if x.action.value == "unpack"), None)
                if nxt is None:
                    lines.append(
                        self.t(
                            f"- {self.pname(c.player)} 在第 {seg_of(s.seconds)} 段 {short(s.seconds)} "
                            f"打包建造场 #{s.object_id}，之后没有再展开。\n",
                            f"- {self.pname(c.player)} packed yard #{s.object_id} at {short(s.seconds)} (segment "
                            f"{seg_of(s.seconds)}) and never deployed again.\n",
                        )
                    )
                else:
                    pos = f" ({int(nxt.position[0])}, {int(nxt.position[1])})" if nxt.position else ""
                    lines.append(
                        self.t(
                            f"- {self.pname(c.player)} 在第 {seg_of(s.seconds)} 段 {short(s.seconds)} "
                            f"打包建造场 #{s.object_id}，第 {seg_of(nxt.seconds)} 段 {short(nxt.seconds)} "
                            f"在{pos} 展开为 #{nxt.object_id}。\n",
                            f"- {self.pname(c.player)} packed yard #{s.object_id} at {short(s.seconds)} (segment "
                            f"{seg_of(s.seconds)}) and deployed #{nxt.object_id} at{pos} {short(nxt.seconds)} (segment "
                            f"{seg_of(nxt.seconds)}).\n",
                        )
                    )
        for p in self.players:
            mixes = []
            for n, _sa, a, b in segs:
                by_class: Counter[str] = Counter()
                for name, cnt in self.activity(a, b)[p.slot].queued.items():
                    cls = self.unit_class(name)
                    if cls not in ("harvester", "mcv", "other"):
                        by_class[cls] += cnt
                if by_class:
                    mixes.append((n, max(by_class.items(), key=lambda kv: (kv[1], kv[0]))[0]))
            switches = [(n2, c1, c2) for (_n1, c1), (n2, c2) in itertools.pairwise(mixes) if c1 != c2]
            for n2, c1, c2 in switches[:3]:
                lines.append(
                    self.t(
                        f"- {p.name} 在第 {n2 + 1} 段把主力生产从{self.class_label(c1)}转向{self.class_label(c2)}。\n",
                        f"- {p.name} switched main production from {self.class_label(c1)} to {self.class_label(c2)} in "
                        f"segment {n2 + 1}.\n",
                    )
                )
            protos = self.ix.protocols_of(p.slot)
            if protos:
                lines.append(
                    self.t(f"- {p.name} 的协议顺序：", f"- {p.name}'s protocol order: ")
                    + self.lst(
                        [
                            f"{short(x.seconds)} {self.disp(x.name)}（{self.t('第', 'seg ')}{seg_of(x.seconds)}"
                            f"{self.t('段', '')}）"
                            if self.lang is Lang.ZH
                            else f"{short(x.seconds)} {self.disp(x.name)} (segment {seg_of(x.seconds)})"
                            for x in protos
                        ],
                        10,
                    )
                    + "\n"
                )
        if not lines:
            return ""
        return self.t("### 跨段线索\n", "### Cross-segment threads\n") + "".join(lines) + "\n"

    def _lookback_suggestions(self, segs: Sequence[tuple[int, float, float, float]]) -> str:
        lines: list[str] = []
        for n, sa, _a, b in segs:
            if n == 0:
                continue
            early: list[tuple[float, int]] = []
            for p in self.players:
                for g in self.groups_in(p.slot, sa, b):
                    for uid in g.members:
                        first = self.ix.first_seen(uid)
                        if first is not None and first < sa and self.owner_of(uid) == p.slot:
                            early.append((first, uid))
            if early:
                first, uid = min(early)
                lo, hi = max(0.0, first - LOOKBACK_BEFORE_S), first + LOOKBACK_AFTER_S
                lines.append(
                    self.t(
                        f"- 第 {n + 1} 段分析时可回查 {short(lo)}~{short(hi)}：该段编队中的 #{uid} "
                        f"在 {short(first)} 首次出现。\n",
                        f"- When analysing segment {n + 1}, look back at {short(lo)}~{short(hi)}: #{uid} of that "
                        f"segment's control groups first appears at {short(first)}.\n",
                    )
                )
        for c in self.ix.pack_chains:
            for s in c.steps:
                if s.action.value == "unpack":
                    seg_n = next((n for n, _sa, a, b in segs if a <= s.seconds < b), None)
                    if seg_n:
                        lines.append(
                            self.t(
                                f"- 第 {seg_n + 1} 段的展开（{short(s.seconds)}）对应之前的打包，可回查打包时刻。\n",
                                f"- The deploy in segment {seg_n + 1} ({short(s.seconds)}) follows an earlier pack; "
                                "look back at the pack if needed.\n",
                            )
                        )
                    break
        if not lines:
            lines.append(
                self.t(
                    "- 各段数据基本自足，暂无必须回查的区间。\n",
                    "- Each segment's data stands on its own; no lookback is needed.\n",
                )
            )
        return self.t("### 回查建议\n", "### Lookback suggestions\n") + "".join(lines[:6]) + "\n"

    # ------------------------------------------------------------------ summary round

    def summary_round(self) -> str:
        dur = self.ix.duration_seconds
        end = dur + 1.0
        acts = self.activity(0.0, end)
        stats = {p.slot: self._player_stats(p.slot, acts[p.slot], dur) for p in self.players}
        out = [self.header(), self.t(f"## 整局总结（{short(dur)}）\n\n", f"## Match report ({short(dur)})\n\n")]
        out.append(self.t("### 开局\n", "### Openings\n"))
        for p in self.players:
            steps = self.ix.build_order(p.slot)[:6]
            units = [f for f in self.ix.first_productions(p.slot) if f.kind.value == "unit"][:3]
            line = (
                f"- {p.name}（{self.faction(p.slot)}）："
                if self.lang is Lang.ZH
                else f"- {p.name} ({self.faction(p.slot)}): "
            )
            line += self.lst([f"{short(s.seconds)} {self.disp(s.name)}" for s in steps], 6) or self.t(
                "无建造", "no builds"
            )
            if units:
                line += self.t("；首批单位 ", "; first units ") + self.lst(
                    [f"{self.disp(f.name)} {short(f.seconds)}" for f in units]
                )
            out.append(line + "\n")
        out.append("\n" + self.t("### 经济、生产与科技对比\n", "### Economy, production and tech\n"))
        for p in self.players:
            s = stats[p.slot]
            mix = self.t("，", ", ").join(f"{self.class_label(k)} {v}" for k, v in s["mix"])
            tier2 = short(s["tier2"]) if s["tier2"] is not None else self.t("未达到", "never")
            out.append(
                self.t(
                    f"- {p.name}：APM ≈ {s['apm']:.0f}；精炼厂 {s['refineries']} 座，矿车下单 {s['harvesters']}；"
                    f"生产下单 {s['queued']} 次（{mix or '无'}）；2 级科技 {tier2}；协议 {s['protocols']} 个；"
                    f"编队 {s['groups']} 次\n",
                    f"- {p.name}: APM ≈ {s['apm']:.0f}; {s['refineries']} refineries, {s['harvesters']} harvesters "
                    f"queued; {s['queued']} units queued ({mix or 'none'}); tier 2 {tier2}; "
                    f"{s['protocols']} protocols; {s['groups']} control-group assignments\n",
                )
            )
        out.append("\n" + self._turning_points())
        out.append(self._decisive(stats))
        out.append(self._advice(stats))
        claims: list[_Claim] = []
        for p in self.players:
            who = self.claim_player(p.slot)
            for x in self.ix.protocols_of(p.slot):
                claims.append(
                    _Claim("eventClaims", {"time": fmt(x.seconds), "player": who, "kind": "protocol", "name": x.name})
                )
            firsts = [f for f in self.ix.first_productions(p.slot) if self._type_known(f.name)]
            for f in firsts[:TIMELINE_CLAIMS_PER_PLAYER]:
                claims.append(_Claim("timelineClaims", {"player": who, "type": f.name, "firstTime": fmt(f.seconds)}))
        checked = self.checked(claims) or self.fallback_claims(end)
        out.append(self.claims_block(checked))
        return "".join(out)

    def _player_stats(self, slot: int, act: _Activity, dur: float) -> dict[str, Any]:
        firsts = self.ix.first_productions(slot)
        tier2 = next((f.seconds for f in firsts if self.tier(f.name) >= 2), None)
        tier3 = next((f.seconds for f in firsts if self.tier(f.name) >= 3), None)
        by_class: Counter[str] = Counter()
        for n, c in act.queued.items():
            by_class[self.unit_class(n)] += c
        army = sum(c for k, c in by_class.items() if k not in ("harvester", "mcv"))
        times = [e.seconds for e in self.ix.events_between(0.0, dur + 1.0, player=slot) if not e.automatic]
        gaps = [(t2 - t1, t1) for t1, t2 in itertools.pairwise(times) if t1 >= 60.0]
        longest = max(gaps, default=(0.0, 0.0))
        return {
            "apm": act.orders / max(dur / 60.0, 1e-6),
            "refineries": sum(1 for s in self.ix.build_order(slot) if self.is_refinery(s.name)),
            "harvesters": by_class.get("harvester", 0),
            "queued": sum(act.queued.values()),
            "army": army,
            "mix": sorted(by_class.items(), key=lambda kv: (-kv[1], kv[0])),
            "tier2": tier2,
            "tier3": tier3,
            "protocols": len(self.ix.protocols_of(slot)),
            "groups": len(self.groups_in(slot, 0.0, dur + 1.0)),
            "last": act.last_t if act.orders else 0.0,
            "gap": longest,
            "sells": act.sells,
            "attacks": act.attacks + act.attack_moves,
        }

    def _turning_points(self) -> str:
        lines = [self.t("### 关键转折\n", "### Turning points\n")]
        events: list[tuple[float, str]] = []
        for m, c in self._attack_peaks(3):
            events.append(
                (
                    m * 60.0,
                    self.t(
                        f"{m}:00–{m + 1}:00 攻击类指令 {c} 条，是全场交战最密集的时段之一",
                        f"{m}:00–{m + 1}:00: {c} attack orders, one of the busiest fighting minutes",
                    ),
                )
            )
        moves = sorted(
            (step.seconds, chain.player, step.position)
            for chain in self.ix.pack_chains
            for step in chain.steps
            if step.action.value == "unpack" and step.position is not None and step.seconds >= OPENING_S
        )
        for t, slot, pos in moves[-MAX_RELOCATIONS:]:  # opening deploys are routine; later moves turn games
            assert pos is not None
            xy = f"({int(pos[0])}, {int(pos[1])})"
            events.append(
                (
                    t,
                    self.t(
                        f"{short(t)} {self.pname(slot)} 把基地转移到 {xy}",
                        f"{short(t)} {self.pname(slot)} relocates the base to {xy}",
                    ),
                )
            )
        for p in self.players:
            t3 = next((f for f in self.ix.first_productions(p.slot) if self.tier(f.name) >= 3), None)
            if t3 is not None:
                events.append(
                    (
                        t3.seconds,
                        self.t(
                            f"{short(t3.seconds)} {p.name} 首次下单 3 级的 {self.disp(t3.name)}",
                            f"{short(t3.seconds)} {p.name} first orders tier-3 {self.disp(t3.name)}",
                        ),
                    )
                )
            for x in self.ix.protocols_of(p.slot):
                if "superweapon" in self.tags(x.name) or (
                    self.kn is not None and (e := self.kn.lookup(x.name)) and e.tier is not None and e.tier >= 3
                ):
                    events.append(
                        (
                            x.seconds,
                            self.t(
                                f"{short(x.seconds)} {p.name} 选择高级协议 {self.disp(x.name)}",
                                f"{short(x.seconds)} {p.name} picks top protocol {self.disp(x.name)}",
                            ),
                        )
                    )
        events.sort(key=lambda e: (e[0], e[1]))
        for _t, text in events[:12]:
            lines.append(f"- {text}\n")
        ends = sorted((self._last_order(p.slot), p.slot) for p in self.players)
        if len(ends) >= 2 and ends[-1][0] - ends[0][0] >= 5.0:
            t, slot = ends[0]
            lines.append(
                self.t(
                    f"- 结局：{self.pname(slot)} 的最后一条指令在 {short(t)}，比其他玩家早至少 "
                    f"{ends[1][0] - t:.0f} 秒，可能是先退出或认输的一方（推测）。\n",
                    f"- The end: {self.pname(slot)}'s last order is at {short(t)}, at least "
                    f"{ends[1][0] - t:.0f} s before anyone else's; probably the side that left or surrendered "
                    "first (an inference).\n",
                )
            )
        return "".join(lines) + "\n"

    def _last_order(self, slot: int) -> float:
        act = self.activity(0.0, self.ix.duration_seconds + 1.0)[slot]
        return act.last_t if act.orders else 0.0

    def _sides(self) -> list[tuple[str, list[int]]]:
        """The sides of the match: teams when any team has several players, else each player on their own."""
        teams: dict[int, list[int]] = {}
        for p in self.players:
            teams.setdefault(self.team(p.slot), []).append(p.slot)
        if all(len(v) == 1 for v in teams.values()):
            return [(self.pname(p.slot), [p.slot]) for p in self.players]
        out = []
        for team, slots in sorted(teams.items()):
            names = self.lst([self.pname(x) for x in slots], 8)
            label = self.t(f"队伍 {team}（{names}）", f"team {team} ({names})") if team < 1000 else names
            out.append((label, slots))
        return out

    def _decisive(self, stats: dict[int, dict[str, Any]]) -> str:
        sides = self._sides()
        if len(sides) < 2:
            return ""
        lines = [self.t("### 决定性因素（按数据比较）\n", "### Decisive factors (from the data)\n")]
        score: Counter[int] = Counter()

        def side_value(key: str, slots: list[int]) -> float | None:
            vals = [stats[x][key] for x in slots if stats[x][key] is not None]
            if not vals:
                return None
            return float(min(vals)) if key == "tier2" else float(sum(vals))

        def lead(key: str, label_zh: str, label_en: str, higher: bool = True) -> None:
            vals = [(v, n) for n, (_label, slots) in enumerate(sides) if (v := side_value(key, slots)) is not None]
            if len(vals) < 2:
                return
            vals.sort(key=lambda vn: (-vn[0] if higher else vn[0], vn[1]))
            (v1, s1), (v2, _s2) = vals[0], vals[1]
            close = abs(v2 - v1) < 30 if key == "tier2" else abs(v1 - v2) < 0.1 * max(abs(v1), abs(v2))
            if close:
                return  # too close to call a lead
            score[s1] += 1

            def fmt_v(v: float) -> str:
                return short(v) if key == "tier2" else f"{v:.0f}"

            lines.append(
                self.t(
                    f"- {label_zh}：{sides[s1][0]} 领先（{fmt_v(v1)} 对 {fmt_v(v2)}）\n",
                    f"- {label_en}: {sides[s1][0]} leads ({fmt_v(v1)} vs {fmt_v(v2)})\n",
                )
            )

        lead("refineries", "经济（精炼厂数）", "Economy (refineries)")
        lead("army", "部队规模（作战单位下单数）", "Army size (combat units queued)")
        lead("tier2", "科技速度（进入 2 级的时间）", "Tech speed (time to tier 2)", higher=False)
        lead("apm", "操作量（APM 合计）", "Activity (APM, summed)")
        lead("attacks", "主动性（攻击类指令）", "Aggression (attack orders)")
        if score:
            best = max(range(len(sides)), key=lambda n: (score[n], -n))
            lines.append(
                self.t(
                    f"- 综合：{sides[best][0]} 在 {score[best]} 项对比中占优。"
                    "录像不记录胜负，这是基于指令数据的判断。\n",
                    f"- Overall: {sides[best][0]} leads in {score[best]} of these comparisons. The replay does not "
                    "record the winner; this is a judgement from the orders.\n",
                )
            )
            ends = sorted((max(self._last_order(x) for x in slots), n) for n, (_l, slots) in enumerate(sides))
            if ends[0][1] == best and ends[1][0] - ends[0][0] >= 5.0:
                lines.append(
                    self.t(
                        f"- 但 {sides[best][0]} 最早停止操作（{short(ends[0][0])}）：如果是它先退出，"
                        "这些数据优势没有转化为胜势（推测）。\n",
                        f"- Yet {sides[best][0]} stopped issuing orders first ({short(ends[0][0])}): if it left "
                        "first, these advantages did not turn into a win (an inference).\n",
                    )
                )
        else:
            lines.append(
                self.t("- 各项数据接近，没有明显的一方占优。\n", "- The numbers are close; no side clearly leads.\n")
            )
        return "".join(lines) + "\n"

    def _advice(self, stats: dict[int, dict[str, Any]]) -> str:
        lines = [self.t("### 改进建议\n", "### Advice per player\n")]
        for p in self.players:
            s = stats[p.slot]
            others = [stats[q.slot] for q in self.players if self.team(q.slot) != self.team(p.slot)]
            tips: list[str] = []

            def best(key: str, others: list[dict[str, Any]] = others) -> float:
                vals = [o[key] for o in others if o[key] is not None]
                return max(vals) if vals else 0.0

            if others and s["refineries"] + 2 <= best("refineries"):
                tips.append(
                    self.t(
                        f"精炼厂比对手少 {best('refineries') - s['refineries']:.0f} 座，应更早扩张矿区",
                        f"{best('refineries') - s['refineries']:.0f} fewer refineries than the opponent: "
                        "expand to new ore fields earlier",
                    )
                )
            other_t2 = [o["tier2"] for o in others if o["tier2"] is not None]
            if s["tier2"] is None and other_t2:
                tips.append(
                    self.t("全场没有进入 2 级科技，而对手进入了", "never reached tier 2 while the opponent did")
                )
            elif s["tier2"] is not None and other_t2 and s["tier2"] - min(other_t2) >= 60:
                tips.append(
                    self.t(
                        f"2 级科技比对手晚 {s['tier2'] - min(other_t2):.0f} 秒",
                        f"tier 2 came {s['tier2'] - min(other_t2):.0f} s after the opponent's",
                    )
                )
            if others and s["army"] < 0.6 * best("army"):
                tips.append(
                    self.t(
                        "作战单位产量明显少于对手，保持兵营和工厂持续生产",
                        "far fewer combat units than the opponent: keep factories producing",
                    )
                )
            if others and s["apm"] < 0.7 * best("apm"):
                tips.append(
                    self.t(
                        "操作量明显低于对手，多用编队与快捷键",
                        "much lower APM than the opponent: use control groups and hotkeys more",
                    )
                )
            if s["groups"] == 0:
                tips.append(
                    self.t(
                        "没有使用编队（0x1FA），大规模部队难以控制",
                        "no control groups used; large armies are hard to control without them",
                    )
                )
            gap, at = s["gap"]
            if gap >= IDLE_GAP_S:
                tips.append(
                    self.t(
                        f"{short(at)} 之后有 {gap:.0f} 秒没有任何操作",
                        f"{gap:.0f} s without any order after {short(at)}",
                    )
                )
            if s["protocols"] == 0:
                tips.append(
                    self.t("没有选择协议，错过了协议带来的能力", "no protocols picked: their powers went unused")
                )
            if not tips:
                tips.append(
                    self.t(
                        "各项数据不落后于对手，保持当前的运营节奏并在交战前集中部队",
                        "no metric lags the opponent: keep the pace and mass the army before fights",
                    )
                )
            lines.append(f"- {p.name}" + self.t("：", ": ") + self.t("；", "; ").join(tips) + self.t("。\n", ".\n"))
        return "".join(lines) + "\n"

    def match_brief(self) -> str:
        dur = self.ix.duration_seconds
        names = self.lst(
            [self.t(f"{p.name}（{self.faction(p.slot)}）", f"{p.name} ({self.faction(p.slot)})") for p in self.players]
        )
        return self.header() + self.t(
            f"本局时长 {short(dur)}，玩家：{names}。\n", f"Match length {short(dur)}; players: {names}.\n"
        )


def _knowledge(index: ReplayFactIndex) -> Knowledge | None:
    """The mod's game knowledge for display names and tags; None when the mod has none (names stay internal)."""
    from app.errors import KnownError
    from app.knowledge.loader import load_knowledge

    try:
        return load_knowledge(index.replay.header.mod_name)
    except KnownError:
        return None
