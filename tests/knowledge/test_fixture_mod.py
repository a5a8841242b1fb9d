"""A new mod is a folder (issue 32): a fixture mod in a temporary knowledge root is recognised, its faction and unit
names show in ``replaysage inspect``, with no code change.

The replay is the project's demo replay (:mod:`app.replay.sample`) rewritten the way a modded game would write it:
the header's mod block says ``MARTIANS`` version ``1.0``, Boris sits in header faction 5 (no faction of any bundled
game) and queues one ``MartianTripod``, whose order carries the SAGE asset hash of that name (notes §4.3: 0x205,
type hash in the second argument).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from app.replay import sample
from app.replay.asset_hash import asset_hash
from app.replay.model import Replay
from app.replay.reader import parse_settings
from app.replay.writer import make_footer, replay_bytes

REPO_ROOT = Path(__file__).resolve().parents[2]
MOD = {
    "schema": 1,
    "id": "martians",
    "game": "ra3",
    "title": {"zh": "火星人入侵", "en": "Martian invasion"},
    "headerNames": ["MARTIANS"],
    "factions": ["Martians"],
    "typePrefixes": {"Martian": "Martians"},
}
TAXONOMY = {
    "kinds": {"unit": {"zh": "单位", "en": "unit"}},
    "factions": {"Martians": {"zh": "火星人", "en": "Martians", "headerIds": [5]}},
    "tags": {},
}
OBJECTS = {
    "schema": 1,
    "mod": "martians",
    "entries": [
        {"id": "MartianTripod", "name": {"zh": "三脚机甲", "en": "Tripod"}, "faction": "Martians", "kind": "unit"}
    ],
}


def _write_mod(root: Path) -> Path:
    folder = root / "knowledge" / "martians"
    folder.mkdir(parents=True)
    for name, data in (("mod.json", MOD), ("taxonomy.json", TAXONOMY), ("objects.json", OBJECTS)):
        (folder / name).write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return folder.parent


def _write_replay(path: Path) -> None:
    header = sample.sample_header()
    header.mod_block = b"MARTIANS\x001.0".ljust(22, b"\0")
    header.settings_raw = header.settings_raw.replace(b"HBoris,7F000001,0,TT,5,8,", b"HBoris,7F000001,0,TT,5,5,")
    header.settings = parse_settings(header.settings_raw)
    script = sample._Script(header)
    script.queue_unit(600, 1, 633, "MartianTripod")
    chunks = script.chunks(900)
    replay = Replay.from_chunks(path.name, header, chunks, make_footer(header.game, 900, (1.5, 0.75)))
    path.write_bytes(replay_bytes(replay))


def _inspect(replay: Path, home: Path, knowledge: Path | None, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "REPLAYSAGE_KNOWLEDGE"}
    env["REPLAYSAGE_HOME"] = str(home)
    if knowledge is not None:
        env["REPLAYSAGE_KNOWLEDGE"] = str(knowledge)
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "inspect", str(replay), *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def _boris(out: str) -> dict[str, Any]:
    players: list[dict[str, Any]] = json.loads(out)["players"]
    return next(p for p in players if p["name"] == "Boris")


def test_a_fixture_mod_folder_names_its_faction_and_units_in_inspect(tmp_path: Path) -> None:
    knowledge = _write_mod(tmp_path)
    replay = tmp_path / "martians.RA3Replay"
    _write_replay(replay)
    tripod = f"0x{asset_hash('MartianTripod'):08X}"

    # the bundled knowledge knows no such mod: the faction is a number and the unit a raw hash
    plain = _inspect(replay, tmp_path / "h1", None, "--json")
    assert plain.returncode == 0, plain.stderr
    assert _boris(plain.stdout)["faction"] == "faction 5"
    plain_text = _inspect(replay, tmp_path / "h2", None, "--commands", "--lang", "en").stdout
    assert tripod in plain_text
    assert "MartianTripod" not in plain_text

    # with the fixture mod's folder as the knowledge root: its faction and its unit's name, in both languages
    modded = _inspect(replay, tmp_path / "h3", knowledge, "--json")
    assert modded.returncode == 0, modded.stderr
    assert _boris(modded.stdout)["faction"] == "Martians"
    assert json.loads(modded.stdout)["mod"]["name"] == "MARTIANS"
    text_en = _inspect(replay, tmp_path / "h4", knowledge, "--commands", "--lang", "en").stdout
    assert "Martians" in text_en
    assert "MartianTripod" in text_en
    assert tripod not in text_en
    text_zh = _inspect(replay, tmp_path / "h5", knowledge, "--lang", "zh").stdout
    assert "火星人" in text_zh
