"""The memory's Review-queue tab: a conflict's two sides in words, marked where they differ, and the rulings.

Every ruling is made by :class:`app.memory.MemoryStore` (approve, reject, split, undo); this view shows the two
facts with their evidence and forwards the reviewer's choice.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListView,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.i18n import N_, NC_, Lang, Msg, system_lang, table_word, tr
from app.knowledge.faction_names import faction_display
from app.memory import EpisodeView, FactView, MemoryStore, QueueView
from app.memory.diff import Span, changed_spans, differing_fields
from ui.tabs.loading import Actions, Loader, batches
from ui.tabs.memory_words import (
    METHOD_WORDS,
    STATUS_WORDS,
    MessageBar,
    cancel_all,
    day_words,
    internal_names_hover,
    mechanism_words,
    pipeline_words,
    quote_words,
    scope_words,
    settle_all,
    shown_content,
    words,
)
from ui.theme import styled
from ui.widgets import FlowLayout


def query_queue(store: MemoryStore, lang: Lang, decided: bool = False) -> tuple[list[QueueView], list[str]]:
    """The review list (worker thread): the open items (with ``decided``, the decided ones after them) as text."""
    items = store.queue(open_only=not decided)
    items = [q for q in items if q.resolved_at is None] + [q for q in items if q.resolved_at is not None]
    lines = []
    for q in items:
        kind, reason = table_word(QUEUE_KIND_WORDS, q.kind, lang), reason_words(q.reason, lang)
        line = f"[{q.id}] {kind}: {shown_content(q.fact, lang)} — {reason}"
        if q.resolved_at is not None:
            line = f"{resolution_words(q.resolution, lang)} · {q.reviewer or '—'}  {line}"
        lines.append(line)
    return items, lines


RESOLUTION_WORDS: dict[str, Msg] = {
    "approved": NC_("review resolution", "approved"),
    "rejected": NC_("review resolution", "rejected"),
    "split": NC_("review resolution", "split by scope"),
    "auto_superseded": NC_("review resolution", "superseded automatically"),
}
"""How a decided review item was decided (``memory_queue.resolution``), in words."""


def resolution_words(resolution: str, lang: Lang) -> str:
    """A decided item's resolution in words (``closed with #N``: closed together with item N's ruling)."""
    closed = re.fullmatch(r"closed with #(\d+)", resolution)
    if closed:
        return tr(lang, "closed with #{value}", value=closed.group(1))
    return table_word(RESOLUTION_WORDS, resolution, lang)


QUEUE_KIND_WORDS: dict[str, Msg] = {
    "conflict": NC_("review kind", "conflict"),
    "review": NC_("review kind", "review"),
    "counterexample": NC_("review kind", "counterexample"),
    "team_proposal": NC_("review kind", "team proposal"),
}
"""Review-item kinds (``mem_queue.kind``) in words."""

_REASONS: tuple[tuple[re.Pattern[str], Msg], ...] = (
    (re.compile(r"no ruling applies: a human decides"), N_("no ruling applies: a human decides")),
    (
        re.compile(r"authority gap (?P<old>\S+) vs (?P<new>\S+): review the weaker \(new\) side"),
        N_("authority gap {old} vs {new}: review the weaker (new) side"),
    ),
    (
        re.compile(r"authority gap (?P<old>\S+) vs (?P<new>\S+): review the weaker \(old\) side"),
        N_("authority gap {old} vs {new}: review the weaker (old) side"),
    ),
    (
        re.compile(r"episode (?P<episode>\d+) shows (?P<key>\S+) = (?P<value>.*)"),
        N_("episode {episode} shows {key} = {value}"),
    ),
    (
        re.compile(
            r"confidence (?P<confidence>\S+) with (?P<count>\d+) pieces of evidence: propose for the team library"
        ),
        N_("confidence {confidence} with {count} pieces of evidence: propose for the team library"),
    ),
)
"""The store writes a review item's reason in fixed English templates (``app.memory``): each pattern's message is
the template in the catalogue, its fields the pattern's groups."""


def reason_words(reason: str, lang: Lang) -> str:
    """A review item's stored reason in the interface language (an unknown reason is shown as stored)."""
    for pattern, message in _REASONS:
        m = pattern.fullmatch(reason)
        if m is not None:
            return message(lang, **m.groupdict())
    return reason


@dataclass(frozen=True)
class QueuePair:
    """One review item's two sides in words, as the reviewer sees them.

    Attributes:
        current: the fact in use now (the item's ``other``), "" when the proposal is new.
        proposed: the questioned fact (the item's ``fact``): what Approve makes current.
        split_key: the scope attribute the two sides differ in (their evidence contexts), else ``map``.
        split_proposed: the proposed side's value of it.
        split_current: the current side's value of it.
        current_marks: the ranges of ``current`` whose words the proposed side lacks (shown highlighted).
        proposed_marks: the ranges of ``proposed`` whose words the current side lacks.
        differs: the fields (:data:`app.memory.diff.FIELDS`) whose values differ between the two facts.
    """

    current: str
    proposed: str
    split_key: str
    split_proposed: str
    split_current: str
    current_marks: tuple[Span, ...] = ()
    proposed_marks: tuple[Span, ...] = ()
    differs: tuple[str, ...] = ()


FIELD_WORDS: dict[str, Msg] = {
    "value": NC_("fact field", "what it says"),
    "scope": NC_("fact field", "where it applies"),
    "status": NC_("fact field", "status"),
    "confidence": NC_("fact field", "confidence"),
    "evidence": NC_("fact field", "amount of evidence"),
    "method": NC_("fact field", "how it was learnt"),
    "mechanism": NC_("fact field", "why it holds"),
    "approved_by": NC_("fact field", "reviewer"),
}
"""The compared fields of two facts (:data:`app.memory.diff.FIELDS`) in words."""

QUEUE_LIST_WIDTH = 340
"""The review list's share of the width in review mode (pixels at 1366 px; it scales with the window)."""

CURRENT_MARK = ("#ffd0d0", "#5c0000")
"""Background and text colour of what only the current side says (Picard's removed tag: red)."""
PROPOSED_MARK = ("#c8f0c8", "#003d00")
"""Background and text colour of what only the proposed side says (Picard's new tag: green)."""


def differs_words(differs: tuple[str, ...], lang: Lang) -> str:
    """The line over the two sides that names what differs (empty when the item has no current side)."""
    if not differs:
        return ""
    names = tr(lang, ", ").join(table_word(FIELD_WORDS, d, lang) for d in differs)
    return tr(lang, "What differs (marked on both sides): {names}", names=names)


def _episode_words(ep: EpisodeView | None, episode_id: int | None, lang: Lang) -> str:
    if ep is None:
        return tr(lang, "(source record not available)") if episode_id else tr(lang, "(no game behind it)")
    if ep.kind == "feedback":
        who = ep.analyst or tr(lang, "a user")
        return tr(lang, "feedback from {who} ({ts})", who=who, ts=day_words(ep.ts))
    name = Path(ep.replay_path).name if ep.replay_path else tr(lang, "a replay")
    played = day_words(ep.played_at) if ep.played_at else "?"
    vs = tr(lang, " vs ")
    players = vs.join(f"{n} ({faction_display(f, lang)})" for n, f in ep.players)
    model = tr(lang, ", analysed by {model}", model=ep.model) if ep.model else ""
    return tr(
        lang,
        "{name}, played {played} on {map_name}, {players}{model}",
        name=name,
        played=played,
        map_name=ep.map_name,
        players=players,
        model=model,
    )


def _fact_words(f: FactView, episodes: dict[int, EpisodeView], lang: Lang) -> str:
    """A fact for a reviewer: what it says, where it applies, how sure, and each piece of evidence in words."""
    status = words(STATUS_WORDS, f.status, lang)
    method = words(METHOD_WORDS, f.method, lang)
    lines = [
        shown_content(f, lang),
        "",
        tr(
            lang,
            "Status: {status} · confidence {confidence:.2f} · {evidence_count} piece(s) of evidence",
            status=status,
            confidence=f.confidence,
            evidence_count=f.evidence_count,
        ),
        tr(lang, "Applies to: {scope_words}", scope_words=scope_words(f.scope, lang)),
        tr(
            lang,
            "How it was learnt: {method} ({pipeline_words})",
            method=method,
            pipeline_words=pipeline_words(f.produced_by, lang),
        ),
    ]
    if f.approved_by:
        lines.append(tr(lang, "Approved by: {approved_by}", approved_by=f.approved_by))
    if f.mechanism:
        why = mechanism_words(f.mechanism, lang)
        lines.append(tr(lang, "Why it holds: {why}", why=why))
    if f.sources:
        lines.append(tr(lang, "Evidence:"))
    for src in f.sources:
        sign = tr(lang, "supports") if src.polarity > 0 else tr(lang, "counterexample")
        lines.append(f"  • {sign}: {_episode_words(episodes.get(src.episode_id or -1), src.episode_id, lang)}")
        if src.quote:
            lines.append(f"    “{quote_words(src.quote, lang)}”")
    return "\n".join(lines)


def _split_default(proposed: FactView, current: FactView | None) -> tuple[str, str, str]:
    """The scope attribute whose evidence contexts differ between the sides (map when none do)."""
    p_ctx = proposed.sources[0].context if proposed.sources else {}
    c_ctx = current.sources[0].context if current is not None and current.sources else {}
    for key in sorted(set(p_ctx) | set(c_ctx)):
        if p_ctx.get(key) != c_ctx.get(key):
            return key, p_ctx.get(key, ""), c_ctx.get(key, "")
    return "map", p_ctx.get("map", ""), c_ctx.get("map", "")


def query_queue_pair(store: MemoryStore, q: QueueView, key: str, lang: Lang) -> QueuePair:
    """Both facts of a review item in words with their provenance (worker thread)."""
    proposed = store.fact(q.fact.id)
    current = store.fact(q.other.id) if q.other else None
    facts = [proposed, *([current] if current else [])]
    episodes = store.episodes(s.episode_id for f in facts for s in f.sources if s.episode_id is not None)
    split_key, split_p, split_c = _split_default(proposed, current)
    current_text = _fact_words(current, episodes, lang) if current else ""
    proposed_text = _fact_words(proposed, episodes, lang)
    if current is None:  # a new fact: every word would be marked, which tells nothing
        return QueuePair(current_text, proposed_text, split_key, split_p, split_c)
    current_marks, proposed_marks = changed_spans(current_text, proposed_text)
    return QueuePair(
        current_text,
        proposed_text,
        split_key,
        split_p,
        split_c,
        tuple(current_marks),
        tuple(proposed_marks),
        differing_fields(current, proposed),
    )


def mark_spans(view: QPlainTextEdit, spans: tuple[Span, ...], colours: tuple[str, str]) -> None:
    """Highlight the character ranges ``spans`` of ``view``'s text (one edit block; the text stays as it is)."""
    if not spans:
        return
    fmt = QTextCharFormat()
    fmt.setBackground(QColor(colours[0]))
    fmt.setForeground(QColor(colours[1]))
    cursor = QTextCursor(view.document())
    cursor.beginEditBlock()
    for start, end in spans:
        cursor.setPosition(start)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        cursor.mergeCharFormat(fmt)
    cursor.endEditBlock()


class ReviewQueueTab(QWidget):
    """Open review items: the current fact and the proposed one side by side, in words, with what each action does.

    Approve makes the proposed fact current (the current one is kept as superseded); Reject keeps the proposed
    fact only as an observation; Split keeps both, each limited to its own value of a scope attribute. Undo takes
    back the rulings made here, newest first, one per press: the item (and the counterexample closed with it)
    returns to the queue and both facts are as before (:meth:`app.memory.MemoryStore.undo_ruling`). The reviewer's
    name comes from the settings; when it is empty the tab asks for it once.

    Signals:
        resolved(int, str): the queue item id and its resolution (``approved``, ``rejected``, ``split``).
        undone(int): the queue item whose ruling Undo took back.
        reviewer_named(str): the reviewer typed a name (the window keeps it in the settings).
        count_changed(int): the number of open items (the tab badge).
        wide_requested(): the reviewer asked for the review mode (the side panel's tab only).

    ``wide`` lays the queue out for the main window's review mode: the list on the left and the two sides next to
    it, each about as wide as the analysis text (the side panel stacks them). Either way the list wraps its
    items instead of cutting them, and what differs between the sides is marked on both (:mod:`app.memory.diff`).
    """

    resolved = Signal(int, str)
    undone = Signal(int)
    reviewer_named = Signal(str)
    wide_requested = Signal()
    count_changed = Signal(int)

    def __init__(
        self,
        store: MemoryStore,
        lang: Lang | None = None,
        reviewer: str = "",
        parent: QWidget | None = None,
        *,
        wide: bool = False,
    ) -> None:
        super().__init__(parent)
        self.store = store
        self.wide = wide
        self.lang = lang or system_lang()
        self._items: list[QueueView] = []
        self.ruled: list[int] = []  # the items ruled on here, oldest first: Undo takes back the last one
        self.loader = Loader(self, self._show_error)
        self.detail_loader = Loader(self, self._show_error)
        self._actions = Actions(self, self._show_error)
        self.list = QListWidget()
        self.list.setWordWrap(True)  # an item is a sentence: wrapped whole, never cut at the list's edge
        self.list.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.list.setResizeMode(QListView.ResizeMode.Adjust)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.empty = QLabel(
            tr(
                self.lang,
                "Nothing to review. An item appears here when an analysis learns a fact that contradicts "
                "a current one and no rule can decide between them.",
            )
        )
        self.empty.setWordWrap(True)
        styled(self.empty, "role", "empty")
        self.left = QPlainTextEdit()  # the current fact
        self.left.setReadOnly(True)
        self.right = QPlainTextEdit()  # the proposed fact
        self.right.setReadOnly(True)
        self.left_title = QLabel(tr(self.lang, "Current (in use now)"))
        self.right_title = QLabel(tr(self.lang, "Proposed (from the newer game)"))
        for lab in (self.left_title, self.right_title):
            lab.setStyleSheet("font-weight: 600;")
        self.differs = QLabel()  # which fields differ; the words themselves are marked in the two texts
        self.differs.setWordWrap(True)
        self.differs.hide()
        self.reviewer = QLineEdit(reviewer)
        self.reviewer.setPlaceholderText(tr(self.lang, "your name (asked once)"))
        self.approve_button = QPushButton(tr(self.lang, "Approve proposed"))
        styled(self.approve_button, "primary")
        self.approve_button.setToolTip(
            tr(
                self.lang,
                "The proposed fact becomes current; the current one is kept as superseded. Undo takes it back.",
            )
        )
        self.reject_button = QPushButton(tr(self.lang, "Reject proposed"))
        self.reject_button.setToolTip(
            tr(self.lang, "The proposed fact is kept only as an observation; the current one stays.")
        )
        self.split_key = QLineEdit("map")
        self.split_left = QLineEdit()  # the proposed side's value
        self.split_right = QLineEdit()  # the current side's value
        self.split_button = QPushButton(tr(self.lang, "Split by scope"))
        self.split_button.setToolTip(
            tr(self.lang, "Both are kept, each valid only where the scope attribute has its value.")
        )
        self.show_decided = QCheckBox(tr(self.lang, "Show decided items too"))
        self.show_decided.setToolTip(
            tr(self.lang, "Select a decided item to undo its ruling (also one made earlier or on the command line).")
        )
        self.show_decided.toggled.connect(lambda _on: self.refresh())
        self.undo_selected_button = QPushButton(tr(self.lang, "Undo this item's ruling"))
        self.undo_selected_button.setEnabled(False)
        self.undo_selected_button.clicked.connect(self.undo_selected)
        self.undo_button = QPushButton(tr(self.lang, "Undo last ruling"))
        self.undo_button.setEnabled(False)
        self.undo_button.setToolTip(
            tr(
                self.lang,
                "Takes back the latest approve, reject or split made here: both facts are as before and "
                "the item is back in the queue. Press again for the one before.",
            )
        )
        self.explain = QLabel(
            tr(
                self.lang,
                "Approve: the proposed fact becomes current. Reject: it is kept only as an observation. "
                "Split: both stay, each for its own scope value. Every ruling can be undone.",
            )
        )
        self.explain.setWordWrap(True)
        styled(self.explain, "role", "hint")
        self.message = MessageBar()
        self.message.setWordWrap(True)
        left_box, right_box = QWidget(), QWidget()
        for box, title, view in ((left_box, self.left_title, self.left), (right_box, self.right_title, self.right)):
            lay = QVBoxLayout(box)
            lay.setContentsMargins(0, 0, 0, 0)
            lay.addWidget(title)
            lay.addWidget(view, 1)
        sides = QSplitter()
        sides.setChildrenCollapsible(False)
        sides.addWidget(left_box)
        sides.addWidget(right_box)
        self.sides = sides
        form = QFormLayout()
        form.addRow(tr(self.lang, "Reviewer"), self.reviewer)
        form.addRow(tr(self.lang, "Scope attribute to split on"), self.split_key)
        form.addRow(tr(self.lang, "Proposed applies where it is"), self.split_left)
        form.addRow(tr(self.lang, "Current applies where it is"), self.split_right)
        actions = FlowLayout()
        for w in (self.approve_button, self.reject_button, self.split_button, self.undo_button):
            actions.addWidget(w)
        actions.addWidget(self.undo_selected_button)
        queue_box, detail = QWidget(), QWidget()
        queue_lay = QVBoxLayout(queue_box)
        queue_lay.setContentsMargins(0, 0, 0, 0)
        self.wide_button: QPushButton | None = None
        if not wide:  # the side panel is narrow: the way to the room the sides need
            self.wide_button = QPushButton(tr(self.lang, "Open in review mode (Ctrl+Shift+R)"))
            self.wide_button.setToolTip(
                tr(
                    self.lang,
                    "The review queue takes the main area, its two sides next to each other; the analysis "
                    "comes back when you leave.",
                )
            )
            self.wide_button.clicked.connect(self.wide_requested)
            queue_lay.addWidget(self.wide_button)
        queue_lay.addWidget(self.show_decided)
        queue_lay.addWidget(self.list, 1)
        queue_lay.addWidget(self.empty)
        detail_lay = QVBoxLayout(detail)
        detail_lay.setContentsMargins(0, 0, 0, 0)
        detail_lay.addWidget(self.differs)
        detail_lay.addWidget(sides, 1)
        detail_lay.addWidget(self.explain)
        detail_lay.addLayout(form)
        detail_lay.addLayout(actions)
        detail_lay.addWidget(self.message)
        self.body = QSplitter(Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical)
        self.body.setChildrenCollapsible(False)
        self.body.addWidget(queue_box)
        self.body.addWidget(detail)
        self.body.setStretchFactor(0, 1)
        self.body.setStretchFactor(1, 3)
        if wide:  # a quarter for the list (its sentences wrap in about three lines), the rest for the two sides
            self.body.setSizes([QUEUE_LIST_WIDTH, 3 * QUEUE_LIST_WIDTH])
        layout = QVBoxLayout(self)
        if wide:  # the review page around it has its own margins
            layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.body)
        self.list.currentRowChanged.connect(self._on_select)
        self.approve_button.clicked.connect(lambda: self._decide("approve"))
        self.reject_button.clicked.connect(lambda: self._decide("reject"))
        self.split_button.clicked.connect(lambda: self._decide("split"))
        self.undo_button.clicked.connect(self.undo)
        self.refresh()

    def _show_error(self, exc: Exception) -> None:
        self.message.show_error(exc, self.lang)

    async def refreshed(self) -> None:
        """Return once every load and action started so far has finished (for tests and callers)."""
        await settle_all(self.loader, self.detail_loader, actions=self._actions)

    def cancel_loading(self) -> None:
        """Stop applying pending loads (the tab is being replaced)."""
        cancel_all(self.loader, self.detail_loader, actions=self._actions)

    def refresh(self) -> asyncio.Future[None] | None:
        """Reload the open items (worker thread); returns the loading task."""
        lang, decided = self.lang, self.show_decided.isChecked()
        return self.loader.start(lambda: query_queue(self.store, lang, decided), self._fill)

    def _fill(self, data: tuple[list[QueueView], list[str]]) -> Iterator[None]:
        items, lines = data
        self._items = []
        self.list.clear()
        self.left.clear()
        self.right.clear()
        self.differs.hide()
        self._items = items
        self.empty.setVisible(not items)
        self.count_changed.emit(sum(1 for q in items if q.resolved_at is None))
        yield from batches(len(lines), lambda a, b: self.list.addItems(lines[a:b]))
        if self._items:
            self.list.setCurrentRow(0)

    def _on_select(self, row: int) -> None:
        if not 0 <= row < len(self._items):
            return
        q = self._items[row]
        decided = q.resolved_at is not None  # a decided item can only have its ruling undone
        for button in (self.approve_button, self.reject_button, self.split_button):
            button.setEnabled(not decided)
        self.undo_selected_button.setEnabled(decided)
        key = self.split_key.text() or "map"
        lang = self.lang

        def show(pair: QueuePair) -> None:
            self.left.setPlainText(pair.current or tr(self.lang, "(none: approving adds a new fact)"))
            self.right.setPlainText(pair.proposed)
            mark_spans(self.left, pair.current_marks, CURRENT_MARK)
            mark_spans(self.right, pair.proposed_marks, PROPOSED_MARK)
            self.differs.setText(differs_words(pair.differs, lang))
            self.differs.setVisible(bool(pair.differs))
            self.left.setToolTip(internal_names_hover(lang, q.other))
            self.right.setToolTip(internal_names_hover(lang, q.fact))
            self.split_key.setText(pair.split_key)
            self.split_left.setText(pair.split_proposed)
            self.split_right.setText(pair.split_current)

        self.detail_loader.start(lambda: query_queue_pair(self.store, q, key, lang), show)

    def _decide(self, action: str) -> asyncio.Future[Any] | None:
        row = self.list.currentRow()
        if not 0 <= row < len(self._items):
            return None
        who = self.reviewer.text().strip()
        if not who:  # asked once: the window keeps the name in the settings
            self.message.setText(tr(self.lang, "Enter your name as the reviewer first (it is remembered)."))
            styled(self.reviewer, "invalid", True)
            self.reviewer.setFocus()
            return None
        styled(self.reviewer, "invalid", False)
        self.reviewer_named.emit(who)
        item = self._items[row]
        key, left = self.split_key.text().strip(), self.split_left.text().strip()
        right = self.split_right.text().strip()

        def decide() -> tuple[int, str, int]:
            if action == "approve":
                out = self.store.approve(item.id, who)
            elif action == "reject":
                out = self.store.reject(item.id, who)
            else:
                out = self.store.split_scope(item.id, who, key=key, fact_value=left, other_value=right)
            return out.id, out.resolution, out.fact.id

        def done(out: tuple[int, str, int]) -> None:
            self.message.clear_message()
            self.ruled.append(out[0])
            self.undo_button.setEnabled(True)
            self.refresh()
            self.resolved.emit(out[0], out[1])

        return self._actions.run(decide, done)

    def undo(self) -> asyncio.Future[Any] | None:
        """Take back the latest ruling made here: its item returns to the queue with both facts as before."""
        if not self.ruled:
            return None
        item_id = self.ruled.pop()
        self.undo_button.setEnabled(bool(self.ruled))
        return self._undo(item_id)

    def undo_selected(self) -> asyncio.Future[Any] | None:
        """Undo the ruling on the selected decided item (listed with "Show decided items too")."""
        row = self.list.currentRow()
        if not 0 <= row < len(self._items) or self._items[row].resolved_at is None:
            return None
        item_id = self._items[row].id
        if item_id in self.ruled:
            self.ruled.remove(item_id)
            self.undo_button.setEnabled(bool(self.ruled))
        return self._undo(item_id)

    def _undo(self, item_id: int) -> asyncio.Future[Any] | None:
        who = self.reviewer.text().strip()

        def take_back() -> int:
            return self.store.undo_ruling(item_id, who).id

        def done(undone: int) -> None:
            self.message.setText(
                tr(
                    self.lang,
                    "The ruling on item #{undone} is undone: both facts are as before and it is back in the queue.",
                    undone=undone,
                )
            )
            self.refresh()
            self.undone.emit(undone)

        return self._actions.run(take_back, done)
