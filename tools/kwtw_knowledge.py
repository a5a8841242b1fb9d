"""Generate ``knowledge/kw`` and ``knowledge/tw`` objects/taxonomy from ``../shared/notes/kw-tw-names.tsv``.

Why generated: the TSV (MIT data from forcecore/KWReplayAutoSaver e0eb14d, see its ``.md``) is the single source of
names, costs and hashes; both games' files come from it, so a fix there is one regeneration, not two hand edits.
The TSV names no internal SAGE names. ``tools/kwtw_internal_names.tsv`` gives the real one for 317 of its ids: the
asset-name identifiers of theHostileNegotiator/KWBandage's Kane's Wrath XML (commit caf0148) whose SAGE hash equals
the TSV id, so each is checked by its hash. The other entries carry their ``hash`` and a readable id made from the
English name. The TSV keeps power ids shifted by one byte (``0x63C6B820`` for the real ``0xE763C6B8``); each of its
53 powers has exactly one KWBandage identifier whose hash ends in those 24 bits, and that names the full hash.

Rows of ``kwtw_internal_names.tsv`` with a ``kind`` add corpus ids the TSV lacks (unit abilities found the same way).

Run: ``python tools/kwtw_knowledge.py [TSV] [CORPUS_DIR...]``.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PREFIXES = {
    "Nod": "Nod",
    "GDI": "GDI",
    "ST": "Steel Talons",
    "ZCM": "ZOCOM",
    "ZOCOM": "ZOCOM",
    "BH": "Black Hand",
    "MoK": "Marked of Kane",
    "Sc": "Scrin",
    "Scrin": "Scrin",
    "R17": "Reaper-17",
    "T59": "Traveler-59",
}
FACTIONS = {  # key -> (zh, en, KW header id, TW header id or None); zh: common community names [see docs]
    "GDI": ("全球防御组织", "GDI", 6, 6),  # en: the name the header, the replay card and the players use
    "Nod": ("Nod 兄弟会", "Nod", 9, 7),
    "Scrin": ("外星人（Scrin）", "Scrin", 12, 8),
    "Steel Talons": ("钢铁之爪", "Steel Talons", 7, None),
    "ZOCOM": ("零时区部队（ZOCOM）", "ZOCOM", 8, None),
    "Black Hand": ("黑手", "Black Hand", 10, None),
    "Marked of Kane": ("凯恩之印", "Marked of Kane", 11, None),
    "Reaper-17": ("收割者-17", "Reaper-17", 13, None),
    "Traveler-59": ("旅行者-59", "Traveler-59", 14, None),
    "Neutral": ("通用（各阵营共有）", "Shared by all factions", None, None),
}
TW_FACTIONS = ("GDI", "Nod", "Scrin")
_STRUCTURE_WORDS = re.compile(
    r"power|barracks|\bref\b|\bref\.|refinery|factory|fac\.|operations|tower|shrine|center|plant|crane|turret|silo|"
    r"voice of|obelisk|temple|command post|armory|airfield|hub|uplink|guardian cannon|photon cannon|ion cannon|"
    r"battery|emitter|portal|stabilizer|"
    r"chamber|transmitter|chasm|hive|accelerator|column|generator|reactor|extractor|spike|airstrip|air tower|"
    r"hand of nod|war factory|conyard|construction yard|wall|gate|bunker|sensor",
    re.I,
)
_TAG_WORDS = (
    ("harvester", "harvester"),
    ("MCV", "mcv"),
    ("crane", "crane"),
    ("power plant", "power_plant"),
    ("power", "power_plant"),
    ("barracks", "infantry_production"),
    ("factory", "vehicle_production"),
    ("airfield", "aircraft_production"),
    ("air tower", "aircraft_production"),
    ("engineer", "engineer"),
    ("commando", "commando"),
    ("ref", "economy"),
    ("silo", "economy"),
    ("turret", "defense"),
    ("cannon", "defense"),
    ("battery", "defense"),
    ("obelisk", "defense"),
    ("tower", "defense"),
    ("ion cannon", "superweapon"),
    ("temple of Nod", "superweapon"),
    ("rift generator", "superweapon"),
    ("orca", "aircraft"),
    ("firehawk", "aircraft"),
    ("venom", "aircraft"),
    ("vertigo", "aircraft"),
    ("storm rider", "aircraft"),
    ("drone ship", "aircraft"),
    ("carrier", "aircraft"),
    ("devastator", "aircraft"),
    ("hammer head", "aircraft"),
    ("stealth", "stealth"),
    ("tech center", "tech"),
    ("tech lab", "tech"),
)
# Tech tiers of the three base trees (the same for every sub-faction): the radar structure opens tier 2 (GDI Command
# Post, Nod Operations Center, Scrin Nerve Center) and the tech structure tier 3 (Tech Center; Scrin Technology
# Assembler, "tech center" in the table). The analysis measures tech speed from the first of each.
_TIERS = (("command post", "tier2"), ("operation center", "tier2"), ("operations center", "tier2"),
          ("nerve center", "tier2"), ("tech center", "tier3"))  # fmt: skip
# The source table's typos and clipped names, corrected (its spelling stays an alias, so lookups still find it).
NAME_FIXES = {
    "power": "Power Plant",
    "putbull": "Pitbull",
    "surveyer": "Surveyor",
    "juggernaught": "Juggernaut",
    "sling shot": "Slingshot",
    "slihgshot": "Slingshot",
    "hammer head": "Hammerhead",
    "assimiliator": "Assimilator",
    "assimiliators": "Assimilators",
    "devouer": "Devourer",
    "progidy": "Prodigy",
    "master mind": "Mastermind",
    "ref": "Refinery",
    "ref.": "Refinery",
    "tib chem plant": "Tiberium Chemical Plant",
    "tib. chem. plant": "Tiberium Chemical Plant",
    "rec. hub": "Reclamator Hub",
    "mil. rocket": "Militant Rocket Squad",
    "disint.": "Disintegrator",
    "sam turret": "SAM Turret",
    "Shock wave artillary": "Shockwave Artillery",
    "Traveller engine": "Traveler Engine",
    "GDI Blood hound": "GDI Bloodhound",
    "blood hound": "Bloodhound",
    "Blood hound": "Bloodhound",
    "Tib. vapour bomb": "Tiberium Vapor Bomb",
    "Tib. vib. scan": "Tiberium Vibration Scan",
    "Tib. vib. scan R-17": "Tiberium Vibration Scan (Reaper-17)",
    "Tib resistant armor": "Tiberium Resistant Armor",
}
# Table "powers" that are orders to one unit, not support powers bought from the sidebar; the abilities found in the
# corpus (``kwtw_internal_names.tsv`` rows with a kind) are unit abilities too.
_UNIT_ORDERS = frozenset({"MCV Pack", "MCV Unpack", "Dig fox hole", "Return to a refinery"})
_SMALL_WORDS = frozenset({"of", "the", "a", "to", "and", "for"})


def _title(text: str) -> str:
    """Title case as the game's own names (``Temple of Nod``, ``AA Battery``): acronyms and small words kept."""
    words = text.split(" ")
    return " ".join(
        w if w.isupper() or (i and w in _SMALL_WORDS) or not w[:1].isalpha() else w[0].upper() + w[1:]
        for i, w in enumerate(words)
    )


def display_name(faction: str, bare: str) -> str:
    """A KW player's name for a table row: typos fixed, title case, the faction first (``GDI Pitbull``)."""
    fixed = NAME_FIXES.get(bare, _title(bare))
    return fixed if faction == "Neutral" else f"{faction} {fixed}"


_STRUCTURE_TAGS = frozenset({"power_plant", "defense", "infantry_production", "vehicle_production"})
_INFANTRY = re.compile(
    r"riflemen|rifle|missile|engineer|grenadier|sniper|commando|trooper|zone raider|militant|rocket|saboteur|"
    r"fanatic|black hand|shadow|confessor|buzzer|disint|assimil|ravager|cultist|progidy|prodigy|master mind|"
    r"mastermind|squad|infantry|acolyte|awakened|enlightened",
    re.I,
)


def _slug(name: str) -> str:
    words = re.sub(r"[^A-Za-z0-9 ]+", " ", name).split()
    return "".join(w if w.isupper() or w[0].isdigit() else w[0].upper() + w[1:] for w in words)


def _faction(name: str) -> tuple[str, str]:
    first, _, rest = name.partition(" ")
    if first in PREFIXES and rest:
        return PREFIXES[first], rest
    return "Neutral", name


def _corpus_hashes(folders: list[Path]) -> dict[str, set[int]]:
    sys.path.insert(0, str(ROOT))
    from app.replay import read_replay
    from app.replay.names import command_hash

    seen: dict[str, set[int]] = {"structure": set(), "unit": set(), "power": set(), "upgrade": set()}
    for folder in folders:
        for path in sorted(folder.glob("*")):
            replay = read_replay(path)
            for cmd in replay.commands:
                found = command_hash(replay.game, cmd)
                if found is not None and found[1].value in seen:
                    seen[found[1].value].add(found[0] & 0xFFFFFFFF)
    return seen


def build(tsv: Path, corpus: list[Path]) -> dict[str, list[dict[str, object]]]:
    """Entries per game folder (``kw`` = all, ``tw`` = the three base factions)."""
    seen = _corpus_hashes(corpus)
    rows = list(csv.DictReader(tsv.open(encoding="utf-8"), delimiter="\t"))
    internal_path = Path(__file__).with_name("kwtw_internal_names.tsv")
    named = list(csv.DictReader(internal_path.open(encoding="utf-8"), delimiter="\t"))
    internal = {int(r["hash"], 16): r["name"] for r in named}
    # corpus ids the TSV lacks (unit abilities), named only by a hash-checked internal name: shared entries
    rows += [
        {"kind": r["kind"], "id": r["hash"], "name": r["display"], "cost": "", "ability": "1"}
        for r in named
        if r["kind"]
    ]
    free = {int(r["id"], 16): int(r["name"], 16) for r in rows if r["kind"] == "free_unit_of_structure"}
    entries: list[dict[str, object]] = []
    used: set[str] = set()
    for r in rows:
        if r["kind"] == "free_unit_of_structure":
            continue
        h = int(r["id"], 16)
        name = r["name"].strip().rstrip(",")
        faction, bare = _faction(name)
        if r["kind"] == "power" and h not in internal:  # a TSV power id: the real hash's low 24 bits, shifted
            full = [k for k in internal if (k & 0xFFFFFF) == (h >> 8)]
            if len(full) != 1:
                continue
            h, kind = full[0], "power"
        elif r["kind"] == "power":
            kind = "power"
        elif r["kind"] == "upgrade":
            kind = "upgrade"
        elif h in seen["structure"]:
            kind = "structure"
        elif h in seen["unit"]:
            kind = "unit"
        else:
            kind = "structure" if _STRUCTURE_WORDS.search(bare) else "unit"
        tags: list[str] = []
        for word, tag in _TAG_WORDS:
            if word.lower() in bare.lower() and tag not in tags:
                if tag in _STRUCTURE_TAGS and kind != "structure":
                    continue
                tags.append(tag)
        if kind == "unit" and not {"aircraft"} & set(tags):
            tags.insert(0, "infantry" if _INFANTRY.search(bare) else "vehicle")
        if kind == "structure" and h in free:
            tags.append("economy")
        if kind == "power":
            support = faction == "Neutral" and not r.get("ability") and name not in _UNIT_ORDERS
            tags.append("player_power" if support else "unit_ability")
        if kind == "structure":
            tags.extend(tier for word, tier in _TIERS if word in bare.lower() and tier not in tags)
        eid = internal.get(h) or _slug(name)
        while eid in used:
            eid += "_"
        used.add(eid)
        display = display_name(faction, bare)
        source = name if faction == "Neutral" else f"{faction} {bare}"
        entry: dict[str, object] = {
            "id": eid,
            **({} if h in internal else {"hash": f"0x{h:08X}"}),
            "name": {"zh": display, "en": display},
            **({"aliases": [source]} if source != display else {}),
            "faction": faction,
            "kind": kind,
            "tags": sorted(set(tags), key=tags.index),
        }
        if r["cost"].strip():
            entry["cost"] = int(r["cost"])
        entry["confirmed"] = any(h in s for s in seen.values())
        if h in free:
            entry["notes"] = f"comes with a free 0x{free[h]:08X}"
        entries.append(entry)
    tw = [e for e in entries if e["faction"] in (*TW_FACTIONS, "Neutral")]
    return {"kw": entries, "tw": tw}


def taxonomy(game: str) -> dict[str, object]:
    """Kinds, factions (with the game's header ids) and the RA3 tag vocabulary the entries use."""
    ra3 = json.loads((ROOT / "knowledge" / "ra3" / "taxonomy.json").read_text(encoding="utf-8"))
    factions: dict[str, object] = {}
    for key, (zh, en, kw_id, tw_id) in FACTIONS.items():
        if game == "tw" and key not in (*TW_FACTIONS, "Neutral"):
            continue
        header = kw_id if game == "kw" else tw_id
        factions[key] = {"zh": zh, "en": en, "headerIds": [header] if header is not None else []}
    return {"schema": 1, "kinds": ra3["kinds"], "factions": factions, "tags": ra3["tags"]}


def main(argv: list[str]) -> None:
    tsv = Path(argv[0]) if argv else ROOT.parent / "shared" / "notes" / "kw-tw-names.tsv"
    corpus = [Path(a) for a in argv[1:]] or [ROOT.parent / "shared" / "replays" / g for g in ("kw", "tw")]
    for game, entries in build(tsv, corpus).items():
        folder = ROOT / "knowledge" / game
        folder.mkdir(exist_ok=True)
        doc = {"schema": 1, "mod": game, "entries": entries}
        (folder / "objects.json").write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        (folder / "taxonomy.json").write_text(
            json.dumps(taxonomy(game), ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
        )
        print(game, len(entries), "entries")


if __name__ == "__main__":
    main(sys.argv[1:])
