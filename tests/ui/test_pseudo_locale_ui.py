"""Every screen speaks through the catalogue (issue 32): the walk of tests/ui/test_ui_language_walk.py (the window
after an offline analysis, its side views with the example memory, the settings dialog) with English replaced by a
pseudo-locale generated from the catalogue template. A text shown outside the ⟦…⟧ of the catalogue's messages and
not a name (players, map, models, presets, knowledge names), a number or a code did not come through it.

221 texts were outside the catalogue on 2026-12-03 at the start of the move; none are now.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

import pytest

from app.paths import sample_replay
from tests.support.pseudo import pseudo_english, untranslated
from tests.ui.conftest import settled, until
from tests.ui.test_ui_language_walk import SEEDED_NAMES, _texts
from tests.ui.test_window_flows import close_window, make_window
from ui.settings_dialog import bundled_mods
from ui.settings_presets import PRESETS

pytestmark = pytest.mark.gui


def _knowledge_names() -> list[str]:
    from app.knowledge.loader import load_knowledge

    names: list[str] = []
    for mod in ("RA3", "KW", "TW"):
        k = load_knowledge(mod, strict=False)
        names += [n for e in k.entries.values() for n in (e.id, e.name_en) if n]
    return names


def _stored_contents(db: Any) -> list[str]:
    """What the memory keeps as content (its English), longest first: stored data shown as stored, not interface
    text (issue 32: stored content keeps its language tag), so it is taken out of a screen text before the check."""
    from app.memory import MemoryStore

    texts = {f.content("en") for f in MemoryStore(db).facts(limit=10_000)}
    return sorted((t for t in texts if t), key=len, reverse=True)


def _without(text: str, stored: list[str]) -> str:
    for content in stored:
        text = text.replace(content, " ")
    return text


def _remaining(qtbot: Any, run: Any) -> list[str]:
    with pseudo_english():
        win = make_window(qtbot, lang="en")
        importlib.import_module("tools.screenshot").seed_memory(win.ctx.db)

        async def scenario() -> list[tuple[str, str]]:
            await win.open_replay(sample_replay())
            task = win.run.analyze()
            assert task is not None
            await task
            win.side.dock.show()
            await win.side.tabs_loaded()
            await until(lambda: True)
            dlg = win.open_settings()
            await until(lambda: True)
            info = win.info
            assert info is not None
            names = [
                *SEEDED_NAMES,
                *_knowledge_names(),
                info.map_name,
                info.path.name,
                *(p.name for p in info.players),
                *(p.faction for p in info.players),  # header factions: the knowledge's names, shown as recorded
                "Allies",
                "Soviets",  # the example memory's factions (tools/screenshot.py)
                *(p.label for p in PRESETS),
                *(p.model_id for p in PRESETS),
                "offline",
                *(f"{mod_id} {title}" for mod_id, title in bundled_mods(win.ui)),
            ]
            # the side tabs fill from worker threads after they are built: read the screens until two reads agree
            texts = await settled(lambda: _texts(win) + _texts(dlg))
            stored = _stored_contents(win.ctx.db)
            keyed = [(f"{where}\t{text}", _without(text, stored)) for where, text in texts]
            found = [(k.split("\t", 1)[0], k.split("\t", 1)[1]) for k, _w in untranslated(keyed, names)]
            dlg.close()
            return found

        try:
            found = run(scenario())
        finally:
            close_window(win)
    out: dict[str, str] = {}
    for where, text in found:
        out.setdefault(re.sub(r"\d+", "0", text.strip())[:160], where)
    return [f"{where}: {text}" for text, where in sorted(out.items())]


@pytest.mark.slow
def test_every_screen_speaks_through_the_catalogue(qtbot: Any, run: Any) -> None:
    found = _remaining(qtbot, run)
    assert not found, f"{len(found)} screen texts from outside the catalogue:\n" + "\n".join(found)
