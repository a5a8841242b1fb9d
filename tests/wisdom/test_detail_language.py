"""The error-wisdom views speak the interface language (issue 30, item 4): the entries table's rows and the detail
text of entries recorded as the pipeline records them, checked with the language walk's rule
(:func:`tests.support.ui_words.foreign_words`: no stray Latin word in 中文, no Chinese in English).

The entry's own texts that came from the analysis (the validator's message, a model's broken reply) are content in
the analysis language: the seeded ones are written in the interface language, so only interface words can fail.
"""

from __future__ import annotations

import pytest

from app.i18n import Lang
from app.store import Database
from app.wisdom.gate import WisdomGate
from tests.support.ui_words import foreign_words
from ui.tabs.wisdom_tab import entry_row, query_entry

MESSAGES = {Lang.ZH: "单位 1234 不在这局录像中", Lang.EN: "unit 1234 is not in the replay"}
"""The validator's message, in the analysis language (here the interface language)."""


def _texts(db: Database, lang: Lang) -> list[tuple[str, str]]:
    gate = WisdomGate(db, lang, auto_generate=False)
    ids = [
        gate.record_validation_issue("UnknownUnit", "error", "m1", "RA3", "overview", MESSAGES[lang], trace_id="t1"),
        gate.record_unparsable_claims(MESSAGES[lang], model="m1", mod="RA3", stage="overview", trace_id="t1"),
    ]
    store = gate.manager.store
    texts: list[tuple[str, str]] = []
    for entry_id in ids:
        assert entry_id is not None
        texts.append(("detail", query_entry(store, entry_id, lang)))
        _, cells = entry_row(store.get_entry(entry_id), lang)
        texts += [("row", str(c)) for c in cells]
    return texts


ENGLISH_GAP = pytest.mark.xfail(
    strict=True,
    reason="the gate stores its texts in Chinese (root cause, fix, strategy, impact, detection method, the parse "
    "error's description prefix), so the English detail shows them (listed in the failure)",
)


@pytest.mark.parametrize("lang", [Lang.ZH, pytest.param(Lang.EN, marks=ENGLISH_GAP)])
def test_error_wisdom_entries_speak_the_interface_language(db: Database, lang: Lang) -> None:
    lines = [(where, line.strip()) for where, text in _texts(db, lang) for line in text.splitlines()]
    found = sorted(
        {
            f"{where}: {word!r} in {line!r}"
            for where, line in lines
            for _, word in foreign_words([(where, line)], lang.value, ["m1", "RA3"])
        }
    )
    assert not found, f"{len(found)} words of the other language:\n" + "\n".join(found)
