"""Validation issues: what the validator found wrong with a reply (plan §7.7)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from app.claims.kinds import CLAIM_LISTS
from app.i18n import NC_, Lang


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

    def display(self, lang: Lang) -> str:
        """The name shown to people, in ``lang`` (the interface showed ``Contradiction`` in Chinese, issue 30)."""
        return _SEVERITY_WORDS[int(self)](lang)

    @classmethod
    def from_label(cls, label: str) -> Severity:
        """Inverse of :attr:`label`."""
        for s in cls:
            if s.label.lower() == label.lower():
                return s
        raise ValueError(f"unknown severity {label!r}")


_SEVERITY_WORDS = {
    0: NC_("severity", "Info"),
    1: NC_("severity", "Warning"),
    2: NC_("severity", "Weak evidence"),
    3: NC_("severity", "Contradiction"),
    4: NC_("severity", "Fatal"),
}

CONFIDENCE_WORDS = {
    "confirmed": NC_("confidence", "confirmed"),
    "highly likely": NC_("confidence", "highly likely"),
    "highly_likely": NC_("confidence", "highly likely"),
    "likely": NC_("confidence", "likely"),
    "uncertain": NC_("confidence", "uncertain"),
}
"""A claim's stated confidence (the prompt's English words; a model may answer in Chinese) as shown to people."""


def confidence_display(value: str, lang: Lang) -> str:
    """A claim's confidence in ``lang`` ("likely" → 可能); an unknown word is shown as the model wrote it."""
    key = value.strip().lower()
    for word in CONFIDENCE_WORDS.values():  # a Chinese answer ("高度可能") is shown in English too
        if key == word(Lang.ZH):
            return word(lang)
    known = CONFIDENCE_WORDS.get(key)
    return known(lang) if known is not None else value


CLAIM_REF_KINDS = tuple(c.kind for c in CLAIM_LISTS)
"""The claim lists an issue can point into, as :attr:`ValidationIssue.claim` spells them (``unit:0``)."""


@dataclass(frozen=True, slots=True)
class ClaimRef:
    """A typed reference from an issue to the claim it is about (issue 32: no parsing of the message's prose).

    Attributes:
        kind: the claim list, one of :data:`CLAIM_REF_KINDS`.
        index: 0-based position in that list of the reply (the model's order).
        object_id: the object id the issue concerns, when there is one.
        stage: key of the stage whose reply holds the claim ("" where the stage is implied, e.g. in the validator).
    """

    kind: str
    index: int
    object_id: int | None = None
    stage: str = ""

    @property
    def key(self) -> str:
        """``unit:0``: the spelling of :attr:`ValidationIssue.claim` (stage and object id left out)."""
        return f"{self.kind}:{self.index}"

    @classmethod
    def of(cls, key: str | None, object_id: int | None = None, stage: str = "") -> ClaimRef | None:
        """The reference a ``kind:index`` key names, or None for no key or one of no known kind."""
        if not key:
            return None
        kind, _, number = key.partition(":")
        if kind not in CLAIM_REF_KINDS or not number.isdigit():
            return None
        return cls(kind, int(number), object_id, stage)


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
        quote: the sentence of the reply's text the issue is about (the prose checks of :mod:`app.claims.prose`;
            "" for claims and reply-level issues).
    """

    severity: Severity
    code: str
    message: str
    time_seconds: float | None = None
    unit_id: int | None = None
    claim: str | None = None
    fact: str = ""
    disputed: str = ""
    quote: str = ""

    @property
    def needs_revision(self) -> bool:
        """True when the issue is above Info."""
        return self.severity > Severity.INFO

    @property
    def ref(self) -> ClaimRef | None:
        """The claim this issue is about, typed (stage left ""; :meth:`ref_in` adds it), or None."""
        return ClaimRef.of(self.claim, self.unit_id)

    def ref_in(self, stage: str) -> ClaimRef | None:
        """:attr:`ref` with the key of the stage whose reply the issue is about."""
        return ClaimRef.of(self.claim, self.unit_id, stage)
