"""Same-day tendencies (the pending-analyses threshold) and name merges with their undo, on both store backends.

Real stores through ``store_url`` (a SQLite file and a fresh PostgreSQL database), real replays: the two RA3 games
of "nickname" (both open with AlliedScoutInfantry, per ``replaysage facts``' units lines; see
``test_profile_cli.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.memory import MemoryStore, episode_from_replay
from app.pipeline.learning import run_due_maintenance, run_memory_batch
from app.players.names import PlayerNameError, PlayerNames
from app.players.profile import build_profile
from app.store import open_database
from tests.conftest import corpus_file

MIRROR = "ra3_1v1_infinity_isle_allies_mirror_12m.RA3Replay"
SNOW = "ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay"
NOW = 1_800_000_000.0


def _active_first_units(store: MemoryStore) -> list[tuple[str, int]]:
    return [
        (f.value, f.evidence_count)
        for f in store.facts(status="active", subject="player:nickname")
        if f.attribute == "first_unit"
    ]


def test_batch_track_runs_once_enough_analyses_wait(store_url: str) -> None:
    db = open_database(store_url)
    try:
        store = MemoryStore(db, clock=lambda: NOW)
        store.run_batch()  # the daily batch just ran: only the count can start the next one today
        for name in (MIRROR, SNOW):
            store.record_run(episode_from_replay(corpus_file(name)))
        assert store.pending_analyses() == 2
        assert run_due_maintenance(db, NOW + 60, pending_threshold=3).batch is None
        assert _active_first_units(store) == []  # behavioural habits wait for the batch
        ran = run_due_maintenance(db, NOW + 120, pending_threshold=2).batch
        assert ran is not None
        assert ran["episodes"] == 2
        assert store.pending_analyses() == 0
        assert _active_first_units(store) == [("AlliedScoutInfantry", 2)]
        assert run_due_maintenance(db, NOW + 180, pending_threshold=0).batch is None  # 0: daily only
        again = run_memory_batch(db, NOW + 240)  # "Distil now" / end of a batch: runs whatever is due or not
        assert again is not None
        assert again["candidates"] == 0
    finally:
        db.close()


def test_merge_and_unmerge_names(store_url: str) -> None:
    db = open_database(store_url)
    try:
        names = PlayerNames(db, clock=lambda: NOW)
        assert names.names_of("nickname") == ("nickname",)
        made = names.merge("nickname", "0010", "coach")
        assert [(m.alias, m.player, m.merged_by) for m in made] == [("0010", "nickname", "coach")]
        assert names.player_of("0010") == "nickname"
        assert names.names_of("0010") == ("nickname", "0010")
        # merging the player into a third name carries its alias along (one level, no chains)
        names.merge("Trebla", "nickname", "coach")
        assert names.names_of("nickname") == ("Trebla", "0010", "nickname")
        with pytest.raises(PlayerNameError):
            names.merge("Trebla", "0010")  # already one of Trebla's names
        undone = names.unmerge("nickname", "coach")
        assert (undone.alias, undone.player, undone.undone_by) == ("nickname", "Trebla", "coach")
        assert names.names_of("nickname") == ("nickname",)
        assert names.names_of("0010") == ("Trebla", "0010")
        with pytest.raises(PlayerNameError):
            names.unmerge("nickname")
        assert len(names.history()) == 3
        assert len(names.active()) == 1
    finally:
        db.close()


def test_profile_uses_the_merged_names(store_url: str) -> None:
    """A merged name's games and memory facts are the player's; undone, they are not."""
    from app.pipeline.records import AnalysisRecord

    db = open_database(store_url)
    try:
        with db.session() as s:
            for name in (MIRROR, SNOW):
                path = corpus_file(name)
                s.add(AnalysisRecord(replay_path=str(path), replay_sha256="", status="completed"))
        names = PlayerNames(db, clock=lambda: NOW)
        alone = build_profile(db, "lanyiiiiiii")
        assert [g["map"] for g in alone["games"]] == ["Snow Plow"]
        names.merge("lanyiiiiiii", "0010", "coach")
        merged = build_profile(db, "0010")
        assert merged["player"] == "lanyiiiiiii"
        assert merged["names"] == ["lanyiiiiiii", "0010"]
        assert [(g["map"], g["name"]) for g in merged["games"]] == [
            ("Infinity Isle", "0010"),
            ("Snow Plow", "lanyiiiiiii"),
        ]
        # the rest of the library is now nickname's two games only: his refinery orders 28.1 s and 39.9 s
        assert merged["benchmarks"]["first_refinery"]["library_median"] == 34.0
        names.unmerge("0010", "coach")
        assert [g["map"] for g in build_profile(db, "lanyiiiiiii")["games"]] == ["Snow Plow"]
    finally:
        db.close()


def test_the_pending_threshold_comes_from_the_settings(tmp_path: Path) -> None:
    """``memory_batch_pending`` (default 10) is what the pipeline's after-analysis maintenance uses."""
    from app.settings import Settings

    db = open_database(tmp_path / "store.sqlite3")
    try:
        store = MemoryStore(db, clock=lambda: NOW)
        store.run_batch()
        for name in (MIRROR, SNOW):
            store.record_run(episode_from_replay(corpus_file(name)))
        assert Settings.load().get("memory_batch_pending") == 10
        assert run_due_maintenance(db, NOW + 60).batch is None  # 2 waiting, 10 needed
        settings = Settings.load()
        settings.set("memory_batch_pending", 2)
        settings.save()
        ran = run_due_maintenance(db, NOW + 120).batch
        assert ran is not None
        assert ran["episodes"] == 2
    finally:
        db.close()
