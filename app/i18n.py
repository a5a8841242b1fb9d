"""Language choice for reports, prompts and the UI: 中文 or English, following the system locale."""

from __future__ import annotations

import enum
import locale
import os


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
