"""Semantic memory: distil analyses and feedback into typed, confidence-scored, traceable facts.

Entry points: :class:`MemoryStore` (record episodes, run the batch, review, flip back, inject, scorecard),
:func:`episode_from_index` (an episode from a replay's fact index, e.g. the pipeline's),
:func:`episode_from_replay` (the same straight from a replay file) and the model step in
:mod:`app.memory.prompt`.
"""

from app.memory.injection import Injection
from app.memory.model import (
    Candidate,
    ClaimInput,
    EpisodeInputError,
    EvidenceKind,
    FactStatus,
    FactType,
    FeedbackInput,
    IssueInput,
    MemoryStateError,
    MemoryStoreError,
    MissingFieldError,
    PlayerInput,
    RunEpisodeInput,
    TimedItem,
    UnknownFactError,
)
from app.memory.replay_adapter import episode_from_index, episode_from_replay, replay_hash_of
from app.memory.scorecard import HEALTHY, METRICS, Scorecard
from app.memory.store import BatchReport, DistilResult, MemoryStore, Outcome
from app.memory.views import EpisodeView, FactView, QueueView, SourceView

__all__ = [
    "HEALTHY",
    "METRICS",
    "BatchReport",
    "Candidate",
    "ClaimInput",
    "DistilResult",
    "EpisodeInputError",
    "EpisodeView",
    "EvidenceKind",
    "FactStatus",
    "FactType",
    "FactView",
    "FeedbackInput",
    "Injection",
    "IssueInput",
    "MemoryStateError",
    "MemoryStore",
    "MemoryStoreError",
    "MissingFieldError",
    "Outcome",
    "PlayerInput",
    "QueueView",
    "RunEpisodeInput",
    "Scorecard",
    "SourceView",
    "TimedItem",
    "UnknownFactError",
    "episode_from_index",
    "episode_from_replay",
    "replay_hash_of",
]
