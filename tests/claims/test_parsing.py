from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.claims.issues import Severity
from app.claims.lookback import find_lookbacks, strip_lookbacks
from app.claims.parse import parse_claims
from app.claims.timeparse import format_time, parse_range, parse_time


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("1:20", 80.0), ("01:20.50", 80.5), ("１：２０", 80.0), ("0:05", 5.0), ("1:02:03", 3723.0), ("12:00.25", 720.25)],
)
def test_parse_time_accepts_the_shapes_models_write(text: str, seconds: float) -> None:
    assert parse_time(text) == seconds


@pytest.mark.parametrize("text", ["", "abc", "1:75", "1.20", "::", "99"])
def test_parse_time_rejects_without_raising(text: str) -> None:
    assert parse_time(text) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1:20~1:45", (80.0, 105.0)),
        ("1:20～1:45", (80.0, 105.0)),
        ("01:20 - 01:45", (80.0, 105.0)),
        ("1:20 至 1:45.5", (80.0, 105.5)),
        ("０１：２０〜０１：４５", (80.0, 105.0)),
    ],
)
def test_parse_range_separators(text: str, expected: tuple[float, float]) -> None:
    assert parse_range(text) == expected


def test_parse_range_rejects_reversed_and_empty() -> None:
    assert parse_range("2:00~1:00") is None
    assert parse_range("1:00~1:00") is None
    assert parse_range("1:00") is None


@given(st.text(max_size=60))
def test_time_parsers_never_raise(text: str) -> None:
    parse_time(text)
    parse_range(text)
    find_lookbacks(text)
    parse_claims(text)


def test_format_time_is_m_ss_cc() -> None:
    assert format_time(0) == "0:00.00"
    assert format_time(90.5) == "1:30.50"
    assert format_time(1447.0 + 1 / 15) == "24:07.07"


def test_lookbacks_several_and_malformed() -> None:
    reply = "分析……\n[回查] 1:20~1:45\n[lookback] 3:00 to 4:10, 9:99~x\n[回查] soon"
    found = find_lookbacks(reply)
    assert found.ranges == [(80.0, 105.0), (180.0, 250.0)]
    assert [i.code for i in found.issues] == ["LookbackMalformed", "LookbackMalformed"]
    assert all(i.severity is Severity.INFO for i in found.issues)
    assert strip_lookbacks(reply) == "分析……"


def test_claims_blocks_merge_later_wins_and_bad_block_is_info() -> None:
    reply = (
        "正文\n[机器可读声明]\n"
        '```json\n{"unitClaims": [{"unitId": 12, "player": "A"}, {"unitId": 13, "player": "A"}]}\n```\n'
        '```json\n{"unitClaims": [{"unitId": 12, "player": "B"}], oops\n```\n'
        '```json\n{"unitClaims": [{"unitId": "#12", "player": "C"}], "eventClaims": [{"time": "1:00"}]}\n```\n'
    )
    parsed = parse_claims(reply)
    assert parsed.display_text == "正文"
    assert parsed.blocks_found == 3
    assert parsed.blocks_parsed == 2
    assert [(c["unitId"], c["player"]) for c in parsed.unit_claims] == [("#12", "C"), (13, "A")]
    assert parsed.event_claims == [{"time": "1:00"}]
    assert [(i.severity, i.code) for i in parsed.issues] == [(Severity.INFO, "ClaimsBlockUnparsable")]


def test_claims_without_fences_and_english_marker() -> None:
    reply = 'Text\n[claims]\n{"timelineClaims": [{"player": "A", "type": "X", "firstTime": "2:00"}]} trailing'
    parsed = parse_claims(reply)
    assert parsed.marker_found
    assert parsed.timeline_claims == [{"player": "A", "type": "X", "firstTime": "2:00"}]


def test_no_marker_means_no_claims() -> None:
    parsed = parse_claims('just text {"unitClaims": []}')
    assert not parsed.marker_found
    assert parsed.empty


def test_a_block_nested_deeper_than_the_cap_is_refused_without_recursion() -> None:
    from app.claims.parse import MAX_DEPTH

    deep = '{"unitClaims": ' + "[" * 100_000 + "]" * 100_000 + "}"  # json.loads would raise RecursionError
    ok = '{"eventClaims": [{"time": "1:00", "evidence": [["a"]]}]}'  # 5 levels: object, list, claim, list, list
    parsed = parse_claims(f"text\n[claims]\n```json\n{deep}\n```\n```json\n{ok}\n```")
    assert [(i.code, i.message) for i in parsed.issues] == [
        ("ClaimsBlockTooDeep", f"claims block 1 nests 100001 levels deep (at most {MAX_DEPTH}); ignored")
    ]
    assert parsed.blocks_parsed == 1
    assert parsed.event_claims == [{"time": "1:00", "evidence": [["a"]]}]


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    text = '{"unitClaims": [{"unitId": 5, "note": "' + "[{" * 1000 + '"}]}'
    parsed = parse_claims("x\n[claims]\n" + text)
    assert parsed.issues == []
    assert parsed.unit_claims[0]["unitId"] == 5


def test_claims_beyond_the_cap_and_evidence_beyond_the_cap_are_cut_and_said_to_be() -> None:
    import json

    from app.claims.parse import MAX_CLAIMS, MAX_EVIDENCE

    units = [{"unitId": k, "evidence": [f"move|1:00|{j}" for j in range(MAX_EVIDENCE + 3)]} for k in range(MAX_CLAIMS)]
    events = [{"time": "1:00", "kind": "build"}] * 7
    block = json.dumps({"unitClaims": units, "eventClaims": events, "timelineClaims": [{"player": "a"}] * 2})
    parsed = parse_claims("x\n[claims]\n```json\n" + block + "\n```")
    assert len(parsed.unit_claims) == MAX_CLAIMS
    assert parsed.event_claims == []
    assert all(len(c["evidence"]) == MAX_EVIDENCE for c in parsed.unit_claims)
    assert [(i.code, i.message) for i in parsed.issues] == [
        (
            "ClaimsCapped",
            f"the reply carries more than one reply may: 7 event claim(s), 2 timeline claim(s), "
            f"{3 * MAX_CLAIMS} evidence item(s) beyond {MAX_EVIDENCE} per claim were cut (at most {MAX_CLAIMS} "
            "claims per reply); ignored",
        )
    ]


def test_an_oversized_claims_section_is_read_only_up_to_the_cap() -> None:
    from app.claims.parse import MAX_SECTION_CHARS

    block = '{"unitClaims": [{"unitId": 7}]}'
    section = (
        "\n```json\n" + block + "\n```\n" + " " * MAX_SECTION_CHARS + '```json\n{"unitClaims": [{"unitId": 8}]}\n```'
    )
    parsed = parse_claims("x\n[claims]" + section)
    assert [c["unitId"] for c in parsed.unit_claims] == [7]
    assert [(i.code, i.message) for i in parsed.issues] == [
        (
            "ClaimsSectionCut",
            f"the claims section has {len(section):,} characters; only the first {MAX_SECTION_CHARS:,} were read, "
            "the rest ignored",
        )
    ]


def test_lookback_requests_beyond_the_cap_become_one_issue() -> None:
    from app.claims.lookback import MAX_REQUESTS

    text = "\n".join(f"[回查] {m}:00~{m}:30" for m in range(50)) + "\n[回查] 昨天"
    found = find_lookbacks(text)
    assert found.ranges == [(60.0 * m, 60.0 * m + 30) for m in range(MAX_REQUESTS)]
    assert [(i.code, i.message) for i in found.issues] == [
        (
            "LookbackRequestsCut",
            f"{50 - MAX_REQUESTS + 1} lookback request(s) beyond the first {MAX_REQUESTS} of this reply were ignored",
        )
    ]
