"""The store writes review reasons and mechanisms in fixed forms; a Chinese screen words them in Chinese."""

from __future__ import annotations

import pytest

from app.i18n import Lang, table_word
from ui.tabs.memory_review import QUEUE_KIND_WORDS, reason_words
from ui.tabs.memory_words import mechanism_words


@pytest.mark.parametrize(
    ("stored", "zh"),
    [
        ("no ruling applies: a human decides", "没有可用的裁决规则：由人来决定"),
        ("authority gap 0.90 vs 0.40: review the weaker (new) side", "权威度差距 0.90 对 0.40：请复核较弱的（新）一方"),
        ("authority gap 0.95 vs 0.60: review the weaker (old) side", "权威度差距 0.95 对 0.60：请复核较弱的（旧）一方"),
        ("episode 12 shows opening = 'B → A'", "对局记录 12 显示 opening = 'B → A'"),
        (
            "confidence 0.85 with 4 pieces of evidence: propose for the team library",
            "置信度 0.85，证据 4 条：建议提交团队库",
        ),
        ("a reason from a newer version", "a reason from a newer version"),  # unknown: shown as stored
    ],
)
def test_reasons(stored: str, zh: str) -> None:
    assert reason_words(stored, Lang.ZH) == zh
    assert reason_words(stored, Lang.EN) == stored


def test_kinds_and_mechanisms() -> None:
    assert table_word(QUEUE_KIND_WORDS, "conflict", Lang.ZH) == "冲突"
    assert table_word(QUEUE_KIND_WORDS, "team_proposal", Lang.EN) == "team proposal"
    assert table_word(QUEUE_KIND_WORDS, "future_kind", Lang.ZH) == "future_kind"
    both = "阵营由玩家在开局前主动选择 / the faction is the player's own pre-game choice"
    assert mechanism_words(both, Lang.ZH) == "阵营由玩家在开局前主动选择"
    assert mechanism_words(both, Lang.EN) == "the faction is the player's own pre-game choice"
    assert mechanism_words("one language only", Lang.ZH) == "one language only"
