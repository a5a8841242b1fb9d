"""The claim-checking evaluation (issue 14): every labelled verdict holds.

``tests/data/claims_eval/planted.jsonl`` holds wrong claims of every kind the issue names (and true controls),
each with the commands that make it wrong, checked by hand with ``replaysage inspect --commands``; case folders
hold real-model-style transcripts labelled claim by claim. True claims get nothing above Info; wrong ones are
flagged.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import CORPUS
from tests.support.claims_eval import Verdict, all_verdicts, case_dirs, case_weakening

ROOT = Path(__file__).resolve().parent.parent / "data" / "claims_eval"


def _verdicts() -> list[Verdict]:
    if not (CORPUS / "ra3").exists():
        pytest.skip("corpus not available")
    return all_verdicts(ROOT, CORPUS)


def _describe(v: Verdict) -> str:
    issues = "; ".join(f"{i.severity.label} {i.code}: {i.message}" for i in v.issues) or "no issue"
    return f"{v.source} {v.exchange} {v.kind}[{v.index}] truth={v.truth} {v.claim} → {issues} ({v.why})"


KNOWN_MISSES: set[tuple[str, str, str, int]] = set()
"""Wrong claims the validator cannot decide from the replay, each with the reason; every other verdict holds."""


def test_every_verdict_agrees_with_its_label() -> None:
    verdicts = _verdicts()
    known = KNOWN_MISSES | KNOWN_FALSE_ALARMS
    wrong = [_describe(v) for v in verdicts if not v.correct and (v.source, v.exchange, v.kind, v.index) not in known]
    assert not wrong, "\n".join(wrong)
    alarms = {(v.source, v.exchange, v.kind, v.index) for v in verdicts if v.truth and v.flagged}
    assert alarms == KNOWN_FALSE_ALARMS  # no new false alarm, and a fixed one must leave its list
    missed = {(v.source, v.exchange, v.kind, v.index) for v in verdicts if v.truth is False and not v.flagged}
    assert missed == KNOWN_MISSES  # a fixed miss must leave this list


def test_planted_claims_cover_every_kind_both_ways() -> None:
    planted = [v for v in _verdicts() if v.source == "planted"]
    for kind in ("unit", "event", "timeline"):
        assert any(v.kind == kind and v.truth for v in planted), kind
        assert any(v.kind == kind and not v.truth for v in planted), kind


def test_planted_wrong_claims_get_the_expected_codes() -> None:
    codes = {i.code for v in _verdicts() if v.source == "planted" and not v.truth for i in v.issues}
    assert {
        "TypeNeverProduced",
        "AbilityNotOfType",
        "EvidenceNotFound",
        "UnknownType",
        "EventTimeMismatch",
        "EventNotObserved",
        "ActorMismatch",
        "CasterTargetConfusion",
        "ProtocolTimeMismatch",
        "ProtocolNotObserved",
        "TimelineMismatch",
        "TimelineNotObserved",
        "TypeNotAUnit",
        "ExistedBeforeOrdered",
        "TypeNotOfProducts",
    } <= codes


def test_no_true_claim_that_passed_is_weakened_after_the_merge() -> None:
    if not (CORPUS / "ra3").exists():
        pytest.skip("corpus not available")
    for case in case_dirs(ROOT):
        assert case_weakening(case, CORPUS).weakened_merged == 0, case.name


# The blind cases (issue 28 §4) as their first scores left them: each wrong claim the validator missed and each true
# claim it flagged stays listed until a rule made for the game or the format (never for the case) decides it; the
# first scores themselves are kept in blind_history.jsonl. A fixed entry must leave its list.
KNOWN_MISSES |= {
    ("ra3_1v1_battlebase_15m_en", "006", "unit", 8),  # Defender core typed as a refinery core
    ("ra3_1v1_battlebase_15m_en", "006", "event", 2),  # a core's Queue unit claimed as kind "build"
    ("ra3_1v1_battlebase_15m_en", "014", "unit", 1),  # refinery core typed as a Generator core
    ("kw_3v3_12m_zh", "006", "event", 6),  # a Place line claimed as kind build
}
# Decided before by one build time for every unit (3 s); now by the type's build time in the knowledge, which does not
# give the Vindicator's (issue 28 §4: an unknown time is said and not flagged). #1227 appears 2.53 s after the cited
# 4:47.80 order; with the Vindicator's build time in knowledge/ra3/objects.json these leave the list.
KNOWN_MISSES |= {
    ("ra3_1v1_7m_en", "005", "unit", 17),
    ("ra3_1v1_7m_en", "006", "unit", 17),
}
# ra3_1v1_observers_12m_64k_zh (blind, first score P 1.00 / R 0.92, 2026-12-03): unit types the rules do not decide yet.
# Decided since by app.claims.producers: 012 (#709 typed Riptide: made after 5:07.07, the one Seaport sold at 2:31.40),
# 022 (#1154 typed MCV: made in the game, never ordered, no pack made it), 024 (#442 typed the Mecha Bay: it deploys).
KNOWN_MISSES |= {
    # generator core typed as a refinery core. The refinery core ordered at 3:12.53 is the one #609 could be; that
    # #457 (deployed 3:23.73) used it up rests on each order making one core, which the replay contradicts (LostLamb's
    # 26 core clicks made 10 deployed cores, e.g. 7 barracks-core clicks at 0:14.27-0:14.47): how the yard takes
    # repeated core clicks is not known, so nothing decides which order #609 came from.
    ("ra3_1v1_observers_12m_64k_zh", "010", "unit", 3),
    # a Mirage typed as an IFV (the run's own slip). 3 IFVs queued, 2 "Hold/cancel unit" lines: whether a right-click
    # on a unit in production holds it or cancels it is not in the order, and #709 is an IFV only by elimination, so
    # no count of produced IFVs is proven and #852 stays undecided.
    ("ra3_1v1_observers_12m_64k_zh", "020", "unit", 1),
}
KNOWN_FALSE_ALARMS: set[tuple[str, str, str, int]] = set()
