"""What a sentence names in this replay: types, players and order verbs (issue 28 §2).

Types are the knowledge's names in both languages and their aliases, a name without its faction's word ("Nod Flame
Tank" → "flame tank"), a few generic words of the games (起重机 = crane, 兵营 = every structure of that role) and the
internal names the log prints; players are their names, labels, a faction only one of them plays, a clan prefix only
one of them wears; verbs are the words that say a player gave an order of a kind (:data:`VERBS`).
"""

from __future__ import annotations

import re

from app.claims.prose_phrases import Mention, has_word
from app.facts import ReplayFactIndex
from app.knowledge.model import Entry, Knowledge

VERBS: dict[str, tuple[str, str]] = {
    "cancel": (r"cancel\w*|hold\w*|held", r"取消|暂停"),
    "queue": (
        r"re-?queue[sd]|queued|queues|queueing|queuing|produced|produces|trained|trains|ordered|made|makes",
        r"下单|下了|连下|生产|训练|出了|连点|造了|改产|改为|改成|改(?=\s*\d)|下(?=\s*[\d一二两三四五六七八九十])",
    ),
    "place": (
        r"placed|places|planted|plants|dropped|drops|put down",
        r"放下|放置|摆放|摆下|摆在|摆了|连放|放了|放在|落地|放(?![弃大])",
    ),
    "start": (r"started|starts|begins|began", r"开始建造|开始造|开工|开始(?!维修|修理|升级|研究|选)"),
    "build": (
        r"built|builds|constructed|constructs",
        # 补 "adds one more" (补了一辆, 补第四座), never 修补 (repair), 弥补, 填补, 候补 or 补给 (supply)
        r"建造|建了|造|(?<![修弥填候])补(?:了|上|建|造|充|出|下|(?=\s*[\d一二两三四五六七八九十第]))",
    ),
    "sell": (r"sold|sells|selling", r"出售|卖掉|卖了|连卖|卖"),
    "repair": (r"repairs|repaired|repairing", r"维修|修理"),
    "unpack": (r"unpack\w*|redeploy\w*|deploy\w*", r"展开|部署"),
    "pack": (r"pack\w*", r"打包|收起"),
    "transform": (r"transform\w*", r"变形"),
    "power": (
        r"cast|casts|fired|fires|activated|activates|used|uses|triggers|triggered|toggles|toggled|"
        r"turns on|turned on|switches on|switched on|launches|launched",
        r"施放|释放|发动|使用|开启|打开|启动|激活|启用",
    ),
    "protocol": (r"picks|picked|chose|chooses", r"选了|点了|选择了|选择|选(?![手项])"),
    "upgrade": (r"upgrades|upgraded|upgrading|researched|research\w*", r"升级|研究"),
    "enter": (
        # reaching a tier or a stage of the game is no entry: "enters tier 2", "进入 2 级科技", "进入后期"
        r"enter(?:s|ed|ing)?(?!\s+(?:the\s+)?(?:tier|tech|T\d|late|mid|early|end|stage|phase)\b)|garrison(?:s|ed|ing)?",
        r"进入(?!\s*(?:第?\s*[\d一二两三四]\s*(?:级|本|期|阶段)|科技|后期|中期|前期|晚期|阶段|T\d))|进驻|驻扎|驻守|钻进",
    ),
    "capture": (
        r"captur(?:e|es|ed|ing)|occup(?:y|ies|ied|ying)|takes over|took over|taking over",
        r"占领|占据|夺取|抢占|偷走",
    ),
    "other": (
        r"attack\w*|force-fires?|moved?|moves|kill\w*|destroy\w*|gets|got|goes|went|"
        r"tries|tried|hits?|guards?|lost|loses|exit\w*|evacuat\w*|unload\w*",
        r"攻击|集火|移动|摧毁|击杀|击毁|打掉|被|撤出|撤离|离开|退出|下车|卸下|卸载",
    ),
}
"""Verbs that say a player gave an order of that kind (the English ones whole words; 建造场 is a yard, not a verb)."""
FACTION_WORDS_ZH: dict[str, tuple[str, ...]] = {
    "Allies": ("盟军",),
    "Soviets": ("苏军", "苏联"),
    "Empire": ("帝国", "旭日帝国"),
    "Scrin": ("外星人",),
}
"""How a Chinese text names a faction (a player's, when only one player plays it)."""
GENERIC_NOUNS: dict[str, str] = {
    "起重机": "crane",
    "吊车": "crane",
    "战车工厂": "factory",
    "兵营": "barracks",
    "精炼厂": "refinery",
    "矿场": "refinery",
    "电厂": "power plant",
    "发电厂": "power plant",
    "六足": "hexapod",
    "三脚机甲": "tripod",
    "三足": "tripod",
    "采矿车": "harvester",
    "矿车": "harvester",
}
"""Chinese words players use for a type of every faction, as the English head noun of the knowledge's names."""
GENERIC_ROLES: dict[str, str] = {
    "兵营": "infantry_production",
    "战车工厂": "vehicle_production",
    "车厂": "vehicle_production",
    "电厂": "power_plant",
    "发电厂": "power_plant",
}
"""Chinese words for a structure by what it does, whatever its faction calls it (the Allied boot camp and the Empire's
dojo are 兵营 as much as the Soviet barracks): every structure the knowledge tags with that role."""


_TOGGLE = re.compile(r"(?<![离公召展])(?:开|关)(?:启|闭|掉)?(?:了)?\s*")
"""开 / 关 before a power's name: a toggle turned on or off (开纳米偏转装置, 关掉了…); 展开, 离开 are no toggle."""
_RANK = re.compile(r"^(.*\S)\s+(1|2|3|I|II|III)$")
_RANK_WORDS = {"1": ("1", "一", "I"), "2": ("2", "二", "II"), "3": ("3", "三", "III")}
_ROMAN = {"I": "1", "II": "2", "III": "3"}


def _rank_variants(name: str) -> list[str]:
    """How a text writes a name that ends in a rank ("冰冻卫星 1", "Cryo Sat I"): 冰冻卫星一级, Cryo Sat 1, level 1.

    The part in brackets after a name ("冰冻卫星 1（冰冻射击）") is left out first: the name it explains is the one
    written.
    """
    head = re.split(r"\s*[(（]", name, maxsplit=1)[0].strip()
    m = _RANK.match(head)
    if not m:
        return []
    base, rank = m.group(1), _ROMAN.get(m.group(2), m.group(2))
    digit, zh, roman = _RANK_WORDS[rank]
    out = [head, f"{base} {digit}", f"{base} {roman}", f"{base}{digit}"]
    if any("\u4e00" <= ch <= "\u9fff" for ch in base):
        out += [f"{base}{zh}级", f"{base} {zh}级", f"{base}{digit}级", f"{base} {digit} 级", f"{zh}级{base}"]
    else:
        out += [f"{base} level {digit}", f"{base} rank {digit}", f"level {digit} {base}", f"rank {digit} {base}"]
    return out


class ProseLexicon:
    """The names of one replay's types and players, and the verbs of orders, as a text writes them."""

    def __init__(self, index: ReplayFactIndex, knowledge: Knowledge | None) -> None:
        self.entries: dict[str, Entry] = {e.id: e for e in knowledge or ()}
        names: dict[str, set[str]] = {}

        def add(text: str, entry_id: str) -> None:
            t = text.strip().lower()
            if len(t) >= 2 and not t.isdigit():
                names.setdefault(t, set()).add(entry_id)

        heads: dict[str, set[str]] = {}
        for e in knowledge or ():
            for n in {e.id, e.name_en, e.name_zh, *e.aliases}:
                if not n:
                    continue
                add(n, e.id)
                for variant in _rank_variants(n):  # "冰冻卫星一级" is the rank-1 Cryo Sat
                    add(variant, e.id)
                if e.faction and n.lower().startswith(e.faction.lower() + " "):
                    add(n[len(e.faction) + 1 :], e.id)  # "Nod Flame Tank" is a flame tank in prose
            if e.name_en:
                heads.setdefault(e.name_en.lower().split()[-1], set()).add(e.id)
        for word, head in GENERIC_NOUNS.items():
            ids = {i for h, s in heads.items() if h == head.split()[-1] for i in s}
            ids = {i for i in ids if self.entries[i].name_en.lower().endswith(head)}
            if ids:
                names.setdefault(word, set()).update(ids)
        for word, tag in GENERIC_ROLES.items():
            by_role = {e.id for e in knowledge or () if e.kind == "structure" and e.has_tag(tag)}
            if by_role:
                names.setdefault(word, set()).update(by_role)
        for n in index.names.values():  # internal names the log prints (KW/TW maps, MG_ types)
            if n and not n.startswith("0x"):
                names.setdefault(n.lower(), set()).add(n)
        verb_words = [re.compile(rf"(?:{en})(?:e?s)?|(?:{zh})", re.I) for en, zh in VERBS.values()]
        for word in [w for w in names if any(rx.fullmatch(w) for rx in verb_words)]:
            del names[word]  # an alias that is a verb ("Unpack", 打包) is read as the verb in prose
        self.names = names
        alternatives = "|".join(re.escape(n) for n in sorted(names, key=lambda n: -len(n)))
        self.names_re = (
            re.compile(rf"(?<![A-Za-z0-9_])(?:{alternatives})(?:e?s)?(?![A-Za-z0-9_])", re.IGNORECASE)
            if alternatives
            else None
        )
        self.verbs = [
            (kind, re.compile(rf"(?<![A-Za-z-])(?:{en})(?![A-Za-z])|(?:{zh})(?![场厂])", re.IGNORECASE))
            for kind, (en, zh) in VERBS.items()
        ]
        playing = [p for p in index.players if p.is_player]
        factions: dict[str, list[int]] = {}
        for p in playing:
            for f in {p.played_faction, p.faction} - {"", "Random", "random"}:
                for word in (f, *FACTION_WORDS_ZH.get(f, ())):
                    factions.setdefault(word.lower(), []).append(p.slot)
        prefixes: dict[str, list[int]] = {}
        for p in playing:
            head = re.split(r"[-_ .|]", p.name, maxsplit=1)[0]
            if len(head) >= 3 and head != p.name:
                prefixes.setdefault(head.lower(), []).append(p.slot)
        self.players: list[tuple[int, list[str]]] = []
        for p in playing:
            words = {n.lower() for n in (p.name, p.label) if n and len(n) >= 2}
            words |= {f for f, slots in factions.items() if slots == [p.slot]}
            words |= {h for h, slots in prefixes.items() if slots == [p.slot]}
            self.players.append((p.slot, sorted(words)))

    def _kind(self, entry_id: str) -> str:
        e = self.entries.get(entry_id)
        return e.kind if e is not None else ""

    def players_in(self, text: str) -> list[int]:
        """The slots of the players ``text`` names (a type's name is no player's: it is masked first)."""
        low = self.names_re.sub(" ", text).lower() if self.names_re is not None else text.lower()
        return [slot for slot, names in self.players if any(has_word(low, n) for n in names)]

    def types(self, text: str, offset: int = 0) -> list[tuple[Mention, frozenset[str]]]:
        """Each type name in ``text`` (a plural too) with the knowledge ids or internal names it may mean."""
        if self.names_re is None:
            return []
        out = []
        for m in self.names_re.finditer(text):
            word = m.group().lower()
            ids = self.names.get(word) or self.names.get(re.sub(r"e?s$", "", word)) or self.names.get(word[:-1])
            if ids:
                out.append((Mention(offset + m.start(), offset + m.end(), m.group()), frozenset(ids)))
        return out

    def verbs_in(self, text: str) -> list[Mention]:
        """The order verbs of ``text`` (value: the verb's kind), outside type names, the longest at each place."""
        bare = self.names_re.sub(lambda m: " " * len(m.group()), text) if self.names_re is not None else text
        out = [Mention(m.start(), m.end(), kind) for kind, rx in self.verbs for m in rx.finditer(bare)]
        # 开 / 关 (turn on, turn off) say a power order only before the name of a power: "开纳米偏转装置"
        powers = [t for t, ids in self.types(text) if ids and all(self._kind(i) == "power" for i in ids)]
        for m in _TOGGLE.finditer(text):
            if any(t.start == m.end() for t in powers):
                out.append(Mention(m.start(), m.end(), "power"))
        out.sort(key=lambda v: (v.start, -(v.end - v.start)))
        kept: list[Mention] = []
        for v in out:  # the longest verb at a place (开始建造 over 建造)
            if not kept or v.start >= kept[-1].end:
                kept.append(v)
        return kept
