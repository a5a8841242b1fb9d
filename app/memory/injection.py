"""Use in analysis: which facts go into the system prompt, and how they are worded (spec §4.1, §6.2, §7.2).

The text sits in the cached, stable prompt prefix, so it must be deterministic: fixed section order
(analyst, players in the given order, map, model), then confidence, attribute and id; no timestamps.
≥ 0.8 is stated directly, 0.5–0.8 is hedged "（可能）", below 0.5 stays out (on demand only). A fact whose
supersede chain holds 3 or more facts is marked unstable; a fact whose evidence all shares one context gets
a boundary hint; facts about players and replays untouched for long drop out (they stay searchable).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import select

from app.i18n import Lang, tr
from app.memory import ledger
from app.memory.candidates import SPLIT_KEYS
from app.memory.model import FactStatus, FactType
from app.memory.tables import MemFact, MemInjection, MemSource
from app.safetext import one_line
from app.store import Database

DAY = 86400.0
STALE_AFTER_DAYS = 180
STALE_PREFIXES = ("player:", "replay:")
UNSTABLE_CHAIN = 3


@dataclass(frozen=True, slots=True)
class Injection:
    """The memory block for the system prompt and the ids of the facts in it (to record)."""

    text: str
    fact_ids: tuple[int, ...]


def boundary_hint(contexts: Sequence[dict[str, str]], scope: dict[str, str], lang: Lang) -> str:
    """Hint "learned only in one context" when every source shares a value the scope does not fix (§7.2)."""
    if not contexts:
        return ""
    for key in SPLIT_KEYS:
        if key in scope:
            continue
        values = {c.get(key, "") for c in contexts}
        if len(values) == 1:
            value = values.pop()
            if value:
                return tr(lang, " (learned only where {key}={value}; use with care elsewhere)", key=key, value=value)
    return ""


def shift_note(trail: Sequence[tuple[float, int]], lang: Lang) -> str:
    """The evidence trail when it changed direction (spec §5.2 ``render_evolution``), else "".

    A model told that a preference turned recently stays open to it turning again.
    """
    ordered = sorted(trail)
    shift = next((ts for (ts, pol), (_t0, prev) in zip(ordered[1:], ordered, strict=False) if pol != prev), None)
    if shift is None:
        return ""
    day = datetime.fromtimestamp(shift, tz=UTC).strftime("%Y-%m-%d")
    return tr(lang, " (trail: {count} pieces of evidence, direction changed on {day})", count=len(ordered), day=day)


def is_stale(f: MemFact, now: float) -> bool:
    """True for player/replay facts with no evidence and no use for 180 days (kept, not injected)."""
    if f.dormant:
        return True
    if not f.subject.startswith(STALE_PREFIXES):
        return False
    touched = max(f.last_evidence_at, f.last_used_at or 0.0, f.activated_at or 0.0)
    return now - touched > STALE_AFTER_DAYS * DAY


def confirmed_at(f: MemFact) -> float:
    """When the memory last learned something about the fact (evidence recorded, activated, ruled on).

    Decay counts from here, not from the replay's date: an analyst who studies a 2014 replay today learns today.
    """
    return max(f.last_evidence_at, f.activated_at or 0.0, f.updated_at)


def injection_for(
    db: Database, players: Sequence[str], map_name: str, model: str, analyst: str, *, lang: Lang, now: float
) -> Injection:
    """Build the memory block for one analysis (see the module docstring for the policy)."""
    sections: list[str] = []
    if analyst:
        sections.append(f"analyst:{analyst}")
    sections.extend(f"player:{p}" for p in players if p)
    if map_name:
        sections.append(f"map:{map_name}")
    if model:
        sections.append(f"model:{model}")
    if not sections:
        return Injection("", ())
    order = {subj: i for i, subj in enumerate(dict.fromkeys(sections))}
    with db.session() as s:
        rows = s.scalars(
            select(MemFact).where(
                MemFact.subject.in_(list(order)),
                MemFact.status == FactStatus.ACTIVE.value,
                MemFact.confidence >= ledger.HEDGED_THRESHOLD,
                MemFact.type != FactType.PROJECT_FACT.value,
            )
        ).all()
        standing = {f.id: ledger.decayed(f.confidence, f.type, (now - confirmed_at(f)) / ledger.DAY_S) for f in rows}
        rows = [f for f in rows if not is_stale(f, now) and standing[f.id] >= ledger.HEDGED_THRESHOLD]
        rows.sort(key=lambda f: (order[f.subject], -standing[f.id], f.attribute, f.id))
        ctx: dict[int, list[dict[str, str]]] = {}
        trail: dict[int, list[tuple[float, int]]] = {}
        if rows:
            for fid, c, pol, ts in s.execute(
                select(MemSource.fact_id, MemSource.context, MemSource.polarity, MemSource.ts).where(
                    MemSource.fact_id.in_([f.id for f in rows])
                )
            ).all():
                trail.setdefault(fid, []).append((ts, pol))
                if pol > 0:
                    ctx.setdefault(fid, []).append(json.loads(c or "{}"))
        lines: list[str] = []
        ids: list[int] = []
        for f in rows:
            content = f.content_zh if lang is Lang.ZH else f.content_en
            _tier, text = ledger.inject_policy(standing[f.id], content, lang.value)
            text += boundary_hint(ctx.get(f.id, []), json.loads(f.scope), lang)
            text += shift_note(trail.get(f.id, []), lang)
            if f.chain_depth + 1 >= UNSTABLE_CHAIN:
                n = f.chain_depth + 1
                text += tr(lang, " (unstable: changed {n} times, confirm each session)", n=n)
            lines.append(f"- {one_line(text)}")  # facts may quote replay names: one line each
            ids.append(f.id)
    if not lines:
        return Injection("", ())
    head = tr(lang, "[Memory] Facts distilled from earlier analyses (this replay's facts take precedence):")
    return Injection(head + "\n" + "\n".join(lines), tuple(ids))


def record_injection(db: Database, analysis_id: int, fact_ids: Sequence[int], now: float) -> None:
    """Record what was injected into an analysis and mark the facts as used."""
    if not fact_ids:
        return
    with db.session() as s:
        s.add_all(MemInjection(analysis_id=analysis_id, fact_id=i, ts=now) for i in fact_ids)
        for f in s.scalars(select(MemFact).where(MemFact.id.in_(list(fact_ids)))).all():
            f.last_used_at = now
