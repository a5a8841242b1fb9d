"""The window round: one focus period of one segment, its lookback follow-up and its revision.

The prose lives here; the claims and their evidence come from :class:`~app.analyst.window_evidence.WindowEvidence`.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Sequence

from app.analyst import texts
from app.analyst.base import (
    FIGHT_GAP_S,
    LOOKBACK_AFTER_S,
    LOOKBACK_BEFORE_S,
    MAX_EARLY_LISTED,
    Activity,
    Claim,
)
from app.analyst.window_evidence import WindowEvidence
from app.llm.stage import StageInfo
from app.safetext import markdown_escape
from app.timefmt import format_clock as short  # m:ss in prose
from app.timefmt import format_time as fmt  # m:ss.cc in claims


class WindowRound(WindowEvidence):
    """Writes the analysis of a focus window, with claims that are true by construction."""

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
            self.say(texts.WINDOW_HEADING, label=label, short_a=short(a), short_b=short(b))
            if label
            else self.say(texts.FOCUS_PERIOD, short_a=short(a), short_b=short(b))
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
                self.say(texts.FIRST_APPEARS_BEFORE_THIS_SLICE, early_0=early[0], fmt_lo=fmt(lo), fmt_hi=fmt(hi))
            )
        if stage.phase == "revision":
            out.append(self.say(texts.REVISION_NOTE_EVERY_CLAIM_BELOW))
        out.append(self.claims_block(claims))
        return "".join(out)

    def _window_lead(self, acts: dict[int, Activity], a: float, b: float, minutes: float) -> str:
        total = sum(x.orders for x in acts.values())
        if not total:
            return self.say(texts.NO_PLAYER_ISSUED_ORDERS_IN)
        busiest = max(self.players, key=lambda p: (acts[p.slot].orders, -p.slot))
        attacks = sum(x.attacks + x.attack_moves for x in acts.values())
        builds = sum(len(self.builds_in(p.slot, a, b)) for p in self.players)
        parts = [
            self.say(
                texts.PLAYER_ORDERS_IN_THIS_PERIOD,
                total=total,
                total_minutes=total / minutes,
                busiest_name=self.pname(busiest.slot),
            )
        ]
        if builds:
            parts.append(self.say(texts.STRUCTURES_PLACED, builds=builds))
        if attacks:
            parts.append(self.say(texts.ATTACK_AND_ATTACK_MOVE_ORDERS, attacks=attacks))
        steps = [(s, p.slot) for p in self.players for s in self.pack_steps_in(p.slot, a, b)]
        if steps:
            s, slot = steps[0]
            parts.append(self.pack_step_sentence(texts.THE_BASE_VEHICLE_AT, s, slot))
        return self.say(texts.CLAUSE_SEP).join(parts) + self.say(texts.PARAGRAPH_END)

    def _player_block(self, slot: int, act: Activity, a: float, b: float, minutes: float) -> str:
        name = self.pname(slot)
        lines = [self.say(texts.PLAYER_HEADING, name=name, faction_slot=self.faction(slot))]
        if not act.orders:
            lines.append(self.say(texts.NO_ORDERS_IN_THIS_PERIOD))
            return "".join(lines)
        apm = act.orders / minutes
        lines.append(
            self.say(
                texts.APM_ORDERS_PER_MINUTE_ORDERS,
                apm=apm,
                act_orders=act.orders,
                act_moves=act.moves,
                act_attack_moves=act.attack_moves,
                act_attacks=act.attacks,
            )
        )
        builds = self.builds_in(slot, a, b)
        if builds:
            lines.append(
                self.say(texts.BUILD_ORDER) + self.lst([f"{short(t)} {self.disp(n)}" for t, n in builds], 12) + "\n"
            )
        firsts = self.firsts_in(slot, a, b)
        if firsts:
            lines.append(
                self.say(texts.NEW_TYPES_FIRST_ORDERED)
                + self.lst([f"{self.disp(f.name)} {short(f.seconds)}" for f in firsts])
                + "\n"
            )
            top = max(firsts, key=lambda f: (self.tier(f.name), -f.time_code))
            if self.tier(top.name) >= 2:
                lines.append(
                    self.say(
                        texts.TECH_FIRST_TIER_TYPE_ORDERED,
                        short_top_seconds=short(top.seconds),
                        tier_top_name=self.tier(top.name),
                        disp_top_name=self.disp(top.name),
                    )
                )
        if act.queued:
            ranked = sorted(act.queued.items(), key=lambda kv: (-kv[1], kv[0]))
            by_class: Counter[str] = Counter()
            for n, c in act.queued.items():
                by_class[self.unit_class(n)] += c
            mix = self.say(texts.COMMA).join(
                f"{self.class_label(k)} {v}" for k, v in sorted(by_class.items(), key=lambda kv: (-kv[1], kv[0]))
            )
            lines.append(
                self.say(texts.UNITS_QUEUED)
                + self.lst([f"{self.disp(n)}×{c}" for n, c in ranked])
                + self.say(texts.CLASS_MIX, mix=mix)
                + "\n"
            )
        if act.upgrades:
            lines.append(
                self.say(texts.UPGRADES) + self.lst([f"{short(t)} {self.disp(n)}" for t, n in act.upgrades]) + "\n"
            )
        protos = self.protocols_in(slot, a, b)
        if protos:
            lines.append(
                self.say(texts.PROTOCOLS) + self.lst([f"{short(x.seconds)} {self.disp(x.name)}" for x in protos]) + "\n"
            )
        if act.powers:
            counts = Counter(n for _, n in act.powers)
            firsts_at = {n: min(t for t, m in act.powers if m == n) for n in counts}
            lines.append(
                self.say(texts.POWERS)
                + self.lst(
                    [
                        self.say(
                            texts.POWER_COUNT_FIRST, disp_n=self.disp(n), c=c, short_firsts_at_n=short(firsts_at[n])
                        )
                        for n, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
                    ]
                )
                + "\n"
            )
        econ = []
        refineries = [n for _, n in builds if self.is_refinery(n)]
        if refineries:
            econ.append(self.say(texts.NEW_REFINERIES, len_refineries=len(refineries)))
        harvesters = sum(c for n, c in act.queued.items() if self.unit_class(n) == "harvester")
        if harvesters:
            econ.append(self.say(texts.HARVESTERS_QUEUED, harvesters=harvesters))
        if act.harvest:
            econ.append(self.say(texts.HARVEST_ORDERS, act_harvest=act.harvest))
        if act.nodes:
            econ.append(
                self.say(
                    texts.ORE_NODES,
                    count=len(act.nodes),
                    ids=self.say(texts.ENUM_SEP).join(f"#{n}" for n in sorted(act.nodes)),
                )
            )
        if act.sells:
            econ.append(self.say(texts.STRUCTURES_SOLD, act_sells=act.sells))
        if act.repairs:
            econ.append(self.say(texts.REPAIR_ORDERS, act_repairs=act.repairs))
        if econ:
            lines.append(self.say(texts.ECONOMY) + self.lst(econ) + "\n")
        packs = self.pack_steps_in(slot, a, b)
        if packs:
            lines.append(
                self.say(texts.BASE_VEHICLE)
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
                self.say(
                    texts.CONTROL_GROUPS_ASSIGNMENTS_GROUPS_THE,
                    len_groups=len(groups),
                    numbers=numbers,
                    short_big_seconds=short(big.seconds),
                    big_group=big.group,
                    len_big_members=len(big.members),
                )
            )
        if act.points:
            parts = []
            for _cell, pts in self.clusters(act.points)[: 3 if len(self.players) <= 2 else 2]:
                cx = sum(p[2] for p in pts) / len(pts)
                cy = sum(p[3] for p in pts) / len(pts)
                t0, t1 = min(p[0] for p in pts), max(p[0] for p in pts)
                parts.append(
                    self.say(
                        texts.ORDER_CLUSTER,
                        where_cx_cy_t1=self.where(cx, cy, t1),
                        len_pts=len(pts),
                        kinds_text_pts=self.kinds_text(pts),
                        short_t0=short(t0),
                        short_t1=short(t1),
                    )
                )
            lines.append(self.say(texts.ARMY_ORDERS_CONCENTRATE_AT) + self.say(texts.SEMICOLON).join(parts))
            lines.append("\n")
        if act.attacks_on:
            lines.append(
                self.say(texts.ATTACK_TARGETS)
                + self.lst(
                    [
                        self.say(texts.ATTACK_ORDERS_ON_OBJECTS_PROVEN, c=c, pname_o=self.pname(o))
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
            return self.say(texts.FIGHTS_NO_AREA_RECEIVED_ARMY)
        lines = [self.say(texts.FIGHTS_INFERRED)]
        for _cell, per in found[:3]:
            pts = [p for v in per.values() for p in v]
            cx = sum(p[2] for p in pts) / len(pts)
            cy = sum(p[3] for p in pts) / len(pts)
            t0, t1 = min(p[0] for p in pts), max(p[0] for p in pts)
            who = self.lst([f"{self.pname(s)} {len(v)}" for s, v in sorted(per.items())])
            lines.append(
                self.say(
                    texts.AT_ARMY_ORDERS_FROM_BOTH,
                    short_t0=short(t0),
                    short_t1=short(t1),
                    where_cx_cy_t1=self.where(cx, cy, t1),
                    who=who,
                )
            )
        pairs = [
            f"{self.pname(slot)}→{self.pname(o)} {c}"
            for slot, act in sorted(acts.items())
            for o, c in sorted(act.attacks_on.items())
        ]
        if pairs:
            lines.append(self.say(texts.ATTACK_ORDERS_ON_PROVEN_ENEMY) + self.lst(pairs, 12) + "\n")
        return "".join(lines) + "\n"

    def _verified_objects(self, claims: Sequence[Claim], a: float, b: float) -> str:
        """The claimed objects in prose, one line per player and role (what each one demonstrably did)."""
        units = [c.data for c in claims if c.section == "unitClaims"]
        if not units:
            return ""
        what = {
            "group": self.say(texts.PUT_IN_A_CONTROL_GROUP),
            "build": self.say(texts.ORDERED_STRUCTURES_AS_CONSTRUCTORS),
            "produce": self.say(texts.TOOK_PRODUCTION_ORDERS_AS_FACTORIES),
            "power": self.say(texts.CAST_POWERS),
            "repair": self.say(texts.WERE_REPAIRED),
            "sell": self.say(texts.WERE_SOLD),
        }
        rows: dict[tuple[str, str], list[tuple[int, str]]] = {}
        for d in units:
            kind, time_text = str(d["evidence"][0]).split("|")[:2]
            rows.setdefault((str(d["player"]), kind), []).append((int(d["unitId"]), time_text[:-3]))
        items = []
        for (player, kind), objs in rows.items():
            ids = self.say(texts.ENUM_SEP).join(self.say(texts.OBJECT_AT, uid=uid, t=t) for uid, t in objs)
            made = ""
            slot = self.ix.player_slot(player)
            if kind == "produce":
                wanted = {uid for uid, _ in objs}
                types = [
                    n
                    for fid, names in self.ix.factories(slot if slot is not None else -1)
                    if fid in wanted
                    for n in names
                ]
                if types:
                    made = self.say(
                        texts.THEY_PRODUCED,
                        lst_disp_n_for_n_in_dict_fromkeys_types=self.lst(
                            [self.disp(n) for n in dict.fromkeys(types)], 5
                        ),
                    )
            items.append(
                self.say(
                    texts.OWNERSHIP_ROW,
                    player=self.pname(slot) if slot is not None else markdown_escape(player),
                    ids=ids,
                    what_get_kind_kind=what.get(kind, kind),
                    made=made,
                )
            )
        return self.say(texts.VERIFIED_OBJECT_OWNERSHIP) + "".join(items) + "\n"

    def _relations(self, a: float, b: float, sa: float, early: Sequence[int], stage: StageInfo) -> str:
        """Links to events outside the focus period: earlier tech, base moves, what comes next, early objects."""
        lines: list[str] = []
        sep = self.say(texts.SEMICOLON)
        for p in self.players:
            bits: list[str] = []
            before = [f for f in self.ix.first_productions(p.slot) if f.seconds < a]
            if before:
                top = max(before, key=lambda f: (self.tier(f.name), -f.time_code))  # first of the highest tier
                if self.tier(top.name) >= 2:
                    bits.append(
                        self.say(
                            texts.REACHED_TIER_EARLIER_WITH_AT,
                            short_top_seconds=short(top.seconds),
                            tier_top_name=self.tier(top.name),
                            disp_top_name=self.disp(top.name),
                        )
                    )
            protos = [x for x in self.ix.protocols_of(p.slot) if x.seconds < a]
            if protos:
                bits.append(
                    self.say(
                        texts.PROTOCOL_S_PICKED_BEFORE_LATEST,
                        len_protos=len(protos),
                        short_protos_1_seconds=short(protos[-1].seconds),
                        disp_protos_1_name=self.disp(protos[-1].name),
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
                            self.say(
                                texts.THE_BASE_VEHICLE_AT_THIS,
                                short_prev_1_seconds=short(prev[-1].seconds),
                                pack_label_prev_1_action_value=self.pack_label(prev[-1].action.value),
                            )
                        )
                    if nxt:
                        bits.append(
                            self.say(
                                texts.LATER_THE_BASE_VEHICLE_AT,
                                short_nxt_0_seconds=short(nxt[0].seconds),
                                pack_label_nxt_0_action_value=self.pack_label(nxt[0].action.value),
                            )
                        )
            after = [f for f in self.ix.first_productions(p.slot) if f.seconds >= b]
            if after:
                bits.append(
                    self.say(
                        texts.NEXT_NEW_TYPE_AFTERWARDS_AT,
                        short_after_0_seconds=short(after[0].seconds),
                        disp_after_0_name=self.disp(after[0].name),
                    )
                )
            if bits:
                lines.append(
                    f"- {self.pname(p.slot)}" + self.say(texts.COLON) + sep.join(bits) + self.say(texts.FULL_STOP_LINE)
                )
        for uid in early[-MAX_EARLY_LISTED:]:  # the objects whose origin is closest to this slice say the most
            first = self.ix.first_seen(uid) or 0.0
            owner = self.owner_of(uid)
            who = self.pname(owner) if owner is not None else "?"
            served = next((r for r in stage.served if r[0] - 1e-6 <= first <= r[1] + 1e-6), None)
            if served is not None:
                evs = [e for e in self.ix.events_for_object(uid) if served[0] <= e.seconds <= served[1]]
                lines.append(
                    self.say(
                        texts.THE_LOOKBACK_RAW_ORDERS_SHOWS,
                        short_served_0=short(served[0]),
                        short_served_1=short(served[1]),
                        served_lines_served=self.served_lines(served),
                        uid=uid,
                        fmt_first=fmt(first),
                        event_label_evs_0_if_evs_else=self.event_label(evs[0]) if evs else "?",
                        who=who,
                    )
                )
            else:
                lines.append(
                    self.say(
                        texts.ALREADY_APPEARED_AT_BEFORE_THIS,
                        uid=uid,
                        who=who,
                        fmt_first=fmt(first),
                        short_sa=short(sa),
                    )
                )
        if not lines:
            return ""
        return self.say(texts.LINKS_OUTSIDE_THIS_PERIOD) + "".join(lines) + "\n"
