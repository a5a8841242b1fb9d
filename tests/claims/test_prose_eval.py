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
}
"""Wrong sentences the checker does not flag, each with the reason (keyed by a piece of the sentence)."""

# The blind cases added after the prose rules were written (their first scores are in prose_history.jsonl, keys
# "prose:<case>"): each miss stays listed until a rule made for the game or the language (never for the case) reads it.
KNOWN_MISSES |= {
    (
        "kw_1v1_10m_32k_en",
        "001",
        "joohan builds more refineries (five plac",
    ): "not planted; the overview (exchange 001) is checked now, but 'five placements' names no type: a count "
    "without its type is left alone",
    (
        "kw_1v1_10m_32k_en",
        "004",
        "The yard stays packed for about 25 secon",
    ): "a duration whose start the sentence does not give (the pack at 2:50.80 is in another sentence)",
    (
        "kw_1v1_10m_32k_en",
        "014",
        "After selling his yard, BoolBada put a s",
    ): "'from 5:58 queued nothing but Raider tanks': 'from T' is read as a bound, not as the time the orders began",
    (
        "ra3_1v1_24m_128k_zh",
        "001",
        "YuiYui 开局连下两座精炼厂之后又在 3:32.13 补第四座精炼厂，经济起",
    ): "an ordinal (第四座) is no count (the overview, exchange 001, is checked now)",
    (
        "ra3_1v1_24m_128k_zh",
        "004",
        "基地车 #370 于 2:52.47 在 (3446,1264) 展开，#370",
    ): "a duration from a pack the sentence does not time ('从打包到展开用了约 45 秒'): not read",
    (
        "ra3_1v1_24m_128k_zh",
        "024",
        "#1740/#1755 正是帝国反复“提早发射”（SpecialPower_JASV_FireKiCannon",
    ): "a list of times after a dash, cut from the power it names, with a verb (发射) the checker does not know",
}

# ra3_1v1_observers_12m_64k_zh (blind, zh): first prose score P 0.96 / R 0.46 (2026-12-03, before the language
# rules of wt/prose28, which never saw this case); what those rules still miss:
KNOWN_MISSES |= {
    (
        "ra3_1v1_observers_12m_64k_zh",
        "001",
        "帝国在 2:45.93 才放下机甲工厂核心",
    ): "blind case, not flagged (planted) (time); the overview is checked now: a core is a unit "
    "order (queued at 2:15.93), and 放下 of a core is no place order the checker has",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "001",
        "18 名标枪兵",
    ): "blind case, not flagged (planted) (count); the overview is checked now: the count's side "
    "is named by its faction (盟军), and a count after 和 with no verb of its own is not read",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "001",
        "帝国武士下单 98 个",
    ): "blind case, not flagged (planted) (count); the overview is checked now: a count after its "
    "type and a verb ('帝国武士下单 98 个') is not read (only ZH_AMOUNT_OF words may stand between)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "001",
        "约 45 秒后才在 2:16.27 展开",
    ): "blind case, not flagged (planted) (duration); the overview is checked now: a duration from "
    "a time in the clause before is not read",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "002",
        "LostLamb 0:24.67 起三次 ×5 下单，共 20 名帝国武士",
    ): "blind case, not flagged (planted) (count)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "014",
        "盟军 7:31.53 点兵营、7:32.20 全部取消，犹豫了约 10 秒",
    ): "blind case, not flagged (planted) (duration)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "018",
        "#439 被占领后约 15 秒就被 LostLamb 卖掉",
    ): "blind case, not flagged (planted) (duration)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "024",
        "守护者坦克 5 辆、IFV 3 辆",
    ): "blind case, not flagged (not planted) (count)",
}

KNOWN_FALSE_ALARMS: dict[tuple[str, str, str], str] = {}
"""True sentences the checker flags (keyed by a piece of the sentence), each with the checker bug that flags it:
none may be added to hide one, and a fixed one must leave the list."""

DEVELOPMENT_CASES = frozenset({"kw_3v3_12m_zh", "ra3_1v1_battlebase_15m_en", "tw_1v1_10m_en"})
"""The cases the prose rules were written against (the first line of prose_history.jsonl)."""


def _verdicts() -> list[ProseVerdict]:
    if not (CORPUS / "ra3").exists():
        pytest.skip("corpus not available")
    return all_prose_verdicts(ROOT, CORPUS)[0]


def _key(v: ProseVerdict) -> tuple[str, str, str] | None:
    return next((k for k in KNOWN_MISSES if k[0] == v.source and k[1] == v.exchange and k[2] in v.sentence), None)


def _bar(verdicts: list[ProseVerdict]) -> tuple[float, list[str]]:
    planted = [v for v in verdicts if not v.truth and v.planted and v.kind in ("count", "time")]
    caught = [v for v in planted if v.flagged]
    return len(caught) / len(planted), [v.sentence for v in planted if not v.flagged]


def _false_alarm_key(v: ProseVerdict) -> tuple[str, str, str] | None:
    return next((k for k in KNOWN_FALSE_ALARMS if k[0] == v.source and k[1] == v.exchange and k[2] in v.sentence), None)


def test_ninety_percent_of_planted_wrong_counts_and_times_are_flagged_and_no_unlisted_true_sentence() -> None:
    """The bar on the cases the rules were written against; the blind cases are measured apart, below.

    No true sentence may be flagged but the checker bugs :data:`KNOWN_FALSE_ALARMS` names (one since the overview,
    exchange 001, is checked as the pipeline checks it); the whole-set test below keeps "none at all" as the bar.
    """
    verdicts = [v for v in _verdicts() if v.source in DEVELOPMENT_CASES]
    assert len([v for v in verdicts if not v.truth and v.planted]) >= 40  # 27 + 21 when this was written
    share, missed = _bar(verdicts)
    assert share >= 0.9, missed
    false_alarms = [
        f"{v.source} {v.exchange}: {v.sentence} → {[i.message for i in v.issues]}"
        for v in verdicts
        if v.truth and v.flagged and _false_alarm_key(v) is None
    ]
    assert not false_alarms, "\n".join(false_alarms)
    listed = [v for v in verdicts if v.truth and v.flagged]
    for kind in ("count", "time"):
        s = prose_score(verdicts, kind)
        assert s["false_alarms"] == sum(1 for v in listed if v.kind == kind), (kind, s)
        assert s["planted_caught"] / s["planted"] >= 0.9, (kind, s)


def test_the_bar_holds_on_the_whole_set_blind_cases_included() -> None:
    """111/119 (93%) with the held-out case ra3_1v1_observers_12m_64k_zh, 81/85 without it; no true sentence flagged.

    62/85 and 83/119 before the language rules; 104/119 before this session; 106/119 once the pipeline checked the
    overview's text too; 109/119 from the rules of wt/rules28 alone (entering and capturing, a power turned on by an
    object, a rank written as a word, 补, any player's sell at a copied log time).
    """
    verdicts = _verdicts()
    share, missed = _bar(verdicts)
    assert share >= 0.9, missed
    assert not [v for v in verdicts if v.truth and v.flagged]


def test_no_new_false_alarm_and_a_fixed_one_leaves_its_list() -> None:
    verdicts = _verdicts()
    alarms = {_false_alarm_key(v) or (v.source, v.exchange, v.sentence) for v in verdicts if v.truth and v.flagged}
    assert alarms == set(KNOWN_FALSE_ALARMS)


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
