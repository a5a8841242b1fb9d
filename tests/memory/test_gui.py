"""The memory tabs offscreen over a real temporary SQLite store, on a qasync loop (they load in threads)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.i18n import Lang
from app.memory import FeedbackInput, MemoryStore
from tests.memory.helpers import Clock, analyse, make_store, run_ep
from tests.support.typed import cell_text
from tests.ui.conftest import loop, run

pytestmark = pytest.mark.gui
__all__ = ["loop", "run"]  # the qasync loop fixtures of tests/ui


def _collect(signal: Any) -> list[Any]:
    got: list[Any] = []
    signal.connect(lambda *args: got.append(list(args)))
    return got


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    clock = Clock()
    s = make_store(tmp_path, clock)
    s.record_feedback(FeedbackInput("ana", preference="请简洁"))
    clock.set("2026-03-11T00:00:00")
    s.record_feedback(FeedbackInput("ana", correction="太简略了"))  # a counterexample: polarity −1
    clock.set("2026-03-12T00:00:00")
    s.record_feedback(FeedbackInput("ana", preference="详细一点"))  # supersedes
    analyse(s, run_ep("r1", "p", ("A", "B")))
    analyse(s, run_ep("r2", "p", ("B", "A"), played="2026-01-02T00:00:00"))  # conflict → queue
    return s


def test_facts_tab_filters_and_detail(qtbot, store: MemoryStore, run) -> None:  # type: ignore[no-untyped-def]
    from ui.tabs.memory_facts import FactsTab

    async def scenario() -> None:
        tab = FactsTab(store, Lang.EN)
        qtbot.addWidget(tab)
        tab.resize(900, 500)
        assert tab.model.rowCount() == 0  # the constructor does not query: the rows come from a worker thread
        await tab.refreshed()
        assert tab.model.rowCount() == len(store.facts())
        tab.type_box.setCurrentIndex(tab.type_box.findData("preference"))
        tab.status_box.setCurrentIndex(tab.status_box.findData("superseded"))
        await tab.refreshed()
        assert tab.model.rowCount() == 1
        [concise] = store.facts("preference", "superseded")
        selected = _collect(tab.fact_selected)
        tab.table.selectRow(0)
        await tab.refreshed()
        assert selected == [[concise.id]]
        assert "请简洁" in tab.detail.toPlainText()
        assert "− 2026-03-11" in tab.detail.toPlainText()
        assert tab.detail.toPlainText().startswith(f"#{concise.id}  preference  superseded  confidence")
        pols = [p[2] for p in tab.timeline.points()]
        assert pols == [1, -1]
        tab.timeline.grab()  # paints without error
        tab.status_box.setCurrentIndex(0)
        tab.type_box.setCurrentIndex(0)
        await tab.refreshed()
        store.record_run(run_ep("r3", "z", ("A", "B")))  # habits wait for the batch
        before = tab.model.rowCount()
        done = _collect(tab.batch_finished)
        tab.batch_button.click()
        await tab.refreshed()
        assert done[0][0] > 0
        assert tab.model.rowCount() == len(store.facts()) > before
        tab.type_box.setCurrentIndex(tab.type_box.findData("preference"))
        tab.min_conf.setValue(0.85)
        await tab.refreshed()
        assert tab.model.rowCount() == len(store.facts("preference", min_confidence=0.85)) == 1
        assert tab.message.text() == f"batch: {done[0][0]} candidates committed"  # no error replaced it

    run(scenario())


def test_chains_tab_flip_back(qtbot, store: MemoryStore, run) -> None:  # type: ignore[no-untyped-def]
    from ui.tabs.memory_chains import ChainsTab

    async def scenario() -> None:
        tab = ChainsTab(store, Lang.EN)
        qtbot.addWidget(tab)
        await tab.refreshed()
        assert tab.list.count() == 1
        old_id, new_id = (f.id for f in store.chains()[0])
        assert tab.list.item(0).text().startswith(f"#{old_id} → 【current #{new_id}】")  # the active fact, unmistakable
        assert not tab.empty.isVisibleTo(tab)
        flipped = _collect(tab.flipped_back)
        tab.flip_button.click()
        await tab.refreshed()
        assert flipped == [[old_id]]
        assert store.fact(old_id).status == "active"
        assert store.fact(new_id).status == "superseded"
        tab.flip_button.click()  # the head has nothing before it: a message, no exception
        await tab.refreshed()
        assert tab.message.text()

    run(scenario())


def test_review_queue_side_by_side_and_approve(qtbot, store: MemoryStore, run) -> None:  # type: ignore[no-untyped-def]
    from ui.tabs.memory_review import ReviewQueueTab

    async def scenario() -> None:
        tab = ReviewQueueTab(store, Lang.EN, reviewer="rev")
        qtbot.addWidget(tab)
        await tab.refreshed()
        [item] = store.queue()
        assert tab.list.count() == 1
        assert "A → B" in tab.left.toPlainText()  # current (the earlier replay's opening)
        assert "B → A" in tab.right.toPlainText()  # proposed (the newer replay's)
        tab.split_right.setText("")
        tab.split_button.click()  # no second value: refused with a message
        await tab.refreshed()
        assert tab.message.text()
        resolved = _collect(tab.resolved)
        tab.approve_button.click()
        await tab.refreshed()
        assert resolved == [[item.id, "approved"]]
        assert store.queue() == []
        assert tab.list.count() == 0

    run(scenario())


def test_scorecard_tab_and_trend_chart(qtbot, store: MemoryStore, run) -> None:  # type: ignore[no-untyped-def]
    from ui.tabs.memory_tabs import MemoryTabs

    async def scenario() -> None:
        tabs = MemoryTabs(store, Lang.ZH)
        qtbot.addWidget(tabs)
        tabs.resize(900, 600)
        sc = tabs.scorecard
        sc.months.setValue(3)
        await tabs.refreshed()
        assert sc.table.rowCount() == 5
        assert sc.table.columnCount() == 4
        assert [c.month for c in sc.cards] == ["2026-01", "2026-02", "2026-03"]
        march = sc.cards[-1]
        # one supersede in March, not flipped back
        assert march.metrics["flip_back_rate"] == 0.0
        month = sc.table.horizontalHeaderItem(1)
        assert month is not None
        assert month.text() == "2026-03"  # the current month first
        assert cell_text(sc.table, 4, 1) == "0.000"
        series = sc.chart.series()
        assert series["flip_back_rate"] == [None, None, 0.0]
        img = sc.chart.grab().toImage()
        assert not img.isNull()
        assert tabs.facts.model.rowCount() == len(store.facts())
        assert tabs.queue.list.count() == len(store.queue()) == 1

    run(scenario())


def test_fact_detail_words_are_in_the_interface_language() -> None:
    from ui.tabs.memory_words import pipeline_words, quote_words

    assert quote_words("S= slot: Kirov Soviets", Lang.ZH) == "录像头的玩家栏：Kirov，苏联"
    assert quote_words("S= slot: Old Dog Allies", Lang.EN) == "the replay header's player slot: Old Dog, Allies"
    assert quote_words("dogs@40s", Lang.ZH) == "dogs@40s"  # any other quote is the evidence as written
    assert pipeline_words("memory-rules/1", Lang.ZH) == "对局规则提取"
    assert pipeline_words("memory-llm/1:deepseek-chat", Lang.EN) == "a language model (deepseek-chat)"


def test_the_rules_quotes_and_a_facts_ledger_read_as_words() -> None:
    """The quotes the memory's rules write (taken from the rules, so a changed shape fails here) and the count and
    section of a fact's ledger, in the interface language (issue 30: "n=1", "(by 10s)", "header:", "report")."""
    from app.memory import PlayerInput, RunEpisodeInput, TimedItem
    from app.memory.candidates import run_candidates
    from ui.tabs.memory_words import evidence_words, quote_words, scope_words

    ep = RunEpisodeInput(
        replay_hash="r1",
        replay_path="/replays/r1.RA3Replay",
        map_name="Infinity Isle",
        mod="RA3",
        players=(PlayerInput("Kirov", "Soviets"), PlayerInput("Rival", "Allies")),
        openings={"Kirov": (TimedItem("Barracks", 5.0), TimedItem("Refinery", 10.0))},
        played_at=1767225600.0,
    )
    quotes = {c.attribute: c.quote for c in run_candidates(ep)}
    assert quote_words(quotes["lineup"], Lang.ZH) == "录像头：Kirov（苏联） 对 Rival（盟军），地图 Infinity Isle"
    assert (
        quote_words(quotes["lineup"], Lang.EN)
        == "the replay header: Kirov (Soviets) vs Rival (Allies), map Infinity Isle"
    )
    assert quote_words(quotes["opening"], Lang.ZH) == "Barracks@5s, Refinery@10s（10 秒内完成）"
    assert quote_words(quotes["opening"], Lang.EN) == "Barracks@5s, Refinery@10s (done by 10 s)"
    assert evidence_words(1, Lang.ZH) == "证据 1 条"
    assert evidence_words(3, Lang.EN) == "3 pieces of evidence"
    assert scope_words({"analyst": "ana", "section": "report"}, Lang.ZH) == "分析师 = ana，报告章节 = 整份报告"
    assert scope_words({"section": "claim"}, Lang.EN) == "section = one claim"


def test_facts_show_display_names_with_internal_names_on_hover() -> None:
    from app.memory.views import FactView
    from ui.tabs.memory_words import internal_names_hover, shown_content

    fact = FactView(
        1, "preference", "active", "player:Kirov", "opening", "SovietBarracks,SovietRefinery",
        "玩家 Kirov 开局：SovietBarracks → SovietRefinery", "Player Kirov opens: SovietBarracks → SovietRefinery",
        {"player": "Kirov", "mod": "RA3"}, {}, "", 0.5, 1, 0, 0, "behavior_inference", "memory-rules/1", "",
        None, None, 0, 0.0, 0.0, None, 0.0, False,
    )  # fmt: skip
    zh = shown_content(fact, Lang.ZH)
    assert "SovietBarracks" not in zh
    assert zh.startswith("玩家 Kirov 开局：")
    assert internal_names_hover(Lang.ZH, fact) == "内部名：SovietBarracks, SovietRefinery"
    assert "SovietRefinery" not in shown_content(fact, Lang.EN)
