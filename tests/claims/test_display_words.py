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
