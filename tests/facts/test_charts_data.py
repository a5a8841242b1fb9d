"""The analysis charts' data and their text alternatives in the reports (issue 34), Qt-free.

Expected values of Snow Plow from ``replaysage facts --log --level 0 --to 1:00`` and the raw commands (see
``tests/ui/test_charts.py``): lanyiiiiiii places SovietBarracks at 0:02.80, then SovietPowerPlant 0:13.87 and three
SovietRefinery at 0:25.73, 0:56.27 and 0:58.40 (walls left out): five structures in the first minute; 800 of his
commands and 535 of nickname's carry a position.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.facts.charts import charts_html, charts_markdown, charts_of_file
from app.i18n import Lang
from app.pipeline.records import AnalysisRecord
from app.pipeline.report import write_report
from tests.conftest import corpus_file

pytestmark = pytest.mark.corpus

SNOW_PLOW = "ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay"


def test_chart_data_holds_the_facts() -> None:
    charts = charts_of_file(str(corpus_file(SNOW_PLOW)))
    lany = next(b for b in charts.builds if b.slot == 0)
    first = next(i for i in lany.items if i.kind == "structure")
    assert first.internal == "SovietBarracks"
    assert first.seconds == pytest.approx(2.80, abs=0.01)
    assert all(i.internal != "SovietWallPiece" for i in lany.items)
    prod = next(p for p in charts.production if p.slot == 0)
    assert prod.counts["structure"][0] == 5
    assert {h.slot: h.orders for h in charts.heat} == {0: 800, 1: 535}
    assert charts.buckets == 15  # 14:21 of game: fifteen started minutes


def test_text_alternatives_in_both_languages() -> None:
    charts = charts_of_file(str(corpus_file(SNOW_PLOW)))
    en = "\n".join(charts_markdown(charts, Lang.EN))
    zh = "\n".join(charts_markdown(charts, Lang.ZH))
    assert "## Chart: build-order timeline" in en
    assert "- lanyiiiiiii: 0:02 Barracks; 0:13 Reactor; " in en  # the English names of knowledge/ra3
    # lanyiiiiiii's structures: the summary's build order lists 16 (Refinery ×3 and ×2 counted, walls apart)
    row = next(line for line in en.splitlines() if line.startswith("| lanyiiiiiii |"))
    assert row.split(" | ")[6] == "16"
    assert "lanyiiiiiii: 800 orders with a position" in en
    assert "## 图表：建造顺序时间线" in zh
    assert "lanyiiiiiii：800 条带位置的指令" in zh
    html = "\n".join(charts_html(charts, Lang.EN))
    assert "<h2>Chart: where orders were given</h2>" in html


def test_the_analysis_report_ends_with_the_charts_as_text(tmp_path: Path) -> None:
    rec = AnalysisRecord(
        id=1, replay_path=str(corpus_file(SNOW_PLOW)), replay_name=SNOW_PLOW, replay_sha256="", status="completed"
    )
    rec.model_label, rec.lang, rec.stages, rec.totals = "offline", "en", [], {}
    for suffix, lang, heading in ((".md", Lang.EN, "## Chart: production by category"), (".html", Lang.ZH, "图表")):
        out = tmp_path / f"report{suffix}"
        write_report(rec, out, lang)
        assert heading in out.read_text(encoding="utf-8")
    gone = AnalysisRecord(
        id=2, replay_path=str(tmp_path / "gone.RA3Replay"), replay_name="gone", replay_sha256="", status="completed"
    )
    gone.model_label, gone.lang, gone.stages, gone.totals = "offline", "en", [], {}
    write_report(gone, tmp_path / "gone.md", Lang.EN)  # the replay is gone: the report is written without charts
    assert "Chart:" not in (tmp_path / "gone.md").read_text(encoding="utf-8")


def test_chart_data_round_trips_through_the_json_report() -> None:
    from app.facts.charts import charts_from_json, charts_to_json

    charts = charts_of_file(str(corpus_file(SNOW_PLOW)))
    assert charts_from_json(charts_to_json(charts)) == charts
