"""Every correction shape the revision prompt allows, in 中文 and English (issue 30).

The prompt (:func:`app.pipeline.prompts.revision_instruction`) asks for a ``[corrections]`` / ``[更正]`` section
of two-line pairs: ``was:`` / ``原文：`` with the sentence exactly as written, then ``now:`` / ``改为：`` with the
corrected sentence, empty to delete it; then the ``[claims]`` / ``[机器可读声明]`` block. The expected texts below
are written out by hand from the draft, never taken from the parser.
"""

from __future__ import annotations

import pytest

from app.claims.revision import apply_corrections, delete_sentence
from app.i18n import Lang
from app.pipeline.prompts import revision_instruction

CLAIMS_EN = '[claims]\n```json\n{"unitClaims": []}\n```'
CLAIMS_ZH = '[机器可读声明]\n```json\n{"unitClaims": []}\n```'
DRAFT_EN = "P1 opened with a barracks. P1 lost a tank at 4:10. P2 expanded at 6:00."
DRAFT_ZH = "甲先造了兵营。甲在 4:10 损失了一辆坦克。乙在 6:00 开了分矿。"


def test_the_prompt_names_the_markers_the_parser_reads() -> None:
    """The shapes tested here are the prompt's own words: the pair's markers and an empty line to delete."""
    en = revision_instruction(Lang.EN, "x", 0)
    for words in ("`[corrections]`", "`was:`", "`now:`", "empty to delete it"):
        assert words in en
    zh = revision_instruction(Lang.ZH, "x", 0)
    for words in ("`[更正]`", "`原文：`", "`改为：`", "删除则留空"):
        assert words in zh


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (  # a sentence replaced
            "[corrections]\nwas: P1 lost a tank at 4:10.\nnow: P1 lost a tank at 4:12.\n" + CLAIMS_EN,
            "P1 opened with a barracks. P1 lost a tank at 4:12. P2 expanded at 6:00.",
        ),
        (  # a sentence deleted, the claims block right after: "[claims]" must not take its place
            "[corrections]\nwas: P1 lost a tank at 4:10.\nnow:\n" + CLAIMS_EN,
            "P1 opened with a barracks. P2 expanded at 6:00.",
        ),
        (  # deleted with spaces after the marker, then a blank line before the claims
            "[corrections]\nwas: P1 lost a tank at 4:10.\nnow:   \n\n" + CLAIMS_EN,
            "P1 opened with a barracks. P2 expanded at 6:00.",
        ),
        (  # a deletion, then another pair: the next "was:" is no replacement text
            "[corrections]\nwas: P1 lost a tank at 4:10.\nnow:\nwas: P2 expanded at 6:00.\nnow: P2 expanded at 6:30.\n"
            + CLAIMS_EN,
            "P1 opened with a barracks. P2 expanded at 6:30.",
        ),
        (  # the last sentence deleted, at the very end of the reply
            "[corrections]\nwas: P2 expanded at 6:00.\nnow:",
            "P1 opened with a barracks. P1 lost a tank at 4:10.",
        ),
        (  # the first sentence deleted
            "[corrections]\nwas: P1 opened with a barracks.\nnow:\n" + CLAIMS_EN,
            "P1 lost a tank at 4:10. P2 expanded at 6:00.",
        ),
        (  # an empty pair in quotes means delete as well
            '[corrections]\nwas: "P1 lost a tank at 4:10."\nnow: ""\n' + CLAIMS_EN,
            "P1 opened with a barracks. P2 expanded at 6:00.",
        ),
        (  # markers as the prompt prints them (in backticks), as a list, in bold, capitalised
            "[Corrections]\n- `was:` P1 lost a tank at 4:10.\n- `now:` P1 lost a tank at 4:12.\n"
            "**Was:** P2 expanded at 6:00.\n**Now:**\n" + CLAIMS_EN,
            "P1 opened with a barracks. P1 lost a tank at 4:12.",
        ),
    ],
)
def test_english_correction_shapes(reply: str, expected: str) -> None:
    assert apply_corrections(DRAFT_EN, reply) == (expected, [])


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (  # 改写
            "[更正]\n原文：甲在 4:10 损失了一辆坦克。\n改为：甲在 4:12 损失了一辆坦克。\n" + CLAIMS_ZH,
            "甲先造了兵营。甲在 4:12 损失了一辆坦克。乙在 6:00 开了分矿。",
        ),
        (  # 删除：改为留空，下一行是声明标记
            "[更正]\n原文：甲在 4:10 损失了一辆坦克。\n改为：\n" + CLAIMS_ZH,
            "甲先造了兵营。乙在 6:00 开了分矿。",
        ),
        (  # 半角冒号、冒号后有空格
            "[更正]\n原文: 甲在 4:10 损失了一辆坦克。\n改为: \n" + CLAIMS_ZH,
            "甲先造了兵营。乙在 6:00 开了分矿。",
        ),
        (  # 删除之后紧跟另一对
            "[更正]\n原文：甲先造了兵营。\n改为：\n原文：乙在 6:00 开了分矿。\n改为：乙在 6:30 开了分矿。\n"
            + CLAIMS_ZH,
            "甲在 4:10 损失了一辆坦克。乙在 6:30 开了分矿。",
        ),
        (  # “原句”与列表记号、引号
            "[更正]\n- 原句：“乙在 6:00 开了分矿。”\n- 改为：“”\n" + CLAIMS_ZH,
            "甲先造了兵营。甲在 4:10 损失了一辆坦克。",
        ),
        (  # 回复末尾的删除
            "[更正]\n原文：甲在 4:10 损失了一辆坦克。\n改为：",
            "甲先造了兵营。乙在 6:00 开了分矿。",
        ),
    ],
)
def test_chinese_correction_shapes(reply: str, expected: str) -> None:
    assert apply_corrections(DRAFT_ZH, reply) == (expected, [])


def test_a_correction_whose_original_is_missing_is_returned_and_a_missing_deletion_is_dropped() -> None:
    reply = "[corrections]\nwas: not in the draft.\nnow: Shown after the text.\nwas: also missing.\nnow:\n" + CLAIMS_EN
    assert apply_corrections(DRAFT_EN, reply) == (DRAFT_EN, ["Shown after the text."])
    reply_zh = "[更正]\n原文：草稿里没有这句。\n改为：放在正文之后。\n" + CLAIMS_ZH
    assert apply_corrections(DRAFT_ZH, reply_zh) == (DRAFT_ZH, ["放在正文之后。"])


def test_a_deleted_line_takes_its_line_and_list_mark_with_it() -> None:
    draft = (
        "## Window 1\n\nFirst paragraph.\n\nA wrong line.\n\nLast paragraph.\n- item one\n- wrong item\n- item three"
    )
    assert delete_sentence(draft, "A wrong line.") == (
        "## Window 1\n\nFirst paragraph.\n\nLast paragraph.\n- item one\n- wrong item\n- item three"
    )
    assert delete_sentence(draft, "wrong item") == (
        "## Window 1\n\nFirst paragraph.\n\nA wrong line.\n\nLast paragraph.\n- item one\n- item three"
    )
    assert delete_sentence("Keep this. Drop this.\nNext line.", "Drop this.") == "Keep this.\nNext line."
    assert delete_sentence("Only paragraph.\n\nDrop this.", "Drop this.") == "Only paragraph."
    assert delete_sentence("1. 第一条\n2. 错的一条\n3. 第三条", "错的一条") == "1. 第一条\n3. 第三条"
