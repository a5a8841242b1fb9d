"""The blind history of the claims evaluation (issue 28 §4): first scores are appended once and never rewritten,
and undecidable labels stay out of precision and recall."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.claims_history import append_first, first_scores, read_history, score

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data" / "claims_eval"
HISTORY = DATA / "blind_history.jsonl"
KINDS = ("unit", "event", "timeline", "all")


@dataclass
class _V:
    kind: str
    truth: bool | None
    flagged: bool


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=False)


@pytest.mark.parametrize("history", [HISTORY, DATA / "prose_history.jsonl"], ids=["blind", "prose"])
def test_history_only_ever_grew_in_git(history: Path) -> None:
    """Every committed version's lines are in the file now, unchanged and in their order (append-only).

    Two branches may each append a first score; once merged, each branch's lines are a subsequence of the file,
    so "a prefix of the next version" would fail a correct merge while this still catches a rewritten line. The
    prose checker's first score (``prose_history.jsonl``) is kept the same way.
    """
    if shutil.which("git") is None or _git("rev-parse", "--git-dir").returncode != 0:
        pytest.skip("not a git checkout")
    rel = history.relative_to(REPO).as_posix()
    commits = _git("log", "--format=%H", "--", rel).stdout.split()
    now = history.read_text(encoding="utf-8").splitlines()
    for commit in commits:
        lines = iter(now)
        kept = _git("show", f"{commit}:{rel}").stdout.splitlines()
        assert all(line in lines for line in kept), (
            f"{history.name} as of {commit[:9]} lost or changed a line: it may only be appended to"
        )


def test_the_prose_first_score_is_the_checker_before_any_prose_rule() -> None:
    """The first prose score: no planted wrong sentence flagged, scored on a commit with no uncommitted app change."""
    row, *later = read_history(DATA / "prose_history.jsonl")
    assert row["case"] == "prose"
    assert len(row["commit"]) == 40
    assert row["app_changes"] is False
    assert row["kinds"]["all"]["planted_caught"] == 0
    assert row["kinds"]["all"]["planted"] == 51
    # a case whose prose labels came later has one line of its own, scored before any rule was changed for it
    covered = set(row["cases"])
    for r in later:
        assert r["case"] == f"prose:{r['cases'][0]}"
        assert len(r["cases"]) == 1
        assert r["app_changes"] is False
        assert len(r["commit"]) == 40
        assert not covered & set(r["cases"])
        covered |= set(r["cases"])


def test_every_blind_case_has_exactly_one_first_score() -> None:
    """A case marked blind carries its first score (per kind, with the commit it was scored on), once."""
    rows = read_history(HISTORY)
    cases = [r["case"] for r in rows]
    assert len(cases) == len(set(cases))
    blind = {p.parent.name for p in DATA.glob("*/case.json") if json.loads(p.read_text(encoding="utf-8")).get("blind")}
    assert blind <= set(cases)
    for r in rows:
        assert len(r["commit"]) == 40
        assert r["date"]
        assert r["method"]
        counts = r["kinds"]["all"]
        assert counts["claims"] == counts["true"] + counts["wrong"] + counts["undecidable"]
        assert counts["caught"] <= min(counts["flagged"], counts["wrong"])


def test_backfilled_mirror_case_is_the_number_the_issue_quotes() -> None:
    """Issue 28: the one blind case scored precision 0.50 and recall 0.67 before the rules were fitted to it."""
    first = first_scores(HISTORY)["ra3_1v1_mirror_12m_zh"]["kinds"]["all"]
    assert (first["flagged"], first["caught"], first["wrong"]) == (4, 2, 3)
    assert first["precision"] == 0.5
    assert first["recall"] == pytest.approx(2 / 3, abs=1e-4)


def test_append_first_never_touches_existing_lines(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_bytes(b'{"case": "a", "kinds": {}}\n{"case": "b", "kinds": {}}')  # no final newline
    before = path.read_bytes()
    new = append_first(path, [{"case": "b", "kinds": {"x": 1}}, {"case": "c", "kinds": {}}, {"case": "c", "kinds": {}}])
    assert [r["case"] for r in new] == ["c"]
    after = path.read_bytes()
    assert after.startswith(before)
    assert [r["case"] for r in read_history(path)] == ["a", "b", "c"]
    assert first_scores(path)["b"]["kinds"] == {}
    assert append_first(path, [{"case": "a", "kinds": {"y": 2}}]) == []
    assert path.read_bytes() == after


def test_undecidable_labels_are_counted_apart() -> None:
    vs = [
        _V("unit", True, False),
        _V("unit", True, True),  # false alarm
        _V("unit", False, True),  # caught
        _V("unit", False, False),  # missed
        _V("unit", None, True),  # undecidable: neither a false alarm nor a catch
        _V("event", None, False),
    ]
    unit = score(vs, "unit")
    assert (unit["claims"], unit["true"], unit["wrong"], unit["undecidable"]) == (5, 2, 2, 1)
    assert (unit["flagged"], unit["caught"], unit["false_alarms"], unit["undecidable_flagged"]) == (2, 1, 1, 1)
    assert unit["precision"] == 0.5
    assert unit["recall"] == 0.5
    event = score(vs, "event")
    assert event["undecidable"] == 1
    assert event["precision"] is None
    assert event["recall"] is None
    assert score(vs)["claims"] == 6
