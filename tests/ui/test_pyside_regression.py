"""PySide6 regression guard (engineering notes §1.1): void calls must not leak references to ``None``.

PySide6 6.12.0 on Python 3.11 drops a reference to ``None`` on every void method call and the process aborts
with ``none_dealloc`` after a few thousand; the pin to 6.11.3 avoids it, and this test fails if a future
upgrade brings it back.
"""

from __future__ import annotations

import sys
from typing import Any

from PySide6.QtWidgets import QLabel


def test_void_calls_keep_none_refcount(qapp: Any) -> None:
    label = QLabel()
    before = sys.getrefcount(None)
    for i in range(5000):
        label.setText(f"n={i}")
    after = sys.getrefcount(None)
    assert after >= before - 10, f"None lost {before - after} references over 5,000 setText calls"
    label.deleteLater()
