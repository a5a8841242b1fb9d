"""The Markdown report of an offline analysis of a corpus replay, made once per test session.

Several test modules read the whole report of every corpus replay in both languages (the game's own words, the
faction names, the radar tier, the team numbers). A report takes seconds to make, so each (replay, language) is
analysed once per session, the first time a test asks, and every test reads the same text. Each analysis still
runs in its own fresh store, so no analysis sees another one: the store is a copy of one freshly migrated empty
store (migrating a new SQLite file per analysis cost seconds each on a loaded 2-core machine).
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from app.analyst.provider import OfflineAnalyst
from app.i18n import Lang
from app.pipeline.prepare import prepare_replay
from app.pipeline.report import report_dict, report_markdown
from app.pipeline.repository import AnalysisRepository
from app.pipeline.service import ModelChoice, run_analysis
from app.settings import BUILTIN_OFFLINE
from app.store import open_database


def offline_report(path: Path, lang: Lang, db_path: Path) -> str:
    """Analyse ``path`` offline in ``lang`` into the store at ``db_path``; its whole Markdown report."""
    choice = ModelChoice.from_settings(BUILTIN_OFFLINE)
    prepared = prepare_replay(path, choice.profile, lang)
    db = open_database(db_path)

    async def main() -> int:
        provider = OfflineAnalyst()
        try:
            return await run_analysis(
                path, db=db, provider=provider, choice=choice, lang=lang, emit=lambda _e: None, prepared=prepared
            )
        finally:
            await provider.aclose()

    try:
        record = AnalysisRepository(db).load(asyncio.run(main()))
        return report_markdown(report_dict(record), lang)
    finally:
        db.close()


class OfflineReports:
    """``reports(path, lang)``: the offline report of ``path`` in ``lang``, made at the first call (session fixture).

    Args:
        base: an empty folder for the stores and the analyses' ``REPLAYSAGE_HOME``.
    """

    def __init__(self, base: Path) -> None:
        self._base = base
        self._home = base / "home"
        self._home.mkdir()
        self._texts: dict[tuple[Path, Lang], str] = {}
        self._empty: Path | None = None

    def __call__(self, path: Path, lang: Lang) -> str:
        key = (path.resolve(), lang)
        if key not in self._texts:
            with pytest.MonkeyPatch.context() as mp:
                mp.setenv("REPLAYSAGE_HOME", str(self._home))
                db_path = self._base / f"{len(self._texts)}_{path.stem}.{lang.value}.db"
                shutil.copyfile(self._empty_store(), db_path)
                self._texts[key] = offline_report(path, lang, db_path)
        return self._texts[key]

    def _empty_store(self) -> Path:
        """A freshly migrated store with nothing in it, closed (its WAL checkpointed into the file)."""
        if self._empty is None:
            empty = self._base / "empty.db"
            open_database(empty).close()
            leftovers = [p.name for p in self._base.glob("empty.db-*")]
            if leftovers:  # a copy of the main file alone would lose what these hold
                raise RuntimeError(f"the empty store left {leftovers} after closing")
            self._empty = empty
        return self._empty
