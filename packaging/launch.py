"""Entry script of a packaged build: the same dispatch as the ``replaysage`` console command."""

from ui.entry import main

if __name__ == "__main__":
    raise SystemExit(main())
