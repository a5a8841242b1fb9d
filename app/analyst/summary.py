"""The summary round: a whole-match report (openings, turning points, decisive factors, advice per player)."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

from app.analyst.base import (
    IDLE_GAP_S,
    MAX_RELOCATIONS,
    OPENING_S,
    TIMELINE_CLAIMS_PER_PLAYER,
    Activity,
    AnalystBase,
    Claim,
)
from app.i18n import Lang
from app.timefmt import format_clock as short  # m:ss in prose
from app.timefmt import format_time as fmt  # m:ss.cc in claims


class SummaryRound(AnalystBase):
    """Writes the whole-match report and the short brief for requests without stage data."""

    # ------------------------------------------------------------------ summary round

    def summary_round(self) -> str:
        """The summary round reply, ending with claims."""
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
        claims: list[Claim] = []
        for p in self.players:
            who = self.claim_player(p.slot)
            for x in self.ix.protocols_of(p.slot):
                claims.append(
                    Claim("eventClaims", {"time": fmt(x.seconds), "player": who, "kind": "protocol", "name": x.name})
                )
            firsts = [f for f in self.ix.first_productions(p.slot) if self._type_known(f.name)]
            for f in firsts[:TIMELINE_CLAIMS_PER_PLAYER]:
                claims.append(Claim("timelineClaims", {"player": who, "type": f.name, "firstTime": fmt(f.seconds)}))
        checked = self.checked(claims) or self.fallback_claims(end)
        out.append(self.claims_block(checked))
        return "".join(out)

    def _player_stats(self, slot: int, act: Activity, dur: float) -> dict[str, Any]:
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
        """A two-line brief: what a bound analyst answers a request without stage data."""
        dur = self.ix.duration_seconds
        names = self.lst(
            [self.t(f"{p.name}（{self.faction(p.slot)}）", f"{p.name} ({self.faction(p.slot)})") for p in self.players]
        )
        return self.header() + self.t(
            f"本局时长 {short(dur)}，玩家：{names}。\n", f"Match length {short(dur)}; players: {names}.\n"
        )
