"""Language choice for reports, prompts and the UI: 中文 or English, following the system locale."""

from __future__ import annotations

import enum
import functools
import gettext
import locale
import os
from collections.abc import Mapping
from pathlib import Path


class Lang(enum.StrEnum):
    """A supported language."""

    ZH = "zh"
    EN = "en"

    @classmethod
    def parse(cls, text: str | None) -> Lang:
        """Accept ``zh``, ``zh_CN``, ``en-US``, ``中文``… and default to the system language."""
        if not text:
            return system_lang()
        t = text.strip().lower()
        if t.startswith("zh") or t in ("中文", "chinese", "cn"):
            return cls.ZH
        if t.startswith("en") or t == "english":
            return cls.EN
        raise ValueError(f"unknown language {text!r}: use zh or en")


def system_lang() -> Lang:
    """The language of the system locale (``REPLAYSAGE_LANG`` overrides it)."""
    forced = os.environ.get("REPLAYSAGE_LANG")
    if forced:
        return Lang.parse(forced)
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var)
        if value:
            return Lang.ZH if value.lower().startswith("zh") else Lang.EN
    code = locale.getlocale()[0] or ""
    return Lang.ZH if code.lower().startswith("zh") else Lang.EN


def pick(lang: Lang, zh: str, en: str) -> str:
    """Return the text for ``lang``."""
    return zh if lang is Lang.ZH else en


# ---------------------------------------------------------------------------------------------------- the catalogue

DOMAIN = "replaysage"
"""The gettext domain: ``app/locale/<lang>/LC_MESSAGES/replaysage.po`` (compiled beside it as ``.mo``; the
template is ``app/locale/replaysage.pot``). ``tools/catalog_codemod.py`` writes all three."""

LOCALE_DIR = Path(__file__).resolve().parent / "locale"

Messages = Mapping[tuple[str | None, str], str]
"""A catalogue as a table: ``(context, msgid) -> msgstr``."""

_overrides: dict[Lang, Messages] = {}


def catalog_path(lang: Lang, suffix: str = ".po") -> Path:
    """The PO (or, with ``suffix=".mo"``, compiled) catalogue of ``lang``; English has none (msgids are English)."""
    return LOCALE_DIR / lang.value / "LC_MESSAGES" / f"{DOMAIN}{suffix}"


@functools.cache
def _translations(lang: Lang) -> gettext.NullTranslations:
    """The compiled catalogue of ``lang`` (the standard library reads it: no start-up cost worth measuring)."""
    if lang is Lang.EN:
        return gettext.NullTranslations()
    with catalog_path(lang, ".mo").open("rb") as f:
        return gettext.GNUTranslations(f)


def use_catalog(lang: Lang, messages: Messages | None) -> None:
    """Put ``messages`` before ``lang``'s shipped catalogue (None removes them).

    The pseudo-locale test installs one, and a test its translation of a message it adds; a message ``messages``
    lacks reads from the shipped catalogue.
    """
    if messages is None:
        _overrides.pop(lang, None)
    else:
        _overrides[lang] = messages


def trc(lang: Lang, context: str | None, msgid: str, /, **params: object) -> str:
    """The text of ``msgid`` (the English source text) in ``lang`` under ``context``, its ``{placeholders}`` filled.

    A message without ``params`` is returned as written (its braces are text); with ``params`` it is a
    :meth:`str.format` template, as the extraction (``tools/catalog_codemod.py``) writes it. A message missing
    from the catalogue falls back to its English text (the completeness test keeps that from happening).
    """
    table = _overrides.get(lang)
    text = table.get((context, msgid)) if table is not None else None
    if not text:
        shipped = _translations(lang)
        text = shipped.gettext(msgid) if context is None else shipped.pgettext(context, msgid)
    return text.format(**params) if params else text


def tr(lang: Lang, msgid: str, /, **params: object) -> str:
    """The text of ``msgid`` in ``lang`` (see :func:`trc`; no context)."""
    return trc(lang, None, msgid, **params)


# ------------------------------------------------------------------------------------------- marked, shown later


class Msg(str):
    """A catalogue message named where it is defined and translated where it is shown: its English msgid.

    Word tables, settings titles, the command line's help texts and other texts declared before a language is known
    hold a :class:`Msg` made by :func:`N_` (or :func:`NC_` when the same English text reads differently elsewhere);
    the extraction (``tools/catalog_codemod.py``) finds the marker calls as it finds :func:`tr`, so the words are in
    the catalogue, and the place that shows one calls it with its language. It is a ``str`` (the English text), so
    argparse takes it as a ``help=``; it carries its context and, through :func:`with_params`, the values of its
    ``{placeholders}``.
    """

    context: str | None
    params: dict[str, object]

    def __new__(cls, msgid: str, context: str | None = None, params: dict[str, object] | None = None) -> Msg:  # noqa: D102
        self = super().__new__(cls, msgid)
        self.context = context
        self.params = dict(params or {})
        return self

    @property
    def msgid(self) -> str:
        """The English text, as a plain ``str``."""
        return str.__str__(self)

    def __call__(self, lang: Lang, /, **params: object) -> str:
        """The text in ``lang`` (see :func:`trc`), its placeholders filled from :func:`with_params` and ``params``."""
        return trc(lang, self.context, self.msgid, **{**self.params, **params})


def N_(msgid: str, /) -> Msg:  # noqa: N802 - gettext's name for a marker ("gettext_noop")
    """Mark ``msgid`` (a string literal, the English text) for the catalogue; translate it later by calling it."""
    return Msg(msgid)


def NC_(context: str, msgid: str, /) -> Msg:  # noqa: N802 - :func:`N_` with a context, as ``pgettext`` is
    """:func:`N_` under ``context``: the same English text that means another 中文 text elsewhere."""
    return Msg(msgid, context)


def with_params(msg: Msg, /, **params: object) -> Msg:
    """``msg`` carrying the values of its placeholders.

    For a place that translates texts without knowing their values (the command line's help formatter).
    """
    return Msg(msg.msgid, msg.context, {**msg.params, **params})


def table_word(table: Mapping[str, Msg], key: str, lang: Lang) -> str:
    """``key`` as a word table of marked messages names it in ``lang``; a key the table lacks is shown as stored."""
    word = table.get(key)
    return word(lang) if word is not None else key
