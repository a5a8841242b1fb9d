"""Replay facts: the fact index, the compact event log and the deterministic match summary.

The analysis never shows a model the raw replay: it shows :func:`build_summary` and slices of
:func:`build_compact_log`, and it checks every claim against :class:`ReplayFactIndex`.
"""

from app.facts.eventlog import (
    CompactLevel,
    CompactLog,
    EventBlock,
    LogLine,
    LogSlice,
    build_compact_log,
    format_time,
    parse_time,
)
from app.facts.index import KEY_CATEGORIES, ReplayFactIndex, build_fact_index
from app.facts.model import (
    BuildStep,
    Evidence,
    FactEvent,
    FirstProduction,
    GroupState,
    Owner,
    OwnerChange,
    OwnershipVerdict,
    PackAction,
    PackChain,
    PackStep,
    PlayerInfo,
    ProductionKind,
    ProtocolPick,
    Role,
    Strength,
)
from app.facts.summary import build_summary, default_segments, sample_key_events

__all__ = [
    "KEY_CATEGORIES",
    "BuildStep",
    "CompactLevel",
    "CompactLog",
    "EventBlock",
    "Evidence",
    "FactEvent",
    "FirstProduction",
    "GroupState",
    "LogLine",
    "LogSlice",
    "Owner",
    "OwnerChange",
    "OwnershipVerdict",
    "PackAction",
    "PackChain",
    "PackStep",
    "PlayerInfo",
    "ProductionKind",
    "ProtocolPick",
    "ReplayFactIndex",
    "Role",
    "Strength",
    "build_compact_log",
    "build_fact_index",
    "build_summary",
    "default_segments",
    "format_time",
    "parse_time",
    "sample_key_events",
]
