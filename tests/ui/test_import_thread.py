"""The start-up preload, the side tabs' libraries and an opened replay's history are first imported together.

Imported on three threads at once they failed in about two starts of five ("cannot import name 'BatchReport' from
partially initialized module 'app.memory.store'"): one thread ran ``app.memory``'s ``__init__`` while another
imported ``app.memory.store`` directly. Whether that happens depends on timing, so the check here is the rule that
prevents it: every module of the app first imported off the GUI thread is imported on the one import thread. It
runs in a fresh interpreter, where every import is a first one, with a finder first on ``sys.meta_path`` noting
which thread loaded each module.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

FIRST_IMPORTS = textwrap.dedent(
    """
    import json, sys, threading
    loaded_on = {}

    class Witness:  # asked first for every module not loaded yet, on the thread loading it; finds nothing itself
        @staticmethod
        def find_spec(name, path=None, target=None):
            if name.split(".")[0] in ("app", "ui"):
                loaded_on.setdefault(name, threading.current_thread().name)
            return None

    sys.meta_path.insert(0, Witness)
    from app.paths import sample_replay
    from app.store import open_database
    from ui.app import start_preload
    from ui.imports import import_in_background
    from ui.window.reads import analyses_of
    from ui.window.side_panel import SIDE_MODULES

    failures = []
    db = open_database(sys.argv[1])

    def open_replay():  # what opening a replay does in its loader thread
        try:
            assert analyses_of(db, sample_replay()) == []
        except Exception as exc:
            failures.append(repr(exc))

    preload = start_preload()
    loader = threading.Thread(target=open_replay, name="loader")
    loader.start()
    side = import_in_background(SIDE_MODULES)
    try:
        side.result(60)
    except Exception as exc:
        failures.append(repr(exc))
    preload.result(60)
    loader.join(60)
    print(json.dumps({"failures": failures, "loaded_on": loaded_on}))
    """
)


def test_first_imports_off_the_gui_thread_all_happen_on_the_import_thread(tmp_path: Path) -> None:
    env = {"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    env["REPLAYSAGE_HOME"] = str(tmp_path / "home")
    run = subprocess.run(
        [sys.executable, "-c", FIRST_IMPORTS, str(tmp_path / "store.sqlite3")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["failures"] == []
    loaded_on: dict[str, str] = report["loaded_on"]
    off_gui = {name: thread for name, thread in loaded_on.items() if thread != "MainThread"}
    assert "app.memory.store" in off_gui  # the side libraries and the pipeline did load in the background
    assert "app.pipeline.service" in off_gui
    assert set(off_gui.values()) == {"replaysage-import_0"}, off_gui
