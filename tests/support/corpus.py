"""Corpus replays and their fact indexes, read once per test session (shared by the tests that check replay bytes)."""

from __future__ import annotations

from functools import cache

from app.facts import ReplayFactIndex, build_fact_index
from app.knowledge.names import hash_names
from app.replay import Replay, read_replay
from tests.conftest import corpus_file


@cache
def corpus_replay(name: str) -> Replay:
    """A corpus replay by file name (skips the test when the corpus is not there)."""
    return read_replay(corpus_file(name))


@cache
def corpus_index(name: str) -> ReplayFactIndex:
    """The fact index of a corpus replay, with the type names of its mod."""
    r = corpus_replay(name)
    return build_fact_index(r, hash_names(r.header.mod_name))
