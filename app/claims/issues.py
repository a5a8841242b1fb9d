"""Validation issues: what the validator found wrong with a reply (plan §7.7)."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Severity(enum.IntEnum):
    """Issue severity, ordered: anything above INFO triggers one revision (plan §10)."""

    INFO = 0
    WARNING = 1
    WEAK_EVIDENCE = 2
    CONTRADICTION = 3
    FATAL = 4

    @property
    def label(self) -> str:
        """The name used in reports and JSON (``Info``, ``WeakEvidence``…)."""
        return {0: "Info", 1: "Warning", 2: "WeakEvidence", 3: "Contradiction", 4: "Fatal"}[int(self)]

    @classmethod
    def from_label(cls, label: str) -> Severity:
        """Inverse of :attr:`label`."""
        for s in cls:
            if s.label.lower() == label.lower():
                return s
        raise ValueError(f"unknown severity {label!r}")


@dataclass(frozen=True, slots=True)
class ValidationIssue:
    """One finding about a reply.

    Attributes:
        severity: how bad it is.
        code: a stable identifier (e.g. ``NonexistentUnit``, ``OwnershipContradiction``, ``LookbackMalformed``).
        message: a human-readable explanation (in the analysis language).
        time_seconds: the game time the issue points at, when there is one (the UI jumps there).
        unit_id: the object id concerned, when there is one.
        claim: which claim it is about, ``unit:0`` / ``event:2`` / ``timeline:1`` (0-based within that kind's
            list of the reply), or None for reply-level issues; the report's verdict column and the revision's
            quotes use it.
        fact: the replay fact that contradicts the claim, quoted back to the model in the revision request.
        disputed: the model's reason when it disputed this issue in its revision and the revision's check no
            longer confirms it ("" otherwise): such an issue teaches the learning loops nothing until a person
            rules on it (issue 28 §3).
    """

    severity: Severity
    code: str
    message: str
    time_seconds: float | None = None
    unit_id: int | None = None
    claim: str | None = None
    fact: str = ""
    disputed: str = ""

    @property
    def needs_revision(self) -> bool:
        """True when the issue is above Info."""
        return self.severity > Severity.INFO
