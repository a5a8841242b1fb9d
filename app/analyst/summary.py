"""The summary round: a whole-match report (openings, turning points, decisive factors, advice per player)."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

from app.analyst import texts
from app.analyst.base import (
    IDLE_GAP_S,
    MAX_RELOCATIONS,
    OPENING_S,
    TIMELINE_CLAIMS_PER_PLAYER,
    Activity,
    AnalystBase,
    Claim,
)
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
        out = [self.header(), self.say(texts.MATCH_REPORT, short_dur=short(dur))]
        out.append(self.say(texts.OPENINGS))
        for p in self.players:
            steps = self.ix.build_order(p.slot)[:6]
            units = [f for f in self.ix.first_productions(p.slot) if f.kind.value == "unit"][:3]
            line = self.say(texts.PLAYER_LINE_HEAD, name=self.pname(p.slot), faction=self.faction(p.slot))
            line += self.lst([f"{short(s.seconds)} {self.disp(s.name)}" for s in steps], 6) or self.say(texts.NO_BUILDS)
            if units:
                line += self.say(texts.FIRST_UNITS) + self.lst(
                    [f"{self.disp(f.name)} {short(f.seconds)}" for f in units]
                )
            out.append(line + "\n")
        out.append("\n" + self.say(texts.ECONOMY_PRODUCTION_AND_TECH))
        for p in self.players:
            s = stats[p.slot]
            mix = self.say(texts.COMMA).join(f"{self.class_label(k)} {v}" for k, v in s["mix"])
            tier2 = short(s["tier2"]) if s["tier2"] is not None else self.say(texts.NEVER)
            out.append(
                self.say(
                    texts.APM_REFINERIES_HARVESTERS_QUEUED_UNITS,
                    p_name=self.pname(p.slot),
                    s_apm=s["apm"],
                    all_commands=self.say(texts.ALL_COMMANDS_PER_MINUTE, cpm=s["cpm"]) if self._apm_tool else "",
                    s_refineries=s["refineries"],
                    s_harvesters=s["harvesters"],
                    s_queued=s["queued"],
                    tier2=tier2,
                    powers=self._powers_text(s),
                    s_groups=s["groups"],
                    mix=mix or self.say(texts.NONE),
                )
            )
        if self._apm_tool:
            out.append(self.say(texts.APM_NOTE))
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

    @property
    def _apm_tool(self) -> bool:
        """KW/TW: players know the APM of a tool that counts every command; show that number beside ours."""
        return self.terms.has("apm_tool")

    def _powers_text(self, s: dict[str, Any]) -> str:
        """Protocols picked (games with protocols) or support powers used (KW/TW): what the game has."""
        if self.terms.protocols or not self.terms.support_powers:
            return self.say(texts.PROTOCOL_COUNT, n=s["protocols"])
        return self.say(texts.SUPPORT_POWER_COUNT, n=s["support_powers"])

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
            "cpm": sum(1 for c in self.ix.replay.commands if c.player == slot) / max(dur / 60.0, 1e-6),
            "refineries": sum(1 for s in self.ix.build_order(slot) if self.is_refinery(s.name)),
            "harvesters": by_class.get("harvester", 0),
            "queued": sum(act.queued.values()),
            "army": army,
            "mix": sorted(by_class.items(), key=lambda kv: (-kv[1], kv[0])),
            "tier2": tier2,
            "tier3": tier3,
            "protocols": len(self.ix.protocols_of(slot)),
            "support_powers": sum(1 for _t, name in act.powers if "player_power" in self.tags(name)),
            "groups": len(self.groups_in(slot, 0.0, dur + 1.0)),
            "last": act.last_t if act.orders else 0.0,
            "gap": longest,
            "sells": act.sells,
            "attacks": act.attacks + act.attack_moves,
        }

    def _turning_points(self) -> str:
        lines = [self.say(texts.TURNING_POINTS)]
        events: list[tuple[float, str]] = []
        for m, c in self.attack_peaks(3):
            events.append(
                (
                    m * 60.0,
                    self.say(texts.ATTACK_ORDERS_ONE_OF_THE, m=m, m_1=m + 1, c=c),
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
                    self.say(texts.RELOCATES_THE_BASE_TO, short_t=short(t), pname_slot=self.pname(slot), xy=xy),
                )
            )
        for p in self.players:
            t3 = next((f for f in self.ix.first_productions(p.slot) if self.tier(f.name) >= 3), None)
            if t3 is not None:
                events.append(
                    (
                        t3.seconds,
                        self.say(
                            texts.FIRST_ORDERS_TIER,
                            short_t3_seconds=short(t3.seconds),
                            p_name=self.pname(p.slot),
                            disp_t3_name=self.disp(t3.name),
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
                            self.say(
                                texts.PICKS_TOP_PROTOCOL,
                                short_x_seconds=short(x.seconds),
                                p_name=self.pname(p.slot),
                                disp_x_name=self.disp(x.name),
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
                self.say(
                    texts.THE_END_S_LAST_ORDER, pname_slot=self.pname(slot), short_t=short(t), ends_1_0_t=ends[1][0] - t
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
            label = self.say(texts.TEAM, team=team + 1, names=names) if team < 1000 else names  # 1-based, as shown
            out.append((label, slots))
        return out

    def _decisive(self, stats: dict[int, dict[str, Any]]) -> str:
        sides = self._sides()
        if len(sides) < 2:
            return ""
        lines = [self.say(texts.DECISIVE_FACTORS_FROM_THE_DATA)]
        score: Counter[int] = Counter()

        def side_value(key: str, slots: list[int]) -> float | None:
            vals = [stats[x][key] for x in slots if stats[x][key] is not None]
            if not vals:
                return None
            return float(min(vals)) if key == "tier2" else float(sum(vals))

        def lead(key: str, higher: bool = True) -> None:
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
                self.say(
                    texts.LEADS_VS,
                    sides_s1_0=sides[s1][0],
                    fmt_v_v1=fmt_v(v1),
                    fmt_v_v2=fmt_v(v2),
                    label=self.say(texts.LEAD_LABELS[key]),
                )
            )

        for key in texts.LEAD_LABELS:
            lead(key, higher=key != "tier2")
        if score:
            best = max(range(len(sides)), key=lambda n: (score[n], -n))
            lines.append(self.say(texts.OVERALL_LEADS_IN_OF_THESE, sides_best_0=sides[best][0], score_best=score[best]))
            ends = sorted((max(self._last_order(x) for x in slots), n) for n, (_l, slots) in enumerate(sides))
            if ends[0][1] == best and ends[1][0] - ends[0][0] >= 5.0:
                lines.append(
                    self.say(
                        texts.YET_STOPPED_ISSUING_ORDERS_FIRST,
                        sides_best_0=sides[best][0],
                        short_ends_0_0=short(ends[0][0]),
                    )
                )
        else:
            lines.append(self.say(texts.THE_NUMBERS_ARE_CLOSE_NO))
        return "".join(lines) + "\n"

    def _advice(self, stats: dict[int, dict[str, Any]]) -> str:
        lines = [self.say(texts.ADVICE_PER_PLAYER)]
        for p in self.players:
            s = stats[p.slot]
            others = [stats[q.slot] for q in self.players if self.team(q.slot) != self.team(p.slot)]
            tips: list[str] = []

            def best(key: str, others: list[dict[str, Any]] = others) -> float:
                vals = [o[key] for o in others if o[key] is not None]
                return max(vals) if vals else 0.0

            if others and s["refineries"] + 2 <= best("refineries"):
                tips.append(
                    self.say(
                        texts.FEWER_REFINERIES_THAN_THE_OPPONENT,
                        best_refineries_s_refineries=best("refineries") - s["refineries"],
                    )
                )
            other_t2 = [o["tier2"] for o in others if o["tier2"] is not None]
            if s["tier2"] is None and other_t2:
                tips.append(self.say(texts.NEVER_REACHED_TIER_WHILE_THE))
            elif s["tier2"] is not None and other_t2 and s["tier2"] - min(other_t2) >= 60:
                tips.append(self.say(texts.TIER_CAME_S_AFTER_THE, s_tier2_min_other_t2=s["tier2"] - min(other_t2)))
            if others and s["army"] < 0.6 * best("army"):
                tips.append(self.say(texts.FAR_FEWER_COMBAT_UNITS_THAN))
            if others and s["apm"] < 0.7 * best("apm"):
                tips.append(self.say(texts.MUCH_LOWER_APM_THAN_THE))
            if s["groups"] == 0:
                tips.append(self.say(texts.NO_CONTROL_GROUPS_USED_LARGE))
            gap, at = s["gap"]
            if gap >= IDLE_GAP_S:
                tips.append(self.say(texts.S_WITHOUT_ANY_ORDER_AFTER, short_at=short(at), gap=gap))
            if s["protocols"] == 0 and self.terms.protocols:
                tips.append(self.say(texts.NO_PROTOCOLS_PICKED_THEIR_POWERS))
            if not tips:
                tips.append(self.say(texts.NO_METRIC_LAGS_THE_OPPONENT))
            lines.append(
                f"- {self.pname(p.slot)}"
                + self.say(texts.COLON)
                + self.say(texts.SEMICOLON).join(tips)
                + self.say(texts.FULL_STOP_LINE)
            )
        return "".join(lines) + "\n"

    def match_brief(self) -> str:
        """A two-line brief: what a bound analyst answers a request without stage data."""
        dur = self.ix.duration_seconds
        names = self.lst(
            [
                self.say(texts.PLAYER_FACTION, p_name=self.pname(p.slot), faction_p_slot=self.faction(p.slot))
                for p in self.players
            ]
        )
        return self.header() + self.say(texts.MATCH_LENGTH_PLAYERS, short_dur=short(dur), names=names)
