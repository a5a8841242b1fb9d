"""A pseudo-locale made from the catalogue template (issue 32): every message wrapped in ⟦…⟧ with accented letters.

Installed in place of English (:func:`app.i18n.use_catalog`), it makes every text that went through the catalogue
recognisable on a screen or in a command's output; what is left once the ⟦…⟧ pieces are taken out either came from
the user's data (names, numbers) or did not go through the catalogue.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from app.i18n import Lang, Messages, use_catalog

_ACCENTS = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "àƀçđéƒĝĥíĵķĺɱñóþǫŕśţúṽŵẋýžÀƁÇĐÉƑĜĤÍĴĶĹṀÑÓÞǪŔŚŢÚṼŴẊÝŽ",
)
_KEEP = re.compile(
    r"\{\{|\}\}|\{[^{}]*\}"  # format fields and escaped braces
    r"|<[^>]*>|&[a-z]+;"  # rich-text tags and entities
    r"|%(?:\([a-z_]+\))?[-+ #0]*\d*(?:\.\d+)?[sdifrx%]"  # printf fields
    r"|https?://\S+"
)
OPEN, CLOSE = "⟦", "⟧"
_PIECE = re.compile(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}")


def pseudo(text: str) -> str:
    """``text`` with its letters accented (fields, tags and printf specs kept) inside ⟦…⟧.

    Each line of a text is wrapped on its own, its surrounding white space left outside: a message that ends a
    paragraph (``"…\\n\\n"``) or spans lines is then recognisable line by line, as the tests read the output.
    """
    if "\n" in text:
        return "\n".join(pseudo(line) if line.strip() else line for line in text.split("\n"))
    core = text.strip()
    if core != text:
        head = text[: len(text) - len(text.lstrip())]
        tail = text[len(text.rstrip()) :]
        return head + (pseudo(core) if core else "") + tail
    out, last = [], 0
    for m in _KEEP.finditer(text):
        out.append(text[last : m.start()].translate(_ACCENTS))
        out.append(m.group(0))
        last = m.end()
    out.append(text[last:].translate(_ACCENTS))
    return OPEN + "".join(out) + CLOSE


def pseudo_catalog() -> Messages:
    """The pseudo-locale of every message the code uses (found by the codemod's extraction, as the tests do)."""
    extract = importlib.import_module("tools.catalog_codemod").extract
    return {(m.context, str(m.id)): pseudo(str(m.id)) for m in extract() if m.id}


@contextmanager
def pseudo_english() -> Iterator[None]:
    """English replaced by the pseudo-locale while the block runs."""
    use_catalog(Lang.EN, pseudo_catalog())
    try:
        yield
    finally:
        use_catalog(Lang.EN, None)


def without_catalogue_texts(text: str) -> str:
    """``text`` with every ⟦…⟧ piece (nested ones too) replaced by a space: what did not come from the catalogue."""
    while True:
        stripped = _PIECE.sub(" ", text)
        if stripped == text:
            return stripped
        text = stripped


def untranslated(texts: Iterable[tuple[str, str]], names: Iterable[str] = ()) -> list[tuple[str, str]]:
    """``(where, word)`` of the English words outside the catalogue's texts (names, codes and units excepted)."""
    from tests.support.ui_words import foreign_words

    return foreign_words(((w, without_catalogue_texts(t)) for w, t in texts), "zh", names)
