"""query_prevention: relevance, scope and state (spec: 预防查询接口)."""

from __future__ import annotations

from app.wisdom import ErrorWisdomManager


def _rec(
    m: ErrorWisdomManager, code: str, model: str | None, stage: str | None, strategy: str, *, confidence: float = 0.9
) -> str:
    return m.record_error(
        "工具性错误",
        "调用失败类",
        code,
        f"{code} on {model}",
        "cause",
        "fix",
        strategy,
        "t",
        {"model": model, "stage": stage, "tool_name": "chat_completion", "confidence": confidence},
    )


def test_best_match_first_other_models_excluded_archived_gone(manager: ErrorWisdomManager) -> None:
    exact = _rec(manager, "CONTEXT_OVERFLOW", "m1", "window:0:0", "shrink the slice")
    generic = _rec(manager, "CONTEXT_OVERFLOW", None, None, "watch the context length")
    other = _rec(manager, "CONTEXT_OVERFLOW", "m2", "window:0:0", "m2 specific")
    weak = _rec(manager, "TIMEOUT", "m1", None, "longer timeout", confidence=0.5)
    for i in range(20):  # noise that shares only the tool
        _rec(manager, f"E{i}", "m3", None, f"noise {i}")
    out = manager.query_prevention(
        {"model": "m1", "stage": "window:1:0", "error_code": "CONTEXT_OVERFLOW"}, "chat_completion", {"max_tokens": 100}
    )
    ids = [r["id"] for r in out if r["来源"] == "entry"]
    assert ids[0] == exact  # model + stage + code + tool
    assert ids.index(generic) < ids.index(weak)
    assert other not in ids
    assert all(not i.startswith("ew_") or manager.get_entry(i).model in (None, "m1") for i in ids)
    first = out[0]
    assert first["预防策略"] == "shrink the slice"
    assert first["可自动执行"] is True
    assert first["时效性标记"] == "active"
    assert manager.query_prevention({"model": "m1"}, "chat_completion")[0]["id"] in (exact, weak, generic)
    # deprecated knowledge is still returned, flagged as not executable; archived knowledge is not returned
    manager.register_scene_change("model_upgrade", "m1 v2", ["model:m1"])  # 0.9·0.65 = 0.585 → deprecated
    out = manager.query_prevention({"model": "m1", "error_code": "CONTEXT_OVERFLOW"}, "chat_completion")
    hit = next(r for r in out if r["id"] == exact)
    assert hit["时效性标记"] == "deprecated"
    assert hit["可自动执行"] is False
    manager.register_scene_change("model_upgrade", "m1 v3", ["model:m1"])  # ×0.65 again = 0.38
    manager.register_scene_change("model_upgrade", "m1 v4", ["model:m1"])  # 0.247 → archived
    out = manager.query_prevention({"model": "m1", "error_code": "CONTEXT_OVERFLOW"}, "chat_completion")
    assert exact not in [r["id"] for r in out]
