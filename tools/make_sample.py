"""Write the bundled demo replay ``resources/sample.RA3Replay`` (scripted by ``app.replay.sample``).

Run from the repository root: ``.venv/bin/python tools/make_sample.py``. The output is deterministic; the
test suite checks that the committed file equals what this script writes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.paths import sample_replay
from app.replay.reader import parse_replay
from app.replay.sample import sample_bytes


def main() -> int:
    data = sample_bytes()
    replay = parse_replay(data, "sample")
    assert not replay.truncated, replay.truncation_reason
    out = sample_replay()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)
    print(f"wrote {out} ({len(data)} bytes, {len(replay.commands)} commands, {replay.duration_seconds:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
