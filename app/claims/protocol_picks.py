"""Whether a player picked the protocol a claim names, when it says (plan §7.3).

Both an event claim of kind ``protocol`` and a unit claim's ``protocol`` evidence line ask it; an event claim is
held to the 2 s rule of every event (a Contradiction), an evidence line only warns. A special power claimed as a
protocol is a Contradiction that quotes the power's line; a pick that another player made names that player.
"""

from __future__ import annotations

from app.claims.issues import Severity, ValidationIssue
from app.claims.replay_lookup import ReplayCheck
from app.claims.roles import POWER_COMMANDS
from app.claims.time_match import EVENT_TOLERANCE_SECONDS, within
from app.claims.timeparse import format_time
from app.i18n import Lang, tr


class ProtocolPickCheck(ReplayCheck):
    """A claimed protocol pick against the players' picks."""

    def check(
        self,
        player: int | None,
        name: str,
        seconds: float | None,
        *,
        where: str,
        ref: str,
        issues: list[ValidationIssue],
        event: bool = False,
    ) -> None:
        """A protocol pick (an event claim, or a unit claim's evidence line) against the player's picks.

        For an event claim a pick more than 2 s off is a Contradiction (the prompt's rule for every event); for an
        evidence line it stays a Warning. A special power claimed as a protocol is a Contradiction that names the
        power's line.
        """
        wanted = name.strip().lower()
        if not wanted:
            return
        picks = self.index.protocols if player is None else self.index.protocols_of(player)
        matches = [p for p in picks if p.name.lower() == wanted]
        who = self.index.player_name(player) if player is not None else tr(self.lang, "any player")
        if not matches and self._power_as_protocol(player, name, seconds, where=where, ref=ref, issues=issues):
            return
        if not matches and event and player is not None:
            theirs = [p for p in self.index.protocols if p.name.lower() == wanted and p.player != player]
            if theirs:
                other = min(theirs, key=lambda p: abs(p.seconds - seconds) if seconds is not None else 0.0)
                fact = tr(
                    self.lang,
                    "{player} picked {name} at {seconds}",
                    player=self.index.player_name(other.player),
                    name=other.name,
                    seconds=format_time(other.seconds),
                )
                issues.append(
                    ValidationIssue(
                        Severity.CONTRADICTION,
                        "PlayerMismatch",
                        tr(
                            self.lang,
                            "{where}: wrong player: {who} never picked protocol {name}; {fact}",
                            where=where,
                            who=who,
                            name=name,
                            fact=fact,
                        ),
                        time_seconds=other.seconds,
                        claim=ref,
                        fact=fact,
                    )
                )
                return
        if not matches:
            fact = tr(self.lang, "protocols {who} picked: ", who=who) + (
                ", ".join(f"{p.name} {format_time(p.seconds)}" for p in picks) or tr(self.lang, "none")
            )
            issues.append(
                ValidationIssue(
                    Severity.CONTRADICTION,
                    "ProtocolNotObserved",
                    tr(self.lang, "{where}: {who} never picked protocol {name}", where=where, who=who, name=name),
                    time_seconds=seconds,
                    claim=ref,
                    fact=fact,
                )
            )
            return
        if seconds is not None and not any(within(seconds, p.time_code, EVENT_TOLERANCE_SECONDS) for p in matches):
            actual = ", ".join(format_time(p.seconds) for p in matches)
            issues.append(
                ValidationIssue(
                    Severity.CONTRADICTION if event else Severity.WARNING,
                    "ProtocolTimeMismatch",
                    tr(
                        self.lang,
                        "{where}: protocol {name} was picked at {actual}, not {seconds}",
                        where=where,
                        name=name,
                        actual=actual,
                        seconds=format_time(seconds),
                    ),
                    time_seconds=matches[0].seconds,
                    claim=ref,
                    fact=tr(self.lang, "{who} picked {name} at {actual}", who=who, name=name, actual=actual),
                )
            )

    def _power_as_protocol(
        self,
        player: int | None,
        name: str,
        seconds: float | None,
        *,
        where: str,
        ref: str,
        issues: list[ValidationIssue],
    ) -> bool:
        """A special power claimed as a protocol (a Contradiction naming the power's line); True when it was one."""
        type_name = self.lookup.type_name(name)
        entry = self.lookup.entry(type_name) if type_name else None
        hashes = self.lookup.hashes(type_name) if type_name else None
        casts = self.lookup.commands(POWER_COMMANDS, player, hashes) if hashes else []
        if not casts and (entry is None or entry.kind != "power"):
            return False
        line = self.lookup.nearest_line(casts, seconds)
        fact = tr(self.lang, "{name} is a special power, not a protocol", name=name) + (
            tr(self.lang, "; its power line: {line}", line=line) if line else ""
        )
        issues.append(
            ValidationIssue(
                Severity.CONTRADICTION,
                "PowerAsProtocol",
                f"{where}：{fact}" if self.lang is Lang.ZH else f"{where}: {fact}",
                time_seconds=seconds,
                claim=ref,
                fact=fact,
            )
        )
        return True
