"""The profile cache keyed by player (issue 34): one row per side, only the player's sides decoded, players_0002.

Real stores through ``store_url`` (a SQLite file and a fresh PostgreSQL database) and the two RA3 corpus games of
"nickname" (see ``test_store_level.py``): Infinity Isle is 0010 against nickname, Snow Plow lanyiiiiiii against
nickname, and nickname's refinery orders are at 28.1 s and 39.9 s.
"""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from alembic import command

from app.players import profile as profile_mod
from app.players.games import PlayerGame
from app.players.names import PlayerNames
from app.players.profile import build_profile
from app.store import Database, open_database
from app.store.db import _alembic_config
from tests.conftest import corpus_file

MIRROR = "ra3_1v1_infinity_isle_allies_mirror_12m.RA3Replay"
SNOW = "ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay"


def _library(db: Database) -> None:
    from app.pipeline.records import AnalysisRecord

    with db.session() as s:
        for name in (MIRROR, SNOW):
            s.add(AnalysisRecord(replay_path=str(corpus_file(name)), replay_sha256="", status="completed"))


def _sides(db: Database) -> list[tuple[str, int, str, float | None]]:
    with db.read() as s:
        rows = s.execute(sa.text("SELECT path, seq, name, first_refinery FROM player_sides ORDER BY path, seq")).all()
    return [(str(p).rsplit("/", 1)[-1], int(q), str(n), r) for p, q, n, r in rows]


def test_the_store_filters_by_name_and_only_the_players_sides_are_decoded(store_url: str) -> None:
    db = open_database(store_url)
    try:
        _library(db)
        build_profile(db, "nickname")  # reads both replays once and caches their sides
        sides = _sides(db)
        assert sorted(n for _, _, n, _ in sides) == ["0010", "lanyiiiiiii", "nickname", "nickname"]
        assert sorted(r for _, _, n, r in sides if n == "nickname" and r is not None) == [28.1, 39.9]
        assert "ix_player_sides_name" in {i["name"] for i in sa.inspect(db.engine).get_indexes("player_sides")}
        with db.session() as s:  # a side that is decoded now fails the profile: nickname's must not be
            s.execute(sa.text("UPDATE player_sides SET game = '{}' WHERE name = 'nickname'"))
        PlayerNames(db).merge("lanyiiiiiii", "0010", "coach")
        merged = build_profile(db, "0010")
        assert [(g["map"], g["name"]) for g in merged["games"]] == [
            ("Infinity Isle", "0010"),
            ("Snow Plow", "lanyiiiiiii"),
        ]
        assert merged["library_replays"] == 2
        assert merged["benchmarks"]["first_refinery"]["library_median"] == 34.0  # (28.1 + 39.9) / 2
        assert merged["benchmarks"]["first_refinery"]["library_games"] == 2
        PlayerNames(db).unmerge("0010", "coach")
        assert [g["map"] for g in build_profile(db, "lanyiiiiiii")["games"]] == ["Snow Plow"]
    finally:
        db.close()


def test_players_0002_moves_cached_lists_into_rows_and_back(store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Downgraded, the sides are one JSON list per replay again; upgraded, rows again, and nothing is read anew."""
    db = open_database(store_url)
    try:
        _library(db)
        before = build_profile(db, "nickname")
        sides = _sides(db)
        cfg = _alembic_config()
        with db.engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.downgrade(cfg, "players_0001")
        with db.read() as s:
            lists = {
                str(p).rsplit("/", 1)[-1]: games
                for p, games in s.execute(
                    sa.select(sa.table("player_games", sa.column("path"), sa.column("games", sa.JSON)))
                ).all()
            }
            assert not sa.inspect(s.connection()).has_table("player_sides")
        assert sorted(lists) == sorted([MIRROR, SNOW])
        assert {n: sorted(g["name"] for g in games) for n, games in lists.items()} == {
            MIRROR: ["0010", "nickname"],
            SNOW: ["lanyiiiiiii", "nickname"],
        }
    finally:
        db.close()

    def no_reading(*args: object) -> list[PlayerGame]:
        raise AssertionError("a cached replay was read again")

    monkeypatch.setattr(profile_mod, "games_of_replay", no_reading)
    db = open_database(store_url)  # upgrades players to its head again
    try:
        assert _sides(db) == sides
        assert build_profile(db, "nickname") == before
    finally:
        db.close()
