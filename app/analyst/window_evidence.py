"""What a focus window's claims are made of: its time range, the units and casts in it, and their evidence.

Why apart from the prose: every claim the offline analyst writes must be true by construction, so the code that
chooses claims and their evidence is kept where it can be read (and checked) without the wording around it.
"""

from __future__ import annotations

from typing import Any

from app.analyst import texts
from app.analyst.base import (
    BUILD_CLAIMS_PER_PLAYER,
    CAST_IDS,
    POWER_CLAIMS_PER_PLAYER,
    TIMELINE_CLAIMS_PER_PLAYER,
    UNIT_CLAIMS_PER_PLAYER,
    AnalystBase,
    Claim,
)
from app.llm.stage import StageInfo
from app.timefmt import format_time as fmt  # m:ss.cc in claims


class WindowEvidence(AnalystBase):
    """Chooses a window's claims and the replay evidence behind each."""

    def window_range(self, stage: StageInfo) -> tuple[float, float, float, float, str]:
        """Focus start/end, slice start/end and a label for a window request."""
        if self.plan is not None and 0 <= stage.segment < len(self.plan.segments):
            seg = self.plan.segments[stage.segment]
            if 0 <= stage.window < len(seg.windows):
                w = seg.windows[stage.window]
                label = self.say(
                    texts.SEGMENT_FOCUS_PERIOD,
                    seg_index_1=seg.index + 1,
                    w_index_1=w.index + 1,
                    len_seg_windows=len(seg.windows),
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
            "group": self.say(texts.CONTROL_GROUP_MEMBER),
            "build": self.say(texts.CONSTRUCTOR),
            "produce": self.say(texts.FACTORY),
            "repair": self.say(texts.REPAIR),
            "sell": self.say(texts.SOLD),
            "harvest": self.say(texts.HARVESTER_ORDER),
            "power": self.say(texts.POWER_CASTER),
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
                    Claim("eventClaims", {"time": fmt(t), "player": who, "kind": "power", "name": power, "unitId": uid})
                )
            for f in self.firsts_in(slot, a, b)[:TIMELINE_CLAIMS_PER_PLAYER]:
                if self._type_known(f.name):
                    claims.append(Claim("timelineClaims", {"player": who, "type": f.name, "firstTime": fmt(f.seconds)}))
        return self.checked(claims)

    def casts_in(self, slot: int, a: float, b: float) -> list[tuple[float, int, str]]:
        """Casts (0x1FE/0x200) by ``slot`` in [a, b) whose caster has caster evidence of this player only."""
        from app.facts.roles import RoleIds

        roles = RoleIds(self.ix.replay.game)  # KW 0x226 / TW 0x21C cast as RA3's 0x1FE does
        out: list[tuple[float, int, str]] = []
        done: set[int] = set()
        for ev in self.ix.events_between(a, b, player=slot):
            if roles[ev.command_id] not in CAST_IDS or ev.type_hash is None:
                continue
            for uid in ev.object_ids:
                if not uid or uid in done:
                    continue
                casters = {e.player for e in self.ix.evidence(uid) if e.role.value == "caster"}
                if casters == {slot}:
                    done.add(uid)
                    out.append((ev.seconds, uid, self.ix.name_of(ev.type_hash)))
        return out

    def served_lines(self, rng: tuple[float, float]) -> int:
        """How many raw log lines a served lookback range holds."""
        if self.log is not None:
            return len(self.log.lines_between(rng[0], rng[1]))
        return sum(1 for e in self.ix.events_between(rng[0], rng[1]) if not e.automatic)

    def event_label(self, ev: Any) -> str:
        """An event as prose: player, command and type."""
        from app.replay.commands import command_info

        info = command_info(self.ix.replay.game, ev.command_id)
        what = info.name(self.lang.value)
        extra = f" {self.disp(self.ix.name_of(ev.type_hash))}" if ev.type_hash is not None else ""
        return f"{self.pname(ev.player)} {what}{extra}"
