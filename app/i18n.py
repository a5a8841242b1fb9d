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
    """Replace ``lang``'s catalogue by ``messages`` (None restores the shipped one): the pseudo-locale test."""
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
    if table is not None:
        text = table.get((context, msgid)) or msgid
    elif context is None:
        text = _translations(lang).gettext(msgid)
    else:
        text = _translations(lang).pgettext(context, msgid)
    return text.format(**params) if params else text


def tr(lang: Lang, msgid: str, /, **params: object) -> str:
    """The text of ``msgid`` in ``lang`` (see :func:`trc`; no context)."""
    return trc(lang, None, msgid, **params)


# ------------------------------------------------------------------------------------ texts translated where shown


class Marked(str):
    """A text marked for the catalogue (:func:`NC_`, :func:`with_params`): the English msgid.

    It carries its context and the values of its ``{placeholders}`` for :func:`tr_marked`.
    """

    context: str | None
    params: dict[str, object]

    def __new__(cls, text: str, context: str | None = None, params: dict[str, object] | None = None) -> Marked:  # noqa: D102
        self = super().__new__(cls, text)
        self.context = context
        self.params = dict(params or {})
        return self


def N_(msgid: str, /) -> str:  # noqa: N802 (gettext's name for it)
    """Mark ``msgid`` for the catalogue without translating it (gettext's ``gettext_noop``).

    For texts written where no language is known yet and translated where they are shown with :func:`tr_marked`:
    the command line's help texts (translated by its help formatter) and the entries of word tables. The codemod's
    extraction finds the call, so the text is a catalogue message like any other.
    """
    return msgid


def NC_(context: str, msgid: str, /) -> str:  # noqa: N802
    """:func:`N_` under a gettext context: for one English word of a table that means another 中文 word elsewhere."""
    return Marked(msgid, context)


def with_params(text: str, /, **params: object) -> str:
    """A marked text (:func:`N_`, :func:`NC_`) that carries the values of its placeholders.

    For a place that translates texts without knowing their values (the command line's help formatter).
    """
    return Marked(text, getattr(text, "context", None), {**getattr(text, "params", {}), **params})


def tr_marked(lang: Lang, text: str, /, **params: object) -> str:
    """The text of a message marked with :func:`N_` or :func:`NC_` in ``lang`` (see :func:`trc`)."""
    context: str | None = getattr(text, "context", None)
    msgid = str(text)
    return trc(lang, context, msgid, **{**getattr(text, "params", {}), **params})
