"""Entry structure, ids, and JSON export/import with the spec's Chinese keys."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from app.store import open_database
from app.wisdom import ErrorWisdomManager, WisdomEntry, WisdomFormatError

EXAMPLES = json.loads((Path(__file__).parent / "data" / "spec_examples.json").read_text(encoding="utf-8"))


def test_examples_are_the_specs_two_example_entries() -> None:
    assert [e["id"] for e in EXAMPLES] == ["ew_20260305_015", "ew_20260315_001"]
    assert EXAMPLES[1]["原因分析"]["认知维度分析"]["推理偏差"].startswith("过度推断")


@pytest.mark.parametrize("doc", EXAMPLES, ids=lambda d: d["id"])
def test_entry_round_trips_in_memory(doc: dict[str, Any]) -> None:
    e = WisdomEntry.from_spec(doc)
    assert e.to_spec() == doc
    assert list(e.to_spec()) == list(doc)  # the spec's key order too


def test_store_export_import_round_trip(manager: ErrorWisdomManager, tmp_path: Path) -> None:
    manager.import_data(EXAMPLES)
    tool = manager.get_entry("ew_20260305_015")
    assert (tool.type_code, tool.subtype_code, tool.error_code) == ("tool", "parameter", "INVALID_DATE_FORMAT")
    assert tool.verifications[0].effect == "成功预防"
    assert tool.confidence == 0.9
    cog = manager.get_entry("ew_20260315_001")
    assert (cog.type_code, cog.subtype_code, cog.cognitive_flag) == ("cognitive", "hallucination", True)
    assert cog.error_code is None
    assert cog.system_dimensions == {"人格特质影响": "高开放性导致倾向于创造性回答", "学习阶段": "早期"}
    out = tmp_path / "export.json"
    assert manager.export_json(out) == 2
    exported = json.loads(out.read_text(encoding="utf-8"))
    assert exported["error_wisdom_entries"] == EXAMPLES
    # and into a fresh store, and out again: identical
    other = open_database(tmp_path / "other.sqlite3")
    try:
        m2 = ErrorWisdomManager(other)
        assert m2.import_json(out) == {"imported": 2, "skipped": 0, "rules": 0}
        assert m2.export_data()["error_wisdom_entries"] == EXAMPLES
        assert m2.import_json(out)["skipped"] == 2  # importing twice does not duplicate
    finally:
        other.close()


def test_bad_import_names_the_field_and_writes_nothing(manager: ErrorWisdomManager, tmp_path: Path) -> None:
    broken = json.loads(json.dumps(EXAMPLES))
    del broken[1]["错误发现"]["严重程度"]
    with pytest.raises(WisdomFormatError, match=r"entry #2: entry ew_20260315_001: required field '严重程度'"):
        manager.import_data(broken)
    assert manager.store.count_entries() == 0
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(WisdomFormatError, match="not valid JSON"):
        manager.import_json(bad)
    wrong = json.loads(json.dumps(EXAMPLES[0]))
    wrong["元数据"]["置信度"] = 1.5
    with pytest.raises(WisdomFormatError, match="置信度"):
        manager.import_data(wrong)


def test_record_error_assigns_daily_sequence_ids_and_structured_fields(manager: ErrorWisdomManager) -> None:
    ids = [
        manager.record_error(
            "工具性错误",
            "参数构造类",
            "INVALID_ENUM_VALUE",
            f"bad unit {i}",
            "enum not checked",
            "convert",
            "check enums",
            f"trace_{i}",
            {
                "severity": "mild",
                "preventability": "high",
                "root_cause_categories": ["tool_interface/unclear_constraint"],
            },
        )
        for i in range(3)
    ]
    assert all(re.fullmatch(r"ew_\d{8}_\d{3}", i) for i in ids)
    assert [int(i[-3:]) for i in ids] == [1, 2, 3]
    assert len({i[3:11] for i in ids}) == 1
    e = manager.get_entry(ids[0])
    assert e.root_cause_categories == ["tool_interface/unclear_constraint"]
    assert e.status == "active"
    doc = e.to_spec()
    assert doc["错误发现"]["错误码"] == "INVALID_ENUM_VALUE"
    assert doc["扩展"]["根因类别"] == e.root_cause_categories
    assert WisdomEntry.from_spec(doc).to_spec() == doc


def test_record_error_rejects_bad_arguments(manager: ErrorWisdomManager) -> None:
    with pytest.raises(WisdomFormatError, match="unknown error type"):
        manager.record_error("weird", "x", "", "d", "r", "s", "p", "t")
    with pytest.raises(WisdomFormatError, match="does not belong"):
        manager.record_error("工具性错误", "幻觉倾向类", "", "d", "r", "s", "p", "t")
    with pytest.raises(WisdomFormatError, match="root-cause category"):
        manager.record_error(
            "工具性错误", "调用失败类", "", "d", "r", "s", "p", "t", {"root_cause_categories": ["network"]}
        )
    assert manager.store.count_entries() == 0


def test_rules_and_patterns_survive_export_and_import(manager: ErrorWisdomManager, tmp_path: Path) -> None:
    for i in range(3):
        manager.record_error(
            "工具性错误",
            "调用失败类",
            "RATE_LIMITED",
            f"429 #{i}",
            "too many requests",
            "wait",
            "slow down",
            f"t{i}",
            {
                "model": "m1",
                "tool_name": "chat_completion",
                "root_cause_categories": ["environment/resource_limit"],
                "params": {"retry_after_s": 5.0 + i},
            },
        )
    report = manager.generate_rules()
    rid = report["rules"][0]["rule_id"]
    manager.validate_rule(rid)
    out = tmp_path / "all.json"
    manager.export_json(out)
    doc = json.loads(out.read_text(encoding="utf-8"))
    (rule_doc,) = doc["prevention_rules"]
    assert rule_doc["时效性"]["状态"] == "active"
    assert set(rule_doc["效果统计"]) == {"应用次数", "成功预防次数", "失败次数", "成功率"}
    assert rule_doc["扩展"]["模板参数"] == {"min_interval_s": 7.0}  # the longest Retry-After seen
    assert len(doc["error_patterns"][0]["成员"]) == 3
    other = open_database(tmp_path / "other.sqlite3")
    try:
        m2 = ErrorWisdomManager(other)
        m2.import_json(out)
        assert m2.store.get_rule(rid).to_spec() == manager.store.get_rule(rid).to_spec()
        again = m2.export_data()
        assert again["error_wisdom_entries"] == doc["error_wisdom_entries"]
        assert [{k: v for k, v in p.items() if k != "创建时间"} for p in again["error_patterns"]] == [
            {k: v for k, v in p.items() if k != "创建时间"} for p in doc["error_patterns"]
        ]
    finally:
        other.close()


def test_failed_preventions_in_an_imported_history_count_as_counterexamples() -> None:
    doc = json.loads(json.dumps(EXAMPLES[0]))
    doc["验证历史"].append(
        {
            "timestamp": "2026-03-06T09:00:00Z",
            "trace_id": "trace_x",
            "场景": "日历API调用",
            "效果": "预防失败",
            "预防触发": "未转换",
            "用户反馈": "negative",
        }
    )
    e = WisdomEntry.from_spec(doc)
    assert e.counterexamples == 1
    assert e.to_spec() == doc  # derived, so nothing extra is written


def test_manager_opens_a_memory_folder_like_the_spec(tmp_path: Path) -> None:
    m = ErrorWisdomManager(tmp_path / "agi_memory")
    try:
        m.import_data(EXAMPLES)
        assert m.store.count_entries() == 2
    finally:
        m.db.close()
    assert (tmp_path / "agi_memory" / "error_wisdom.sqlite3").exists()
