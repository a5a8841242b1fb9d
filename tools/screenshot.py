"""Render the main window after an analysis to a PNG (offscreen), for docs and visual checks.

Chinese text needs a CJK font on the machine (e.g. ``apt-get install fonts-wqy-microhei``); the script warns
when none is found instead of silently writing boxes.

Usage: .venv/bin/python tools/screenshot.py [OUT.png] [--replay FILE] [--lang zh|en] [--size 1500x950]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("REPLAYSAGE_HOME", tempfile.mkdtemp(prefix="replaysage-shot-"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

CJK_HINTS = ("wenquanyi", "wqy", "noto sans cjk", "noto sans sc", "source han", "microsoft yahei", "simhei",
             "pingfang", "droid sans fallback")


def cjk_fonts() -> list[str]:
    from PySide6.QtGui import QFontDatabase

    return [f for f in QFontDatabase.families() if any(h in f.lower() for h in CJK_HINTS)
            or QFontDatabase.WritingSystem.SimplifiedChinese in QFontDatabase.writingSystems(f)]


async def shoot(app: object, out: Path, replay: Path | None, lang: str, size: tuple[int, int]) -> int:
    from app.i18n import Lang
    from app.paths import sample_replay
    from app.settings import OFFLINE_PROFILE
    from ui.lang import UiLanguage
    from ui.main_window import AppContext, MainWindow

    ctx = AppContext.open()
    ctx.settings.set("analysis_language", lang)  # the analysis text in the same language as the interface
    window = MainWindow(ctx, UiLanguage(Lang(lang)))
    window.resize(*size)
    window.show()
    try:
        await window.open_replay(replay or sample_replay())
        view = window.analysis
        view.model_picker.setCurrentIndex(view.model_picker.findData(OFFLINE_PROFILE))
        task = window.analyze()
        if task is None:
            return 1
        await task
        view.flush_all()
        first_window = next((p for k, p in view.panels.items() if k.startswith("window:")), None)
        if first_window is not None:
            first_window.issues_section.set_expanded(True)
            first_window.reasoning_section.set_expanded(True)
            if first_window.issues and first_window.issues[0].time_seconds is not None:
                window.timeline.jump_to(first_window.issues[0].time_seconds)
        for key in ("summary",):
            if key in view.panels:
                view.panels[key].set_expanded(False)
        await asyncio.sleep(0.2)
        window.grab().save(str(out))
        print(f"{out}: {window.width()}x{window.height()}, analysis {view.status}, {len(view.panels)} panels")
        return 0 if view.status == "completed" else 1
    finally:
        window.close()
        ctx.db.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", nargs="?", default="replaysage-window.png")
    ap.add_argument("--replay", type=Path)
    ap.add_argument("--lang", default="zh", choices=("zh", "en"))
    ap.add_argument("--size", default="1500x950")
    args = ap.parse_args()
    w, h = (int(x) for x in args.size.lower().split("x"))
    import qasync
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(["screenshot"])
    app.setQuitOnLastWindowClosed(False)
    fonts = cjk_fonts()
    if args.lang == "zh" and not fonts:
        print("warning: no CJK font found: Chinese text will render as boxes (apt-get install fonts-wqy-microhei)",
              file=sys.stderr)
    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
        return runner.run(shoot(app, Path(args.out), args.replay, args.lang, (w, h)))


if __name__ == "__main__":
    raise SystemExit(main())
