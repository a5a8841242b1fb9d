"""Number fields keep what was typed (issue 30, item 5): a refused text stays with a message beside it, OK refuses.

Real parts: the settings dialog and the memory tabs offscreen, keys typed with ``qtbot.keyClicks``, the settings
file of an isolated user folder.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from app.i18n import Lang
from app.memory import MemoryStore
from app.settings import ProviderSettings, Settings
from app.store import open_database
from ui.lang import UiLanguage
from ui.main_window import AppContext
from ui.number_field import NumberField
from ui.settings_dialog import CONTEXT_SPEC, SettingsDialog
from ui.tabs.memory_facts import FactsTab
from ui.tabs.memory_scorecard import ScorecardTab

pytestmark = pytest.mark.gui

BAD_CONTEXT = [
    ("-5000", ("must not be negative", "不能为负数")),
    ("12abc", ("not a number", "不是数字")),
    ("12345678901", ("at most 10,000,000", "最多 10,000,000")),
    ("1,5", ("commas", "逗号")),
    ("12.5", ("whole number", "整数")),
]


def _type(qtbot: Any, field: NumberField, text: str) -> None:
    field.edit.selectAll()
    qtbot.keyClick(field.edit, Qt.Key.Key_Backspace)
    qtbot.keyClicks(field.edit, text)


def _dialog(qtbot: Any, lang: Lang) -> tuple[AppContext, SettingsDialog]:
    settings = Settings.load()
    settings.put_provider(ProviderSettings("Local", "http://127.0.0.1:9/v1"))
    settings.save()
    ctx = AppContext.open()
    dlg = SettingsDialog(ctx.settings, ctx.secrets, UiLanguage(lang))
    qtbot.addWidget(dlg)
    dlg.open()
    return ctx, dlg


@pytest.mark.parametrize("lang", [Lang.EN, Lang.ZH])
@pytest.mark.parametrize(("text", "words"), BAD_CONTEXT)
def test_a_bad_number_keeps_its_text_shows_why_and_ok_refuses(
    qtbot: Any, memory_keyring: Any, text: str, words: tuple[str, str], lang: Lang
) -> None:
    ctx, dlg = _dialog(qtbot, lang)
    dlg.m_name.setText("m")
    dlg.m_provider.setCurrentText("Local")
    dlg.m_model.setText("m-1")
    _type(qtbot, dlg.m_context, text)
    dlg.m_name.setFocus()  # leaving the field changes nothing
    field = dlg.m_context
    assert field.text() == text
    assert not field.is_valid()
    assert not field.message.isHidden()
    assert words[0 if lang is Lang.EN else 1] in field.message.text()
    assert field.property("invalid") is True
    assert field.value() not in (5_000, 10_000_000, 12)  # never its absolute, clamped or trimmed value
    dlg.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    assert dlg.isVisible()  # refused: the typed text is not lost
    assert dlg.tabs.currentIndex() == 2
    assert "ContextLength" in dlg.error_label.text()
    assert field.text() == text
    assert "m" not in [p.name for p in Settings.load().profiles]  # nothing saved
    ctx.db.close()


@pytest.mark.parametrize(
    ("text", "value"), [("128k", 128_000), ("1M", 1_000_000), ("128,000", 128_000), ("128K", 128_000)]
)
def test_what_people_type_is_taken_and_saved(qtbot: Any, memory_keyring: Any, text: str, value: int) -> None:
    ctx, dlg = _dialog(qtbot, Lang.EN)
    dlg.m_name.setText("m")
    dlg.m_provider.setCurrentText("Local")
    dlg.m_model.setText("m-1")
    _type(qtbot, dlg.m_context, text)
    _type(qtbot, dlg.m_max_tokens, "4k")
    _type(qtbot, dlg.m_prices[0], "$0.27")
    dlg.m_name.setFocus()
    assert dlg.m_context.text() == text  # kept as typed, even after leaving the field
    assert dlg.m_context.is_valid()
    assert dlg.m_context.value() == value
    assert not dlg.m_context.message.text() or dlg.m_context.message.text() == f"= {value:,}"
    dlg.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    assert not dlg.isVisible()
    prof = Settings.load().profile("m")
    assert (prof.context_length, prof.max_tokens, prof.price_input) == (value, 4_000, 0.27)
    ctx.db.close()


def test_a_short_form_shows_what_it_means(qtbot: Any) -> None:
    field = NumberField(CONTEXT_SPEC, Lang.EN, 128_000)
    qtbot.addWidget(field)
    field.show()
    _type(qtbot, field, "12k")
    assert field.message.text() == "= 12,000"
    assert field.message.isVisible()
    _type(qtbot, field, "12000")
    assert not field.message.isVisible()


def test_fixing_the_text_clears_the_message_and_the_mark(qtbot: Any) -> None:
    field = NumberField(CONTEXT_SPEC, UiLanguage(Lang.EN), 128_000)
    qtbot.addWidget(field)
    field.show()
    seen: list[object] = []
    field.valueChanged.connect(seen.append)
    _type(qtbot, field, "-5000")
    assert not field.is_valid()
    assert seen[-1:] != [5_000]  # never taken as its absolute value
    _type(qtbot, field, "64000")
    assert field.is_valid()
    assert field.property("invalid") is False
    assert not field.message.isVisible()
    assert seen[-1] == 64_000


def test_up_and_down_step_within_the_range(qtbot: Any) -> None:
    field = NumberField(CONTEXT_SPEC, Lang.EN, 9_999_500, step=1_000)
    qtbot.addWidget(field)
    qtbot.keyClick(field.edit, Qt.Key.Key_Up)
    assert field.value() == 10_000_000
    assert field.text() == "10,000,000"
    qtbot.keyClick(field.edit, Qt.Key.Key_Down)
    assert field.value() == 9_999_000


def test_the_language_switch_rewords_the_message(qtbot: Any) -> None:
    ui = UiLanguage(Lang.EN)
    field = NumberField(CONTEXT_SPEC, ui, 128_000)
    qtbot.addWidget(field)
    _type(qtbot, field, "-5000")
    assert "must not be negative" in field.message.text()
    ui.set_lang(Lang.ZH)
    assert "不能为负数" in field.message.text()
    assert field.text() == "-5000"


def test_memory_filters_keep_a_refused_text(qtbot: Any, run: Any, tmp_path: Path) -> None:
    db = open_database(tmp_path / "m.db")
    store = MemoryStore(db)
    facts = FactsTab(store, Lang.EN)
    cards = ScorecardTab(store, Lang.EN)
    qtbot.addWidget(facts)
    qtbot.addWidget(cards)

    async def scenario() -> None:
        await facts.refreshed()
        await cards.refreshed()
        _type(qtbot, facts.min_conf, "80%")
        assert facts.min_conf.value() == 0.8
        facts.min_conf.setText("1.5")  # pasted
        assert facts.min_conf.text() == "1.5"
        assert "at most 1" in facts.min_conf.problem()
        assert facts.min_conf.value() == 0.8
        cards.months.setText("30")
        assert "at most 24" in cards.months.problem()
        assert cards.months.text() == "30"
        _type(qtbot, cards.months, "3")
        await cards.refreshed()
        assert cards.months.value() == 3
        assert len(cards.cards) == 3

    run(scenario())
    facts.cancel_loading()
    cards.cancel_loading()
    db.close()


@pytest.mark.parametrize("lang", [Lang.EN, Lang.ZH])
@pytest.mark.parametrize(("months", "width"), [(24, 320), (12, 360), (12, 900), (6, 640), (3, 200)])
def test_scorecard_month_labels_never_overlap(qtbot: Any, tmp_path: Path, lang: Lang, months: int, width: int) -> None:
    from ui.tabs.memory_scorecard import TrendChart

    db = open_database(tmp_path / "m.db")
    cards = MemoryStore(db).scorecard_trend(months)
    db.close()
    chart = TrendChart(lang=lang)
    qtbot.addWidget(chart)
    chart.set_cards(cards)
    labels = chart.axis_labels(44, width)
    fm = chart.fontMetrics()
    spans = [(x - fm.horizontalAdvance(t) / 2, x + fm.horizontalAdvance(t) / 2) for x, t in labels]
    assert all(right < next_left for (_l, right), (next_left, _r) in itertools.pairwise(spans))
    assert labels[-1][0] == pytest.approx(44 + width * (months - 0.5) / months)  # the newest month is labelled
    if months == 6 and width == 640:
        assert [t for _x, t in labels] == [c.month for c in cards]  # room enough: the full months
