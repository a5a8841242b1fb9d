"""A stage's claims as a table (id with type, player, time, confidence, verdict) and the issue → claim link.

An issue carries a typed reference to its claim (:class:`app.claims.issues.ClaimRef`: list, index, object id),
kept by the store, so a live and a reopened analysis link issue to claim the same way; an issue with no reference
falls back to its object id, and one with neither selects nothing. The message is never read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem, QWidget

from app.claims.issues import ValidationIssue, confidence_display
from app.claims.kinds import CLAIM_LIST, CLAIM_LISTS, event_words
from app.i18n import N_, NC_, Lang
from ui.lang import UiLanguage

KINDS: tuple[tuple[str, str, str], ...] = tuple((c.key, c.letter, c.kind) for c in CLAIM_LISTS)
"""Claim lists in table order: JSON key, id prefix, kind (:data:`app.claims.kinds.CLAIM_LISTS`)."""


@dataclass(frozen=True, slots=True)
class ClaimRow:
    """One claim as shown.

    Attributes:
        key: ``U2``: the kind's letter and the claim's 1-based number in its list (as the validator counts).
        kind: ``unit``, ``event`` or ``timeline``.
        what: type or name the claim is about.
        player: the player it names.
        time: the game time it names ("" for unit claims).
        confidence: the stated confidence (unit claims).
        unit_id: the object id it names, if any.
    """

    key: str
    kind: str
    what: str
    player: str
    time: str
    confidence: str
    unit_id: int | None

    @property
    def ref(self) -> str:
        """The claim as ``replaysage feedback --claim`` takes it: ``#762`` for an object, else its key."""
        return f"#{self.unit_id}" if self.unit_id is not None else self.key


def event_kind_words(what: str, lang: Lang) -> str:
    """``build PlayerTech_X`` → ``建造 PlayerTech_X``: the kind worded, the internal name kept."""
    kind, _, name = what.partition(" ")
    words = event_words(kind, lang)  # the kind's words in its one definition (app.claims.kinds)
    if words is None:
        return what
    return f"{words} {name}".strip()


def claim_rows(claims: Mapping[str, Any]) -> list[ClaimRow]:
    """Rows of a ``ClaimsParsed`` dictionary, unit claims first."""
    rows: list[ClaimRow] = []
    for json_key, letter, kind in KINDS:
        items = claims.get(json_key) or []
        for n, claim in enumerate(items if isinstance(items, list) else [], 1):
            if not isinstance(claim, dict):
                continue
            uid = claim.get("unitId")
            what = claim.get("type") or " ".join(str(claim.get(k) or "") for k in ("kind", "name")).strip()
            rows.append(
                ClaimRow(
                    f"{letter}{n}",
                    kind,
                    str(what or ""),
                    str(claim.get("player") or ""),
                    str(claim.get("time") or claim.get("firstTime") or ""),
                    str(claim.get("confidence") or ""),
                    int(uid) if isinstance(uid, int) or (isinstance(uid, str) and uid.isdigit()) else None,
                )
            )
    return rows


def claim_row_for_issue(issue: ValidationIssue, rows: Sequence[ClaimRow]) -> int | None:
    """Index of the claim an issue is about (see the module docstring), or None."""
    ref = issue.ref
    if ref is not None:
        letter = next((k[1] for k in KINDS if k[2] == ref.kind), "")
        index = next((i for i, r in enumerate(rows) if r.key == f"{letter}{ref.index + 1}"), None)
        if index is not None:
            return index
    if issue.unit_id is not None:
        return next((i for i, r in enumerate(rows) if r.unit_id == issue.unit_id), None)
    return None


def citation_tokens(row: ClaimRow) -> list[str]:
    """Strings a sentence citing the claim would contain, most specific first (the id, the time, the type)."""
    tokens: list[str] = []
    if row.unit_id is not None:
        tokens += [f"#{row.unit_id}", str(row.unit_id)]
    if row.time:
        tokens.append(row.time.split(".")[0])  # "5:00.00" is written "5:00" in prose
    if row.what:
        tokens.append(row.what)
    return tokens


class ClaimsTable(QTableWidget):
    """The claims of one stage; verdicts come from the stage's issues."""

    COLUMNS = (N_("Claim"), NC_("column", "Player"), N_("Time"), N_("Confidence"), NC_("column", "Verdict"))

    def __init__(self, ui: UiLanguage, parent: QWidget | None = None) -> None:
        super().__init__(0, len(self.COLUMNS), parent)
        self.ui = ui
        self.rows: list[ClaimRow] = []
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.verticalHeader().hide()
        self.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.setMaximumHeight(200)
        self._retitle()
        ui.changed.connect(lambda _c: self._retitle())

    def _retitle(self) -> None:
        self.setHorizontalHeaderLabels([column(self.ui.lang) for column in self.COLUMNS])

    def fill(self, claims: Mapping[str, Any], issues: Sequence[ValidationIssue]) -> None:
        """Show ``claims`` with a verdict per claim: the worst issue about it, or ✓."""
        from ui.analysis_view import SEVERITY_COLORS

        self.rows = claim_rows(claims)
        worst: dict[int, ValidationIssue] = {}
        for issue in issues:
            index = claim_row_for_issue(issue, self.rows)
            if index is not None and (index not in worst or issue.severity > worst[index].severity):
                worst[index] = issue
        self.setRowCount(len(self.rows))
        for r, row in enumerate(self.rows):
            ident = f"{row.key} · {CLAIM_LIST[row.kind].word(self.ui.lang)}" + (
                f" #{row.unit_id}" if row.unit_id is not None else ""
            )
            confidence = confidence_display(row.confidence, self.ui.lang) if row.confidence else "–"
            what = event_kind_words(row.what, self.ui.lang) if row.kind == "event" else row.what
            cells = [f"{ident} · {what}", row.player, row.time.split(".")[0], confidence]
            found = worst.get(r)
            verdict = QTableWidgetItem(
                f"● {found.severity.display(self.ui.lang)}" if found else self.ui.tx("✓ no issue")
            )
            if found is not None:
                verdict.setForeground(QBrush(QColor(SEVERITY_COLORS[found.severity])))
                verdict.setToolTip(found.message)
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.setItem(r, c, item)
            self.setItem(r, len(cells), verdict)
        self.resizeColumnsToContents()
        self.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)

    def select_claim(self, index: int) -> None:
        """Select and show row ``index``."""
        self.selectRow(index)
        item = self.item(index, 0)
        if item is not None:
            self.scrollToItem(item, QAbstractItemView.ScrollHint.EnsureVisible)

    def selected_index(self) -> int | None:
        """The selected claim's row, if any."""
        rows = {i.row() for i in self.selectedItems()}
        return next(iter(rows)) if rows else None
