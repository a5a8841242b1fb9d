"""The review queue in the real window: sides in words, the reviewer asked once and recorded, undo, the badge."""

from __future__ import annotations

from typing import Any

import pytest

from app.i18n import Lang
from app.memory import MemoryStore
from app.settings import Settings
from tests.memory.helpers import Clock, analyse, run_ep
from tests.ui.conftest import until
from ui.lang import UiLanguage
from ui.main_window import AppContext, MainWindow

pytestmark = pytest.mark.gui


def _window(qtbot: Any, seed: bool, lang: Lang = Lang.EN) -> tuple[MainWindow, MemoryStore]:
    ctx = AppContext.open()
    store = MemoryStore(ctx.db, clock=Clock())
    if seed:  # three players whose two replays open differently: three conflicts for a human
        for player in ("p", "q", "z"):
            analyse(store, run_ep(f"{player}1", player, ("A", "B")))
            analyse(store, run_ep(f"{player}2", player, ("B", "A"), played="2026-01-02T00:00:00"))
    win = MainWindow(ctx, UiLanguage(lang))
    qtbot.addWidget(win)
    win.show()
    return win, store


def test_review_approve_reject_split_record_the_reviewer_and_each_undo_returns_the_item(qtbot: Any, run: Any) -> None:
    win, store = _window(qtbot, seed=True)
    tabs: Any = win.side.memory_tabs
    tab = tabs.queue

    async def scenario() -> None:
        await tabs.refreshed()
        items = store.queue()
        assert len(items) == 3
        assert tabs.tabText(tabs.indexOf(tab)) == "Review queue (3)"
        assert win.side.tabs.tabText(1).endswith("· review 3")
        # the two sides, labelled, in words: replay, date, map, players, method, pipeline
        assert tab.left_title.text().startswith("Current")
        assert tab.right_title.text().startswith("Proposed")
        current, proposed = tab.left.toPlainText(), tab.right.toPlainText()
        first = items[0]
        assert first.other is not None
        assert first.other.value in current
        assert first.fact.value in proposed
        assert "p1.RA3Replay, played 2026-01-01 on Infinity Isle, p (Allies) vs rival (Soviets)" in current
        assert "p2.RA3Replay, played 2026-01-02 on Infinity Isle" in proposed
        assert "inferred from how games were played (rules over the replays)" in proposed
        assert "memory-rules" not in proposed  # the pipeline named in words, not its version tag
        for raw in ("episode None", "scope: {}", "{", "behavior_inference"):
            assert raw not in current + proposed
        assert "becomes current" in tab.approve_button.toolTip()
        # no reviewer yet: asked, nothing decided
        assert tab.reviewer.text() == ""
        tab.approve_button.click()
        await tabs.refreshed()
        assert len(store.queue()) == 3
        assert "name" in tab.message.text()
        assert tab.reviewer.property("invalid") is True
        tab.reviewer.setText("Ana")
        tab.approve_button.click()
        await tabs.refreshed()
        decided = {q.id: q for q in store.queue(open_only=False)}
        assert (decided[first.id].resolution, decided[first.id].reviewer) == ("approved", "Ana")
        assert store.fact(first.fact.id).status == "active"
        assert store.fact(first.other.id).status == "superseded"
        assert Settings.load().get("reviewer_name") == "Ana"  # asked once: kept for later sessions
        assert tabs.tabText(tabs.indexOf(tab)) == "Review queue (2)"
        assert [f.id for f in store.chain(first.other.id)] == [first.other.id, first.fact.id]
        # undo on the same screen: the item is back in the queue, both facts as before, the chain without it
        assert tab.undo_button.isEnabled()
        tab.undo_button.click()
        await tabs.refreshed()
        assert (store.fact(first.other.id).status, store.fact(first.fact.id).status) == ("hypothesis", "conflict")
        assert store.fact(first.fact.id).approved_by == ""
        assert [f.id for f in store.chain(first.other.id)] == [first.other.id]
        assert [q.id for q in store.queue()] == [q.id for q in items]
        assert tabs.tabText(tabs.indexOf(tab)) == "Review queue (3)"
        assert "back in the queue" in tab.message.text()
        assert not tab.undo_button.isEnabled()
        assert [r.verdict for r in store.rulings(first.id)] == ["approve", "undo"]  # the history keeps both
        await until(lambda: first.fact.value in tab.right.toPlainText(), what="the item shown again")
        tab.approve_button.click()  # decided again, for good
        await tabs.refreshed()
        assert store.fact(first.fact.id).status == "active"
        # reject the next one
        second = store.queue()[0]
        await until(lambda: second.fact.value in tab.right.toPlainText(), what="the next item")
        tab.reject_button.click()
        await tabs.refreshed()
        decided = {q.id: q for q in store.queue(open_only=False)}
        assert (decided[second.id].resolution, decided[second.id].reviewer) == ("rejected", "Ana")
        assert store.fact(second.fact.id).status == "observation"
        # split the last one by a labelled scope attribute
        third = store.queue()[0]
        tab.split_key.setText("opponents")
        tab.split_left.setText("Empire")
        tab.split_right.setText("Soviets")
        tab.split_button.click()
        await tabs.refreshed()
        decided = {q.id: q for q in store.queue(open_only=False)}
        assert (decided[third.id].resolution, decided[third.id].reviewer) == ("split", "Ana")
        assert store.fact(third.fact.id).scope["opponents"] == "Empire"
        assert third.other is not None
        assert store.fact(third.other.id).scope["opponents"] == "Soviets"
        assert store.queue() == []
        assert tab.empty.isVisibleTo(tab)  # says what fills the queue
        assert tabs.tabText(tabs.indexOf(tab)) == "Review queue"
        # Reject and Split have undo too: each press takes back one more ruling, newest first
        tab.undo_button.click()
        await tabs.refreshed()
        assert [q.id for q in store.queue()] == [third.id]
        assert "opponents" not in store.fact(third.fact.id).scope
        assert "opponents" not in store.fact(third.other.id).scope
        tab.undo_button.click()
        await tabs.refreshed()
        assert [q.id for q in store.queue()] == [second.id, third.id]
        assert store.fact(second.fact.id).status == "conflict"
        assert tabs.tabText(tabs.indexOf(tab)) == "Review queue (2)"
        assert [r.verdict for r in store.rulings(second.id)] == ["reject", "undo"]
        # any ruling (an earlier session's, the command line's too) is undone from the decided items
        tab.show_decided.setChecked(True)
        await tabs.refreshed()
        assert tab.list.count() == 3
        assert tab.list.item(2).text().startswith("approved · Ana  [")
        assert tabs.tabText(tabs.indexOf(tab)) == "Review queue (2)"  # the badge counts open items only
        tab.list.setCurrentRow(2)
        assert not tab.approve_button.isEnabled()  # a decided item: only its ruling can be undone
        assert tab.undo_selected_button.isEnabled()
        tab.undo_selected_button.click()
        await tabs.refreshed()
        assert sorted(q.id for q in store.queue()) == sorted(q.id for q in items)
        assert (store.fact(first.fact.id).status, store.fact(first.other.id).status) == ("conflict", "hypothesis")
        assert [r.verdict for r in store.rulings(first.id)] == ["approve", "undo", "approve", "undo"]
        assert tabs.tabText(tabs.indexOf(tab)) == "Review queue (3)"
        assert not tab.undo_button.isEnabled()  # that was the last ruling made here: nothing left to take back

    try:
        run(scenario())
    finally:
        win.close()
        win.ctx.db.close()
    # a later session: the reviewer is already known
    again, _store = _window(qtbot, seed=False)
    try:
        assert again.side.memory_tabs.queue.reviewer.text() == "Ana"  # type: ignore[attr-defined]
    finally:
        again.close()
        again.ctx.db.close()


def test_empty_side_tabs_say_what_fills_them(qtbot: Any, run: Any) -> None:
    win, _store = _window(qtbot, seed=False)
    tabs: Any = win.side.memory_tabs

    async def scenario() -> None:
        await tabs.refreshed()
        await win.side.wisdom_tab.refreshed()  # type: ignore[attr-defined]
        assert tabs.facts.empty.isVisibleTo(tabs.facts)
        assert "Each finished analysis records" in tabs.facts.empty.text()
        assert tabs.chains.empty.isVisibleTo(tabs.chains)
        assert "flip back" in tabs.chains.empty.text()
        assert tabs.queue.empty.isVisibleTo(tabs.queue)
        wisdom: Any = win.side.wisdom_tab
        assert wisdom.empty.isVisibleTo(wisdom)
        assert "validation finds" in wisdom.empty.text()

    try:
        run(scenario())
    finally:
        win.close()
        win.ctx.db.close()


def test_review_queue_reads_in_chinese_on_a_chinese_screen(qtbot: Any, run: Any) -> None:
    """Kinds, the store's reasons, scope attributes, factions and the mechanism in Chinese, no English halves."""
    win, _store = _window(qtbot, seed=True, lang=Lang.ZH)
    tabs: Any = win.side.memory_tabs
    tab = tabs.queue

    async def scenario() -> None:
        await tabs.refreshed()
        line = tab.list.item(0).text()
        assert "冲突：" in line or "冲突:" in line
        assert line.endswith("没有可用的裁决规则：由人来决定")
        current, proposed = tab.left.toPlainText(), tab.right.toPlainText()
        assert "p (盟军) 对 rival (苏联)" in current  # the seeded episodes: p plays Allies against Soviets
        assert "阵营 = 盟军" in current
        assert "玩家 p 使用盟军时的开局建筑顺序" in proposed
        for english in ("Allies", "Soviets", "a build order is", "no ruling applies"):
            assert english not in line + current + proposed, english
        facts = tabs.facts.model  # the facts table names types and statuses in Chinese too
        rows = [[facts.index(r, c).data() for c in range(5)] for r in range(facts.rowCount())]
        assert {row[1] for row in rows} >= {"偏好"}
        assert {row[2] for row in rows} >= {"使用中", "冲突"}
        assert any("使用盟军时" in row[4] for row in rows)

    try:
        run(scenario())
    finally:
        win.close()
        win.ctx.db.close()


def test_undo_of_an_approval_returns_the_conflict_and_its_counterexample_and_clears_the_chain(
    qtbot: Any, run: Any
) -> None:
    """Issue 30: after Approve → Undo both items were gone from the queue and the chain showed the approval."""
    ctx = AppContext.open()
    store = MemoryStore(ctx.db, clock=Clock())
    analyse(store, run_ep("r1", "p", ("A", "B")))
    analyse(store, run_ep("r2", "p", ("C", "D"), played="2026-01-02T00:00:00"))  # a conflict for a human
    analyse(store, run_ep("r3", "p", ("A", "B"), played="2026-01-03T00:00:00"))  # the counterexample
    win = MainWindow(ctx, UiLanguage(Lang.ZH))
    qtbot.addWidget(win)
    win.show()
    tabs: Any = win.side.memory_tabs
    tab, chains = tabs.queue, tabs.chains

    async def scenario() -> None:
        await tabs.refreshed()
        kinds = sorted(q.kind for q in store.queue())
        assert kinds == ["conflict", "counterexample"]
        assert tab.list.count() == 2
        conflict = next(q for q in store.queue() if q.kind == "conflict")
        tab.list.setCurrentRow(next(i for i, q in enumerate(store.queue()) if q.id == conflict.id))
        tab.reviewer.setText("安娜")
        tab.approve_button.click()
        await tabs.refreshed()
        assert store.queue() == []  # the counterexample closed with its conflict
        await chains.refreshed()
        assert chains.list.count() == 1  # the approval made a chain
        tab.undo_button.click()
        await tabs.refreshed()
        await chains.refreshed()
        assert sorted(q.kind for q in store.queue()) == ["conflict", "counterexample"]
        assert tab.list.count() == 2
        assert "待审" in tab.message.text()
        assert chains.list.count() == 0  # no chain shows the approval any more
        assert store.fact(conflict.fact.id).status == "conflict"
        assert [(r.verdict, r.reviewer) for r in store.rulings(conflict.id)] == [("approve", "安娜"), ("undo", "安娜")]

    try:
        run(scenario())
    finally:
        win.close()
        win.ctx.db.close()
