"""The overview round: a title and sentences per planned segment, the course of the match, threads, lookbacks."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence

from app.analyst.base import LOOKBACK_AFTER_S, LOOKBACK_BEFORE_S, AnalystBase
from app.i18n import Lang
from app.timefmt import format_clock as short  # m:ss in prose


class OverviewRound(AnalystBase):
    """Writes the overview of the whole match from the plan's segments."""

    # ------------------------------------------------------------------ overview

    def overview(self) -> str:
        """The overview round reply."""
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
