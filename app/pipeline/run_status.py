"""A stored analysis's status as people read it: the one word table of the report and the past-analyses picker.

The status is stored as its English code (``completed``, ``running``…); :func:`status_words` gives it in the user's
language through the catalogue (context ``run status``), and a status the table lacks is shown as stored.
"""

from __future__ import annotations

from app.i18n import NC_, Lang, Msg, table_word

RUN_STATUS_WORDS: dict[str, Msg] = {
    "completed": NC_("run status", "completed"),
    "running": NC_("run status", "running"),
    "interrupted": NC_("run status", "interrupted"),
    "cancelled": NC_("run status", "cancelled"),
    "failed": NC_("run status", "failed"),
    "partial": NC_("run status", "partial"),
}
"""A stored analysis's status in words (the English word is the stored code)."""


def status_words(status: str, lang: Lang) -> str:
    """An analysis status in ``lang``; an unknown one as stored."""
    return table_word(RUN_STATUS_WORDS, status, lang)
