"""``replaysage knowledge check --corpus``: knowledge entries the corpus replays contradict.

The bundled knowledge is clean on the corpus; the checks are shown to fire by putting back, through a user override
file, the entries the corpus disproved (miners listed as made by war factories only, issue 14).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from app.cli import main
from app.corpus.check import check_corpus
from app.knowledge.names import hash_names
from tests.conftest import corpus_file


def test_bundled_knowledge_matches_the_corpus(ra3_files: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    folder = ra3_files[0].parent
    assert main(["knowledge", "check", "--corpus", str(folder), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == {"files": len(ra3_files), "findings": []}


def _override(entries: list[dict[str, object]]) -> None:
    """Write the user's knowledge file into this test's isolated user data folder (tests/conftest.py)."""
    path = Path(os.environ["REPLAYSAGE_HOME"]) / "user_knowledge.json"
    path.write_text(json.dumps({"entries": entries}), encoding="utf-8")
    hash_names.cache_clear()


def test_a_miner_made_before_any_war_factory_is_reported(capsys: pytest.CaptureFixture[str]) -> None:
    """Corona: CelestialMiner queued at 0:53.47 (tc 802, 0x205 at #334) while the first CelestialWarFactory_Fake is
    placed at 2:44.87 (tc 2473); Snow Plow: SovietMiner from #686, which existed by 1:04.53 (#694 named at tc 968),
    before the first SovietWarFactory placement at 1:31.00 (tc 1365)."""
    _override(
        [
            {"id": "CelestialMiner", "producedBy": "CelestialWarFactory", "mod": "corona"},
            {"id": "SovietMiner", "producedBy": "SovietWarFactory", "alsoProducedBy": [], "mod": "ra3"},
        ]
    )
    try:
        findings = check_corpus(
            [
                corpus_file("corona_pve_vs_ai_10m.RA3Replay"),
                corpus_file("ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay"),
            ]
        )
    finally:
        hash_names.cache_clear()
    got = {(f.mod, f.code, f.entry): f for f in findings}
    assert set(got) == {("corona", "producer_missing", "CelestialMiner"), ("ra3", "producer_missing", "SovietMiner")}
    corona = got[("corona", "producer_missing", "CelestialMiner")]
    assert corona.listed == ("CelestialWarFactory",)
    assert corona.evidence == [
        "corona_pve_vs_ai_10m.RA3Replay: st: queued CelestialMiner at 0:53.47 at #334; "
        "listed producers first at 2:44.87"
    ]
    soviet = got[("ra3", "producer_missing", "SovietMiner")]
    assert soviet.evidence == [
        "ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay: lanyiiiiiii: #686, which queued "
        "SovietMiner at 13:37.07, existed by 1:04.53 (a newer id was named then); listed "
        "producers first at 1:31.00"
    ]
    folder = corpus_file("corona_pve_vs_ai_10m.RA3Replay").parent
    assert main(["knowledge", "check", "--corpus", str(folder)]) == 1
    text = capsys.readouterr().out
    assert "[corona] producer_missing: CelestialMiner.producedBy = CelestialWarFactory" in text
    hash_names.cache_clear()


def test_an_upgrade_at_a_factory_of_other_things_is_reported() -> None:
    """Corona: Upgrade_CelestialWarFactory starts at #1616 (tc 5181), which made CelestialAntiVehicleVehicleTech3 and
    CelestialAntiStructureVehicle; listed at the barracks, it is reported."""
    _override([{"id": "Upgrade_CelestialWarFactory", "producedBy": "CelestialBarracks", "mod": "corona"}])
    try:
        findings = check_corpus([corpus_file("corona_pve_vs_ai_10m.RA3Replay")])
    finally:
        hash_names.cache_clear()
    (f,) = findings
    assert (f.code, f.entry, f.listed) == ("upgrade_elsewhere", "Upgrade_CelestialWarFactory", ("CelestialBarracks",))
    assert "#1616" in f.evidence[0]
    assert "5:45.40" in f.evidence[0]
