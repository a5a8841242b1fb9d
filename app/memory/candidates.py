"""Rule-based candidate generation (spec §2.1 stage one) from run episodes and feedback.

Rules rather than a model by default: the offline analyst must distil too, and a rule's output is
reproducible, so a fact's provenance can always be re-derived. The model path (``app.memory.prompt``) adds
candidates on top when a model is configured.

Extraction vs distillation (§1.2): what a replay states (who played what on which map, a rule verified
against the replay) is extracted with document weight; habits (openings, protocol order) are behavioural and
must accumulate.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime

from app.i18n import Lang
from app.knowledge.faction_names import faction_display
from app.memory.model import (
    Candidate,
    EvidenceKind,
    FactType,
    FeedbackInput,
    PlayerInput,
    RunEpisodeInput,
)

PIPELINE_VERSION = "memory-rules/1"
OPENING_LENGTH = 3
IMMEDIATE_LIMIT = 5

# Context dimensions a scope split may use, most specific first (spec §6.1 "范围分裂").
SPLIT_KEYS: tuple[str, ...] = ("map", "opponents", "section")

# Steps that prevent a recurring validation issue; the trigger is "this model on this mod".
ISSUE_STEPS: dict[str, tuple[str, ...]] = {
    "OwnershipContradiction": (
        "Before naming who did something, look up the acting player of the command in the fact index",
        "State caster and target separately for every ability claim",
    ),
    "NonexistentUnit": (
        "Only name units that appear in the fact index for this replay",
        "Check the faction of a unit before attributing it to a player",
    ),
}
# Why a validated player claim of this topic can be a habit; other topics have no known mechanism and stay
# observations (spec §7.1 防线三).
CLAIM_MECHANISMS: dict[str, str] = {
    "protocol": "协议顺序决定科技路线，玩家按自己的打法固定选择 / "
    "the protocol order fixes the tech path a player's style relies on",
    "opening": "开局建造顺序是玩家事先演练的固定计划 / a build order is a rehearsed plan",
    "tech": "科技路线由玩家的固定打法决定 / a tech path follows the player's fixed style",
}
GENERIC_STEPS: tuple[str, ...] = (
    "Re-check every claim of this kind against the fact index before writing it",
    "Cite the game time of the command that supports the claim",
)


def _h(text: str, n: int = 10) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:n]


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if ts else ""


def _humans(ep: RunEpisodeInput) -> list[PlayerInput]:
    return [p for p in ep.players if p.human and p.name]


@dataclass(frozen=True, slots=True)
class _PlayerGame:
    """One player in one replay: what every habit candidate of theirs shares (subject, scope, context, source)."""

    subject: str
    scope: dict[str, str]
    context: dict[str, str]
    dedupe: str
    ts: float

    def habit(self, attribute: str, value: str, zh: str, en: str, *, quote: str, mechanism: str) -> Candidate:
        """A behavioural preference of this player: it generalizes, so it must accumulate across games."""
        return Candidate(
            type=FactType.PREFERENCE,
            subject=self.subject,
            attribute=attribute,
            value=value,
            content_zh=zh,
            content_en=en,
            kind=EvidenceKind.BEHAVIOUR,
            quote=quote,
            scope=dict(self.scope),
            context=dict(self.context),
            generalizes=True,
            mechanism=mechanism,
            dedupe=self.dedupe,
            ts=self.ts,
        )


def run_candidates(ep: RunEpisodeInput) -> list[Candidate]:
    """Every rule-based candidate of one analysis run, in a stable order (immediate-track priority first)."""
    out: list[Candidate] = []
    ts = ep.played_at
    replay_ref = f"replay:{ep.replay_hash}"
    humans = _humans(ep)
    lineup = " vs ".join(f"{p.name}({p.faction})" for p in ep.players if p.name or p.faction)
    lineup_zh = " 对 ".join(f"{p.name}（{_zh(p.faction)}）" for p in ep.players if p.name or p.faction)
    if ep.replay_path and ep.played_at:
        out.append(
            Candidate(
                type=FactType.PROJECT_FACT,
                subject=replay_ref,
                attribute="lineup",
                value=f"{lineup} @ {ep.map_name}",
                content_zh=f"录像 {ep.replay_hash[:8]}：地图 {ep.map_name}，{ep.mod}，{lineup_zh}",
                content_en=f"Replay {ep.replay_hash[:8]}: map {ep.map_name}, {ep.mod}, {lineup}",
                kind=EvidenceKind.DOCUMENT,
                quote=f"header: {lineup} @ {ep.map_name}",
                fields={"source_file": ep.replay_path, "observed_at": _iso(ep.played_at)},
                context={"map": ep.map_name},
                dedupe=replay_ref,
                ts=ts,
            )
        )
    for claim in ep.claims:
        if claim.topic == "rule":
            anchor = f"{ep.mod} {ep.mod_version}".strip()
            key = claim.key or f"rule:{_h(claim.text)}"
            out.append(
                Candidate(
                    type=FactType.DOMAIN,
                    subject=f"mod:{ep.mod}",
                    attribute=key,
                    value=claim.value or "true",
                    content_zh=f"{claim.text}（{anchor}）",
                    content_en=f"{claim.text} ({anchor})",
                    kind=EvidenceKind.DOCUMENT,
                    quote=claim.text,
                    fields={"version_anchor": anchor},
                    scope={"mod": ep.mod},
                    dedupe=replay_ref,
                    ts=ts,
                )
            )
    model = ep.model or "offline"
    seen_codes: set[str] = set()
    for issue in ep.issues:
        if issue.severity.lower() == "info" or issue.code in seen_codes:
            continue
        seen_codes.add(issue.code)
        steps = list(ISSUE_STEPS.get(issue.code, GENERIC_STEPS))
        out.append(
            Candidate(
                type=FactType.LESSON,
                subject=f"model:{model}",
                attribute=f"issue:{issue.code}",
                value="recurs",
                content_zh=f"模型 {model} 分析 {ep.mod} 录像时出现过 {issue.code}：{issue.message}",
                content_en=f"Model {model} produced {issue.code} on {ep.mod} replays: {issue.message}",
                kind=EvidenceKind.BEHAVIOUR,
                quote=issue.message,
                scope={"model": model, "mod": ep.mod},
                fields={
                    "applicability": {"model": model, "mod": ep.mod},
                    "learned_from": [replay_ref],
                    "trigger": f"model {model} analysing {ep.mod} replays",
                    "steps": steps,
                    "code": issue.code,
                },
                mechanism="同一模型在同类输入上重复同一类校验错误，源于其稳定的理解偏差 / "
                "a model repeats the same validation error on the same kind of input",
                generalizes=True,
                dedupe=f"{replay_ref}:{model}",
                ts=ts,
            )
        )
    for p in humans:
        others = [o for o in ep.players if o.name != p.name and (p.team == -1 or o.team != p.team)]
        opponents = ",".join(sorted(o.faction for o in others))
        game = _PlayerGame(
            f"player:{p.name}",
            {"player": p.name, "faction": p.faction, "mod": ep.mod},
            {"map": ep.map_name, "opponents": opponents},
            replay_ref,
            ts,
        )
        opening = ep.openings.get(p.name, ())[:OPENING_LENGTH]
        if len(opening) >= 2:
            seq = " → ".join(t.name for t in opening)
            secs = int(opening[-1].seconds)
            quote = ", ".join(f"{t.name}@{t.seconds:.0f}s" for t in opening)
            out.append(
                game.habit(
                    "opening",
                    seq,
                    f"玩家 {p.name} 使用{_zh(p.faction)}时的开局建筑顺序：{seq}",
                    f"Player {p.name} opens as {p.faction} with {seq}",
                    quote=f"{quote} (by {secs}s)",
                    mechanism="开局建造顺序是玩家事先演练的固定计划，跨局重复即为习惯 / "
                    "a build order is a rehearsed plan; repeated across games it is a habit",
                )
            )
        protocols = ep.protocols.get(p.name, ())
        if protocols:
            first = protocols[0]
            out.append(
                game.habit(
                    "first_protocol",
                    first.name,
                    f"玩家 {p.name} 使用{_zh(p.faction)}时首个协议选择 {first.name}",
                    f"Player {p.name} picks {first.name} as the first protocol with {p.faction}",
                    quote=f"{first.name}@{first.seconds:.0f}s",
                    mechanism="协议顺序决定科技路线，玩家按自己的打法固定选择 / "
                    "the protocol order fixes the tech path a player's style relies on",
                )
            )
        units = ep.first_productions.get(p.name, ())
        if units:
            first_unit = units[0]
            out.append(
                game.habit(
                    "first_unit",
                    first_unit.name,
                    f"玩家 {p.name} 使用{_zh(p.faction)}时首个生产的单位是 {first_unit.name}",
                    f"Player {p.name} first builds {first_unit.name} as {p.faction}",
                    quote=f"{first_unit.name}@{first_unit.seconds:.0f}s",
                    mechanism="首个单位服务于玩家固定的开局意图（侦察、采矿或压制） / "
                    "the first unit serves the player's fixed opening intent",
                )
            )
        if p.faction and p.faction.lower() not in ("random", "observer", "commentator"):
            # scoped by the faction itself: a player on three factions has three facts, each counting
            # its own games, never a conflict between them (the split a reviewer would make anyway)
            out.append(
                game.habit(
                    "faction",
                    p.faction,
                    f"玩家 {p.name} 使用阵营：{_zh(p.faction)}",
                    f"Player {p.name} plays {p.faction}",
                    quote=f"S= slot: {p.name} {p.faction}",
                    mechanism="阵营由玩家在开局前主动选择 / the faction is the player's own pre-game choice",
                )
            )
        for claim in ep.claims:
            if claim.topic != "rule" and claim.player == p.name:
                key = claim.key or claim.topic
                out.append(
                    game.habit(
                        f"claim:{key}",
                        _habit_value(claim.value),
                        claim.text,
                        claim.text,
                        quote=claim.text,
                        mechanism=CLAIM_MECHANISMS.get(claim.topic, ""),
                    )
                )
    for c in out:
        c.produced_by = PIPELINE_VERSION
    return prioritise(out)


def _habit_value(value: str) -> str:
    """The value a player claim contributes to a habit: a time or count is circumstance, not the habit.

    "nickname chose protocol X at 12.5 s" and "… at 40 s" support the same habit (``claim:protocol:X`` = yes).
    """
    v = value.strip()
    try:
        float(v.rstrip("s"))
    except ValueError:
        return v or "yes"
    return "yes"


def prioritise(cands: list[Candidate]) -> list[Candidate]:
    """Order candidates by urgency (spec §2.2): explicit statements, then extractions, lessons, behaviour."""
    rank = {EvidenceKind.EXPLICIT: 0, EvidenceKind.DOCUMENT: 1, EvidenceKind.REUSE: 2, EvidenceKind.BEHAVIOUR: 3}
    return sorted(cands, key=lambda c: (rank[c.kind], c.type is not FactType.LESSON))


@dataclass(frozen=True, slots=True)
class PreferencePattern:
    """A preference an analyst can state, with the phrases that state it."""

    attribute: str
    value: str
    phrases: tuple[str, ...]
    content_zh: str
    content_en: str


PREFERENCE_PATTERNS: tuple[PreferencePattern, ...] = (
    PreferencePattern(
        "report_length",
        "concise",
        ("简洁", "简短", "精简", "concise", "shorter", "brief"),
        "分析师偏好简洁的报告",
        "The analyst prefers concise reports",
    ),
    PreferencePattern(
        "report_length",
        "detailed",
        ("详细", "展开", "detailed", "more detail", "in depth"),
        "分析师偏好详细的报告",
        "The analyst prefers detailed reports",
    ),
    PreferencePattern(
        "report_language", "zh", ("中文", "chinese"), "分析师希望用中文撰写报告", "The analyst wants reports in Chinese"
    ),
    PreferencePattern(
        "report_language", "en", ("英文", "english"), "分析师希望用英文撰写报告", "The analyst wants reports in English"
    ),
)

# Reversal phrases (spec §4.2): they reverse (attribute, value) and imply the other value.
REVERSAL_SIGNALS: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("report_length", "concise", "detailed", ("太简略", "说详细点", "展开讲讲", "too short", "more detail")),
    ("report_length", "detailed", "concise", ("太长", "啰嗦", "too long", "too verbose")),
    ("report_language", "zh", "en", ("用英文回", "switch to english")),
    ("report_language", "en", "zh", ("用中文回", "switch to chinese")),
)


@dataclass(frozen=True, slots=True)
class Reversal:
    """A reversal phrase found in feedback: the preference ``(attribute, value)`` it contradicts."""

    subject: str
    attribute: str
    value: str
    phrase: str


def _pattern(attribute: str, value: str) -> PreferencePattern:
    return next(p for p in PREFERENCE_PATTERNS if p.attribute == attribute and p.value == value)


def feedback_candidates(fb: FeedbackInput, ts: float) -> tuple[list[Candidate], list[Reversal]]:
    """Candidates and reversal signals of one piece of feedback.

    An explicit statement is strong first evidence (weight 0.9); a reaction in a correction ("太简略了") is a
    behavioural signal (0.4) for the opposite preference and a reversal of the current one.
    """
    subject = f"analyst:{fb.analyst}"
    scope = {"analyst": fb.analyst, "section": fb.scope} if fb.scope else {}

    def pref(attribute: str, value: str, zh: str, en: str, kind: EvidenceKind, *, quote: str) -> Candidate:
        return Candidate(
            type=FactType.PREFERENCE,
            subject=subject,
            attribute=attribute,
            value=value,
            content_zh=zh,
            content_en=en,
            kind=kind,
            quote=quote,
            scope=dict(scope),
            ts=ts,
            produced_by=PIPELINE_VERSION,
        )

    out: list[Candidate] = []
    text = fb.preference.strip()
    low = text.lower()
    matched = False
    taken: set[str] = set()
    for pat in PREFERENCE_PATTERNS:
        if pat.attribute in taken:
            continue
        if any(ph in low for ph in pat.phrases):
            matched = True
            taken.add(pat.attribute)
            out.append(
                pref(pat.attribute, pat.value, pat.content_zh, pat.content_en, EvidenceKind.EXPLICIT, quote=text)
            )
    if text and not matched:
        out.append(
            pref(
                f"note:{_h(low)}",
                text,
                f"分析师的要求：{text}",
                f"The analyst asked: {text}",
                EvidenceKind.EXPLICIT,
                quote=text,
            )
        )
    reversals: list[Reversal] = []
    corr = fb.correction.strip()
    corr_low = corr.lower()
    for attribute, reversed_value, implied, phrases in REVERSAL_SIGNALS:
        hit = next((ph for ph in phrases if ph in corr_low), None)
        if hit is None:
            continue
        reversals.append(Reversal(subject, attribute, reversed_value, hit))
        pat = _pattern(attribute, implied)
        out.append(pref(attribute, implied, pat.content_zh, pat.content_en, EvidenceKind.BEHAVIOUR, quote=corr))
    return prioritise(out), reversals


def _zh(faction: str) -> str:
    """A header faction's Chinese name, for the Chinese wording of a fact (its value keeps the header's spelling)."""
    return faction_display(faction, Lang.ZH)
