"""Similarity, clustering thresholds and rule generation (spec Phase 3: 规则自动生成模块)."""

from __future__ import annotations

import pytest

from app.wisdom import ErrorWisdomManager
from app.wisdom.rules import Features, cluster_features, similarity


def _f(i: int, triggers: set[str], roots: set[str], t: str = "tool", s: str = "parameter") -> Features:
    return Features(f"ew_20261130_{i:03d}", t, s, frozenset(triggers), frozenset(roots))


def test_similarity_weights() -> None:
    a = _f(1, {"a", "b", "c"}, {"x", "y"})
    b = _f(2, {"a", "b", "c", "d"}, {"x"})
    # 0.25 + 0.20 + 0.25·(3/4) + 0.30·(1/2)
    assert similarity(a, b) == pytest.approx(0.7875)
    c = _f(3, {"a", "b", "c"}, {"x", "y"}, t="cognitive", s="hallucination")
    assert similarity(a, c) == pytest.approx(0.55)  # 0 + 0 + 0.25 + 0.30


def test_three_similar_entries_make_a_cluster_and_two_do_not() -> None:
    three = [_f(i, {"a", "b"}, {"r"}) for i in range(3)]
    clusters, _ = cluster_features(three)
    assert len(clusters) == 1
    assert len(clusters[0].members) == 3
    clusters, _ = cluster_features(three[:2])
    assert clusters == []


def test_threshold_edge_at_0_60() -> None:
    # same type and subtype (0.45) + trigger Jaccard 3/5 = 0.6 (0.15) + no shared root cause = exactly 0.60
    lead = _f(1, {"a", "b", "c"}, set())
    at = [lead, _f(2, {"a", "b", "c", "d", "e"}, set()), _f(3, {"a", "b", "c", "f", "g"}, set())]
    assert similarity(at[0], at[1]) == pytest.approx(0.60)
    assert len(cluster_features(at)[0]) == 1
    # trigger Jaccard 3/6 = 0.5 → 0.575, just below
    below = [lead, _f(2, {"a", "b", "c", "d", "e", "h"}, set()), _f(3, {"a", "b", "c", "f", "g", "i"}, set())]
    assert similarity(below[0], below[1]) == pytest.approx(0.575)
    assert cluster_features(below)[0] == []


def test_no_all_pairs_scan() -> None:
    # 3,000 entries in 30 distinct groups: comparisons stay near entries × groups-sharing-a-feature, not n²/2
    feats = [_f(i, {f"g{i % 30}", f"code{i % 30}"}, {f"r{i % 30}"}) for i in range(3000)]
    clusters, comparisons = cluster_features(feats)
    assert len(clusters) == 30
    assert comparisons < 3000 * 2


def _overflow(manager: ErrorWisdomManager, i: int, model: str = "m1") -> str:
    return manager.record_error(
        "工具性错误",
        "调用失败类",
        "CONTEXT_OVERFLOW",
        f"overflow {i}",
        "prompt too long",
        "shrink",
        "keep prompt + output under the limit",
        f"trace_{i}",
        {
            "severity": "severe",
            "preventability": "high",
            "model": model,
            "tool_name": "chat_completion",
            "root_cause_categories": ["environment/resource_limit"],
            "trigger_patterns": ["tool:chat_completion", "code:CONTEXT_OVERFLOW", f"model:{model}"],
            "params": {"estimated_prompt_tokens": 50000 + i, "max_tokens": 8000},
        },
    )


def test_generation_pipeline_creates_one_observation_rule_and_links(manager: ErrorWisdomManager) -> None:
    ids = [_overflow(manager, i) for i in range(3)]
    _overflow(manager, 9, model="other")  # another model: different triggers, its own (too small) group
    report = manager.generate_rules()
    assert report["clusters"] == 1
    assert report["rules_generated"] == 1
    rule = manager.store.get_rule(report["rules"][0]["rule_id"])
    assert rule.status == "observation"
    assert rule.template == "token_limit"
    assert rule.model == "m1"
    assert sorted(rule.source_ids) == sorted(ids)
    # no provider limit was reported: 90% of the smallest overflowing request (50000 + 8000)
    assert rule.params["limit"] == int(0.9 * 58000)
    e = manager.get_entry(ids[0])
    assert e.abstract_rule_id == rule.rule_id
    assert sorted(e.similar_ids) == sorted(ids[1:])
    # running again updates the same rule instead of adding a duplicate
    again = manager.generate_rules()
    assert again["rules_generated"] == 0
    assert again["rules_updated"] == 1
    assert len([r for r in manager.list_rules() if r.origin == "generated"]) == 1
    assert manager.store.list_patterns()[0]["rule_id"] == rule.rule_id


def test_spec_style_construction_from_a_folder_and_entry_dicts(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json
    from pathlib import Path

    from app.wisdom import RuleGenerationManager, TimelinessManager

    examples = json.loads((Path(__file__).parent / "data" / "spec_examples.json").read_text(encoding="utf-8"))
    timeliness = TimelinessManager(tmp_path / "agi_memory")
    rules = RuleGenerationManager(tmp_path / "agi_memory", timeliness)
    report = rules.run_generation_pipeline(entries=examples, min_cluster_size=3)
    assert report["rules_generated"] == 0
    assert report["entries"] == 2
    assert (tmp_path / "agi_memory" / "error_wisdom.sqlite3").exists()
    assert timeliness.get_confidence("ew_20260305_015", examples[0]) < 0.3  # March 2026, decayed since
    timeliness.store.db.close()
    rules.store.db.close()
