"""The offline analyst: a deterministic, rule-based analyst behind the :class:`~app.llm.base.ChatProvider` interface.

It is the embedded default (model id ``offline``): the app works with no network and no model at all. It reads
the replay's fact index — never the prompt's log text — and writes the analysis the pipeline asks for: the
overview, one focus window (build order, production and tech timing, economy, protocols, powers, army movements
and the places where orders concentrate, APM) or the whole-match summary, in Chinese or English, streamed in
chunks like a model reply.

Its machine-readable claims are true by construction: each one is checked against the index's own queries
(ownership verdict, first production, protocol picks, caster evidence) before it is written, and anything the
index cannot confirm is left out. When an object the window refers to first appeared before the window's slice,
it asks for a lookback (``[回查] a~b``) as a model would, and folds the served range into its final reply.

It is labelled rule-based everywhere: ``rule_based`` is True, the resolved model is ``offline-rules`` and every
reply starts by saying it was written by rules, not by a language model.

The pipeline binds the replay's index before a run: ``OfflineAnalyst().bind(prepared.index)``. The stage comes from
``ChatRequest.tag`` (``overview``, ``window:S:W``, ``summary_round``) or, failing that, from the instruction text;
the focus window's time range is read from the window instruction (``请重点分析 a 至 b`` / ``Focus on … between a
and b``).
"""

from __future__ import annotations

import asyncio
import json
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
    from app.facts import ReplayFactIndex

OFFLINE_MODEL = "offline"
RESOLVED_MODEL = "offline-rules"
CELL = 400.0
"""Side of the map grid (world units) used to find where orders concentrate."""
MAX_UNIT_CLAIMS = 6
MAX_POWER_CLAIMS = 6
BUILDS_PER_MIN_BUILDING = 2.0
"""Structures placed per minute above which a segment is titled "building up"."""
ATTACKS_PER_MIN_FIGHTING = 10.0
"""Attack orders per minute (all players) above which a segment is titled "fighting"."""
MAX_LIST = 10
LOOKBACK_BEFORE_S = 5.0
LOOKBACK_AFTER_S = 10.0
MAX_LOOKBACKS_PER_SEGMENT = 2
"""Below the pipeline's 3 per segment, so a request from this analyst is never refused."""

_T = r"(\d{1,4}:\d{2}(?:\.\d{1,3})?)"
_WINDOW_ZH = re.compile(rf"请重点分析\s*{_T}\s*至\s*{_T}")
_WINDOW_EN = re.compile(rf"Focus on the operations between\s+{_T}\s+and\s+{_T}")
_SEGMENT_ZH = re.compile(rf"整段切片（{_T}\s*至\s*{_T}）")
_SEGMENT_EN = re.compile(rf"whole segment \({_T} to {_T}\)")
_PERIOD_ZH = re.compile(r"当前是第\s*(\d+)\s*个")
_PERIOD_EN = re.compile(r"this is period\s+(\d+)")
_SEGMENTS_META = re.compile(rf"(?:第\s*(\d+)\s*段：{_T}\s*至\s*{_T}|Segment\s+(\d+):\s*{_T}\s+to\s+{_T})")
_LOOKBACK_SERVED = re.compile(rf"(?:\[回查结果\]\s*{_T}\s*至\s*{_T}|\[Lookback\] raw orders from {_T} to {_T})")
_CJK = re.compile(r"[\u4e00-\u9fff]")

QUEUE_UNIT = 0x205
START_UPGRADE = 0x203


def fmt(seconds: float) -> str:
    """Game time ``m:ss.cc`` (the format of the prompts and claims)."""
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


@dataclass(frozen=True, slots=True)
class StageSpec:
    """What the request asks for, as read from its tag and messages."""

    kind: str  # window | overview | summary_round | other
    lang: Lang
    start: float = 0.0
    end: float = 0.0
    seg_start: float = 0.0
    seg_end: float = 0.0
    segment: int = -1
    followup: bool = False
    lookback: tuple[float, float] | None = None
    segments: tuple[tuple[int, float, float], ...] = ()


def read_request(request: ChatRequest, lang: Lang | None = None) -> StageSpec:
    """Classify a request: stage kind, language, focus and segment ranges, follow-up state."""
    msgs = request.messages
    users = [m.content for m in msgs if m.role == "user"]
    last_user = users[-1] if users else ""
    followup = any(m.role == "assistant" for m in msgs)
    tag = request.tag
    window = seg = None
    instruction = ""
    for text in users:
        m = _WINDOW_ZH.search(text) or _WINDOW_EN.search(text)
        if m:
            window = (_parse_t(m.group(1)), _parse_t(m.group(2)))
            instruction = text
            s = _SEGMENT_ZH.search(text) or _SEGMENT_EN.search(text)
            seg = (_parse_t(s.group(1)), _parse_t(s.group(2))) if s else window
            break
    detected = lang or (Lang.ZH if _CJK.search(instruction or last_user) else Lang.EN)
    segment = -1
    if tag.startswith("window:"):
        parts = tag.split(":")
        if len(parts) >= 2 and parts[1].lstrip("-").isdigit():
            segment = int(parts[1])
    if window is not None and (tag.startswith("window") or not tag):
        lb = _LOOKBACK_SERVED.search(last_user) if followup else None
        served = None
        if lb:
            a, b = (lb.group(1), lb.group(2)) if lb.group(1) else (lb.group(3), lb.group(4))
            served = (_parse_t(a), _parse_t(b))
        assert seg is not None
        return StageSpec("window", detected, window[0], window[1], seg[0], seg[1], segment, followup, served)
    if tag == "overview" or "[分段元数据]" in last_user or "[Segment metadata]" in last_user:
        metas = []
        for m in _SEGMENTS_META.finditer(last_user):
            if m.group(1):
                metas.append((int(m.group(1)), _parse_t(m.group(2)), _parse_t(m.group(3))))
            else:
                metas.append((int(m.group(4)), _parse_t(m.group(5)), _parse_t(m.group(6))))
        return StageSpec("overview", detected, followup=followup, segments=tuple(metas))
    if tag == "summary_round" or "[各段分析]" in last_user or "[Segment analyses]" in last_user:
        return StageSpec("summary_round", detected, followup=followup)
    return StageSpec("other", detected, followup=followup)


class OfflineAnalyst:
    """The rule-based analyst (a :class:`~app.llm.base.ChatProvider`).

    Args:
        index: the replay's fact index (see :meth:`bind`); without one it can only introduce itself.
        lang: force the reply language; None follows the instruction's language.
        chunk_chars: characters per streamed :class:`TextDelta`.
        pace_s: pause between chunks (0 still yields to the event loop, so the UI stays responsive).
        lookbacks: ask for lookbacks when a referenced object first appears before the slice.
    """

    rule_based = True

    def __init__(
        self,
        index: ReplayFactIndex | None = None,
        *,
        lang: Lang | None = None,
        chunk_chars: int = 48,
        pace_s: float = 0.0,
        lookbacks: bool = True,
    ) -> None:
        self._index = index
        self._lang = lang
        self._chunk = max(1, chunk_chars)
        self._pace = pace_s
        self._lookbacks = lookbacks
        self._lookbacks_asked: dict[int, int] = defaultdict(int)

    def __repr__(self) -> str:
        bound = "bound" if self._index is not None else "unbound"
        return f"OfflineAnalyst({bound}, rule-based)"

    @property
    def name(self) -> str:
        """Display name."""
        return "offline"

    @property
    def model(self) -> str:
        """Model id (``offline``)."""
        return OFFLINE_MODEL

    @property
    def index(self) -> ReplayFactIndex | None:
        """The bound fact index."""
        return self._index

    def bind(self, index: ReplayFactIndex) -> OfflineAnalyst:
        """A copy of this analyst that analyses ``index``'s replay."""
        return OfflineAnalyst(
            index, lang=self._lang, chunk_chars=self._chunk, pace_s=self._pace, lookbacks=self._lookbacks
        )

    async def aclose(self) -> None:
        """Nothing to release."""

    def stream(self, request: ChatRequest) -> EventStream:
        """Compose the reply for ``request`` and stream it in chunks."""
        gen = self._run(request)
        return ChatStream(gen, gen.aclose)

    def compose(self, request: ChatRequest) -> str:
        """The whole reply text (deterministic for a given index and request)."""
        spec = read_request(request, self._lang)
        if self._index is None:
            return _intro(spec.lang)
        writer = _Writer(self._index, spec.lang)
        if spec.kind == "window":
            allow = self._lookbacks and not spec.followup
            if allow and spec.segment >= 0 and self._lookbacks_asked[spec.segment] >= MAX_LOOKBACKS_PER_SEGMENT:
                allow = False
            text, asked = writer.window(spec, allow_lookback=allow)
            if asked and spec.segment >= 0:
                self._lookbacks_asked[spec.segment] += 1
            return text
        if spec.kind == "overview":
            return writer.overview(spec)
        if spec.kind == "summary_round":
            return writer.summary_round()
        return writer.match_brief()

    async def _run(self, request: ChatRequest) -> AsyncGenerator[StreamEvent, None]:
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            text = self.compose(request)
        except Exception as exc:  # a rule bug must not crash the run: report it like a failed request
            yield StreamFailed(ProviderError("offline", OFFLINE_MODEL, f"rule-based analyst failed: {exc!r}"))
            return
        first: float | None = None
        for i in range(0, len(text), self._chunk):
            if first is None:
                first = loop.time()
            yield TextDelta(text[i : i + self._chunk])
            await asyncio.sleep(self._pace)
        end = loop.time()
        chunks = -(-len(text) // self._chunk)
        yield UsageReport(0, 0, raw={"rule_based": True, "chars": len(text), "chunks": chunks})
        span = end - first if first is not None else 0.0
        yield Finished(
            reason="stop",
            ttft_s=(first - started) if first is not None else None,
            tokens_per_s=chunks / span if span > 0 and chunks > 1 else None,
            resolved_model=RESOLVED_MODEL,
            elapsed_s=end - started,
        )


def _intro(lang: Lang) -> str:
    return pick(
        lang,
        "（离线规则分析器，非大模型）我根据录像的事实索引按规则生成分析，不需要网络。请在分析录像时使用我。",
        "(Offline rule-based analyst, not a language model.) I write analyses from a replay's fact index by fixed "
        "rules and need no network. Use me while analysing a replay.",
    )


@dataclass(slots=True)
class _PlayerWindow:
    """What one player did in a time range (counts from the fact index)."""

    slot: int
    orders: int = 0
    moves: int = 0
    attacks: int = 0
    harvest: int = 0
    sells: int = 0
    repairs: int = 0
    units: Counter[str] = field(default_factory=Counter)
    upgrades: list[tuple[float, str]] = field(default_factory=list)
    powers: list[tuple[float, str]] = field(default_factory=list)
    cells: Counter[tuple[int, int]] = field(default_factory=Counter)
    cell_times: defaultdict[tuple[int, int], list[float]] = field(default_factory=lambda: defaultdict(list))


class _Writer:
    """Builds the texts and claims of one analysis from a fact index."""

    def __init__(self, index: ReplayFactIndex, lang: Lang) -> None:
        self.ix = index
        self.lang = lang
        # Only players whose name resolves back to their slot can be named in claims unambiguously.
        self.players = [p for p in index.playing if index.player_slot(p.name) == p.slot]
        self.all_players = list(index.playing)
        self._names_lower = {n.lower() for n in index.names.values()}

    def t(self, zh: str, en: str) -> str:
        return pick(self.lang, zh, en)

    def header(self) -> str:
        return self.t(
            "> 离线规则分析（由程序规则生成，非大模型）\n\n",
            "> Offline rule-based analysis (written by rules, not by a language model)\n\n",
        )

    def pname(self, slot: int) -> str:
        return self.ix.player_name(slot)

    def faction(self, slot: int) -> str:
        p = next((p for p in self.ix.players if p.slot == slot), None)
        return p.faction if p and p.faction else "?"

    # ------------------------------------------------------------------ measuring a range

    def measure(self, a: float, b: float) -> dict[int, _PlayerWindow]:
        from app.replay.commands import Category

        out: dict[int, _PlayerWindow] = {}
        for ev in self.ix.events_between(a, b):
            if ev.automatic or ev.player < 0:
                continue
            pw = out.get(ev.player)
            if pw is None:
                pw = out[ev.player] = _PlayerWindow(ev.player)
            pw.orders += 1
            cat = ev.category
            if cat is Category.ORDER_MOVE:
                pw.moves += 1
            elif cat is Category.ORDER_ATTACK:
                pw.attacks += 1
            elif cat is Category.HARVEST:
                pw.harvest += 1
            elif cat is Category.SELL:
                pw.sells += 1
            elif cat is Category.REPAIR:
                pw.repairs += 1
            elif cat is Category.PRODUCTION and ev.command_id == QUEUE_UNIT and ev.type_hash is not None:
                pw.units[self.ix.name_of(ev.type_hash)] += 1
            elif cat is Category.UPGRADE and ev.type_hash is not None and ev.command_id == START_UPGRADE:
                pw.upgrades.append((ev.seconds, self.ix.name_of(ev.type_hash)))
            elif cat is Category.POWER and ev.type_hash is not None:
                pw.powers.append((ev.seconds, self.ix.name_of(ev.type_hash)))
            if cat in (Category.ORDER_MOVE, Category.ORDER_ATTACK) and ev.position is not None:
                cell = (int(ev.position[0] // CELL), int(ev.position[1] // CELL))
                pw.cells[cell] += 1
                pw.cell_times[cell].append(ev.seconds)
        return out

    @staticmethod
    def _cell_center(cell: tuple[int, int]) -> str:
        return f"({int((cell[0] + 0.5) * CELL)}, {int((cell[1] + 0.5) * CELL)})"

    def _list(self, items: Sequence[str]) -> str:
        head = list(items[:MAX_LIST])
        more = len(items) - len(head)
        sep = self.t("、", ", ")
        text = sep.join(head)
        if more > 0:
            text += self.t(f" 等（另 {more} 项）", f" and {more} more")
        return text

    # ------------------------------------------------------------------ facts in a range

    def builds_in(self, slot: int, a: float, b: float) -> list[tuple[float, str]]:
        return [(s.seconds, s.name) for s in self.ix.build_order(slot) if a <= s.seconds < b]

    def firsts_in(self, slot: int, a: float, b: float) -> list[Any]:
        return [f for f in self.ix.first_productions(slot) if a <= f.seconds < b]

    def protocols_in(self, slot: int, a: float, b: float) -> list[Any]:
        return [p for p in self.ix.protocols_of(slot) if a <= p.seconds < b]

    def groups_in(self, slot: int, a: float, b: float) -> list[Any]:
        out: list[Any] = []
        for g in self.ix.groups_of(slot):
            out.extend(s for s in self.ix.group_history(slot, g) if a <= s.seconds < b and s.members)
        return sorted(out, key=lambda s: (s.time_code, s.group))

    def casters_in(self, slot: int, a: float, b: float) -> list[Any]:
        return [e for e in self.ix.casters() if e.player == slot and a <= e.seconds < b]

    def pack_steps_in(self, slot: int, a: float, b: float) -> list[Any]:
        return [s for c in self.ix.pack_chains if c.player == slot for s in c.steps if a <= s.seconds < b]

    # ------------------------------------------------------------------ claims (checked against the index)

    def _strong_owner(self, uid: int, slot: int) -> bool:
        owner = self.ix.owner(uid)
        return self.ix.id_exists(uid) and not owner.conflict and owner.strong_players == (slot,)

    def _type_known(self, name: str) -> bool:
        return name.lower() in self._names_lower and not name.startswith("0x")

    def window_claims(self, a: float, b: float) -> tuple[dict[str, list[dict[str, Any]]], list[int]]:
        """Claims for [a, b) and the object ids they reference."""
        units: list[dict[str, Any]] = []
        events: list[dict[str, Any]] = []
        timeline: list[dict[str, Any]] = []
        referenced: list[int] = []
        for p in self.players:
            slot, name = p.slot, p.name
            for f in self.firsts_in(slot, a, b):
                check = self.ix.first_production(slot, f.name)
                if self._type_known(f.name) and check is not None and check.time_code == f.time_code:
                    timeline.append({"player": name, "type": f.name, "firstTime": fmt(f.seconds)})
            for pick_ in self.protocols_in(slot, a, b):
                if any(x.name.lower() == pick_.name.lower() for x in self.ix.protocols_of(slot)):
                    events.append({"time": fmt(pick_.seconds), "player": name, "kind": "protocol", "name": pick_.name})
            for t, bname in self.builds_in(slot, a, b):
                if self._type_known(bname) and self.ix.first_production(slot, bname) is not None:
                    events.append({"time": fmt(t), "player": name, "kind": "build", "name": bname})
            seen_casters: set[int] = set()
            for e in self.casters_in(slot, a, b):
                if len(seen_casters) >= MAX_POWER_CLAIMS:
                    break
                if e.object_id in seen_casters or not self.ix.id_exists(e.object_id):
                    continue
                seen_casters.add(e.object_id)
                events.append({"time": fmt(e.seconds), "player": name, "kind": "power", "unitId": e.object_id})
            count = 0
            for g in self.groups_in(slot, a, b):
                for uid in g.members:
                    if count >= MAX_UNIT_CLAIMS or uid in referenced or not self._strong_owner(uid, slot):
                        continue
                    units.append(
                        {
                            "unitId": uid,
                            "player": name,
                            "confidence": "confirmed",
                            "evidence": [
                                f"group|{fmt(g.seconds)}|"
                                + self.t(f"编队 {g.group} 成员", f"member of group {g.group}")
                            ],
                        }
                    )
                    referenced.append(uid)
                    count += 1
        return {"unitClaims": units, "eventClaims": events, "timelineClaims": timeline}, referenced

    def claims_block(self, claims: dict[str, list[dict[str, Any]]]) -> str:
        """The claims section: one claim per line, so it stays readable and cheap to show."""
        parts = []
        for key in ("unitClaims", "eventClaims", "timelineClaims"):
            items = ",\n".join("  " + json.dumps(c, ensure_ascii=False) for c in claims.get(key, []))
            parts.append(f'"{key}": [\n{items}\n ]' if items else f'"{key}": []')
        body = "{\n " + ",\n ".join(parts) + "\n}"
        return self.t("[机器可读声明]", "[claims]") + "\n```json\n" + body + "\n```\n"

    # ------------------------------------------------------------------ window

    def window(self, spec: StageSpec, *, allow_lookback: bool) -> tuple[str, bool]:
        """The window reply and whether it asks for a lookback."""
        a, b = spec.start, spec.end
        sa = min(spec.seg_start, a)
        stats = self.measure(a, b)
        minutes = max((b - a) / 60.0, 1e-9)
        out = [self.header()]
        out.append(self.t(f"## 重点时间段 {short(a)}–{short(b)}\n\n", f"## Focus period {short(a)}–{short(b)}\n\n"))
        active = [p for p in self.all_players if p.slot in stats]
        if not active:
            out.append(self.t("这一时间段内没有玩家操作记录。\n\n", "No player issued orders in this period.\n\n"))
        for p in active:
            out.append(self._player_window(p.slot, stats[p.slot], a, b, minutes))
        out.append(self._fights(stats, a, b))
        claims, referenced = self.window_claims(a, b)
        early = [uid for uid in referenced if (self.ix.first_seen(uid) or 0.0) + 1e-6 < sa]
        out.append(self._relations(a, b, sa, early, spec.lookback))
        asked = False
        if early and allow_lookback and spec.lookback is None:
            first = min(self.ix.first_seen(uid) or 0.0 for uid in early)
            lo, hi = max(0.0, first - LOOKBACK_BEFORE_S), first + LOOKBACK_AFTER_S
            if hi > lo:
                out.append(self.t(f"[回查] {fmt(lo)}~{fmt(hi)}\n\n", f"[lookback] {fmt(lo)}~{fmt(hi)}\n\n"))
                asked = True
        out.append(self.claims_block(claims))
        return "".join(out), asked

    def _player_window(self, slot: int, pw: _PlayerWindow, a: float, b: float, minutes: float) -> str:
        lines = [
            f"### {self.pname(slot)}（{self.faction(slot)}）\n"
            if self.lang is Lang.ZH
            else f"### {self.pname(slot)} ({self.faction(slot)})\n"
        ]
        apm = pw.orders / minutes
        lines.append(
            self.t(
                f"- 操作量：{pw.orders} 条指令，APM ≈ {apm:.0f}（移动 {pw.moves}，攻击 {pw.attacks}）\n",
                f"- Activity: {pw.orders} orders, APM ≈ {apm:.0f} (move {pw.moves}, attack {pw.attacks})\n",
            )
        )
        builds = self.builds_in(slot, a, b)
        if builds:
            lines.append(
                self.t("- 建造顺序：", "- Build order: ") + self._list([f"{short(t)} {n}" for t, n in builds]) + "\n"
            )
        firsts = self.firsts_in(slot, a, b)
        if firsts:
            lines.append(
                self.t("- 首次生产/建造：", "- First produced/built: ")
                + self._list([f"{n.name} {short(n.seconds)}" for n in firsts])
                + "\n"
            )
        if pw.units:
            ranked = sorted(pw.units.items(), key=lambda kv: (-kv[1], kv[0]))
            lines.append(self.t("- 出兵：", "- Units queued: ") + self._list([f"{c}× {n}" for n, c in ranked]) + "\n")
        if pw.upgrades:
            lines.append(
                self.t("- 科技/升级：", "- Upgrades: ") + self._list([f"{short(t)} {n}" for t, n in pw.upgrades]) + "\n"
            )
        protos = self.protocols_in(slot, a, b)
        if protos:
            lines.append(
                self.t("- 协议：", "- Protocols: ")
                + self._list([f"{short(x.seconds)} {x.name}" for x in protos])
                + "\n"
            )
        if pw.powers:
            counts = Counter(n for _, n in pw.powers)
            lines.append(
                self.t("- 技能：", "- Powers: ")
                + self._list(
                    [
                        f"{n} ×{c}（首次 {short(min(t for t, m in pw.powers if m == n))}）"
                        if self.lang is Lang.ZH
                        else f"{n} ×{c} (first {short(min(t for t, m in pw.powers if m == n))})"
                        for n, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
                    ]
                )
                + "\n"
            )
        econ = []
        if pw.harvest:
            econ.append(self.t(f"采矿指令 {pw.harvest} 条", f"{pw.harvest} harvest orders"))
        if pw.sells:
            econ.append(self.t(f"出售建筑 {pw.sells} 次", f"{pw.sells} structures sold"))
        if pw.repairs:
            econ.append(self.t(f"维修 {pw.repairs} 次", f"{pw.repairs} repairs"))
        refineries = [n for _, n in builds if "refinery" in n.lower()]
        if refineries:
            econ.append(self.t(f"新建矿场 {len(refineries)} 座", f"{len(refineries)} new refineries"))
        if econ:
            lines.append(self.t("- 经济：", "- Economy: ") + self._list(econ) + "\n")
        groups = self.groups_in(slot, a, b)
        if groups:
            lines.append(
                self.t("- 编队：", "- Control groups: ")
                + self._list(
                    [
                        self.t(
                            f"{short(g.seconds)} 编队 {g.group}（{len(g.members)} 个单位）",
                            f"{short(g.seconds)} group {g.group} ({len(g.members)} units)",
                        )
                        for g in groups
                    ]
                )
                + "\n"
            )
        packs = self.pack_steps_in(slot, a, b)
        if packs:
            lines.append(
                self.t("- 基地车：", "- Base vehicle: ")
                + self._list([f"{short(s.seconds)} {s.action.value} #{s.object_id}" for s in packs])
                + "\n"
            )
        if pw.cells:
            top = sorted(pw.cells.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
            parts = []
            for cell, n in top:
                times = pw.cell_times[cell]
                parts.append(
                    self.t(
                        f"{self._cell_center(cell)} 附近 {n} 条（{short(min(times))}–{short(max(times))}）",
                        f"{n} near {self._cell_center(cell)} ({short(min(times))}–{short(max(times))})",
                    )
                )
            lines.append(self.t("- 部队调动集中在：", "- Army orders concentrate at: ") + self._list(parts) + "\n")
        return "".join(lines) + "\n"

    def _fights(self, stats: dict[int, _PlayerWindow], a: float, b: float) -> str:
        """Cells where two or more players' move/attack orders land in this period: likely fights (an inference)."""
        by_cell: dict[tuple[int, int], dict[int, int]] = defaultdict(dict)
        for slot, pw in stats.items():
            for cell, n in pw.cells.items():
                by_cell[cell][slot] = n
        contested = [(cell, d) for cell, d in by_cell.items() if len(d) >= 2]
        contested.sort(key=lambda cd: (-sum(cd[1].values()), cd[0]))
        if not contested:
            return self.t(
                "**交战**：本时间段内双方的部队指令没有落在同一区域，未见明显交战迹象。\n\n",
                "**Fights**: no area received army orders from more than one player in this period; no sign "
                "of a fight.\n\n",
            )
        lines = [
            self.t(
                "**交战（推测）**：以下区域同时收到多名玩家的部队指令，可能发生了交战：\n",
                "**Fights (inferred)**: these areas received army orders from several players, likely fights:\n",
            )
        ]
        for cell, d in contested[:3]:
            who = self._list([f"{self.pname(s)} {n}" for s, n in sorted(d.items())])
            lines.append(
                self.t(
                    f"- {self._cell_center(cell)} 附近：{who} 条指令\n",
                    f"- near {self._cell_center(cell)}: {who} orders\n",
                )
            )
        return "".join(lines) + "\n"

    def _relations(
        self, a: float, b: float, sa: float, early: Sequence[int], served: tuple[float, float] | None
    ) -> str:
        """Links to events outside the focus period (earlier tech, objects first seen before the slice)."""
        lines: list[str] = []
        for p in self.players:
            before = [f for f in self.ix.first_productions(p.slot) if f.seconds < a]
            if before and self.firsts_in(p.slot, a, b):
                last = before[-1]
                lines.append(
                    self.t(
                        f"- {p.name} 在本时间段之前最后一次新建类型是 {last.name}（{short(last.seconds)}）。\n",
                        f"- Before this period {p.name}'s latest new type was {last.name} ({short(last.seconds)}).\n",
                    )
                )
        for uid in early:
            first = self.ix.first_seen(uid) or 0.0
            owner = self.ix.owner(uid)
            who = self.pname(owner.player) if owner.player is not None else "?"
            if served is not None and served[0] <= first <= served[1]:
                evs = [e for e in self.ix.events_for_object(uid) if served[0] <= e.seconds <= served[1]]
                what = evs[0].category.value if evs else "?"
                lines.append(
                    self.t(
                        f"- 回查 {short(served[0])}–{short(served[1])}：#{uid} 首次出现在 {short(first)}"
                        f"（{what}），属于 {who}。\n",
                        f"- Lookback {short(served[0])}–{short(served[1])}: #{uid} first appears at "
                        f"{short(first)} ({what}) and belongs to {who}.\n",
                    )
                )
            else:
                lines.append(
                    self.t(
                        f"- #{uid}（{who}）早在 {short(first)} 就已出现，早于本段切片（{short(sa)} 起）。\n",
                        f"- #{uid} ({who}) already appeared at {short(first)}, before this slice (from {short(sa)}).\n",
                    )
                )
        if not lines:
            return ""
        return self.t("**跨时间关联**\n", "**Across time**\n") + "".join(lines) + "\n"

    # ------------------------------------------------------------------ overview and summary

    def overview(self, spec: StageSpec) -> str:
        out = [self.header(), self.t("## 总览\n\n", "## Overview\n\n")]
        segs = spec.segments or ((1, 0.0, self.ix.duration_seconds),)
        for n, a, b in segs:
            stats = self.measure(a, b)
            attacks = sum(pw.attacks for pw in stats.values())
            builds = sum(len(self.builds_in(p.slot, a, b)) for p in self.all_players)
            protos = sum(len(self.protocols_in(p.slot, a, b)) for p in self.all_players)
            # per-minute rates, scaled to a 1v1 so a 3v3 is not always "fighting"
            minutes = max((b - a) / 60.0, 1e-9) * max(len(self.all_players), 2) / 2
            traits = []
            if builds / minutes >= BUILDS_PER_MIN_BUILDING:
                traits.append(self.t("建设", "building up"))
            if attacks / minutes >= ATTACKS_PER_MIN_FIGHTING:
                traits.append(self.t("交战", "fighting"))
            if protos:
                traits.append(self.t("科技", "tech"))
            title = self.t("、", ", ").join(traits) if traits else self.t("调动与运营", "manoeuvre and economy")
            if self.lang is Lang.EN:
                title = title[0].upper() + title[1:]
            orders = sum(pw.orders for pw in stats.values())
            out.append(
                self.t(
                    f"**第 {n} 段（{short(a)}–{short(b)}）：{title}**。共 {orders} 条玩家指令，"
                    f"建造 {builds} 次，攻击指令 {attacks} 条，协议 {protos} 次。\n\n",
                    f"**Segment {n} ({short(a)}–{short(b)}): {title}.** {orders} player orders, "
                    f"{builds} structures placed, {attacks} attack orders, {protos} protocols.\n\n",
                )
            )
        out.append(self._trend())
        chains = [c for c in self.ix.pack_chains if c.steps]
        if chains:
            out.append(
                self.t("**跨段线索**：", "**Cross-segment clues**: ")
                + self._list(
                    [f"{self.pname(c.player)} {short(s.seconds)} {s.action.value}" for c in chains for s in c.steps]
                )
                + "\n\n"
            )
        return "".join(out)

    def _trend(self) -> str:
        dur = max(self.ix.duration_seconds, 1.0)
        stats = self.measure(0.0, dur + 1.0)
        parts = []
        for p in self.all_players:
            pw = stats.get(p.slot)
            if pw is not None:
                parts.append(f"{p.name} APM ≈ {pw.orders / (dur / 60.0):.0f}")
        if not parts:
            return ""
        return self.t("**整局走势**：", "**Match trend**: ") + self._list(parts) + "\n\n"

    def summary_round(self) -> str:
        dur = self.ix.duration_seconds
        out = [self.header(), self.t(f"## 整局总结（{short(dur)}）\n\n", f"## Match summary ({short(dur)})\n\n")]
        stats = self.measure(0.0, dur + 1.0)
        for p in self.all_players:
            pw = stats.get(p.slot)
            if pw is None:
                continue
            out.append(self._player_window(p.slot, pw, 0.0, dur + 1.0, max(dur / 60.0, 1e-9)))
        out.append(self._turning_points())
        claims: dict[str, list[dict[str, Any]]] = {"unitClaims": [], "eventClaims": [], "timelineClaims": []}
        for p in self.players:
            for x in self.ix.protocols_of(p.slot):
                claims["eventClaims"].append(
                    {"time": fmt(x.seconds), "player": p.name, "kind": "protocol", "name": x.name}
                )
            for f in self.ix.first_productions(p.slot)[:8]:
                check = self.ix.first_production(p.slot, f.name)
                if self._type_known(f.name) and check is not None and check.time_code == f.time_code:
                    claims["timelineClaims"].append({"player": p.name, "type": f.name, "firstTime": fmt(f.seconds)})
        out.append(self.claims_block(claims))
        return "".join(out)

    def _turning_points(self) -> str:
        """The minutes with the most attack orders: where the match was decided."""
        from app.replay.commands import Category

        per_minute: Counter[int] = Counter()
        for ev in self.ix.events_between(0.0, self.ix.duration_seconds + 1.0, categories=[Category.ORDER_ATTACK]):
            if not ev.automatic and ev.player >= 0:
                per_minute[int(ev.seconds // 60)] += 1
        if not per_minute:
            return ""
        top = sorted(per_minute.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
        items = [
            self.t(f"{m}:00–{m + 1}:00（{n} 条攻击指令）", f"{m}:00–{m + 1}:00 ({n} attack orders)")
            for m, n in sorted(top)
        ]
        return self.t("**关键时段**：", "**Key moments**: ") + self._list(items) + "\n\n"

    def match_brief(self) -> str:
        dur = self.ix.duration_seconds
        names = self._list(
            [
                f"{p.name}（{self.faction(p.slot)}）" if self.lang is Lang.ZH else f"{p.name} ({self.faction(p.slot)})"
                for p in self.all_players
            ]
        )
        return self.header() + self.t(
            f"本局时长 {short(dur)}，玩家：{names}。\n", f"Match length {short(dur)}; players: {names}.\n"
        )


def window_request(
    lang: Lang, start: float, end: float, *, seg_start: float, seg_end: float, tag: str = ""
) -> ChatRequest:
    """A minimal request in the pipeline's window-instruction wording (for tests and the CLI demo)."""
    text = pick(
        lang,
        f"请重点分析 {fmt(start)} 至 {fmt(end)} 时间段的操作数据。\n上面的操作日志是整段切片（{fmt(seg_start)} 至 "
        f"{fmt(seg_end)}），请主动关联重点时间段以外、跨时间的相关事件。",
        f"Focus on the operations between {fmt(start)} and {fmt(end)}.\nThe order log above is the whole segment "
        f"({fmt(seg_start)} to {fmt(seg_end)}): relate events outside the focus period and across time where they "
        "matter.",
    )
    return ChatRequest((ChatMessage("user", text),), tag=tag)
