"""The prose checks on the evaluation set (issue 28 §2, "Done when": at least 90% of the planted wrong counts and times
in the text are flagged, and no true sentence is flagged).

Each case's ``prose.jsonl`` labels sentences of its replies by hand against the level-0 log (the ``why`` of each line
quotes the log lines); the checker runs on each reply as the pipeline runs it, in the exchange's window
(``tests/support/prose_eval.py``). The misses the checker leaves are listed with their reason; a fixed one must leave
the ledger.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import CORPUS
from tests.support.prose_eval import ProseVerdict, all_prose_verdicts, prose_score

ROOT = Path(__file__).resolve().parent.parent / "data" / "claims_eval"

KNOWN_MISSES: dict[tuple[str, str, str], str] = {
    (
        "ra3_1v1_battlebase_15m_en",
        "018",
        "five different Tsunamis raise their Nanoshields",
    ): "a count of distinct casters of one ability over a span: not read (the ids after the dash are four)",
    (
        "ra3_1v1_battlebase_15m_en",
        "020",
        "#762, which Trebla's engineer captured",
    ): "ownership over time in prose is not checked (the prose check reads counts, times and durations)",
    (
        "ra3_1v1_battlebase_15m_en",
        "002",
        "queues three Mecha Tengus from 1:28.93",
    ): "not planted; 'from 1:28.93 … and two more at 2:00.13' spans two bursts: a count 'from' a time is left alone",
    (
        "ra3_1v1_battlebase_15m_en",
        "018",
        "One more Tsunami is queued at 13:37.67",
    ): "not planted; one of a type says nothing checkable (the order carries the batch flag: five)",
    (
        "tw_1v1_10m_en",
        "008",
        "packing the drone ship five times",
    ): "not planted; 'N times' counts of a power over the match are not read",
}
"""Wrong sentences the checker does not flag, each with the reason (keyed by a piece of the sentence)."""


def _verdicts() -> list[ProseVerdict]:
    if not (CORPUS / "ra3").exists():
        pytest.skip("corpus not available")
    return all_prose_verdicts(ROOT, CORPUS)[0]


def _key(v: ProseVerdict) -> tuple[str, str, str] | None:
    return next((k for k in KNOWN_MISSES if k[0] == v.source and k[1] == v.exchange and k[2] in v.sentence), None)


def test_ninety_percent_of_planted_wrong_counts_and_times_are_flagged_and_no_true_sentence() -> None:
    verdicts = _verdicts()
    planted = [v for v in verdicts if not v.truth and v.planted and v.kind in ("count", "time")]
    assert len(planted) >= 40  # the three cases' planted counts and times (27 + 21 when this was written)
    caught = [v for v in planted if v.flagged]
    assert len(caught) / len(planted) >= 0.9, [v.sentence for v in planted if not v.flagged]
    false_alarms = [
        f"{v.source} {v.exchange}: {v.sentence} → {[i.message for i in v.issues]}"
        for v in verdicts
        if v.truth and v.flagged
    ]
    assert not false_alarms, "\n".join(false_alarms)
    for kind in ("count", "time"):
        s = prose_score(verdicts, kind)
        assert s["false_alarms"] == 0, (kind, s)
        assert s["planted_caught"] / s["planted"] >= 0.9, (kind, s)


def test_every_miss_is_in_the_ledger_and_a_fixed_one_leaves_it() -> None:
    verdicts = _verdicts()
    missed = {_key(v) or (v.source, v.exchange, v.sentence) for v in verdicts if not v.truth and not v.flagged}
    assert missed == set(KNOWN_MISSES)


def test_a_flag_quotes_the_sentence_and_the_fact() -> None:
    flagged = [v for v in _verdicts() if v.flagged]
    assert flagged
    for v in flagged:
        issue = v.issues[0]
        assert issue.quote  # the sentence, quoted in the message too
        assert issue.quote in issue.message
        assert issue.fact
        assert issue.fact in issue.message
        assert issue.code in ("ProseCount", "ProseTime", "ProseDuration")
