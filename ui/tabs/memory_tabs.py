"""Semantic-memory side tabs: Facts, Supersede chains, Review queue, Scorecard.

Thin views: every decision (filters, rulings, flip back, metrics) is made by :class:`app.memory.MemoryStore`;
these widgets only show its views and forward clicks. Every store call runs in a worker thread through
:mod:`ui.tabs.loading`: a query function per view returns plain data (frozen view dataclasses), and the view fills
itself from it on the GUI thread; the newest refresh wins and errors show in the tab's message label.

One module per tab (:mod:`ui.tabs.memory_facts`, :mod:`ui.tabs.memory_chains`, :mod:`ui.tabs.memory_review`,
:mod:`ui.tabs.memory_scorecard`, their shared words in :mod:`ui.tabs.memory_words`); this one stacks them.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QWidget,
)

from app.i18n import Lang, system_lang, tr
from app.memory import MemoryStore
from ui.tabs.memory_chains import ChainsTab
from ui.tabs.memory_facts import FactsTab
from ui.tabs.memory_review import ReviewQueueTab
from ui.tabs.memory_scorecard import ScorecardTab
from ui.tabs.staged import StagedTabs


class MemoryTabs(StagedTabs):
    """The four memory tabs together, for the main window's side tabs.

    The tab on screen is built at once and the others in later event-loop turns (:class:`StagedTabs`); the
    attributes :attr:`facts`, :attr:`chains`, :attr:`queue` and :attr:`scorecard` build theirs when asked.

    Signals:
        queue_count_changed(int): how many review items are open (once the queue has loaded).
        review_mode_requested(): the queue's "Open in review mode" was pressed.
    """

    queue_count_changed = Signal(int)
    review_mode_requested = Signal()

    def __init__(
        self,
        store: MemoryStore,
        lang: Lang | None = None,
        parent: QWidget | None = None,
        reviewer: str = "",
        on_reviewer: Callable[[str], object] | None = None,
    ) -> None:
        super().__init__(parent)
        lang = lang or system_lang()
        self.lang = lang
        self.add_page("facts", tr(lang, "Facts"), lambda: FactsTab(store, lang))
        self.add_page("chains", tr(lang, "Supersede chains"), lambda: self._made_chains(store))
        queue_index = self.add_page(
            "queue", tr(lang, "Review queue"), lambda: self._made_queue(store, reviewer, on_reviewer)
        )
        self.queue_count_changed.connect(
            lambda n: self.setTabText(queue_index, tr(lang, "Review queue") + (f" ({n})" if n else ""))
        )
        self.add_page("scorecard", tr(lang, "Scorecard"), lambda: ScorecardTab(store, lang))
        self.start()

    def _made_chains(self, store: MemoryStore) -> ChainsTab:
        chains = ChainsTab(store, self.lang)
        chains.flipped_back.connect(lambda _id: self._refresh_made("facts"))
        return chains

    def _made_queue(
        self, store: MemoryStore, reviewer: str, on_reviewer: Callable[[str], object] | None
    ) -> ReviewQueueTab:
        queue = ReviewQueueTab(store, self.lang, reviewer=reviewer)
        if on_reviewer is not None:
            queue.reviewer_named.connect(on_reviewer)
        queue.count_changed.connect(self.queue_count_changed)
        queue.wide_requested.connect(self.review_mode_requested)
        queue.resolved.connect(lambda _id, _r: self._refresh_made("facts", "chains"))
        queue.undone.connect(lambda _id: self._refresh_made("facts", "chains"))
        return queue

    def _refresh_made(self, *keys: str) -> None:
        """Refresh the pages among ``keys`` that exist (one made later loads fresh data anyway)."""
        made = self.made_pages()
        for key in keys:
            page = made.get(key)
            if isinstance(page, (FactsTab, ChainsTab)):
                page.refresh()

    @property
    def facts(self) -> FactsTab:
        """The facts list (built now if it was waiting)."""
        return self.typed_page("facts", FactsTab)

    @property
    def chains(self) -> ChainsTab:
        """The supersede chains (built now if it was waiting)."""
        return self.typed_page("chains", ChainsTab)

    @property
    def queue(self) -> ReviewQueueTab:
        """The review queue (built now if it was waiting)."""
        return self.typed_page("queue", ReviewQueueTab)

    @property
    def scorecard(self) -> ScorecardTab:
        """The scorecard (built now if it was waiting)."""
        return self.typed_page("scorecard", ScorecardTab)

    def views(self) -> tuple[FactsTab, ChainsTab, ReviewQueueTab, ScorecardTab]:
        """The four tabs (every one built)."""
        return self.facts, self.chains, self.queue, self.scorecard

    def _made_views(self) -> list[FactsTab | ChainsTab | ReviewQueueTab | ScorecardTab]:
        kinds = (FactsTab, ChainsTab, ReviewQueueTab, ScorecardTab)
        return [p for p in self.made_pages().values() if isinstance(p, kinds)]

    def refresh(self) -> None:
        """Reload every built tab (worker threads; :meth:`refreshed` waits for the result)."""
        for view in self._made_views():
            view.refresh()

    async def refreshed(self) -> None:
        """Return once every tab is built and has applied everything started so far."""
        await self.all_made()
        for view in self._made_views():
            await view.refreshed()

    def cancel_loading(self) -> None:
        """Stop applying pending loads (the tabs are being replaced)."""
        for view in self._made_views():
            view.cancel_loading()
