from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from app.tokens import (
    SAFETY_FACTOR,
    TokenEstimator,
    count_tokens,
    count_tokens_batch,
)
from tests.conftest import REPO_ROOT


def test_count_tokens_known_cl100k_values() -> None:
    # cl100k_base: "hello world" -> [15339, 1917] (OpenAI's published example ids), empty -> 0.
    assert count_tokens("hello world") == 2
    assert count_tokens("") == 0


def test_special_markers_count_as_text() -> None:
    # encode_ordinary splits "<|endoftext|>" into ordinary pieces instead of one special token or an error.
    assert count_tokens("<|endoftext|>") > 1


def test_batch_matches_single() -> None:
    texts = ["hello world", "请重点分析 0:30.00 至 2:00.00 时间段的操作数据", "", "a b c"]
    assert count_tokens_batch(texts) == [count_tokens(t) for t in texts]
    assert count_tokens_batch([]) == []


def test_estimator_applies_safety_and_coefficient() -> None:
    assert SAFETY_FACTOR == 1.2
    assert TokenEstimator().from_raw(100) == 120
    assert TokenEstimator(coefficient=0.5).from_raw(100) == 60
    # Rounded up: 7 × 1.2 = 8.4 -> 9.
    assert TokenEstimator().from_raw(7) == 9
    assert TokenEstimator().from_raw(0) == 0


def test_estimate_display_marks_calibrated() -> None:
    assert TokenEstimator(coefficient=0.5, calibrated=True).estimate_raw(10000).display() == "≈6,000"
    assert TokenEstimator().estimate_raw(10000).display() == "12,000"


def test_loads_without_network(tmp_path: Path) -> None:
    # A fresh interpreter with sockets disabled and an empty tiktoken cache still counts: the BPE file is bundled.
    code = (
        "import socket\n"
        "def _no(*a, **k):\n"
        "    raise OSError('network disabled in test')\n"
        "socket.socket = _no\n"
        "socket.create_connection = _no\n"
        "from app.tokens import count_tokens\n"
        "print(count_tokens('hello world'))\n"
    )
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(REPO_ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "2"
