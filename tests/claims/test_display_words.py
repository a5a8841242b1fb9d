"""Severities and confidences are shown in the interface language (issue 30, item 4)."""

from __future__ import annotations

import pytest

from app.claims.issues import Severity, confidence_display
from app.i18n import Lang


@pytest.mark.parametrize(
    ("severity", "zh", "en"),
    [
        (Severity.INFO, "提示", "Info"),
        (Severity.WARNING, "警告", "Warning"),
        (Severity.WEAK_EVIDENCE, "证据不足", "Weak evidence"),
        (Severity.CONTRADICTION, "矛盾", "Contradiction"),
        (Severity.FATAL, "致命", "Fatal"),
    ],
)
def test_severity_words(severity: Severity, zh: str, en: str) -> None:
    assert severity.display(Lang.ZH) == zh
    assert severity.display(Lang.EN) == en
    assert Severity.from_label(severity.label) is severity  # reports and JSON keep the stable label


@pytest.mark.parametrize(
    ("value", "zh", "en"),
    [
        ("likely", "可能", "likely"),
        ("Highly Likely", "高度可能", "highly likely"),
        ("highly_likely", "高度可能", "highly likely"),
        ("confirmed", "确定", "confirmed"),
        ("uncertain", "不确定", "uncertain"),
        ("高度可能", "高度可能", "highly likely"),  # a model that answered in Chinese
        ("maybe", "maybe", "maybe"),  # unknown words are shown as written
    ],
)
def test_confidence_words(value: str, zh: str, en: str) -> None:
    assert confidence_display(value, Lang.ZH) == zh
    assert confidence_display(value, Lang.EN) == en


def test_a_kw_order_in_a_message_is_named_as_the_log_names_it() -> None:
    # kw_test: BoolBada's yard #241 starts NODRefinery at 3:35.67 (KW 0x231, RA3 role Start structure); a message
    # quoting that line called it "power" (the blind 32K run, 2026-12-03), so a model could not find it in the log
    import json as _json

    from app.claims.parse import parse_claims
    from app.claims.validate import ClaimValidator
    from app.facts import build_fact_index
    from app.knowledge.names import hash_names
    from app.replay import read_replay
    from tests.conftest import REPO_ROOT

    replay = read_replay(REPO_ROOT / "tests" / "data" / "replays" / "kw" / "kw_test.KWReplay")
    index = build_fact_index(replay, hash_names(replay.header.mod_name))
    claim = {"time": "3:35.67", "player": "BoolBada", "kind": "build", "name": "NODPowerPlant", "actorId": 241}
    text = "[claims]\n```json\n" + _json.dumps({"eventClaims": [claim]}) + "\n```"
    for lang, line in (
        (Lang.EN, "3:35.67 BoolBada Start structure NODRefinery #241"),
        (Lang.ZH, "3:35.67 BoolBada 开始建造建筑 NODRefinery #241"),
    ):
        messages = [i.message for i in ClaimValidator(index, lang).validate(parse_claims(text), text)]
        assert any(line in m for m in messages), messages
