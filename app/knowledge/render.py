"""Render game knowledge into the system prompt: only the factions that take part, flat text plus entries.

Rendering is a pure function of its inputs (no dialogs, no writes, no network), so the same replay and settings
give a byte-identical prompt: the stable prefix the providers cache (plan §6, §8.2, §8.4).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from app.i18n import Lang, tr
from app.knowledge.model import KINDS, Entry, Knowledge

if TYPE_CHECKING:
    from app.replay.model import Replay

_SYNONYMS = {
    "allies": "Allies",
    "allied": "Allies",
    "盟军": "Allies",
    "soviets": "Soviets",
    "soviet": "Soviets",
    "ussr": "Soviets",
    "苏联": "Soviets",
    "苏军": "Soviets",
    "empire": "Empire",
    "japan": "Empire",
    "rising sun": "Empire",
    "升阳": "Empire",
    "帝国": "Empire",
    "升阳帝国": "Empire",
    "celestial": "Celestial",
    "神州": "Celestial",
}
SHARED_FACTION = "Neutral"


def normalize_factions(knowledge: Knowledge, factions: Iterable[str]) -> list[str]:
    """Map user/header spellings (``Japan``, ``盟军``…) to faction keys, in the mod's faction order.

    Unknown spellings are dropped; the shared pseudo-faction is never returned (it is always rendered).
    """
    wanted: set[str] = set()
    for f in factions:
        text = str(f).strip()
        key = _SYNONYMS.get(text.lower())
        if key is None:
            for fk, info in knowledge.taxonomy.factions.items():
                labels = {fk.lower(), str(info.get("zh", "")).lower(), str(info.get("en", "")).lower()}
                if text.lower() in labels:
                    key = fk
                    break
        if key and key != SHARED_FACTION:
            wanted.add(key)
    order = [f for f in knowledge.factions if f in wanted]
    return order + sorted(wanted - set(order))


def render_prompt(
    knowledge: Knowledge,
    factions: set[str] | Iterable[str],
    lang: Lang,
    *,
    general: bool = True,
    workflow: bool = True,
    faction_texts: bool = True,
    entries: bool = True,
) -> str:
    """The knowledge part of the system prompt for a match between ``factions``.

    Args:
        knowledge: The mod's knowledge (chosen from the replay header by the caller or :func:`prompt_for_replay`).
        factions: Participating factions (keys like ``Allies``; common spellings accepted). Sections and entries of
            other factions are left out; shared entries (deploy, pack…) are always included.
        lang: Prompt language.
        general: Include the general mechanics section.
        workflow: Include the workflow section (it repeats the role's workflow: small contexts keep one copy).
        faction_texts: Include the participating factions' sections.
        entries: Include the structured entries (small contexts send only a slice's own types, with the slice:
            :func:`entry_lines_for`).

    Returns:
        Markdown text: general mechanics, the analysis workflow, one section per participating faction, then the
        structured entries of those factions.
    """
    chosen = normalize_factions(knowledge, factions)
    out: list[str] = []
    labels = "、".join if lang is Lang.ZH else ", ".join
    names = labels(knowledge.taxonomy.faction_label(f, lang) for f in chosen) or tr(lang, "(unknown)")
    out.append(tr(lang, "# Game knowledge: {lang_value}", lang_value=knowledge.title(lang)))
    out.append(tr(lang, "Factions in this match: {names}. Only their material follows.", names=names))
    sections = knowledge.texts.get(lang) or knowledge.texts.get(Lang.EN if lang is Lang.ZH else Lang.ZH) or ()
    for key, wanted in (("general", general), ("workflow", workflow)):
        out.extend(s.body for s in sections if s.key == key and wanted)
    for faction in chosen if faction_texts else []:
        out.extend(s.body for s in sections if s.faction == faction)
    if entries:
        out.append(_render_entries(knowledge, chosen, lang))
    return "\n\n".join(part.strip("\n") for part in out if part.strip()) + "\n"


def _render_entries(knowledge: Knowledge, factions: list[str], lang: Lang) -> str:
    lines = [tr(lang, "## Structured entries")]
    lines.append(
        tr(
            lang,
            "Each line: `internal name` (as in the replay's orders) display name | tags | cost/time "
            "| producer or user | tier. Internal names marked 'unconfirmed' are informed guesses "
            "whose hash was not yet seen in the corpus.",
        )
    )
    used_tags: set[str] = set()
    for faction in [*factions, SHARED_FACTION]:
        entries = knowledge.select(faction=faction)
        if not entries:
            continue
        lines.append(f"### {knowledge.taxonomy.faction_label(faction, lang)}")
        for kind in KINDS:
            group = [e for e in entries if e.kind == kind]
            if not group:
                continue
            label = knowledge.taxonomy.kinds.get(kind, {})
            lines.append(f"#### {label.get(lang.value, kind)}")
            for e in group:
                lines.append(_entry_line(e, lang))
                used_tags.update(e.tags)
    if used_tags:
        lines.append(tr(lang, "### Tag legend"))
        for tag in sorted(used_tags):
            info = knowledge.taxonomy.tags.get(tag, {})
            lines.append(f"- `{tag}`: {info.get(lang.value, tag)}")
    return "\n".join(lines)


_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def entry_lines_for(knowledge: Knowledge, factions: Iterable[str], lang: Lang, text: str) -> list[str]:
    """Entry lines of the types ``text`` names (internal names), in order of first mention.

    Only the participating factions' entries and the shared ones are candidates, as in :func:`render_prompt`.
    """
    chosen = normalize_factions(knowledge, factions)
    by_id: dict[str, Entry] = {}
    for faction in [*chosen, SHARED_FACTION]:
        for e in knowledge.select(faction=faction):
            by_id.setdefault(e.id, e)
    out: list[str] = []
    seen: set[str] = set()
    for m in _NAME_RE.finditer(text):
        name = m.group(0)
        if name in seen:
            continue
        seen.add(name)
        entry = by_id.get(name)
        if entry is not None:
            out.append(_entry_line(entry, lang))
    return out


def _entry_line(e: Entry, lang: Lang) -> str:
    other = e.name_en if lang is Lang.ZH else e.name_zh
    parts = [f"- `{e.id}` {e.name(lang)}" + (f" ({other})" if other and other != e.name(lang) else "")]
    if e.tags:
        parts.append(", ".join(e.tags))
    money = []
    if e.cost is not None:
        money.append(tr(lang, "cost {cost}", cost=e.cost))
    if e.build_time is not None:
        money.append(tr(lang, "{build_time:g} s", build_time=e.build_time))
    if money:
        parts.append(" ".join(money))
    if e.producers:
        verb = tr(lang, "used by") if e.kind == "power" else tr(lang, "from")
        parts.append(f"{verb} {' / '.join(e.producers)}")
    if e.unpacks_to:
        parts.append(tr(lang, "unpacks to {unpacks_to}", unpacks_to=e.unpacks_to))
    if e.replaces:
        parts.append(tr(lang, "replaces vanilla {replaces}", replaces=e.replaces))
    if e.tier is not None:
        parts.append(tr(lang, "tier {tier}", tier=e.tier))
    if not e.confirmed:
        parts.append(tr(lang, "unconfirmed"))
    return " | ".join(parts)


def replay_factions(replay: Replay, knowledge: Knowledge) -> set[str]:
    """Factions that take part in ``replay``: from the header, with Random slots resolved from their orders.

    A Random slot's faction is not written in the header; the first type hash its orders name that belongs to a
    faction decides it.
    """
    from app.replay.names import command_hash

    result: set[str] = set()
    random_slots: set[int] = set()
    for slot in replay.header.slots:
        if not slot.is_player:
            continue
        key = knowledge.taxonomy.faction_for_header_id(slot.faction_id)
        if key:
            result.add(key)
        else:
            random_slots.add(slot.index)
    if random_slots:
        for cmd in replay.commands:
            found = command_hash(replay.game, cmd) if cmd.player in random_slots else None
            if found is None:
                continue
            faction = knowledge.faction_of(found[0] & 0xFFFFFFFF)
            if faction and faction != SHARED_FACTION:
                result.add(faction)
                random_slots.discard(cmd.player)
                if not random_slots:
                    break
    return result


def prompt_for_replay(replay: Replay, lang: Lang, user_override_path: str | Path | None = None) -> str:
    """Knowledge prompt for a replay: the mod from its header, the factions that take part.

    Raises:
        UnknownModError: no bundled knowledge for the replay's mod (e.g. Kane's Wrath).
        MalformedKnowledgeError: the user override does not parse (``error.fallback`` is still usable).
    """
    from app.knowledge.loader import load_knowledge

    knowledge = load_knowledge(replay.header.mod_name, user_override_path)
    return render_prompt(knowledge, replay_factions(replay, knowledge), lang)
