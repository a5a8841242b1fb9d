"""Load a mod's knowledge folder (over its base mod), validate it, and apply a user override file.

Layout of ``knowledge/<mod>/``:

* ``mod.json``      — id, titles, header mod names, factions, optional ``base`` (Corona is built on ``ra3``);
* ``taxonomy.json`` — the closed vocabulary (kinds, factions, tags); a mod's file may ``extend`` its base;
* ``objects.json``  — the entries (internal SAGE name, display names, faction, kind, tags, cost, producers…);
* ``text.zh.md`` / ``text.en.md`` — the flat prompt text, cut into sections by ``<!-- section: … -->`` lines.

Problems in the data never stop loading: unknown tags, broken references and alias clashes become warnings in
the :class:`LoadReport` (shown by ``replaysage knowledge check`` and the UI). A malformed JSON file is an error
naming file and line; for a user override the built-in knowledge is still returned alongside the error.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from app import paths
from app.i18n import Lang
from app.knowledge.errors import KnowledgeError, MalformedKnowledgeError
from app.knowledge.files import entry_hash, mod_chain, mod_folder, read_json, user_knowledge_path
from app.knowledge.model import KINDS, Entry, Knowledge, LoadReport, Taxonomy, TextSection
from app.knowledge.terms import parse_terms

_SECTION = re.compile(r"^<!--\s*section:\s*([A-Za-z_:]+)\s*-->\s*$")
_ENTRY_FIELDS = frozenset(
    {
        "id",
        "name",
        "faction",
        "kind",
        "tags",
        "cost",
        "buildTime",
        "producedBy",
        "alsoProducedBy",
        "usedBy",
        "aliases",
        "tier",
        "rank",
        "unpacksTo",
        "replaces",
        "confirmed",
        "mod",
        "notes",
        "hash",
    }
)
# Fields whose value must have one JSON type; a hand-edited user file gets these wrong ("tags": 5), and a wrong
# type must become a report line naming file, entry and field, never a TypeError deep inside the reader.
_LIST_FIELDS = ("tags", "aliases", "alsoProducedBy")
_STR_FIELDS = ("producedBy", "usedBy", "unpacksTo", "replaces")


def load_knowledge(
    mod: str,
    user_override_path: str | Path | None = None,
    *,
    root: Path | None = None,
    strict: bool = True,
) -> Knowledge:
    """Load the knowledge of ``mod`` (header name or folder id), optionally with a user override file.

    Args:
        mod: ``RA3`` (any case) for vanilla 1.12, ``corona`` for the Corona mod, or a folder id.
        user_override_path: A user knowledge JSON (``{"entries": [...]}``) applied by id over the built-in
            entries: existing ids are updated field by field, new ids are added.
        root: The knowledge root folder (defaults to the bundled ``knowledge/``); tests point it elsewhere.
        strict: When the override file is malformed, raise (True) or return the built-in knowledge with the
            error in its report (False).

    Returns:
        A fresh :class:`Knowledge` the caller may keep; the built-in part is parsed once and cached.

    Raises:
        UnknownModError: no folder for ``mod``.
        MalformedKnowledgeError: a bundled file, or (when ``strict``) the override, does not parse. For the
            override, ``error.fallback`` holds the usable built-in knowledge.
    """
    folder = mod_folder(mod, root)
    builtin = _copy(_load_builtin(folder, (root or paths.knowledge_dir()).resolve()))
    if user_override_path is None:
        return builtin
    path = Path(user_override_path)
    try:
        data = read_json(path)
    except (MalformedKnowledgeError, KnowledgeError) as exc:
        if strict:
            if isinstance(exc, MalformedKnowledgeError):
                exc.fallback = builtin
            raise
        builtin.report.error("UserKnowledgeUnusable", str(exc), str(path))
        return builtin
    if strict:
        problems = override_type_problems(data)
        if problems:
            raise MalformedKnowledgeError(path, "; ".join(problems), fallback=builtin)
    apply_override(builtin, data, str(path))
    return builtin


def load_with_user_knowledge(mod: str, *, root: Path | None = None) -> Knowledge:
    """Built-in knowledge of ``mod`` plus the user's override file when it exists (plan §8.5: built-in → user).

    Never raises for a bad user file: the problem is in ``report.errors`` and the built-in knowledge is returned.
    """
    path = user_knowledge_path()
    return load_knowledge(mod, path if path.is_file() else None, root=root, strict=False)


def clear_cache() -> None:
    """Forget the parsed built-in knowledge (after the files changed on disk)."""
    _load_builtin.cache_clear()


# --------------------------------------------------------------------------- built-in


@lru_cache(maxsize=8)
def _load_builtin(folder: str, root: Path) -> Knowledge:
    report = LoadReport()
    chain = mod_chain(folder, root)
    taxonomy = _load_taxonomy(chain, root)
    entries: dict[str, Entry] = {}
    texts: dict[Lang, list[TextSection]] = {Lang.ZH: [], Lang.EN: []}
    for name in chain:
        objects = root / name / "objects.json"
        if objects.exists():
            data = read_json(objects)
            raw = data.get("entries") if isinstance(data, dict) else None
            if not isinstance(raw, list):
                raise MalformedKnowledgeError(objects, "expected an object with an 'entries' list")
            seen: set[str] = set()
            for item in raw:
                entry = _parse_entry(item, name, taxonomy, report, str(objects))
                if entry is None:
                    continue
                if entry.id in seen:
                    report.warn("DuplicateId", f"{entry.id} appears twice; the later entry wins", str(objects))
                seen.add(entry.id)
                entries[entry.id] = entry
        for lang in (Lang.ZH, Lang.EN):
            text = root / name / f"text.{lang.value}.md"
            if text.exists():
                texts[lang].extend(_parse_sections(text.read_text(encoding="utf-8")))
            else:
                report.warn("MissingText", f"no {text.name} for mod {name}", str(text.parent))
    terms: dict[str, tuple[str, str]] = {}
    for name in chain:  # a mod's words stack over its base's
        terms.update(parse_terms(read_json(root / name / "mod.json").get("terms")))
    meta = read_json(root / folder / "mod.json")
    title = meta.get("title") if isinstance(meta.get("title"), dict) else {}
    knowledge = Knowledge(
        mod=folder,
        title_zh=str(title.get("zh", folder)),
        title_en=str(title.get("en", folder)),
        factions=tuple(str(f) for f in meta.get("factions", [])),
        taxonomy=taxonomy,
        entries=entries,
        texts={k: tuple(v) for k, v in texts.items()},
        report=report,
        base=meta.get("base"),
        terms=terms,
    )
    _check_references(knowledge)
    return knowledge


def _load_taxonomy(chain: list[str], root: Path) -> Taxonomy:
    kinds: dict[str, dict[str, str]] = {}
    factions: dict[str, dict[str, object]] = {}
    tags: dict[str, dict[str, str]] = {}
    for name in chain:
        path = root / name / "taxonomy.json"
        if not path.exists():
            continue
        data = read_json(path)
        if not isinstance(data, dict):
            raise MalformedKnowledgeError(path, "expected a JSON object")
        kinds.update(data.get("kinds", {}))
        factions.update(data.get("factions", {}))
        tags.update(data.get("tags", {}))
    for k in KINDS:
        kinds.setdefault(k, {"zh": k, "en": k})
    return Taxonomy(kinds=kinds, factions=factions, tags=tags)


def _parse_sections(text: str) -> list[TextSection]:
    """Cut a Markdown file at ``<!-- section: key -->`` lines; text before the first marker is ``general``."""
    sections: list[TextSection] = []
    key = "general"
    lines: list[str] = []

    def flush() -> None:
        body = "\n".join(lines).strip("\n")
        if body.strip():
            faction = key.split(":", 1)[1] if key.startswith("faction:") else None
            sections.append(TextSection(key=key, faction=faction, body=body))

    for line in text.splitlines():
        m = _SECTION.match(line.strip())
        if m:
            flush()
            key = m.group(1)
            lines = []
        else:
            lines.append(line)
    flush()
    return sections


# --------------------------------------------------------------------------- entries


def _parse_entry(item: Any, origin: str, taxonomy: Taxonomy, report: LoadReport, file: str) -> Entry | None:
    if not isinstance(item, dict) or not isinstance(item.get("id"), str) or not item["id"].strip():
        report.warn("BadEntry", f"entry without a string 'id' skipped: {str(item)[:80]}", file)
        return None
    eid = item["id"].strip()
    unknown_fields = sorted(set(item) - _ENTRY_FIELDS)
    if unknown_fields:
        report.warn("UnknownField", f"{eid}: unknown field(s) {', '.join(unknown_fields)} ignored", file)
    raw_name = item.get("name")
    name: dict[str, Any] = raw_name if isinstance(raw_name, dict) else {}
    kind = str(item.get("kind", ""))
    if kind not in taxonomy.kinds:
        report.warn("UnknownKind", f"{eid}: kind {kind!r} is not in the taxonomy", file)
    faction = str(item.get("faction", ""))
    if faction not in taxonomy.factions:
        report.warn("UnknownFaction", f"{eid}: faction {faction!r} is not in the taxonomy", file)

    def strings(key: str) -> tuple[str, ...]:
        return _checked_strings(item.get(key), eid, key, report, file)

    def ref(key: str) -> str | None:
        value = item.get(key)
        problem = _field_problem(key, value)
        if problem:
            report.warn("BadFieldType", f"{eid}: {problem}; ignored", file)
            return None
        return _opt_str(value)

    tags: list[str] = []
    for tag in strings("tags"):
        if str(tag) in taxonomy.tags:
            tags.append(str(tag))
        else:
            report.warn("UnknownTag", f"{eid}: tag {tag!r} is not in the taxonomy; dropped", file)
    return Entry(
        id=eid,
        hash=entry_hash(item, eid),
        name_zh=str(name.get("zh", "")),
        name_en=str(name.get("en", "")),
        faction=faction,
        kind=kind,
        tags=tuple(tags),
        cost=_opt_int(item.get("cost")),
        build_time=_opt_float(item.get("buildTime")),
        produced_by=ref("producedBy"),
        also_produced_by=strings("alsoProducedBy"),
        used_by=ref("usedBy"),
        aliases=strings("aliases"),
        tier=_opt_int(item.get("tier")),
        rank=_opt_int(item.get("rank")),
        unpacks_to=ref("unpacksTo"),
        replaces=ref("replaces"),
        confirmed=bool(item.get("confirmed", False)),
        origin=origin,
    )


def _check_references(k: Knowledge) -> None:
    """Check that producedBy / usedBy / unpacksTo name known entries (a typo would silently break rules)."""
    for e in k.entries.values():
        for ref in (*e.producers, *(x for x in (e.unpacks_to, e.replaces) if x)):
            if ref not in k.entries:
                k.report.warn("UnknownReference", f"{e.id} refers to unknown object {ref!r}")


# --------------------------------------------------------------------------- user override


def apply_override(k: Knowledge, data: Any, file: str) -> None:
    """Apply a user knowledge document to ``k`` in place: by id, user fields win over built-in ones.

    Entries may carry ``"mod": "<folder>"`` to apply to one mod only. Invalid entries are skipped with a warning.
    """
    raw = data.get("entries") if isinstance(data, dict) else data
    if not isinstance(raw, list):
        k.report.error("UserKnowledgeShape", "expected a list of entries or an object with an 'entries' list", file)
        return
    applied = 0
    for item in raw:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            k.report.warn("BadEntry", f"user entry without a string 'id' skipped: {str(item)[:80]}", file)
            continue
        only = item.get("mod")
        if only is not None and str(only).lower() not in (k.mod, str(k.base or "")):
            continue
        fields = _without_bad_fields(item, k.report, file)
        current = k.lookup(item["id"])
        if current is not None and current.id.lower() == item["id"].strip().lower():
            merged = _entry_to_dict(current)
            for key, value in fields.items():
                if key == "name" and isinstance(value, dict):
                    merged["name"] = {**merged["name"], **value}
                elif key != "mod":
                    merged[key] = value
            merged["id"] = current.id
        else:
            merged = {k2: v for k2, v in fields.items() if k2 != "mod"}
        entry = _parse_entry(merged, "user", k.taxonomy, k.report, file)
        if entry is None:
            continue
        k.entries[entry.id] = entry
        applied += 1
    k.reindex()
    _check_references(k)


def override_type_problems(data: Any) -> list[str]:
    """Every wrongly typed field of a user knowledge document, as ``entry 'X': field 'tags' must be …`` lines.

    Used by strict loading to refuse the whole file up front (the lenient path warns per field instead), so the
    error names each entry and field the user has to fix.
    """
    raw = data.get("entries") if isinstance(data, dict) else data
    if not isinstance(raw, list):
        return []
    problems: list[str] = []
    for item in raw:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            continue
        for key, value in item.items():
            problem = _field_problem(key, value)
            if problem:
                problems.append(f"entry {item['id'].strip()!r}: {problem}")
    return problems


def _field_problem(key: str, value: Any) -> str | None:
    """Why ``value`` cannot fill field ``key`` (None when it can, or when the field has no fixed type)."""
    if value is None:
        return None
    if key in _LIST_FIELDS and not isinstance(value, list):
        return f"field {key!r} must be a list of strings, got {type(value).__name__} {_short(value)}"
    if key in _STR_FIELDS and not isinstance(value, str):
        return f"field {key!r} must be a string, got {type(value).__name__} {_short(value)}"
    if key == "name" and not isinstance(value, dict):
        return f"field 'name' must be an object with 'zh'/'en' keys, got {type(value).__name__} {_short(value)}"
    return None


def _without_bad_fields(item: dict[str, Any], report: LoadReport, file: str) -> dict[str, Any]:
    """``item`` minus its wrongly typed fields, each one warned about; the built-in value of the field stays."""
    eid = str(item["id"]).strip()
    kept: dict[str, Any] = {}
    for key, value in item.items():
        problem = _field_problem(key, value)
        if problem:
            report.warn("BadFieldType", f"{eid}: {problem}; ignored (the built-in value, if any, stays)", file)
        else:
            kept[key] = value
    return kept


def _checked_strings(value: Any, eid: str, key: str, report: LoadReport, file: str) -> tuple[str, ...]:
    """The strings of a list field; a non-list value or non-string items are warned about and dropped."""
    if value is None:
        return ()
    problem = _field_problem(key, value)
    if problem:
        report.warn("BadFieldType", f"{eid}: {problem}; ignored", file)
        return ()
    out: list[str] = []
    for x in value:
        if isinstance(x, str):
            out.append(x)
        else:
            report.warn("BadFieldType", f"{eid}: field {key!r} item {_short(x)} is not a string; dropped", file)
    return tuple(out)


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= 40 else text[:37] + "..."


def _entry_to_dict(e: Entry) -> dict[str, Any]:
    d: dict[str, Any] = {
        "id": e.id,
        "name": {"zh": e.name_zh, "en": e.name_en},
        "faction": e.faction,
        "kind": e.kind,
        "tags": list(e.tags),
        "alsoProducedBy": list(e.also_produced_by),
        "aliases": list(e.aliases),
        "confirmed": e.confirmed,
    }
    for key, value in (
        ("cost", e.cost),
        ("buildTime", e.build_time),
        ("producedBy", e.produced_by),
        ("usedBy", e.used_by),
        ("tier", e.tier),
        ("rank", e.rank),
        ("unpacksTo", e.unpacks_to),
        ("replaces", e.replaces),
    ):
        if value is not None:
            d[key] = value
    return d


# --------------------------------------------------------------------------- helpers


def _copy(k: Knowledge) -> Knowledge:
    """A private copy of cached knowledge so overrides never leak into the cache."""
    report = LoadReport(issues=list(k.report.issues))
    return replace(
        k,
        entries=dict(k.entries),
        texts=dict(k.texts),
        report=report,
        _by_hash=copy.copy(k._by_hash),
        _by_alias=copy.copy(k._by_alias),
    )


def _opt_int(v: Any) -> int | None:
    if v is None or isinstance(v, bool):
        return None
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def _opt_float(v: Any) -> float | None:
    if v is None or isinstance(v, bool):
        return None
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def _opt_str(v: Any) -> str | None:
    return str(v) if isinstance(v, str) and v.strip() else None
