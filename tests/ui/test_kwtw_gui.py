"""A Kane's Wrath replay analysed end to end in the real window: names, never raw hashes, in summary and rounds."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.conftest import REPO_ROOT
from tests.ui.test_main_window import close_window, make_window

pytestmark = pytest.mark.gui

KW_TEST = REPO_ROOT / "tests" / "data" / "replays" / "kw" / "kw_test.KWReplay"
RAW_HASH = re.compile(r"0x[0-9A-Fa-f]{8}")


def test_kw_offline_analysis_shows_names_not_hashes(qtbot: Any, run: Any) -> None:
    win = make_window(qtbot, lang="en")

    async def scenario() -> None:
        await win.open_replay(KW_TEST)
        assert "KW" in win.card.meta.text()
        assert "no game knowledge" not in win.card.meta.text()
        task = win.run.analyze()
        assert task is not None
        await task
        view = win.analysis
        assert view.status == "completed", win.message_bar.label.text()
        texts = {key: panel.final_text or "" for key, panel in view.panels.items()}
        assert "summary" in texts
        assert len([k for k in texts if k.startswith("window:")]) >= 2
        assert "NODPowerPlant" in texts["summary"]
        for key, text in texts.items():
            assert text.strip(), key
            assert not RAW_HASH.search(text), (key, RAW_HASH.findall(text)[:3])
        assert not [p for p in view.panels.values() if p.issue_list.count()]

    try:
        run(scenario())
    finally:
        close_window(win)
