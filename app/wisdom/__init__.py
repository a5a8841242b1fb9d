"""Error-wisdom library: record errors, turn them into prevention knowledge, check calls before they are made.

The spec's API is importable from here with its names and signatures: :func:`record_error`,
:func:`query_prevention`, :func:`pre_check` (module-level, on a default library over the user database, or one
set with :func:`configure`), :class:`TimelinessManager` and :class:`RuleGenerationManager`. The pipeline uses
:class:`WisdomGate`; the CLI and the GUI use :class:`ErrorWisdomManager`.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from app.store import Database
from app.wisdom.entry import PreventionRule, Verification, WisdomEntry, WisdomFormatError
from app.wisdom.gate import WisdomGate
from app.wisdom.manager import ErrorWisdomManager
from app.wisdom.objectivity import (
    CognitiveAnalysis,
    CognitiveErrorAnalyzer,
    EvidenceContext,
    ObjectivityEvaluator,
    ObjectivityMetric,
)
from app.wisdom.prevention import ParamSpec, PreCheckResult
from app.wisdom.rules import RuleGenerationManager, similarity
from app.wisdom.store import EntryFilter, EntryNotFoundError
from app.wisdom.timeliness import (
    TimelinessManager,
    counterexample_decay,
    scene_change_decay,
    time_decay,
)

__all__ = [
    "CognitiveAnalysis",
    "CognitiveErrorAnalyzer",
    "EntryFilter",
    "EntryNotFoundError",
    "ErrorWisdomManager",
    "EvidenceContext",
    "ObjectivityEvaluator",
    "ObjectivityMetric",
    "ParamSpec",
    "PreCheckResult",
    "PreventionRule",
    "RuleGenerationManager",
    "TimelinessManager",
    "Verification",
    "WisdomEntry",
    "WisdomFormatError",
    "WisdomGate",
    "configure",
    "counterexample_decay",
    "default_manager",
    "pre_check",
    "query_prevention",
    "record_error",
    "scene_change_decay",
    "similarity",
    "time_decay",
]

_lock = threading.Lock()
_default: ErrorWisdomManager | None = None


def configure(db: Database | ErrorWisdomManager | None) -> ErrorWisdomManager | None:
    """Set (or, with None, forget) the library the module-level functions use."""
    global _default  # noqa: PLW0603 - one process-wide default is the point of the module-level API
    with _lock:
        _default = db if isinstance(db, ErrorWisdomManager) or db is None else ErrorWisdomManager(db)
        return _default


def default_manager() -> ErrorWisdomManager:
    """The configured library, or one over the user database (opened on first use)."""
    global _default  # noqa: PLW0603
    with _lock:
        if _default is None:
            from app.store import open_database

            _default = ErrorWisdomManager(open_database())
        return _default


def record_error(  # noqa: PLR0917 - the spec's signature
    error_type: str,
    error_subtype: str,
    error_code: str,
    error_description: str,
    root_cause: str,
    solution: str,
    prevention_strategy: str,
    trace_id: str,
    metadata: dict[str, Any] | None = None,
) -> str:
    """Record an error in the library; returns the entry id ``ew_YYYYMMDD_NNN`` (spec API)."""
    return default_manager().record_error(
        error_type,
        error_subtype,
        error_code,
        error_description,
        root_cause,
        solution,
        prevention_strategy,
        trace_id,
        metadata,
    )


def query_prevention(
    context: Mapping[str, Any], tool_name: str | None = None, params: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Prevention knowledge relevant to a context, tool and parameters (spec API)."""
    return default_manager().query_prevention(context, tool_name, params)


def pre_check(tool_name: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """Check a tool call before it is made: ``{"pass", "warnings", "auto_fixes", "suggestions"}`` (spec API)."""
    return default_manager().pre_check(tool_name, params)
