"""Timeline claims: when a player first produced a type (plan §7.6).

A ``firstTime`` names the player's first order of the type (Queue unit, Start structure, Place structure, Start
upgrade, Select protocol; a core counts for the structure it unpacks to): it must lie within
:data:`app.claims.time_match.TIMELINE_TOLERANCE_SECONDS` of that order or of the first production that was not
taken back.
"""

from __future__ import annotations

from typing import Any

from app.claims.issues import Severity, ValidationIssue
from app.claims.replay_lookup import ReplayCheck
from app.claims.time_match import TIMELINE_TOLERANCE_SECONDS, within
from app.claims.timeparse import format_time, parse_time
from app.facts.model import TICKS_PER_SECOND
from app.i18n import tr, trc
from app.replay.commands import PLACE_STRUCTURE, QUEUE_UNIT, SELECT_PROTOCOL, START_STRUCTURE, START_UPGRADE


class TimelineClaimChecker(ReplayCheck):
    """Checks the timeline claims of a reply, one at a time."""

    def check(self, claim: dict[str, Any], n: int, issues: list[ValidationIssue]) -> None:
        """Timeline claim ``n``: its issues appended to ``issues``."""
        where = tr(self.lang, "timeline claim {n}", n=n + 1)
        ref = f"timeline:{n}"
        player = self.lookup.player(claim.get("player"), issues, where, ref)
        raw_type = claim.get("type")
        type_name = self.lookup.type_name(raw_type)
        raw_time = claim.get("firstTime", claim.get("time"))
        seconds = parse_time(str(raw_time)) if raw_time is not None else None
        if raw_type and not type_name:
            self.lookup.unknown_type(raw_type, where, issues, ref)
            return
        if player is None or not type_name:
            return
        who = self.index.player_name(player)
        first = self.lookup.first_of(player, type_name)
        hashes = self.lookup.hashes(type_name)
        orders = self.lookup.commands(
            (QUEUE_UNIT, START_STRUCTURE, PLACE_STRUCTURE, START_UPGRADE, SELECT_PROTOCOL), player, hashes
        )
        # the first order of the type (even one taken back later: it is what the log shows first), or the first
        # production that was not taken back
        times = sorted({*(e.time_code for e in orders[:1]), *([first.time_code] if first is not None else [])})
        if not times:
            issues.append(
                ValidationIssue(
                    Severity.CONTRADICTION,
                    "TimelineNotObserved",
                    tr(
                        self.lang,
                        "{where}: {who} never produced {type_name}",
                        where=where,
                        who=who,
                        type_name=type_name,
                    ),
                    time_seconds=seconds,
                    claim=ref,
                    fact=trc(
                        self.lang,
                        "app.claims.validate",  # the catalogue context keeps the module it was first written in
                        "{who} never ordered {type_name}",
                        who=who,
                        type_name=type_name,
                    ),
                )
            )
        elif seconds is not None and not any(within(seconds, tc, TIMELINE_TOLERANCE_SECONDS) for tc in times):
            actual = format_time(times[0] / TICKS_PER_SECOND)
            fact = tr(
                self.lang, "{who} first ordered {type_name} at {actual}", who=who, type_name=type_name, actual=actual
            )
            issues.append(
                ValidationIssue(
                    # a firstTime names the player's first Queue unit / Start structure line (the prompt); no line
                    # within 2 s supports it: the prompt's "more than 2 s away, or no such line, is an error"
                    Severity.CONTRADICTION,
                    "TimelineMismatch",
                    tr(
                        self.lang,
                        "{where}: {who} first produced {type_name} at {actual}, not {seconds}",
                        where=where,
                        who=who,
                        type_name=type_name,
                        actual=actual,
                        seconds=format_time(seconds),
                    ),
                    time_seconds=times[0] / TICKS_PER_SECOND,
                    claim=ref,
                    fact=fact,
                )
            )
