#!/usr/bin/env sh
# Build the one-folder desktop bundle and smoke-test it: dist/replaysage/replaysage --self-test must exit 0.
# Usage: packaging/build.sh [PYTHON]   (default: .venv/bin/python; PyInstaller comes from the "package" extra)
set -eu
cd "$(dirname "$0")/.."
PY="${1:-.venv/bin/python}"
"$PY" -m pip install -q -e '.[package]'
"$PY" -m PyInstaller --noconfirm --distpath dist --workpath build/pyinstaller packaging/replaysage.spec
REPLAYSAGE_HOME="$(mktemp -d)" QT_QPA_PLATFORM=offscreen dist/replaysage/replaysage --self-test
