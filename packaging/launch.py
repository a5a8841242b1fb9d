"""Entry script of a packaged build: the same dispatch as the ``replaysage`` console command.

A Windows build without a console (``replaysage-gui.exe``) has no standard streams: writes go to the null device
instead of failing.
"""

import os
import sys

for _name in ("stdout", "stderr"):
    if getattr(sys, _name) is None:
        setattr(sys, _name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115 - lives as long as the process

from ui.entry import main  # noqa: E402 - after the streams exist

if __name__ == "__main__":
    raise SystemExit(main())
