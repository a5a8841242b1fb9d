"""Interface language for the Qt views: one current :class:`app.i18n.Lang` and live retranslation.

Widgets register their texts once with :meth:`UiLanguage.bind` (a setter plus the 中文 and English text); a
language switch re-applies every live binding, so the whole window changes language without a restart.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QObject, QTranslator, Signal

from app.i18n import Lang, Msg, pick, tr

log = logging.getLogger(__name__)

QT_CATALOG = "qtbase"
"""Qt's own texts (file dialogs, message box buttons, context menus): ``qtbase_zh_CN.qm``, shipped with PySide6 in
its ``translations`` folder."""

_qt_translator: QTranslator | None = None


def install_qt_translation(lang: Lang) -> bool:
    """Let Qt's own dialogs speak ``lang``: load ``qtbase_zh_CN`` for 中文, none for English (Qt's own language).

    Returns whether a catalogue is installed now. Without an application object (a view tested on its own) it
    does nothing; a missing catalogue is logged, never an error (Qt then shows its English).
    """
    global _qt_translator  # noqa: PLW0603 - one translator per process, as Qt installs them per application
    app = QCoreApplication.instance()
    if app is None:
        return False
    if _qt_translator is not None:
        QCoreApplication.removeTranslator(_qt_translator)
        _qt_translator = None
    if lang is not Lang.ZH:
        return False
    translator = QTranslator(app)
    folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    if not translator.load(QLocale(QLocale.Language.Chinese, QLocale.Country.China), QT_CATALOG, "_", folder):
        log.warning("Qt's Chinese texts (%s_zh_CN.qm) not found in %s", QT_CATALOG, folder)
        return False
    QCoreApplication.installTranslator(translator)
    _qt_translator = translator
    return True


class UiLanguage(QObject):
    """The current interface language and the texts that follow it.

    Signals:
        changed(str): the new language code, after every binding was re-applied.
    """

    changed = Signal(str)

    def __init__(self, lang: Lang) -> None:
        super().__init__()
        self.lang = lang
        self._bindings: list[tuple[QObject, Callable[[str], object], Callable[[], str]]] = []
        install_qt_translation(lang)

    def t(self, zh: str, en: str) -> str:
        """The text in the current language."""
        return pick(self.lang, zh, en)

    def tx(self, msgid: str, /, **params: object) -> str:
        """The catalogue text of ``msgid`` (English source text) in the current language, params filled."""
        return tr(self.lang, msgid, **params)

    def bind(self, owner: QObject, setter: Callable[[str], object], zh: str, en: str) -> None:
        """Apply a text now and again after every language switch (dropped when ``owner`` is deleted)."""
        self._bind(owner, setter, lambda: self.t(zh, en))

    def bind_tr(self, owner: QObject, setter: Callable[[str], object], msgid: str, /, **params: object) -> None:
        """:meth:`bind` for a catalogue message: ``msgid`` with its ``params``, translated on every switch."""
        self._bind(owner, setter, lambda: self.tx(msgid, **params))

    def bind_msg(self, owner: QObject, setter: Callable[[str], object], msg: Msg, /, **params: object) -> None:
        """:meth:`bind` for a marked message (:func:`app.i18n.N_`), translated on every switch."""
        self._bind(owner, setter, lambda: msg(self.lang, **params))

    def _bind(self, owner: QObject, setter: Callable[[str], object], text: Callable[[], str]) -> None:
        setter(text())
        self._bindings.append((owner, setter, text))

    def set_lang(self, lang: Lang) -> None:
        """Switch language and retranslate every bound text (Qt's own dialogs follow too)."""
        self.lang = lang
        install_qt_translation(lang)
        alive = []
        for owner, setter, text in self._bindings:
            if shiboken6.isValid(owner):
                setter(text())
                alive.append((owner, setter, text))
        self._bindings = alive
        self.changed.emit(lang.value)
