from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.i18n import Lang
from app.store import Database, open_database
from app.wisdom import ErrorWisdomManager


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    d = open_database(tmp_path / "wisdom.sqlite3")
    yield d
    d.close()


@pytest.fixture
def manager(db: Database) -> ErrorWisdomManager:
    return ErrorWisdomManager(db, Lang.EN)
