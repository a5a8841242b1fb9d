"""Built-in pre_check rules and auto-fixes (spec: 内置规则; issue 9 §6 request checks)."""

from __future__ import annotations

from app.wisdom import ErrorWisdomManager

BASE = {
    "model": "deepseek-chat",
    "max_tokens": 4000,
    "temperature": 0.7,
    "estimated_prompt_tokens": 50000,
    "context_length": 131072,
    "known_models": ["deepseek-chat", "deepseek-reasoner"],
    "model_max_tokens": 8192,
}


def test_clean_request_passes_untouched(manager: ErrorWisdomManager) -> None:
    out = manager.pre_check("chat_completion", BASE)
    assert out == {"pass": True, "warnings": [], "auto_fixes": {}, "suggestions": []}


def test_missing_required_parameter_is_critical(manager: ErrorWisdomManager) -> None:
    params = {k: v for k, v in BASE.items() if k != "max_tokens"}
    res = manager.pre_check_result("chat_completion", params)
    assert not res.passed
    assert res.blocked_by == ["builtin_required"]
    assert "max_tokens" in res.warnings[0]


def test_enum_auto_fixes_to_the_nearest_valid_value(manager: ErrorWisdomManager) -> None:
    out = manager.pre_check("chat_completion", {**BASE, "model": "deepseek-chatt"})
    assert out["pass"] is True
    assert out["auto_fixes"] == {"model": "deepseek-chat"}
    # nothing resembles it: refused (high) rather than swapped for an unrelated model
    out = manager.pre_check("chat_completion", {**BASE, "model": "qwen-max"})
    assert out["pass"] is False
    assert out["auto_fixes"] == {}
    assert "deepseek-chat" in out["suggestions"][0]


def test_type_violation_is_refused(manager: ErrorWisdomManager) -> None:
    res = manager.pre_check_result("chat_completion", {**BASE, "max_tokens": "4000"})
    assert not res.passed
    assert res.blocked_by == ["builtin_type"]


def test_range_auto_clamps(manager: ErrorWisdomManager) -> None:
    res = manager.pre_check_result("chat_completion", {**BASE, "temperature": 3.5, "max_tokens": 20000})
    assert res.passed
    assert res.params["temperature"] == 2.0
    assert res.params["max_tokens"] == 8192
    assert res.to_dict()["auto_fixes"] == {"temperature": 2.0, "max_tokens": 8192}
    res = manager.pre_check_result("chat_completion", {**BASE, "temperature": -1})
    assert res.params["temperature"] == 0.0


def test_prompt_guard_at_90_percent_of_context_length(manager: ErrorWisdomManager) -> None:
    # 0.9 · 100000 = 90000: equal passes, one more is refused (plan §4.3 hard guard)
    ok = manager.pre_check("chat_completion", {**BASE, "context_length": 100000, "estimated_prompt_tokens": 90000})
    assert ok["pass"] is True
    res = manager.pre_check_result(
        "chat_completion", {**BASE, "context_length": 100000, "estimated_prompt_tokens": 90001}
    )
    assert not res.passed
    assert res.blocked_by == ["builtin_range"]
    assert res.params["estimated_prompt_tokens"] == 90001  # a prompt cannot be clamped


def test_lookback_format_warns_but_does_not_block(manager: ErrorWisdomManager) -> None:
    res = manager.pre_check_result("chat_completion", {**BASE, "lookback_ranges": ["1:20~1:45", "soon", "2:00~1:00"]})
    assert res.passed
    assert res.fired == ["builtin_format"]
    assert "soon" in res.warnings[0]
    assert "2:00~1:00" in res.warnings[0]
    assert "1:20~1:45" not in res.warnings[0]


def test_builtin_statistics_are_persisted(manager: ErrorWisdomManager) -> None:
    manager.pre_check("chat_completion", {**BASE, "temperature": 9})
    manager.pre_check("chat_completion", {**BASE, "temperature": 8})
    stats = {r.rule_id: r.applied for r in manager.list_rules()}
    assert stats["builtin_range"] == 2
    assert stats["builtin_enum"] == 0
