"""Every text a window shows, and the words in it that belong to the other language (issue 30, item 4).

:func:`shown_texts` walks a widget tree (labels, buttons, menus, tabs, combo and list items, table and tree cells
with their headers, group titles, placeholders, read-only text views) the way a reader sees it; :func:`foreign_words`
picks the Latin-letter words of a Chinese screen that are neither names, internal unit names nor units of measure,
and the Chinese characters of an English screen.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QPlainTextEdit,
    QTabBar,
    QTextEdit,
    QWidget,
)

_ALLOWED = (
    # the product, file types, protocols and standards a Chinese user reads as they are
    "ReplaySage RA3 KW TW RA3Replay KWReplay CNC3Replay Markdown HTML JSON API URL Base HTTP HTTPS PostgreSQL "
    "SQLite OpenAI DeepSeek Qwen Anthropic Steam Proton Wine Windows Linux macOS TTFT "
    # the model profile's field names (as the providers' documentation spells them) and keys
    "ContextLength ContextBudget max_tokens Esc F1 F5 Ctrl Shift Alt Enter Tab Del "
    # units of measure
    "K M MB KB GB ms s min h tok token x APM ID UTC"
)
ALLOWED_LATIN = frozenset(w.lower() for w in _ALLOWED.split(" "))
"""Latin words a Chinese screen may show: product and format names, documented field names, keys and units."""

_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z_'-]*")
_HAN = re.compile(r"[\u3400-\u9fff]")


def _model_texts(view: QAbstractItemView, limit: int = 200) -> Iterator[str]:
    model = view.model()
    if model is None:
        return
    try:
        columns = model.columnCount(QModelIndex())
    except TypeError:  # a list model: one column (its columnCount is private in the binding)
        columns = 1

    def children(index: QModelIndex) -> int:
        try:
            return model.rowCount(index)
        except TypeError:  # a list or table model has no children
            return 0

    for c in range(columns):
        header = model.headerData(c, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole)
        if header is not None:
            yield str(header)

    def walk(parent: QModelIndex, depth: int) -> Iterator[str]:
        for r in range(min(children(parent), limit)):
            for c in range(columns):
                index = model.index(r, c, parent)
                value = index.data(Qt.ItemDataRole.DisplayRole)
                if value is not None and str(value):
                    yield str(value)
                if depth < 3 and c == 0 and children(index) > 0:
                    yield from walk(index, depth + 1)

    yield from walk(QModelIndex(), 0)


def shown_texts(root: QWidget, skip: set[int] | None = None) -> Iterator[tuple[str, str]]:
    """``(where, text)`` of every text under ``root`` (hidden widgets included: tabs and folded sections count).

    ``skip`` holds the ``id()`` of widgets left out (content, not interface words).
    """
    widgets: list[QWidget] = [root, *root.findChildren(QWidget)]
    for w in widgets:
        if skip and id(w) in skip:
            continue
        where = type(w).__name__ + (f"#{w.objectName()}" if w.objectName() else "")
        if isinstance(w, QMainWindow | QWidget) and w.isWindow() and w.windowTitle():
            yield where + ".title", w.windowTitle()
        if isinstance(w, QLabel | QAbstractButton):
            yield where, w.text()
        elif isinstance(w, QGroupBox):
            yield where, w.title()
        elif isinstance(w, QComboBox):
            for i in range(w.count()):
                yield where + ".item", w.itemText(i)
        elif isinstance(w, QTabBar):
            for i in range(w.count()):
                yield where + ".tab", w.tabText(i)
        elif isinstance(w, QLineEdit):
            yield where + ".placeholder", w.placeholderText()
        elif isinstance(w, QMenu):
            yield where, w.title()
            for action in w.actions():
                yield where + ".action", action.text()
        elif isinstance(w, QPlainTextEdit | QTextEdit) and w.isReadOnly():
            yield where, w.toPlainText()
        if isinstance(w, QAbstractItemView):
            for text in _model_texts(w):
                yield where + ".cell", text


_NOT_WORDS = re.compile(
    r"<[^>]+>"  # rich-text tags
    r"|&nbsp;|&[A-Za-z]"  # entities and mnemonics
    r"|\([A-Z]\)"  # a shown mnemonic: 文件(F)
    r"|\{[a-z_]+\}"  # a file-name pattern's fields: {date}
    r"|https?://\S+|[\w.-]+\.(?:com|org|net|io|cn)\S*"  # addresses
    r"|(?:[\w.-]+/)+[\w.-]*|[\w.-]+\.(?:RA3Replay|KWReplay|CNC3Replay|json|md|html|ttc|db|sqlite3)\b"  # paths, files
    r"|#\d+|\b[A-Za-z]\d+\b|\b[0-9a-f]*\d[0-9a-f]*\b"  # ids: #12, a claim's U1, a replay's r1, hashes
    r"|\b[a-z]{1,4}_\d{8}_\d+\b"  # an error-wisdom entry's id: ew_20261203_001
    r"|\b(?:Ctrl|Shift|Alt)(?:\+\w+)+|\bF\d{1,2}\b"  # keys: Ctrl+O, F5
    r"|\b(?:model|mod|player|faction):"  # a scope's typed syntax (model:ID)
    r"|\b(?:code|stage|tool|issue|claim):\S+"  # an error-wisdom trigger pattern (code:PARSE_ERROR, stage:overview)
)


def foreign_words(texts: Iterable[tuple[str, str]], lang: str, names: Iterable[str] = ()) -> list[tuple[str, str]]:
    """``(where, word)`` of the other language's words: Latin words on a Chinese screen, Han on an English one.

    ``names`` are texts allowed as they are (player, map, model and product names); each of their words is allowed.
    """
    allowed = ALLOWED_LATIN | {
        w.strip("'-_").lower() for n in names for w in _LATIN_WORD.findall(_NOT_WORDS.sub(" ", n))
    }
    han_names = sorted((n for n in names if _HAN.search(n)), key=len, reverse=True)
    found: list[tuple[str, str]] = []
    for where, text in texts:
        plain = _NOT_WORDS.sub(" ", text)
        if lang == "en":
            for name in han_names:  # a name in Chinese (the language's own name 中文, a Chinese player name)
                plain = plain.replace(name, " ")
            found += [(where, m.group(0)) for m in _HAN.finditer(plain)][:1]
            continue
        for m in _LATIN_WORD.finditer(plain):
            word = m.group(0).strip("'-_")
            if word and word.lower() not in allowed and not _is_code(word):
                found.append((where, word))
    return found


def _is_code(word: str) -> bool:
    """An internal name or id: ``AlliedWallPiece`` (CamelCase), ``PlayerTech_Allied_Sweep``, ``builtin_enum``."""
    return bool(re.fullmatch(r"(?:[A-Z][a-z0-9]+){2,}[A-Za-z0-9]*|[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+", word))
