"""The window round: one focus period of one segment, its lookback follow-up and its revision."""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from app.analyst.base import (
    BUILD_CLAIMS_PER_PLAYER,
    CAST_IDS,
    FIGHT_GAP_S,
    LOOKBACK_AFTER_S,
    LOOKBACK_BEFORE_S,
    MAX_EARLY_LISTED,
    POWER_CLAIMS_PER_PLAYER,
    TIMELINE_CLAIMS_PER_PLAYER,
    UNIT_CLAIMS_PER_PLAYER,
    Activity,
    AnalystBase,
    Claim,
)
from app.i18n import Lang
from app.llm.stage import StageInfo
from app.timefmt import format_clock as short  # m:ss in prose
from app.timefmt import format_time as fmt  # m:ss.cc in claims


class WindowRound(AnalystBase):
    """Writes the analysis of a focus window, with claims that are true by construction."""

    def window_range(self, stage: StageInfo) -> tuple[float, float, float, float, str]:
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

    def window_claims(self, a: float, b: float) -> list[Claim]:
        """Exact claims for [a, b): every player's objects, protocols, builds, casts and first types."""
        claims: list[Claim] = []
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
                    Claim(
                        "unitClaims", {"unitId": uid, "player": who, "confidence": "confirmed", "evidence": [evidence]}
                    )
                )
                n += 1
            for x in self.protocols_in(slot, a, b):
                claims.append(
                    Claim("eventClaims", {"time": fmt(x.seconds), "player": who, "kind": "protocol", "name": x.name})
                )
            for t, name in self.builds_in(slot, a, b)[:BUILD_CLAIMS_PER_PLAYER]:
                if self._type_known(name):
                    claims.append(Claim("eventClaims", {"time": fmt(t), "player": who, "kind": "build", "name": name}))
            for t, uid, power in self.casts_in(slot, a, b)[:POWER_CLAIMS_PER_PLAYER]:
                claims.append(
                    Claim(
                        "eventClaims", {"time": fmt(t), "player": who, "kind": "power", "name": power, "unitId": uid}
                    )
                )
            for f in self.firsts_in(slot, a, b)[:TIMELINE_CLAIMS_PER_PLAYER]:
                if self._type_known(f.name):
                    claims.append(
                        Claim("timelineClaims", {"player": who, "type": f.name, "firstTime": fmt(f.seconds)})
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
    # ------------------------------------------------------------------ window

    def window(self, stage: StageInfo) -> str:
        """A window round reply (initial, lookback follow-up or revision), ending with claims."""
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

    def _window_lead(self, acts: dict[int, Activity], a: float, b: float, minutes: float) -> str:
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
    def _player_block(self, slot: int, act: Activity, a: float, b: float, minutes: float) -> str:
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

    def _fights(self, acts: dict[int, Activity], a: float, b: float) -> str:
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

    def _verified_objects(self, claims: Sequence[Claim], a: float, b: float) -> str:
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

    def _relations(self, a: float, b: float, sa: float, early: Sequence[int], stage: StageInfo) -> str:
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
        """How many raw log lines a served lookback range holds."""
        if self.log is not None:
            return len(self.log.lines_between(rng[0], rng[1]))
        return sum(1 for e in self.ix.events_between(rng[0], rng[1]) if not e.automatic)

    def event_label(self, ev: Any) -> str:
        """An event as prose: player, command and type."""
        from app.replay.commands import command_info

        info = command_info(self.ix.replay.game, ev.command_id)
        what = info.name("zh" if self.lang is Lang.ZH else "en")
        extra = f" {self.disp(self.ix.name_of(ev.type_hash))}" if ev.type_hash is not None else ""
        return f"{self.pname(ev.player)} {what}{extra}"
