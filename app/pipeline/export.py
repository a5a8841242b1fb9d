"""Saving a stored analysis: the one way from the store to a report file, for ``report``, ``analyze`` and the GUI.

The renderers are :mod:`app.pipeline.report`'s (the ones ``analyze --out`` always used); this module only finds
the analysis, picks the report's language and names the format, so every front end writes the same file.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.exc import NoResultFound

from app.errors import KnownError
from app.i18n import Lang
from app.pipeline.records import AnalysisRecord
from app.pipeline.report import REPORT_SUFFIXES, write_report
from app.pipeline.repository import AnalysisRepository
from app.store.db import Database


def load_analysis(db: Database, analysis_id: int) -> AnalysisRecord:
    """A stored analysis with its stages, or a :class:`KnownError` naming the number that is not there."""
    try:
        return AnalysisRepository(db).load(analysis_id)
    except NoResultFound:
        raise KnownError(
            f"no analysis #{analysis_id} in {db.location}: `replaysage analyze` prints the number of each analysis "
            "it stores"
        ) from None


def report_lang(rec: AnalysisRecord, lang: Lang | None = None) -> Lang:
    """The language a report's headings are in: the one asked for, else the analysis' own (its text is in it)."""
    return lang if lang is not None else Lang.parse(rec.lang or None)


def check_report_path(path: Path) -> None:
    """Refuse a file name whose suffix names no report format before anything runs or is written."""
    if path.suffix.lower() not in REPORT_SUFFIXES:
        raise KnownError(f"report {path}: unknown format {path.suffix or '(none)'!r}; use .md, .html or .json")


def export_report(db: Database, analysis_id: int, path: Path, lang: Lang | None = None) -> AnalysisRecord:
    """Write the report of a stored analysis in the format its suffix names; returns the analysis written."""
    check_report_path(path)
    rec = load_analysis(db, analysis_id)
    write_report(rec, path, report_lang(rec, lang))
    return rec
