"""Interface language for the Qt views: one current :class:`app.i18n.Lang` and live retranslation.

Widgets register their texts once with :meth:`UiLanguage.bind` (a setter plus the 中文 and English text); a
language switch re-applies every live binding, so the whole window changes language without a restart.
"""

from __future__ import annotations

from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QObject, Signal

from app.i18n import Lang, pick


class UiLanguage(QObject):
    """The current interface language and the texts that follow it.

    Signals:
        changed(str): the new language code, after every binding was re-applied.
    """

    changed = Signal(str)

    def __init__(self, lang: Lang) -> None:
        super().__init__()
        self.lang = lang
        self._bindings: list[tuple[QObject, Callable[[str], object], str, str]] = []

    def t(self, zh: str, en: str) -> str:
        """The text in the current language."""
        return pick(self.lang, zh, en)

    def bind(self, owner: QObject, setter: Callable[[str], object], zh: str, en: str) -> None:
        """Apply a text now and again after every language switch (dropped when ``owner`` is deleted)."""
        setter(self.t(zh, en))
        self._bindings.append((owner, setter, zh, en))

    def set_lang(self, lang: Lang) -> None:
        """Switch language and retranslate every bound text."""
        self.lang = lang
        alive = []
        for owner, setter, zh, en in self._bindings:
            if shiboken6.isValid(owner):
                setter(self.t(zh, en))
                alive.append((owner, setter, zh, en))
        self._bindings = alive
        self.changed.emit(lang.value)
