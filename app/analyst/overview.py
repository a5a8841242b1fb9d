"""The overview round: a title and sentences per planned segment, the course of the match, threads, lookbacks."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence

from app.analyst import texts
from app.analyst.base import LOOKBACK_AFTER_S, LOOKBACK_BEFORE_S, AnalystBase
from app.i18n import Lang
from app.timefmt import format_clock as short  # m:ss in prose


class OverviewRound(AnalystBase):
    """Writes the overview of the whole match from the plan's segments."""

    # ------------------------------------------------------------------ overview

    def overview(self) -> str:
        """The overview round reply."""
        out = [self.header(), self.say(texts.OVERVIEW)]
        dur = self.ix.duration_seconds
        out.append(
            self.say(
                texts.MATCH_LENGTH_PLAYERS_PARAGRAPH,
                length=short(dur),
                players=self.lst(
                    [
                        self.say(texts.PLAYER_FACTION, p_name=self.pname(p.slot), faction_p_slot=self.faction(p.slot))
                        for p in self.players
                    ]
                ),
            )
        )
        out.append(self.say(texts.SEGMENTS))
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
            traits.append((0, self.say(texts.OPENING)))
        if attacks / minutes / per_player >= 4:
            traits.append((1, self.say(texts.FIGHTING)))
        if any(s.action.value == "unpack" for s, _slot in packs):
            traits.append((2, self.say(texts.BASE_RELOCATION)))
        if high_tier or protos:
            traits.append((3, self.say(texts.TECH_UP)))
        if refineries:
            traits.append((4, self.say(texts.ECONOMIC_EXPANSION)))
        if sum(len(v) for v in builds.values()) / minutes / per_player >= 1:
            traits.append((5, self.say(texts.BUILD_UP)))
        chosen = [t for _, t in sorted(traits)[:2]] or [self.say(texts.MANOEUVRE_AND_ECONOMY)]
        title = self.say(texts.AND).join(chosen)
        if self.lang is Lang.EN:
            title = title[0].upper() + title[1:]
        sentences = []
        for p in self.players:
            act = acts[p.slot]
            bits = []
            if builds[p.slot]:
                bits.append(self.say(texts.PLACED_STRUCTURES, len_builds_p_slot=len(builds[p.slot])))
            new = [f for f in firsts if f.player == p.slot]
            if new:
                bits.append(self.say(texts.FIRST_ORDERED) + self.lst([self.disp(f.name) for f in new], 3))
            queued = sum(act.queued.values())
            if queued:
                bits.append(self.say(texts.QUEUED_UNITS, queued=queued))
            if bits:
                sentences.append(f"{self.pname(p.slot)}" + self.say(texts.COLON) + self.say(texts.COMMA).join(bits))
        if protos:
            sentences.append(
                self.say(texts.PROTOCOLS_2)
                + self.lst([f"{self.pname(s)} {short(x.seconds)} {self.disp(x.name)}" for x, s in protos], 4)
            )
        if packs:
            s, slot = packs[0]
            sentences.append(self.pack_step_sentence(texts.S_BASE_VEHICLE_AT, s, slot))
        if attacks:
            pts = [p for x in acts.values() for p in x.points if p[1] != "move"]
            if pts:
                _cell, top = self.clusters(pts)[0]
                cx, cy = sum(p[2] for p in top) / len(top), sum(p[3] for p in top) / len(top)
                sentences.append(
                    self.say(texts.ATTACK_ORDERS_MOST_AT, attacks=attacks, where_cx_cy_b=self.where(cx, cy, b))
                )
            else:
                sentences.append(self.say(texts.ATTACK_ORDERS, attacks=attacks))
        body = (
            self.say(texts.SEMICOLON).join(sentences) + self.say(texts.SENTENCE_END)
            if sentences
            else self.say(texts.NOTHING_NOTABLE_HAPPENED)
        )
        return self.say(texts.SEGMENT_LINE, n_1=n + 1, short_a=short(a), short_b=short(b), title=title, body=body)

    def _course(self) -> str:
        dur = max(self.ix.duration_seconds, 1.0)
        acts = self.activity(0.0, dur + 1.0)
        lines = [self.say(texts.COURSE_OF_THE_MATCH)]
        for p in self.players:
            act = acts[p.slot]
            if not act.orders:
                continue
            tiers = [(f.seconds, self.tier(f.name), f.name) for f in self.ix.first_productions(p.slot)]
            t2 = next(((t, n) for t, tier, n in tiers if tier >= 2), None)
            t3 = next(((t, n) for t, tier, n in tiers if tier >= 3), None)
            bits = [self.say(texts.MATCH_APM, act_orders_dur_60=act.orders / (dur / 60))]
            refineries = sum(1 for s in self.ix.build_order(p.slot) if self.is_refinery(s.name))
            bits.append(self.say(texts.REFINERIES, refineries=refineries))
            if t2 and t2 != t3:
                bits.append(self.say(texts.TIER_AT, short_t2_0=short(t2[0]), disp_t2_1=self.disp(t2[1])))
            if t3:
                bits.append(self.say(texts.TIER_AT_2, short_t3_0=short(t3[0]), disp_t3_1=self.disp(t3[1])))
            bits.append(self.say(texts.LAST_ORDER_AT, short_act_last_t=short(act.last_t)))
            lines.append(f"- {self.pname(p.slot)}" + self.say(texts.COLON) + self.say(texts.COMMA).join(bits) + "\n")
        peaks = self.attack_peaks(3)
        if peaks:
            lines.append(
                self.say(texts.BUSIEST_FIGHTING_MINUTES)
                + self.lst([self.say(texts.MINUTE_COUNT, m=m, m_1=m + 1, c=c) for m, c in peaks])
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
                        self.say(
                            texts.PACKED_YARD_AT_SEGMENT_AND,
                            pname_c_player=self.pname(c.player),
                            seg_of_s_seconds=seg_of(s.seconds),
                            short_s_seconds=short(s.seconds),
                            s_object_id=s.object_id,
                        )
                    )
                else:
                    pos = f" ({int(nxt.position[0])}, {int(nxt.position[1])})" if nxt.position else ""
                    lines.append(
                        self.say(
                            texts.PACKED_YARD_AT_SEGMENT_AND_2,
                            pname_c_player=self.pname(c.player),
                            seg_of_s_seconds=seg_of(s.seconds),
                            short_s_seconds=short(s.seconds),
                            s_object_id=s.object_id,
                            seg_of_nxt_seconds=seg_of(nxt.seconds),
                            short_nxt_seconds=short(nxt.seconds),
                            pos=pos,
                            nxt_object_id=nxt.object_id,
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
                    self.say(
                        texts.SWITCHED_MAIN_PRODUCTION_FROM_TO,
                        p_name=self.pname(p.slot),
                        n2_1=n2 + 1,
                        class_label_c1=self.class_label(c1),
                        class_label_c2=self.class_label(c2),
                    )
                )
            protos = self.ix.protocols_of(p.slot)
            if protos:
                lines.append(
                    self.say(texts.S_PROTOCOL_ORDER, p_name=self.pname(p.slot))
                    + self.lst(
                        [
                            self.say(
                                texts.PROTOCOL_IN_SEGMENT,
                                time=short(x.seconds),
                                name=self.disp(x.name),
                                segment=seg_of(x.seconds),
                            )
                            for x in protos
                        ],
                        10,
                    )
                    + "\n"
                )
        if not lines:
            return ""
        return self.say(texts.CROSS_SEGMENT_THREADS) + "".join(lines) + "\n"

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
                    self.say(
                        texts.WHEN_ANALYSING_SEGMENT_LOOK_BACK,
                        n_1=n + 1,
                        short_lo=short(lo),
                        short_hi=short(hi),
                        uid=uid,
                        short_first=short(first),
                    )
                )
        for c in self.ix.pack_chains:
            for s in c.steps:
                if s.action.value == "unpack":
                    seg_n = next((n for n, _sa, a, b in segs if a <= s.seconds < b), None)
                    if seg_n:
                        lines.append(
                            self.say(
                                texts.THE_DEPLOY_IN_SEGMENT_FOLLOWS, seg_n_1=seg_n + 1, short_s_seconds=short(s.seconds)
                            )
                        )
                    break
        if not lines:
            lines.append(self.say(texts.EACH_SEGMENT_S_DATA_STANDS))
        return self.say(texts.LOOKBACK_SUGGESTIONS) + "".join(lines[:6]) + "\n"
