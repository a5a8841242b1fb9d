"""Cross-claim checks and correction marks (issue 28 §2), on the claims as the store keeps them."""

from __future__ import annotations

from app.claims.consistency import StageClaims, cross_claim_findings, mark_corrections, split_correction
from app.claims.revision import WindowCorrection, window_corrections
from app.i18n import Lang

TYPES = {"AlliedBarracks": "AlliedBarracks", "AlliedMiner": "AlliedMiner", "JapanRefineryEgg": "JapanRefinery"}


def _type_of(name: str) -> str | None:
    """A stand-in for the validator's canonical type: a core is the structure it unpacks to."""
    return TYPES.get(name, name if name == "JapanRefinery" else None)


def _stage(key: str, label: str, **claims: list[dict[str, object]]) -> StageClaims:
    return StageClaims(key, label, {f"{k}Claims": v for k, v in claims.items()})


def test_one_object_typed_two_ways_flags_both_and_a_core_is_its_structure() -> None:
    w1 = _stage("window:0:0", "Window 1", unit=[{"unitId": 7, "type": "AlliedBarracks", "verdict": "passed"}])
    w2 = _stage(
        "window:0:1",
        "Window 2",
        unit=[{"unitId": 7, "type": "AlliedMiner", "verdict": "passed"}],
        event=[{"kind": "sell", "actorId": 9, "name": "JapanRefinery", "verdict": "passed"}],
    )
    w3 = _stage("window:0:2", "Window 3", unit=[{"unitId": 9, "type": "JapanRefineryEgg", "verdict": "passed"}])
    found = cross_claim_findings([w1, w2, w3], _type_of, Lang.EN)
    assert sorted((f.stage, f.ref, f.issue.code) for f in found) == [
        ("window:0:0", "unit:0", "TypeConflict"),
        ("window:0:1", "unit:0", "TypeConflict"),
    ]
    by_stage = {f.stage: f.issue.message for f in found}
    assert "Window 2 unit claim 1: AlliedMiner" in by_stage["window:0:0"]
    assert "Window 1 unit claim 1: AlliedBarracks" in by_stage["window:0:1"]


def test_a_flagged_claim_is_no_party_to_a_conflict() -> None:
    w1 = _stage("a", "Window 1", unit=[{"unitId": 7, "type": "AlliedBarracks", "verdict": "passed"}])
    w2 = _stage("b", "Window 2", unit=[{"unitId": 7, "type": "AlliedMiner", "verdict": "Warning UnknownType"}])
    assert cross_claim_findings([w1, w2], _type_of, Lang.EN) == []


def test_an_order_before_the_passed_first_time_flags_both() -> None:
    w1 = _stage(
        "a",
        "Window 1",
        event=[{"time": "1:00.00", "player": "P", "kind": "produce", "name": "AlliedMiner", "verdict": "passed"}],
    )
    w2 = _stage(
        "b", "Window 2", timeline=[{"player": "P", "type": "AlliedMiner", "firstTime": "3:00.00", "verdict": "passed"}]
    )
    found = cross_claim_findings([w1, w2], _type_of, Lang.ZH)
    assert sorted((f.stage, f.ref, f.issue.code) for f in found) == [
        ("a", "event:0", "TimelineConflict"),
        ("b", "timeline:0", "TimelineConflict"),
    ]
    assert "Window 2 时间线声明 1" in found[0].issue.message  # the stage label as the run names it
    # within the 2 s tolerance of the first time there is no conflict
    w1.claims["eventClaims"][0]["time"] = "2:58.50"
    assert cross_claim_findings([w1, w2], _type_of, Lang.ZH) == []


def test_a_correction_is_marked_after_the_sentence_it_contradicts_in_both_languages() -> None:
    text = "Window one. Nickname built three Dolphins at 5:46. Then he expanded."
    [c] = window_corrections("[corrections]\n- Window 1: three Dolphins → they were Conscripts (#812 queued as such)\n")
    assert split_correction(c.text) == ("three Dolphins", "they were Conscripts (#812 queued as such)")
    marked, placed = mark_corrections(text, [c], Lang.EN)
    assert placed == 1
    assert marked == (
        "Window one. Nickname built three Dolphins at 5:46. [corrected in the summary: they were Conscripts "
        "(#812 queued as such)] Then he expanded."
    )
    zh = "第一窗口。对手造了两个防空步兵。随后扩张。"
    [c] = window_corrections("[更正]\n- 窗口 1：两个防空步兵 → 是两个动员兵（生产指令是 SovietInfantryConscript）\n")
    marked, placed = mark_corrections(zh, [c], Lang.ZH)
    mark = "〔总结轮更正：是两个动员兵（生产指令是 SovietInfantryConscript）〕"
    assert marked == f"第一窗口。对手造了两个防空步兵。{mark}随后扩张。"


def test_a_correction_that_matches_no_sentence_marks_nothing() -> None:
    text = "Window one. Both sides expanded. #812 moved to the ore at 2:00 and #812 came back at 3:00."
    vague = WindowCorrection(1, "the opening was read too early → the barracks came first", None, None)
    ambiguous = WindowCorrection(1, "#812 was misread → #812 is a miner", 812, None)
    assert mark_corrections(text, [vague], Lang.EN) == (text, 0)
    two_sentences = "Window one. #812 moved. Later #812 came back."
    assert mark_corrections(two_sentences, [ambiguous], Lang.EN) == (two_sentences, 0)  # which one? left alone
