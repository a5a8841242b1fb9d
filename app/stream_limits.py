"""How long a model request may take and how often one may start: a provider's deadlines, retries and rates.

A server that sends keep-alive comments forever, stalls before its first token or never ends an error body must
not hang an analysis. Each limit is a wall-clock deadline we enforce ourselves (httpx's read timeout is reset by
every byte, keep-alives included). Limits are configured per provider (``ProviderSettings.limits``); the defaults
suit reasoning models that think for minutes before the first token. The request and token rates (issue 19) are
enforced across every process that shares the store (:mod:`app.llm.ratelimit`); 0 means no limit.

The defaults give up within minutes (issue 29): a server that sends its headers and then nothing, or keep-alive
comments forever, costs one request at most two first-token deadlines (a stalled attempt is retried once, see
:class:`app.llm.openai_compat.RetryPolicy`), never more than ``request_s``; a whole run never more than ``run_s``.
``analyze`` and ``batch`` take the same limits as flags (:func:`add_limit_flags`), for a profile and for
``--base-url`` alike.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from app.i18n import N_, Msg, with_params


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
    first_byte_s: float = 120.0
    idle_s: float = 60.0
    reply_s: float = 600.0
    request_s: float = 600.0
    error_body_s: float = 10.0
    error_body_bytes: int = 64 * 1024
    max_attempts: int = 5
    run_s: float = 3600.0
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

    def with_overrides(self, overrides: Mapping[str, Any] | None, where: str = "limits") -> StreamLimits:
        """These limits with ``overrides`` put over them (validated like :meth:`from_mapping`)."""
        if not overrides:
            return self
        return StreamLimits.from_mapping({**self.to_json(), **overrides}, where)


ZERO_MEANS_NONE = frozenset({"run_s", "requests_per_minute", "tokens_per_minute"})
"""The limits whose 0 means "no limit"."""

DEFAULT_LIMITS = StreamLimits()

OLD_DEFAULTS: Mapping[str, float] = {
    "first_byte_s": 180.0,
    "idle_s": 120.0,
    "reply_s": 900.0,
    "request_s": 1800.0,
    "run_s": 6 * 3600.0,
}
"""The defaults before issue 29 (settings files wrote every limit out, so these stand for "not chosen")."""

LIMIT_FLAGS: tuple[tuple[str, str, Msg], ...] = (
    ("--first-byte-timeout", "first_byte_s", N_("seconds an attempt may wait for its first token (default {default})")),
    (
        "--idle-timeout",
        "idle_s",
        N_("seconds between two pieces of content (keep-alives do not count) (default {default})"),
    ),
    ("--reply-timeout", "reply_s", N_("seconds one attempt's reply may take (default {default})")),
    ("--request-timeout", "request_s", N_("seconds one request may take with all its retries (default {default})")),
    ("--run-timeout", "run_s", N_("seconds the whole analysis run may take (0: no limit) (default {default})")),
)
"""The limits ``analyze`` and ``batch`` take on the command line: flag, :class:`StreamLimits` field, help."""


def add_limit_flags(parser: argparse.ArgumentParser) -> None:
    """Add :data:`LIMIT_FLAGS` (each overrides the profile's provider limit, or the default with ``--base-url``)."""
    group = parser.add_argument_group(N_("deadlines (seconds; default: the provider's limits, else the defaults)"))
    for flag, key, text in LIMIT_FLAGS:
        default = f"{getattr(DEFAULT_LIMITS, key):g}"
        group.add_argument(flag, dest=f"limit_{key}", metavar="S", type=float, help=with_params(text, default=default))


def limit_overrides(args: argparse.Namespace) -> dict[str, float]:
    """The limits given as flags, by field name; checked here so a bad value is named with its flag.

    Raises:
        KnownError: a value is negative, or 0 where 0 means nothing.
    """
    from app.errors import KnownError

    out: dict[str, float] = {}
    for flag, key, _text in LIMIT_FLAGS:
        value = getattr(args, f"limit_{key}", None)
        if value is None:
            continue
        if not value >= 0 or (value == 0 and key not in ZERO_MEANS_NONE) or value == float("inf"):
            zero = key in ZERO_MEANS_NONE
            raise KnownError(
                f"{flag} must be a positive number of seconds{' or 0' if zero else ''}, got {value:g}; "
                f"{flag} 须为{'0 或' if zero else ''}正数（秒）"
            )
        out[key] = value
    return out
