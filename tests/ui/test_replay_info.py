"""What the replay card and the library list: the people in the ``S=`` slots, never the ``PC=`` placeholder.

Expected names are the ``S=`` entries of each file read by hand from the bytes (see ``tests/replay``), minus the
entry ``PC=`` points at.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.replay.sample import sample_bytes
from tests.conftest import corpus_file
from ui.replay_info import load_info

# file -> (name, observer) in slot order, without the post Commentator placeholder
CARDS: dict[str, list[tuple[str, bool]]] = {
    "ra3_1v1_infinity_isle_observers_12m.RA3Replay": [
        ("[LT]Laimis", True),
        ("HugeSini_no_Ouji", True),
        ("LostLamb", False),
        ("H2O||IaMGoDoFWaR", False),
        ("uji", True),
    ],
    "ra3_1v1_industrial_strength_observer_7m.RA3Replay": [
        ("极北之蛋", False),
        ("Neutralize", True),
        ("Superion", False),
    ],
    "corona_pve_vs_ai_10m.RA3Replay": [("st", False), ("AI (hard)", False)],
    # PC=-1: nothing to leave out
    "ra3_3v3_spring_showdown_19m.RA3Replay": [
        ("Rumi", False),
        ("Lilika", False),
        ("Chtholly", False),
        ("lizisys", False),
        ("Toolman", False),
        ("MahoMahoRepublic", False),
    ],
}


@pytest.mark.parametrize("name", sorted(CARDS))
@pytest.mark.parametrize("stats", [True, False])
def test_card_lists_people_not_the_placeholder(name: str, stats: bool) -> None:
    info = load_info(corpus_file(name), stats=stats)
    assert info.error == ""
    assert [(p.name, p.observer) for p in info.players] == CARDS[name]
    assert "post Commentator" not in info.players_text


def test_sample_card_has_alice_and_boris_only(tmp_path: Path) -> None:
    path = tmp_path / "sample.RA3Replay"
    path.write_bytes(sample_bytes())
    info = load_info(path)
    assert [p.name for p in info.players] == ["Alice", "Boris"]
    assert info.players_text == "Alice (Allies), Boris (Soviets)"


def test_card_names_factions_in_the_interface_language(qtbot: object, tmp_path: Path) -> None:
    from PySide6.QtWidgets import QLabel

    from app.i18n import Lang
    from ui.lang import UiLanguage
    from ui.replay_card import ReplayCard

    path = tmp_path / "sample.RA3Replay"
    path.write_bytes(sample_bytes())
    ui = UiLanguage(Lang.ZH)
    card = ReplayCard(ui)
    card.set_replay(load_info(path))
    texts = " ".join(w.text() for w in card.findChildren(QLabel))
    assert "盟军" in texts
    assert "苏联" in texts
    assert "Allies" not in texts
    ui.set_lang(Lang.EN)
    texts = " ".join(w.text() for w in card.findChildren(QLabel))  # the Chinese labels were taken off the card
    assert "Allies" in texts
    assert "盟军" not in texts
    assert load_info(path).players_text_in(Lang.ZH) == "Alice (盟军), Boris (苏联)"
    card.deleteLater()


@pytest.mark.corpus
def test_card_shows_all_commands_per_minute_beside_apm(qtbot: object) -> None:
    """Issue 33: KW players compare APM with KWReplayAutoSaver's, which divides every command a player sent (the
    game's heartbeats and timing messages too) by the match's minutes. The card keeps ours and shows that number
    beside it, with a tooltip saying why the two differ."""
    from PySide6.QtWidgets import QLabel

    from app.i18n import Lang
    from app.replay import read_replay
    from ui.lang import UiLanguage
    from ui.replay_card import ReplayCard

    path = corpus_file("kw_epic_scorp.KWReplay")
    replay = read_replay(path)
    slot = next(s.index for s in replay.header.slots if s.name == "XXcyberstormXX")
    every = sum(1 for c in replay.commands if c.player == slot)  # all its commands, automatic ones included
    expected = every / (replay.duration_seconds / 60.0)
    info = load_info(path)
    player = next(p for p in info.players if p.name == "XXcyberstormXX")
    assert player.cpm == pytest.approx(expected, abs=0.05)
    assert player.cpm > player.apm
    card = ReplayCard(UiLanguage(Lang.EN))
    card.set_replay(info)
    labels = card.findChildren(QLabel)
    cells = [w for w in labels if w.text() in (f"{player.apm:.0f}", f"{player.cpm:.0f}")]
    assert len(cells) >= 2
    assert all("KWReplayAutoSaver" in w.toolTip() for w in cells)
    assert any(w.text() == "<b>All cmds/min</b>" for w in labels)
    card.deleteLater()
