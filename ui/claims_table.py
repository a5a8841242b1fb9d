"""A stage's claims as a table (id with type, player, time, confidence, verdict) and the issue → claim link.

Validation issues do not carry a structured claim reference yet: the validator names the claim in its message
("unit claim 2" / "单位声明 2") and fills ``unit_id`` for unit problems. :func:`claim_row_for_issue` uses the object
id first and that name second; an issue that names no claim selects nothing. When issues gain a reference, only
that function changes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem, QWidget

from app.claims.issues import ValidationIssue, confidence_display
from app.i18n import Lang, pick
from ui.lang import UiLanguage

KINDS: tuple[tuple[str, str, str, str, str], ...] = (
    ("unitClaims", "U", "unit", "单位声明", "unit claim"),
    ("eventClaims", "E", "event", "事件声明", "event claim"),
    ("timelineClaims", "T", "timeline", "时间线声明", "timeline claim"),
)
"""Claim lists in table order: JSON key, id prefix, kind, the validator's 中文 and English name of one claim."""

_NAMED = re.compile(r"(单位声明|事件声明|时间线声明|unit claim|event claim|timeline claim)\s*(\d+)")


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


EVENT_KIND_WORDS = {
    "produce": ("生产", "produce"),
    "build": ("建造", "build"),
    "place": ("放置建筑", "place"),
    "sell": ("出售", "sell"),
    "upgrade": ("升级", "upgrade"),
    "power": ("技能", "power"),
    "repair": ("修理", "repair"),
    "protocol": ("协议", "protocol"),
}
"""An event claim's kind (the prompt's English words, :data:`app.claims.validate.EVENT_KINDS`) as people read it."""


def event_kind_words(what: str, lang: Lang) -> str:
    """``build PlayerTech_X`` → ``建造 PlayerTech_X``: the kind worded, the internal name kept."""
    kind, _, name = what.partition(" ")
    words = EVENT_KIND_WORDS.get(kind.lower())
    if words is None:
        return what
    return f"{pick(lang, *words)} {name}".strip()


def claim_rows(claims: Mapping[str, Any]) -> list[ClaimRow]:
    """Rows of a ``ClaimsParsed`` dictionary, unit claims first."""
    rows: list[ClaimRow] = []
    for json_key, letter, kind, _zh, _en in KINDS:
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
    named = _NAMED.search(issue.message)
    if named is not None:
        word, number = named.group(1), int(named.group(2))
        letter = next(k[1] for k in KINDS if word in (k[3], k[4]))
        index = next((i for i, r in enumerate(rows) if r.key == f"{letter}{number}"), None)
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

    COLUMNS = (("声明", "Claim"), ("玩家", "Player"), ("时间", "Time"), ("置信度", "Confidence"), ("结论", "Verdict"))

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
        self.setHorizontalHeaderLabels([self.ui.t(zh, en) for zh, en in self.COLUMNS])

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
            kind = {"unit": ("单位", "unit"), "event": ("事件", "event"), "timeline": ("时间线", "timeline")}[row.kind]
            ident = f"{row.key} · {self.ui.t(*kind)}" + (f" #{row.unit_id}" if row.unit_id is not None else "")
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
