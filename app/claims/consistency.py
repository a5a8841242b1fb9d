"""Claims checked against each other, and summary-round corrections brought into the window texts (issue 28 §2).

The validator checks each claim against the replay; two claims can each pass and still not both be true: one object
typed two ways in one analysis, an order of a type before the player's passed "first time" of that type, or a window
claim the summary round corrected. Each such pair is flagged, naming the other claim. A correction of a window is
also marked in that window's text, after the sentence it corrects, so the reader sees it where the wrong sentence
stands.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.claims.issues import Severity, ValidationIssue
from app.claims.kinds import CLAIM_LIST, OBJECT_KINDS
from app.claims.parse import unit_id_of
from app.claims.revision import KINDS, WindowCorrection
from app.claims.timeparse import format_time, parse_time
from app.claims.verdicts import PASSED
from app.i18n import Lang, pick, tr

TypeOf = Callable[[str], str | None]
"""A claimed type name → its canonical internal name (a core → the structure it unpacks to), None if unknown."""

OBJECT_EVENT_KINDS = OBJECT_KINDS
"""Event kinds whose ``name`` is the type of the object in ``actorId``."""
ORDER_EVENT_KINDS = frozenset({"produce", "build", "place"})
"""Event kinds whose ``name`` is the type ordered (a timeline claim's first time bounds them)."""
TIMELINE_TOLERANCE_SECONDS = 2.0
_ARROW = re.compile(r"\s*(?:→|->|=>|⇒)\s*")
_SENTENCE = re.compile(r"[^。！？!?\n]*?(?:[。！？!?]|\.(?=\s|$)|(?=\n)|$)")
_QUOTES = "“”\"'`「」『』"


@dataclass(frozen=True, slots=True)
class StageClaims:
    """The stored claims of one stage (annotated with verdicts) and how the reader knows the stage."""

    key: str
    label: str
    claims: dict[str, list[dict[str, object]]]


@dataclass(frozen=True, slots=True)
class Finding:
    """One claim flagged by a cross-claim check: which stage, which claim, and the issue."""

    stage: str
    ref: str
    issue: ValidationIssue


def _passed(stage: StageClaims, kind: str) -> list[tuple[int, dict[str, object]]]:
    attr = f"{kind}Claims"
    listed = stage.claims.get(attr, []) if isinstance(stage.claims, dict) else []
    return [(n, c) for n, c in enumerate(listed) if isinstance(c, dict) and str(c.get("verdict", PASSED)) == PASSED]


def _label(lang: Lang, kind: str, n: int) -> str:
    return CLAIM_LIST[kind].label(lang, n)


def cross_claim_findings(stages: Sequence[StageClaims], type_of: TypeOf, lang: Lang) -> list[Finding]:
    """Pairs of passed claims of one analysis that cannot both hold; each claim of a pair is flagged.

    * one object with two types: unit claims (``unitId`` → ``type``) and sell/repair event claims (``actorId`` →
      ``name``), types compared after ``type_of`` (so a core and the structure it unpacks into are one type);
    * an order event (produce/build/place) of a type earlier than that player's passed timeline first time of it.
    """
    typed: dict[int, list[tuple[StageClaims, str, int, str, str]]] = {}
    for st in stages:
        for n, c in _passed(st, "unit"):
            uid, raw = unit_id_of(c.get("unitId")), str(c.get("type") or "")
            canon = type_of(raw) if raw else None
            if uid is not None and canon:
                typed.setdefault(uid, []).append((st, "unit", n, raw, canon))
        for n, c in _passed(st, "event"):
            kind = str(c.get("kind", "")).lower()
            uid, raw = unit_id_of(c.get("actorId", c.get("unitId"))), str(c.get("name") or "")
            canon = type_of(raw) if raw and kind in OBJECT_EVENT_KINDS else None
            if uid is not None and canon:
                typed.setdefault(uid, []).append((st, "event", n, raw, canon))
    out: list[Finding] = []
    for uid, said in typed.items():
        if len({canon for *_rest, canon in said}) < 2:
            continue
        for st, kind, n, raw, canon in said:
            others = [f"{o.label} {_label(lang, k, m)}: {r}" for o, k, m, r, c in said if c != canon]
            out.append(
                Finding(
                    st.key,
                    f"{kind}:{n}",
                    ValidationIssue(
                        Severity.CONTRADICTION,
                        "TypeConflict",
                        pick(
                            lang,
                            f"{_label(lang, kind, n)}：把 #{uid} 说成 {raw}，但本次分析的另一条已通过声明说它是别的类型"
                            f"（{'；'.join(others)}）：两者不能同时成立",
                            f"{_label(lang, kind, n)}: types #{uid} as {raw}, but another passed claim of this "
                            f"analysis types it otherwise ({'; '.join(others)}): both cannot hold",
                        ),
                        unit_id=uid,
                        claim=f"{kind}:{n}",
                    ),
                )
            )
    out += _orders_before_first(stages, type_of, lang)
    return out


def _orders_before_first(stages: Sequence[StageClaims], type_of: TypeOf, lang: Lang) -> list[Finding]:
    firsts: dict[tuple[str, str], list[tuple[StageClaims, int, float]]] = {}
    for st in stages:
        for n, c in _passed(st, "timeline"):
            canon = type_of(str(c.get("type") or ""))
            t = parse_time(str(c.get("firstTime", c.get("time", ""))))
            if canon and t is not None:
                firsts.setdefault((str(c.get("player", "")), canon), []).append((st, n, t))
    out: list[Finding] = []
    for st in stages:
        for n, c in _passed(st, "event"):
            if str(c.get("kind", "")).lower() not in ORDER_EVENT_KINDS:
                continue
            canon = type_of(str(c.get("name") or ""))
            t = parse_time(str(c.get("time", "")))
            if not canon or t is None:
                continue
            for tst, tn, first in firsts.get((str(c.get("player", "")), canon), []):
                if t >= first - TIMELINE_TOLERANCE_SECONDS:
                    continue
                name, player = c.get("name"), c.get("player")
                ev_label, tl_label = (
                    f"{st.label} {_label(lang, 'event', n)}",
                    f"{tst.label} {_label(lang, 'timeline', tn)}",
                )
                text = tr(
                    lang,
                    "{ev_label} has {player} order {name} at {value}, but {tl_label} says {player} first "
                    "ordered {name} at {first}: both cannot hold",
                    ev_label=ev_label,
                    player=player,
                    name=name,
                    value=c.get("time"),
                    tl_label=tl_label,
                    first=format_time(first),
                )
                for key, ref in ((st.key, f"event:{n}"), (tst.key, f"timeline:{tn}")):
                    out.append(
                        Finding(key, ref, ValidationIssue(Severity.CONTRADICTION, "TimelineConflict", text, claim=ref))
                    )
    return out


# ---------------------------------------------------------------------------------------------- corrections


def split_correction(text: str) -> tuple[str, str]:
    """``what it said → what is right (why)`` → (what it said, what is right (why)); no arrow: ("", text)."""
    parts = _ARROW.split(text, maxsplit=1)
    if len(parts) < 2:
        return "", text.strip()
    return parts[0].strip().strip(_QUOTES), parts[1].strip()


def _norm(text: str) -> str:
    return re.sub(r"[\s" + _QUOTES + r"]+", "", text).lower()


def corrected_sentence(text: str, correction: WindowCorrection) -> tuple[int, int] | None:
    """Where in a window's text the sentence a correction contradicts ends up: its (start, end), or None.

    Precision first: the sentence must contain what the correction says the window said (ignoring spaces and
    quotes), or, when the correction quotes nothing, name the same object id (and time, when it gives one) as the
    correction. Anything else is left unmarked.
    """
    said, _right = split_correction(correction.text)
    want = _norm(said)
    spans = [(m.start(), m.end()) for m in _SENTENCE.finditer(text) if m.group().strip()]
    if want and len(want) >= 4:
        for a, b in spans:
            if want in _norm(text[a:b]):
                return a, b
    if correction.unit_id is None:
        return None
    tag = re.compile(rf"#{correction.unit_id}(?!\d)")
    hits = [(a, b) for a, b in spans if tag.search(text[a:b])]
    if correction.time_seconds is not None:
        stamp = format_time(correction.time_seconds)
        timed = [(a, b) for a, b in hits if stamp.split(".")[0] in text[a:b]]
        hits = timed or hits
    return hits[0] if len(hits) == 1 else None


def correction_mark(correction: WindowCorrection, lang: Lang) -> str:
    """The note placed after a corrected sentence."""
    _said, right = split_correction(correction.text)
    return tr(lang, " [corrected in the summary: {right}]", right=right)


def mark_corrections(text: str, corrections: Sequence[WindowCorrection], lang: Lang) -> tuple[str, int]:
    """A window's text with each correction's note after the sentence it corrects; and how many were placed."""
    placed: list[tuple[int, str]] = []
    for c in corrections:
        span = corrected_sentence(text, c)
        if span is not None and all(end != span[1] for end, _m in placed):
            placed.append((span[1], correction_mark(c, lang)))
    for end, mark in sorted(placed, reverse=True):
        text = text[:end] + mark + text[end:]
    return text, len(placed)


def claims_contradicted(
    stage: StageClaims, correction: WindowCorrection, type_of: TypeOf, names_in: Callable[[str], list[str]], lang: Lang
) -> list[Finding]:
    """The window's passed claims on the corrected object whose type the correction's right-hand side denies."""
    if correction.unit_id is None:
        return []
    _said, right = split_correction(correction.text)
    named = {type_of(n) for n in names_in(right)} - {None}
    if not named:
        return []
    out: list[Finding] = []
    for kind, _attr in KINDS:
        if kind == "timeline":
            continue
        for n, c in _passed(stage, kind):
            uid = unit_id_of(c.get("unitId") if kind == "unit" else c.get("actorId", c.get("unitId")))
            raw = str(c.get("type") if kind == "unit" else c.get("name") or "")
            canon = type_of(raw) if raw else None
            if uid != correction.unit_id or not canon or canon in named:
                continue
            out.append(
                Finding(
                    stage.key,
                    f"{kind}:{n}",
                    ValidationIssue(
                        Severity.WARNING,
                        "CorrectedInSummary",
                        tr(
                            lang,
                            "{label}: the summary round corrected #{uid} ({right}), which contradicts this claim's "
                            "{raw}",
                            label=_label(lang, kind, n),
                            uid=uid,
                            right=right,
                            raw=raw,
                        ),
                        time_seconds=correction.time_seconds,
                        unit_id=uid,
                        claim=f"{kind}:{n}",
                    ),
                )
            )
    return out
