"""Console entry point: a sub-command goes to :mod:`app.cli`; no sub-command starts the desktop app.

Qt is imported only when the GUI starts, so command-line use stays light.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch to the CLI or launch the GUI."""
    if getattr(sys, "frozen", False):  # a frozen build starts the analysis worker through this executable
        import multiprocessing

        multiprocessing.freeze_support()
    args = list(sys.argv[1:] if argv is None else argv)
    from app.cli import command_in
    from app.cli import main as cli_main
    from app.logs import install_excepthook

    install_excepthook()
    if command_in(args) or (args and args[0] in ("-h", "--help")):
        return cli_main(args)
    from ui.app import run_gui

    return run_gui(args)


if __name__ == "__main__":
    raise SystemExit(main())
