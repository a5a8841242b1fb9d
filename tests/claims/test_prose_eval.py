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

# The blind cases added after the prose rules were written (their first scores are in prose_history.jsonl, keys
# "prose:<case>"): each miss stays listed until a rule made for the game or the language (never for the case) reads it.
KNOWN_MISSES |= {
    (
        "kw_1v1_10m_32k_en",
        "001",
        "joohan builds more refineries (five plac",
    ): "blind case, not flagged at its first score (not planted) (count)",
    (
        "kw_1v1_10m_32k_en",
        "004",
        "Production starts with a Scorpion buggy ",
    ): "blind case, not flagged at its first score (count)",
    (
        "kw_1v1_10m_32k_en",
        "004",
        "The yard stays packed for about 25 secon",
    ): "blind case, not flagged at its first score (duration)",
    (
        "kw_1v1_10m_32k_en",
        "006",
        "While the MCV drives, he gathers his veh",
    ): "blind case, not flagged at its first score (count)",
    (
        "kw_1v1_10m_32k_en",
        "008",
        "A second factory (NODDropZone) is starte",
    ): "blind case, not flagged at its first score (time)",
    (
        "kw_1v1_10m_32k_en",
        "008",
        "He upgrades four power plants between 5:",
    ): "blind case, not flagged at its first score (count)",
    (
        "kw_1v1_10m_32k_en",
        "010",
        "He queues harvesters six times at 6:54–6",
    ): "blind case, not flagged at its first score (count)",
    (
        "kw_1v1_10m_32k_en",
        "012",
        "The new yard #2229 starts a refinery at ",
    ): "blind case, not flagged at its first score (duration)",
    (
        "kw_1v1_10m_32k_en",
        "014",
        "But he packed his construction yard thre",
    ): "blind case, not flagged at its first score (count)",
    (
        "kw_1v1_10m_32k_en",
        "014",
        "After selling his yard, BoolBada put a s",
    ): "blind case, not flagged at its first score (time)",
    (
        "ra3_1v1_24m_128k_zh",
        "001",
        "YuiYui（盟军）0:09.67 选先进航空学，兵营→电厂→双精炼厂，1:31",
    ): "blind case, not flagged at its first score (time)",
    (
        "ra3_1v1_24m_128k_zh",
        "001",
        "YuiYui 开局连下两座精炼厂之后又在 3:32.13 补第四座精炼厂，经济起",
    ): "blind case, not flagged at its first score (count)",
    (
        "ra3_1v1_24m_128k_zh",
        "004",
        "基地车 #370 于 2:52.47 在 (3446,1264) 展开，#370",
    ): "blind case, not flagged at its first score (duration)",
    (
        "ra3_1v1_24m_128k_zh",
        "006",
        "4:50.00 终于生产机甲工厂核心，核心 #523 于 4:57.93 在 (",
    ): "blind case, not flagged at its first score (count)",
    (
        "ra3_1v1_24m_128k_zh",
        "008",
        "装甲工厂 7:22.20 开工，7:48.20 放下（(3382,1073)），",
    ): "blind case, not flagged at its first score (time)",
    (
        "ra3_1v1_24m_128k_zh",
        "010",
        "YuiYui 10:25.13 选冰冻卫星 2 级。",
    ): "blind case, not flagged at its first score (time)",
    (
        "ra3_1v1_24m_128k_zh",
        "012",
        "兵营 #503 在 10:50.47/10:50.60 两次 ×5 维和步兵、1",
    ): "blind case, not flagged at its first score (time)",
    (
        "ra3_1v1_24m_128k_zh",
        "014",
        "YuiYui 12:28.47/12:28.60、12:32.20/12:32.",
    ): "blind case, not flagged at its first score (count)",
    (
        "ra3_1v1_24m_128k_zh",
        "014",
        "从 10:15.13 选 2 级到 13:01.73 首次施放，隔了将近四分钟。",
    ): "blind case, not flagged at its first score (duration)",
    (
        "ra3_1v1_24m_128k_zh",
        "016",
        "14:48.93–14:52.60 两个兵营各三批 ×5，共 35 个标枪兵，明",
    ): "blind case, not flagged at its first score (count)",
    (
        "ra3_1v1_24m_128k_zh",
        "016",
        "YuiYui 14:04.00 选冰冻卫星 3 级（PlayerTech_All",
    ): "blind case, not flagged at its first score (time)",
    (
        "ra3_1v1_24m_128k_zh",
        "018",
        "16:24.60、16:24.80 装甲工厂 #655 首次下单装甲工厂版激流 ",
    ): "blind case, not flagged at its first score (count)",
    (
        "ra3_1v1_24m_128k_zh",
        "020",
        "17:12.20–17:15.33 两个道场单个点了十二个帝国武士，17:21.",
    ): "blind case, not flagged at its first score (count)",
    (
        "ra3_1v1_24m_128k_zh",
        "020",
        "17:48.67 开始机甲工厂三级升级（Upgrade_JapanWarFact",
    ): "blind case, not flagged at its first score (time)",
    (
        "ra3_1v1_24m_128k_zh",
        "022",
        "YuiYui 19:18.67 打包建造场 #391（变为 #1679），19:",
    ): "blind case, not flagged at its first score (duration)",
    (
        "ra3_1v1_24m_128k_zh",
        "024",
        "22:23.20–22:23.47 取消五辆三级装甲，22:23.73 改下精炼",
    ): "blind case, not flagged at its first score (count)",
    (
        "ra3_1v1_24m_128k_zh",
        "024",
        "#1740/#1755 正是帝国反复“提早发射”（SpecialPower_JA",
    ): "blind case, not flagged at its first score (time)",
    (
        "ra3_1v1_24m_128k_zh",
        "026",
        "建造场 #238 在 0:41.87 打包、0:54.60 展开为 #333，K",
    ): "blind case, not flagged at its first score (count)",
}

# ra3_1v1_observers_12m_64k_zh (blind, zh, first prose score P 0.96 / R 0.46 on 2026-12-03).
KNOWN_MISSES |= {
    (
        "ra3_1v1_observers_12m_64k_zh",
        "001",
        "在 0:09.80 选择了光荣自爆协议",
    ): "blind case, not flagged at its first score (planted) (time)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "001",
        "帝国在 2:45.93 才放下机甲工厂核心",
    ): "blind case, not flagged at its first score (planted) (time)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "001",
        "18 名标枪兵",
    ): "blind case, not flagged at its first score (planted) (count)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "001",
        "帝国武士下单 98 个",
    ): "blind case, not flagged at its first score (planted) (count)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "001",
        "约 45 秒后才在 2:16.27 展开",
    ): "blind case, not flagged at its first score (planted) (duration)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "002",
        "盟军初始兵营从 0:00.93 开始建造到 0:11.47 放下，用了约 20 ",
    ): "blind case, not flagged at its first score (planted) (duration)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "002",
        "LostLamb 0:24.67 起三次 ×5 下单，共 20 名帝国武士",
    ): "blind case, not flagged at its first score (planted) (count)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "004",
        "海港从 1:07.20 开建到 1:27.87 放下，持续了约 35 秒",
    ): "blind case, not flagged at its first score (planted) (duration)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "006",
        "机甲工厂核心从 2:15.93 下单到 2:43.27 展开，只用了约 15 秒",
    ): "blind case, not flagged at its first score (planted) (duration)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "008",
        "兵营从 3:39.07 开建到 3:53.47 放下，持续了约 25 秒",
    ): "blind case, not flagged at its first score (planted) (duration)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "010",
        "LostLamb 在 5:37.13 选择单点防御无人载具协议",
    ): "blind case, not flagged at its first score (planted) (time)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "010",
        "装甲工厂从 5:07.07 开建到 5:32.60 放下，持续了约 40 秒",
    ): "blind case, not flagged at its first score (planted) (duration)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "012",
        "冰冻卫星从 5:52.40 选择到 6:45.80 第一次使用，隔了约 70 秒",
    ): "blind case, not flagged at its first score (planted) (duration)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "014",
        "盟军 7:31.53 点兵营、7:32.20 全部取消，犹豫了约 10 秒",
    ): "blind case, not flagged at its first score (planted) (duration)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "014",
        "H2O 在 7:21.07 补了一辆探矿车",
    ): "blind case, not flagged at its first score (planted) (time)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "016",
        "电厂从 7:32.47 开建到 7:57.00 放下，用了约 40 秒",
    ): "blind case, not flagged at its first score (planted) (duration)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "018",
        "LostLamb 的工兵在 9:11.07 进入盟军建造场 #439",
    ): "blind case, not flagged at its first score (planted) (time)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "018",
        "#439 被占领后约 15 秒就被 LostLamb 卖掉",
    ): "blind case, not flagged at its first score (planted) (duration)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "020",
        "天狗编队从 10:12.87 到 10:28.40 反复变形，持续了约 30 秒",
    ): "blind case, not flagged at its first score (planted) (duration)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "022",
        "盟军从 10:47.60 到 11:02.87 三次全军攻击移动，持续了约 45",
    ): "blind case, not flagged at its first score (planted) (duration)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "022",
        "#926 在 11:24.93 开纳米偏转装置",
    ): "blind case, not flagged at its first score (planted) (time)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "024",
        "H2O 在 5:55.40 选冰冻卫星一级",
    ): "blind case, not flagged at its first score (planted) (time)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "024",
        "盟军下单幻影坦克 20 辆",
    ): "blind case, not flagged at its first score (planted) (count)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "024",
        "帝国全场下单天狗 112 台",
    ): "blind case, not flagged at its first score (planted) (count)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "024",
        "9:08.07 工兵进入建造场，9:17.27 卖掉",
    ): "blind case, not flagged at its first score (planted) (time)",
    (
        "ra3_1v1_observers_12m_64k_zh",
        "024",
        "盟军从 5:53.80 开始升级最高许可到 7:30.33 下单幻影坦克，隔了约",
    ): "blind case, not flagged at its first score (planted) (duration)",
}

KNOWN_FALSE_ALARMS: dict[tuple[str, str, str], str] = {
    (
        "ra3_1v1_observers_12m_64k_zh",
        "010",
        "H2O 在 5:33.53 卖掉了刚造的兵营 #473",
    ): "blind, first score: the digit in the player name 'H2O' is read as a count",
    (
        "kw_1v1_10m_32k_en",
        "004",
        "queues two shift-clicks of five attack bikes",
    ): "blind, first score: 'two shift-clicks of five' is read as five units (the orders make ten)",
}
"""True sentences the checker flags (keyed by a piece of the sentence): none may be added."""

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


def test_ninety_percent_of_planted_wrong_counts_and_times_are_flagged_and_no_true_sentence() -> None:
    """The bar on the cases the rules were written against; the blind cases are measured apart, below."""
    verdicts = [v for v in _verdicts() if v.source in DEVELOPMENT_CASES]
    assert len([v for v in verdicts if not v.truth and v.planted]) >= 40  # 27 + 21 when this was written
    share, missed = _bar(verdicts)
    assert share >= 0.9, missed
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


@pytest.mark.xfail(
    strict=True,
    reason="issue 28: 83/119 (70%) planted wrong counts and times flagged on the whole set with "
    "the three blind cases of 2026-12-03, and two true sentences flagged; the bar is 90% and none",
)
def test_the_bar_holds_on_the_whole_set_blind_cases_included() -> None:
    verdicts = _verdicts()
    share, missed = _bar(verdicts)
    assert share >= 0.9, missed
    assert not [v for v in verdicts if v.truth and v.flagged]


def test_no_new_false_alarm_and_a_fixed_one_leaves_its_list() -> None:
    verdicts = _verdicts()
    alarms = {
        next((k for k in KNOWN_FALSE_ALARMS if k[0] == v.source and k[1] == v.exchange and k[2] in v.sentence), None)
        or (v.source, v.exchange, v.sentence)
        for v in verdicts
        if v.truth and v.flagged
    }
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
