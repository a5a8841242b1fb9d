"""How long a model request may take and how often one may start: a provider's deadlines, retries and rates.

A server that sends keep-alive comments forever, stalls before its first token or never ends an error body must
not hang an analysis. Each limit is a wall-clock deadline we enforce ourselves (httpx's read timeout is reset by
every byte, keep-alives included). Limits are configured per provider (``ProviderSettings.limits``); the defaults
suit reasoning models that think for minutes before the first token. The request and token rates (issue 19) are
enforced across every process that shares the store (:mod:`app.llm.ratelimit`); 0 means no limit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any


@dataclass(frozen=True, slots=True)
class StreamLimits:
    """Deadlines of one request and of one run, in seconds, the retry count, and the provider's rates.

    Attributes:
        connect_s: establishing the connection.
        first_byte_s: from sending an attempt to its first content delta (reasoning counts as content).
        idle_s: between two content deltas; keep-alive comments do not reset it.
        reply_s: one attempt, from sending to the end of the reply.
        request_s: one request with all its retries and waits.
        error_body_s: reading an error body (which is also capped at ``error_body_bytes``).
        error_body_bytes: the most of an error body that is read.
        max_attempts: HTTP attempts per request, the first included.
        run_s: one whole analysis run (0: no run deadline).
        requests_per_minute: requests started per minute, spaced evenly (0: no limit).
        tokens_per_minute: prompt and completion tokens per minute (0: no limit).
    """

    connect_s: float = 10.0
    first_byte_s: float = 180.0
    idle_s: float = 120.0
    reply_s: float = 900.0
    request_s: float = 1800.0
    error_body_s: float = 10.0
    error_body_bytes: int = 64 * 1024
    max_attempts: int = 5
    run_s: float = 6 * 3600.0
    requests_per_minute: float = 0.0
    tokens_per_minute: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """The persisted form."""
        return asdict(self)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any] | None, where: str = "limits") -> StreamLimits:
        """Parse (missing keys take the defaults; unknown keys are ignored).

        Raises:
            ValueError: a value is not a positive number (those in :data:`ZERO_MEANS_NONE` may be 0), naming the key.
        """
        if not data:
            return cls()
        values: dict[str, Any] = {}
        for f in fields(cls):
            if f.name not in data:
                continue
            value = data[f.name]
            if not isinstance(value, int | float) or isinstance(value, bool):
                raise ValueError(f"{where}: {f.name} must be a number, got {value!r}")
            if value < 0 or (value == 0 and f.name not in ZERO_MEANS_NONE):
                raise ValueError(f"{where}: {f.name} must be positive, got {value!r}")
            values[f.name] = int(value) if f.type in ("int", int) else float(value)
        return cls(**values)


ZERO_MEANS_NONE = frozenset({"run_s", "requests_per_minute", "tokens_per_minute"})
"""The limits whose 0 means "no limit"."""

DEFAULT_LIMITS = StreamLimits()
