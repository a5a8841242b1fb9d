"""The team-database docs match the test cluster, and ``db status`` compares like with like (issue 29, failure 12).

The README's first step must work on the cluster ``.ci/pg-cluster`` makes (the role it creates must not be the
cluster's own superuser) and must never put a password into an SQL statement, which PostgreSQL logs in full when
the statement fails. ``db status`` is checked on a real migrated SQLite store against Alembic's own view.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory

from app.cli import main
from app.store import open_database
from app.store.db import _alembic_config
from tests.conftest import REPO_ROOT


def _team_step_one() -> str:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Team database", 1)[1]
    return section.split("\n2. ", 1)[0]


def test_readme_team_role_does_not_collide_with_the_test_cluster() -> None:
    step = _team_step_one()
    commands = " ; ".join(c for c in re.findall(r"`([^`]+)`", step) if "create" in c.lower())
    created = set(re.findall(r"createuser [^;&]*?(\w+) &&", commands)) | set(
        re.findall(r"CREATE ROLE (\w+) ", commands)
    )
    assert created == {"replaysage"}
    cluster = (REPO_ROOT / ".ci" / "pg-cluster").read_text(encoding="utf-8")
    [superuser] = re.findall(r"initdb\" -D \"\$dir/data\" -U (\w+)", cluster)
    assert superuser not in created  # the step's CREATE would fail on the cluster, and be logged
    assert f"postgresql+psycopg://{superuser}:" in cluster  # the URL it prints names that superuser
    assert "PASSWORD" not in commands  # no password in clear in a statement the server may log
    assert "--pwprompt" in commands


def _status(db: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["db", "--db", str(db), "status", "--json"]) == 0
    data: dict[str, object] = json.loads(capsys.readouterr().out)
    return data


def test_db_status_lists_the_applied_revision_of_every_branch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "store.sqlite3"
    open_database(db).close()
    script = ScriptDirectory.from_config(_alembic_config())
    heads = sorted(script.get_heads())
    con = sqlite3.connect(db)
    rows = {r[0] for r in con.execute("SELECT version_num FROM alembic_version")}
    con.close()
    # a head that another branch depends on has no row of its own (Alembic keeps only the uncovered ones): status
    # must list every head all the same (with today's migrations no head is covered, so rows and heads agree)
    assert rows <= set(heads)

    info = _status(db, capsys)
    assert info["current"] == heads
    assert info["missing"] == []
    assert info["state"] == "up to date"
    assert main(["db", "--db", str(db), "status"]) == 0
    schema, app = capsys.readouterr().out.splitlines()[1:3]
    assert schema.removeprefix("schema: ").split(", ") == heads
    assert app.startswith(f"this app: {', '.join(heads)} — up to date")

    con = sqlite3.connect(db)  # a store one branch behind: the rates branch was never applied
    con.execute("DELETE FROM alembic_version WHERE version_num = 'rates_0001'")
    con.commit()
    con.close()
    info = _status(db, capsys)
    assert info["current"] == [h for h in heads if h != "rates_0001"]
    assert info["missing"] == ["rates_0001"]
    assert str(info["state"]).startswith("behind by rates_0001")
