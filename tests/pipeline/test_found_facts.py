"""Found facts and summary-round excerpts (issue 14): sentences never cut inside a time, headings dropped,
excerpts cut at paragraph boundaries with a note of what was left out; revision corrections applied in place."""

from __future__ import annotations

from app.claims.revision import apply_corrections
from app.i18n import Lang
from app.pipeline.orchestrator import excerpt, first_sentences


def test_a_time_or_a_decimal_never_ends_a_sentence() -> None:
    text = "## 窗口分析\nAt 1:12.13 P1 queued a barracks. Power went to 2.5 plants. Then P2 moved; west. Fourth one."
    assert first_sentences(text, 2) == "At 1:12.13 P1 queued a barracks. Power went to 2.5 plants."
    zh = "1:12.13 时玩家开始建造兵营。随后出兵！最后一句"
    assert first_sentences(zh, 3) == "1:12.13 时玩家开始建造兵营。 随后出兵！ 最后一句"


def test_headings_and_bold_title_lines_are_dropped() -> None:
    text = "# Title\n**Verified object ownership**\n---\nFirst sentence here. Second."
    assert first_sentences(text, 5) == "First sentence here. Second."


def test_excerpts_end_at_a_paragraph_with_a_note() -> None:
    paragraphs = ["A" * 40 + ".", "B" * 40 + ".", "C" * 40 + "."]
    text = "\n\n".join(paragraphs)
    cut = excerpt(text, 100, Lang.EN)
    assert cut.startswith(paragraphs[0] + "\n\n" + paragraphs[1] + "\n(")
    assert "1 later paragraph(s)" in cut
    assert "C" not in cut
    assert excerpt(text, 1000, Lang.EN) == text
    long = "第一句很长。" * 10
    zh = excerpt(long, 20, Lang.ZH)
    assert zh.splitlines()[0] == "第一句很长。" * 3
    assert "省略" in zh


def test_corrections_replace_the_original_sentences() -> None:
    draft = "A fought B. C built a yard at 2:00."
    reply = (
        "[corrections]\nwas: C built a yard at 2:00.\nnow: C built a yard at 2:05.\nwas: not in the text\nnow: Extra."
    )
    assert apply_corrections(draft, reply) == ("A fought B. C built a yard at 2:05.", ["Extra."])
