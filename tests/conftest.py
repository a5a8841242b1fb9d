"""Shared fixtures: isolated user data, the real replay corpus, offscreen Qt."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.leaks import no_leaks
from tests.support.postgres import ENV_TEST_SERVER, fresh_database, test_server_url

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO_ROOT = Path(__file__).resolve().parent.parent
IN_REPO_CORPUS = REPO_ROOT / "tests" / "data" / "replays"
"""A few corpus replays copied into the repo (see its PROVENANCE.tsv) so a fresh clone tests fully."""
SHARED_CORPUS = REPO_ROOT.parent / "shared" / "replays"
CORPUS = Path(os.environ.get("REPLAYSAGE_CORPUS") or (SHARED_CORPUS if SHARED_CORPUS.is_dir() else IN_REPO_CORPUS))
FULL_CORPUS = CORPUS.resolve() != IN_REPO_CORPUS.resolve()
"""True where the whole corpus is there (CI, a developer's machine): tests marked ``corpus`` run only then."""
GAMES = ("ra3", "kw", "tw")
__all__ = ["no_leaks"]  # autouse: a test that leaves a thread, a top-level widget or a Qt object for the GC fails


def corpus_file(name: str) -> Path:
    """Path of a corpus replay by file name (searched in every game folder)."""
    for sub in GAMES:
        p = CORPUS / sub / name
        if p.exists():
            return p
    pytest.skip(f"corpus replay {name} is not available at {CORPUS}: mark the test `corpus` (full corpus only)")
    raise AssertionError  # unreachable


def corpus_files(game: str | None = None) -> list[Path]:
    """Every corpus replay, optionally of one game folder (ra3, kw, tw)."""
    subs = [game] if game else list(GAMES)
    return sorted(p for s in subs for p in (CORPUS / s).glob("*") if p.is_file())


def _needs_missing_replay(item: pytest.Item) -> bool:
    """A parametrized case whose parameter names a corpus replay that is not in the corpus at hand."""
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return False
    names = [v for v in callspec.params.values() if isinstance(v, str) and v.lower().endswith("replay")]
    return any(not any((CORPUS / sub / n).exists() for sub in GAMES) for n in names)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave out (not skip) what cannot run here: corpus tests without the full corpus, PostgreSQL tests without a
    server; say so once."""
    if not FULL_CORPUS:
        left_out = [i for i in items if i.get_closest_marker("corpus") or _needs_missing_replay(i)]
        if left_out:
            config.hook.pytest_deselected(items=left_out)
            items[:] = [i for i in items if i not in set(left_out)]
            config.stash[_LEFT_OUT] = len(left_out)
    if not test_server_url():
        no_server = [i for i in items if i.get_closest_marker("postgres")]
        if no_server:
            config.hook.pytest_deselected(items=no_server)
            items[:] = [i for i in items if i not in set(no_server)]
            config.stash[_NO_SERVER] = len(no_server)


_LEFT_OUT = pytest.StashKey[int]()
_NO_SERVER = pytest.StashKey[int]()


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """Say why tests were left out, and (in CI) make any skip fail the run."""
    left_out = config.stash.get(_LEFT_OUT, 0)
    if left_out:
        terminalreporter.write_line(
            f"{left_out} tests need the full replay corpus at {SHARED_CORPUS} and were left out; "
            "the in-repo subset (tests/data/replays) ran everything else"
        )
    no_server = config.stash.get(_NO_SERVER, 0)
    if no_server:
        terminalreporter.write_line(
            f"{no_server} tests need a PostgreSQL server and were left out: `.ci/run` starts one, or set "
            f"{ENV_TEST_SERVER}=postgresql+psycopg://USER:PASSWORD@HOST:PORT/postgres (a role that may create "
            "databases)"
        )
    skipped = terminalreporter.stats.get("skipped", [])
    if skipped and os.environ.get("REPLAYSAGE_FAIL_ON_SKIP") == "1":
        terminalreporter.write_line(f"REPLAYSAGE_FAIL_ON_SKIP: {len(skipped)} tests were skipped; none may be")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """In CI (``REPLAYSAGE_FAIL_ON_SKIP=1``) an unexpected skip fails the run."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter is not None else []
    if skipped and os.environ.get("REPLAYSAGE_FAIL_ON_SKIP") == "1" and exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(autouse=True)
def _isolated_user_data(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point all user data at a fresh folder so no test touches the real profile."""
    home = tmp_path_factory.mktemp("replaysage_home")
    monkeypatch.setenv("REPLAYSAGE_HOME", str(home))
    return home


@pytest.fixture(autouse=True)
def _fresh_session_secrets() -> Iterator[None]:
    """Keys kept in memory without a keyring last one process: one test is one process for them."""
    import app.secrets

    yield
    app.secrets._SESSION.clear()
    app.secrets.take_notices()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Where a store-level test keeps its store: a SQLite file, or a fresh database on the PostgreSQL test server.

    The PostgreSQL URL handed to the test carries no password: ``REPLAYSAGE_DATABASE_URL`` (set here, inherited by
    subprocesses) supplies it, as in a scripted team run, and makes it the default store too.
    """
    if request.param == "sqlite":
        yield str(tmp_path / "store.sqlite3")
        return
    from app.store.db import ENV_DATABASE_URL, public_url

    with fresh_database(test_server_url()) as url:
        monkeypatch.setenv(ENV_DATABASE_URL, url)
        yield public_url(url)
