"""Typed, read-only view of one mod's game knowledge: entries, taxonomy, text sections and the load report.

Everything the analysis needs to know about an object is looked up here by the name (or hash) the replay
carries, so the rules elsewhere never hard-code unit names: "is this a bomber", "which factory builds it",
"which faction owns it".
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from app.i18n import Lang, pick, tr

KINDS = ("unit", "structure", "upgrade", "power", "protocol")


@dataclass(frozen=True, slots=True)
class Entry:
    """One object of the game: unit, structure, upgrade, power or secret protocol.

    ``id`` is the internal SAGE name whose hash the replay writes; ``confirmed`` says whether that hash was seen
    in the corpus replays of the mod (otherwise the name is an informed guess).
    """

    id: str
    hash: int
    name_zh: str
    name_en: str
    faction: str
    kind: str
    tags: tuple[str, ...] = ()
    cost: int | None = None
    build_time: float | None = None
    produced_by: str | None = None
    also_produced_by: tuple[str, ...] = ()
    used_by: str | None = None
    aliases: tuple[str, ...] = ()
    tier: int | None = None
    rank: int | None = None
    unpacks_to: str | None = None
    replaces: str | None = None
    confirmed: bool = False
    origin: str = ""

    def name(self, lang: Lang) -> str:
        """Display name in ``lang`` (falls back to the other language, then to the id)."""
        return pick(lang, self.name_zh or self.name_en, self.name_en or self.name_zh) or self.id

    def has_tag(self, tag: str) -> bool:
        """True when the entry carries ``tag``."""
        return tag in self.tags

    @property
    def producers(self) -> tuple[str, ...]:
        """Every object that produces (or, for powers, uses) this entry, main producer first."""
        first = self.produced_by or self.used_by
        return ((first,) if first else ()) + self.also_produced_by


@dataclass(frozen=True, slots=True)
class LoadIssue:
    """A problem found while loading knowledge; never silent (shown by the CLI and the UI)."""

    severity: str  # "warning" or "error"
    code: str
    message: str
    file: str = ""

    def render(self) -> str:
        """One line for a report."""
        where = f"{self.file}: " if self.file else ""
        return f"[{self.severity}] {self.code}: {where}{self.message}"


@dataclass(slots=True)
class LoadReport:
    """What loading found wrong: unknown tags, broken references, a malformed user file."""

    issues: list[LoadIssue] = field(default_factory=list)

    def warn(self, code: str, message: str, file: str = "") -> None:
        """Record a warning (the knowledge is still used)."""
        self.issues.append(LoadIssue("warning", code, message, file))

    def error(self, code: str, message: str, file: str = "") -> None:
        """Record an error (a file was skipped)."""
        self.issues.append(LoadIssue("error", code, message, file))

    @property
    def warnings(self) -> list[LoadIssue]:
        """Warnings only."""
        return [i for i in self.issues if i.severity == "warning"]

    @property
    def errors(self) -> list[LoadIssue]:
        """Errors only."""
        return [i for i in self.issues if i.severity == "error"]

    @property
    def ok(self) -> bool:
        """True when nothing was reported."""
        return not self.issues

    def render(self, lang: Lang) -> str:
        """Human-readable report."""
        if not self.issues:
            return tr(lang, "Knowledge load: no problems.")
        head = tr(
            lang,
            "Knowledge load: {count} errors, {count_2} warnings",
            count=len(self.errors),
            count_2=len(self.warnings),
        )
        return "\n".join([head, *(i.render() for i in self.issues)])

    def as_dict(self) -> list[dict[str, str]]:
        """JSON-compatible form."""
        return [{"severity": i.severity, "code": i.code, "message": i.message, "file": i.file} for i in self.issues]


@dataclass(frozen=True, slots=True)
class Taxonomy:
    """The closed vocabulary entries are checked against: kinds, factions and tags (each with zh/en labels)."""

    kinds: Mapping[str, Mapping[str, str]]
    factions: Mapping[str, Mapping[str, object]]
    tags: Mapping[str, Mapping[str, str]]

    def faction_label(self, faction: str, lang: Lang) -> str:
        """Display name of a faction."""
        info = self.factions.get(faction, {})
        return str(info.get(lang.value) or faction)

    def faction_for_header_id(self, faction_id: int) -> str | None:
        """Faction key for a header slot faction id (RA3: 2 Empire, 4 Allies, 8 Soviets, Corona 9 Celestial)."""
        for key, info in self.factions.items():
            ids = info.get("headerIds")
            if isinstance(ids, list) and faction_id in ids:
                return key
        return None


@dataclass(frozen=True, slots=True)
class TextSection:
    """A section of the flat knowledge text: ``general``, ``workflow`` or one faction."""

    key: str
    faction: str | None
    body: str


@dataclass(slots=True)
class Knowledge:
    """Everything known about one mod (a mod folder merged over its base, plus user overrides)."""

    mod: str
    title_zh: str
    title_en: str
    factions: tuple[str, ...]
    taxonomy: Taxonomy
    entries: dict[str, Entry]
    texts: dict[Lang, tuple[TextSection, ...]]
    report: LoadReport
    base: str | None = None
    terms: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # mod.json "terms": app.knowledge.terms
    _by_hash: dict[int, Entry] = field(default_factory=dict, repr=False)
    _by_alias: dict[str, str] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not self._by_hash:  # a copy made with dataclasses.replace() brings its indexes along
            self.reindex()

    def reindex(self) -> None:
        """Rebuild the hash and alias indexes (after entries changed); alias clashes become warnings."""
        self._by_hash = {}
        self._by_alias = {}
        for e in self.entries.values():
            other = self._by_hash.get(e.hash)
            if other is not None and other.id != e.id:
                self.report.warn("HashCollision", f"{e.id} and {other.id} share hash 0x{e.hash:08X}")
            self._by_hash[e.hash] = e
        for e in self.entries.values():  # ids first: an alias never shadows a real id
            self._by_alias[e.id.lower()] = e.id
        for e in self.entries.values():
            for alias in (*e.aliases, e.name_zh, e.name_en):
                key = alias.strip().lower()
                if not key:
                    continue
                owner = self._by_alias.get(key)
                if owner is None:
                    self._by_alias[key] = e.id
                elif owner != e.id and alias in e.aliases:
                    self.report.warn("AliasConflict", f"alias {alias!r} of {e.id} already names {owner}; ignored")

    # ------------------------------------------------------------------ lookup

    @property
    def hash_table(self) -> dict[int, str]:
        """Hash → internal name for every entry of this mod (what the replay reader uses)."""
        return {h: e.id for h, e in self._by_hash.items()}

    def __iter__(self) -> Iterator[Entry]:
        return iter(self.entries.values())

    def __len__(self) -> int:
        return len(self.entries)

    def lookup(self, key: str | int) -> Entry | None:
        """Find an entry by hash (int or ``0x…`` text), internal name, alias or display name (case-insensitive)."""
        if isinstance(key, int):
            return self._by_hash.get(key & 0xFFFFFFFF)
        text = key.strip()
        if text.lower().startswith("0x"):
            try:
                return self._by_hash.get(int(text, 16))
            except ValueError:
                return None
        canonical = self._by_alias.get(text.lower())
        return self.entries.get(canonical) if canonical else None

    def resolve(self, key: str | int) -> str | None:
        """Canonical internal name for a hash, name or alias, or None."""
        e = self.lookup(key)
        return e.id if e else None

    def faction_of(self, key: str | int) -> str | None:
        """Faction of an object (``Allies``, ``Soviets``, ``Empire``, ``Celestial``, ``Neutral``), or None."""
        e = self.lookup(key)
        return e.faction if e else None

    def kind_of(self, key: str | int) -> str | None:
        """Kind of an object (unit, structure, upgrade, power, protocol), or None."""
        e = self.lookup(key)
        return e.kind if e else None

    def has_tag(self, key: str | int, tag: str) -> bool:
        """True when the object is known and carries ``tag``."""
        e = self.lookup(key)
        return bool(e and tag in e.tags)

    def is_unit(self, key: str | int) -> bool:
        """True for units (Empire cores included: they are mobile until they unpack)."""
        return self.kind_of(key) == "unit"

    def is_structure(self, key: str | int) -> bool:
        """True for structures."""
        return self.kind_of(key) == "structure"

    def is_aircraft(self, key: str | int) -> bool:
        """True for aircraft and units that can transform into aircraft."""
        return self.has_tag(key, "aircraft")

    def is_bomber(self, key: str | int) -> bool:
        """True for bombers."""
        return self.has_tag(key, "bomber")

    def is_mcv_class(self, key: str | int) -> bool:
        """True for entities that pack/unpack into a structure: MCVs and Empire cores."""
        return self.has_tag(key, "mcv") or self.has_tag(key, "mcv_class")

    def producers_of(self, key: str | int) -> tuple[str, ...]:
        """Structures (or units) that produce ``key``: main producer first, then the alternatives."""
        e = self.lookup(key)
        return e.producers if e else ()

    def products_of(self, factory: str | int) -> tuple[str, ...]:
        """Internal names of everything ``factory`` produces (or, for a unit, the abilities it uses)."""
        f = self.resolve(factory)
        if f is None:
            return ()
        return tuple(e.id for e in self.entries.values() if f in e.producers)

    def select(
        self,
        *,
        kind: str | None = None,
        tag: str | None = None,
        faction: str | None = None,
        factions: Iterable[str] | None = None,
    ) -> list[Entry]:
        """Entries matching every given filter, in file order."""
        wanted = set(factions) if factions is not None else None
        return [
            e
            for e in self.entries.values()
            if (kind is None or e.kind == kind)
            and (tag is None or tag in e.tags)
            and (faction is None or e.faction == faction)
            and (wanted is None or e.faction in wanted)
        ]

    def names_with_tag(self, tag: str) -> frozenset[str]:
        """Internal names of all entries carrying ``tag`` (e.g. every bomber)."""
        return frozenset(e.id for e in self.entries.values() if tag in e.tags)

    def title(self, lang: Lang) -> str:
        """Display title of the mod."""
        return pick(lang, self.title_zh, self.title_en)
