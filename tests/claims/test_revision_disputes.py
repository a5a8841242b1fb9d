"""Disputes in a revision reply (issue 28 §3): which flagged claims the model disputes, and with what reason."""

from __future__ import annotations

from app.claims.issues import Severity, ValidationIssue
from app.claims.parse import ParsedClaims
from app.claims.revision import disputes, mark_disputed, without_disputes


def test_dispute_lines_in_both_languages_map_to_the_claims_the_request_numbered() -> None:
    zh = (
        "[异议]\n- 单位声明 2：第 3:10.00 行是他的编队\n- 事件声明 1：\n1. 时间线声明 1：日志 2:00.00 有这一行\n"
        "[机器可读声明]\n- 单位声明 3：不算"
    )
    assert disputes(zh) == {"unit:1": "第 3:10.00 行是他的编队", "timeline:0": "日志 2:00.00 有这一行"}
    en = "[disputes]\n* **unit claim 1**: the 1:05.00 group order is his\n```json\n{}\n```"
    assert disputes(en) == {"unit:0": "the 1:05.00 group order is his"}
    assert disputes("no such section\n- unit claim 1: x") == {}
    assert without_disputes("text before\n[disputes]\n- unit claim 1: x\n[claims]\n{}") == "text before\n[claims]\n{}"


def _issue(ref: str, code: str, fact: str) -> ValidationIssue:
    return ValidationIssue(Severity.CONTRADICTION, code, f"{ref}: {code}", unit_id=7, claim=ref, fact=fact)


def test_an_issue_is_disputed_unless_the_check_gives_the_same_finding_again() -> None:
    draft = ParsedClaims(unit_claims=[{"unitId": 7, "player": "A"}, {"unitId": 8, "player": "A"}])
    issues = [_issue("unit:0", "OwnershipContradiction", "B owns #7"), _issue("unit:1", "OwnershipContradiction", "B")]
    reasons = {"unit:0": "A grouped it", "unit:1": "A grouped it too"}
    # the revision keeps #8 as it was (now first) and states #7 for B: #8 gets the same finding, #7 none
    merged = ParsedClaims(unit_claims=[{"unitId": 8, "player": "A"}, {"unitId": 7, "player": "B"}])
    final = [_issue("unit:0", "OwnershipContradiction", "B")]
    marked = mark_disputed(draft, issues, reasons, merged, final)
    assert [i.disputed for i in marked] == ["A grouped it", ""]
    # a changed finding on the same claim is no confirmation either
    final = [_issue("unit:1", "OwnershipContradiction", "A owns #7 from 5:00")]
    assert mark_disputed(draft, issues[:1], reasons, merged, final)[0].disputed == "A grouped it"
    # without a reason nothing is disputed
    assert mark_disputed(draft, issues, {}, merged, []) == issues
