"""A stage key reads as the analysis view's outline names the stage (issue 30: the wisdom tab had its own words)."""

from __future__ import annotations

import pytest

from app.i18n import Lang
from app.stage_names import is_stage_key, stage_name


@pytest.mark.parametrize(
    ("key", "zh", "en"),
    [
        ("window:0:1", "第 1 段 · 窗口 2", "Segment 1 · Window 2"),  # the outline: group 第 1 段, row 窗口 2
        ("window:2:0", "第 3 段 · 窗口 1", "Segment 3 · Window 1"),
        ("overview", "总览", "Overview"),
        ("summary_round", "总结", "Summary"),
        ("summary", "比赛摘要（无需模型）", "Match summary (no model)"),
        ("window", "窗口", "window"),  # a kind where no window was named (a pitfall looked up per kind)
    ],
)
def test_stage_keys_read_as_the_outline_names_them(key: str, zh: str, en: str) -> None:
    assert is_stage_key(key)
    assert stage_name(key, Lang.ZH) == zh
    assert stage_name(key, Lang.EN) == en


def test_a_key_of_no_known_shape_is_shown_as_it_is() -> None:
    assert not is_stage_key("window:x:1")
    assert stage_name("window:x:1", Lang.ZH) == "window:x:1"
