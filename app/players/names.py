"""Names are labels: a reviewer merges several names into one player, and can undo the merge.

One level only: a name is either a player's own name or an alias of exactly one player, so resolving a name is
one lookup and a merge can never form a cycle. Merging a player who already has aliases into another moves them
along (each move is its own undoable row).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import select

from app.errors import KnownError
from app.i18n import Lang, system_lang, tr
from app.players.tables import PlayerAliasRow
from app.store import Database

NAME_MAX = 200


class PlayerNameError(KnownError):
    """A merge or unmerge that cannot be done as asked (the message says why)."""


@dataclass(frozen=True, slots=True)
class Merge:
    """One active or undone merge."""

    id: int
    alias: str
    player: str
    created_at: float
    merged_by: str
    undone_at: float | None
    undone_by: str


def _merge(r: PlayerAliasRow) -> Merge:
    return Merge(r.id, r.alias, r.player, r.created_at, r.merged_by, r.undone_at, r.undone_by)


def _clean(name: str, lang: Lang) -> str:
    """``name`` as it is (a replay's name is data, spaces included), refused when blank or over-long."""
    text = name
    if not text.strip() or len(text) > NAME_MAX:
        raise PlayerNameError(tr(lang, "a player name must be 1 to {name_max} characters", name_max=NAME_MAX))
    return text


class PlayerNames:
    """Merges of player names over a :class:`~app.store.Database` (both backends, one set of rules)."""

    def __init__(self, db: Database, clock: Callable[[], float] = time.time, lang: Lang | None = None) -> None:
        self.db = db
        self.clock = clock
        self.lang = lang or system_lang()

    def active(self) -> list[Merge]:
        """Every merge in force, oldest first."""
        with self.db.read() as s:
            rows = s.scalars(
                select(PlayerAliasRow).where(PlayerAliasRow.undone_at.is_(None)).order_by(PlayerAliasRow.id)
            ).all()
            return [_merge(r) for r in rows]

    def history(self) -> list[Merge]:
        """Every merge ever made, undone ones included, oldest first."""
        with self.db.read() as s:
            return [_merge(r) for r in s.scalars(select(PlayerAliasRow).order_by(PlayerAliasRow.id)).all()]

    def player_of(self, name: str) -> str:
        """The player ``name`` belongs to (itself when it was not merged into anyone)."""
        with self.db.read() as s:
            found = s.scalar(
                select(PlayerAliasRow.player).where(PlayerAliasRow.alias == name, PlayerAliasRow.undone_at.is_(None))
            )
        return found or name

    def names_of(self, name: str) -> tuple[str, ...]:
        """Every name of the player ``name`` belongs to: the player's own name first, then the aliases."""
        player = self.player_of(name)
        with self.db.read() as s:
            aliases = s.scalars(
                select(PlayerAliasRow.alias)
                .where(PlayerAliasRow.player == player, PlayerAliasRow.undone_at.is_(None))
                .order_by(PlayerAliasRow.id)
            ).all()
        return (player, *[a for a in aliases if a != player])

    def merge(self, player: str, alias: str, reviewer: str = "") -> list[Merge]:
        """Make ``alias`` (and every alias it already had) a name of ``player``; returns the merges made.

        Raises:
            PlayerNameError: for an empty or over-long name, or a merge of a player into itself.
        """
        player, alias = _clean(player, self.lang), _clean(alias, self.lang)
        now = self.clock()
        with self.db.session() as s:
            target = (
                s.scalar(
                    select(PlayerAliasRow.player).where(
                        PlayerAliasRow.alias == player, PlayerAliasRow.undone_at.is_(None)
                    )
                )
                or player
            )
            source = (
                s.scalar(
                    select(PlayerAliasRow.player).where(
                        PlayerAliasRow.alias == alias, PlayerAliasRow.undone_at.is_(None)
                    )
                )
                or alias
            )
            if target == source:
                raise PlayerNameError(
                    tr(self.lang, "{alias} is already a name of {target}", alias=alias, target=target)
                )
            moved = s.scalars(
                select(PlayerAliasRow).where(PlayerAliasRow.player == source, PlayerAliasRow.undone_at.is_(None))
            ).all()
            made: list[PlayerAliasRow] = []
            for row in moved:  # the source's own aliases follow it: one level, no chains
                row.undone_at, row.undone_by = now, reviewer
                made.append(PlayerAliasRow(alias=row.alias, player=target, created_at=now, merged_by=reviewer))
            made.append(PlayerAliasRow(alias=source, player=target, created_at=now, merged_by=reviewer))
            s.add_all(made)
            s.flush()
            return [_merge(r) for r in made]

    def unmerge(self, alias: str, reviewer: str = "") -> Merge:
        """Undo the merge that made ``alias`` a name of another player; ``alias`` is its own player again.

        Raises:
            PlayerNameError: when ``alias`` is not merged into anyone.
        """
        alias = _clean(alias, self.lang)
        with self.db.session() as s:
            row = s.scalars(
                select(PlayerAliasRow).where(PlayerAliasRow.alias == alias, PlayerAliasRow.undone_at.is_(None))
            ).first()
            if row is None:
                raise PlayerNameError(tr(self.lang, "{alias} is not merged into any player", alias=alias))
            row.undone_at, row.undone_by = self.clock(), reviewer
            s.flush()
            return _merge(row)
