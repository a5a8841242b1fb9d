"""What differs between a review item's two sides (app.memory.diff), computed without Qt."""

from __future__ import annotations

import dataclasses

from app.memory.diff import changed_spans, differing_fields, marked
from app.memory.views import FactView


def _fact(**kw: object) -> FactView:
    base: dict[str, object] = {
        "id": 1,
        "type": "preference",
        "status": "hypothesis",
        "subject": "player:p",
        "attribute": "opening",
        "value": "Barracks → Refinery",
        "content_zh": "",
        "content_en": "",
        "scope": {"player": "p", "faction": "Allies"},
        "fields": {},
        "mechanism": "m",
        "confidence": 0.4,
        "evidence_count": 1,
        "contradiction_count": 0,
        "reuse_count": 0,
        "method": "behavior_inference",
        "produced_by": "memory-rules/1",
        "approved_by": "",
        "supersedes_id": None,
        "superseded_by_id": None,
        "chain_depth": 0,
        "created_at": 0.0,
        "updated_at": 0.0,
        "activated_at": None,
        "last_evidence_at": 0.0,
        "dormant": False,
    }
    base.update(kw)
    return FactView(**base)  # type: ignore[arg-type]


def test_equal_texts_have_no_marks() -> None:
    text = "Player p opens with Barracks → Refinery\nStatus: in use"
    assert changed_spans(text, text) == ([], [])


def test_one_changed_word_is_marked_on_both_sides_at_its_place() -> None:
    old = "Player p plays Allies\nApplies to: player = p\n"
    new = "Player p plays Soviets\nApplies to: player = p\n"
    a, b = changed_spans(old, new)
    assert marked(old, a) == ["Allies"]
    assert marked(new, b) == ["Soviets"]
    assert a == [(15, 21)]
    assert b == [(15, 22)]


def test_adjacent_changed_words_join_into_one_mark() -> None:
    old = "opens with Barracks → Refinery (map=Infinity Isle)"
    new = "opens with Barracks → Ore Refinery (map=Snow Plow)"
    a, b = changed_spans(old, new)
    assert marked(old, a) == ["Infinity Isle"]  # two words, one mark: only a space between them
    assert marked(new, b) == ["Ore", "Snow Plow"]


def test_chinese_is_compared_per_character() -> None:
    old = "玩家 p 使用阵营：盟军\n置信度 0.40"
    new = "玩家 p 使用阵营：苏联\n置信度 0.62"
    a, b = changed_spans(old, new)
    assert marked(old, a) == ["盟军", "0.40"]
    assert marked(new, b) == ["苏联", "0.62"]


def test_a_line_only_one_side_has_is_marked_whole() -> None:
    old = "Evidence:\n  • supports: r1\n"
    new = "Evidence:\n  • supports: r1\n  • supports: r2\n"
    a, b = changed_spans(old, new)
    assert a == []
    assert marked(new, b) == ["• supports: r2"]


def test_differing_fields_names_what_changed_in_field_order() -> None:
    current = _fact(status="active", confidence=0.61, evidence_count=2)
    proposed = dataclasses.replace(
        current, id=2, value="Refinery → Barracks", status="conflict", scope={"player": "p", "faction": "Allies"}
    )
    assert differing_fields(current, proposed) == ("value", "status")
    assert differing_fields(current, current) == ()
    # confidence is compared as shown (two decimals); the scope as a mapping, whatever its key order
    close = dataclasses.replace(current, confidence=0.6149, scope={"faction": "Allies", "player": "p"})
    assert differing_fields(current, close) == ()
    assert differing_fields(current, dataclasses.replace(current, confidence=0.7)) == ("confidence",)
