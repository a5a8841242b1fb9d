"""Lookback limits are defined once (``app.budget.limits``) and every prompt and message quotes them from there."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import REPO_ROOT

PROBE = """
import json
import app.budget.limits as limits
limits.MAX_LOOKBACKS_PER_SEGMENT = 7
limits.MAX_LOOKBACK_TOKENS = 25_000
from app.i18n import Lang
from app.pipeline import prompts
from app.wisdom import error_kinds
texts = [prompts.lookback_hint(Lang.ZH), prompts.lookback_hint(Lang.EN)]
texts += [t for row in error_kinds.ISSUES for t in row[4:] if "mm:ss~mm:ss" in t]
print(json.dumps(texts, ensure_ascii=False))
"""


def test_prompts_quote_the_limits_not_literals() -> None:
    """With other limits in place before the prompts are built, every text shows those limits."""
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=REPO_ROOT, capture_output=True, text=True, check=True, timeout=120
    )
    zh, en, *wisdom = json.loads(out.stdout)
    assert "每段最多 7 次" in zh
    assert "约 25K token" in zh
    assert "at most 7 per segment" in en
    assert "about 25K tokens" in en
    assert len(wisdom) == 2
    assert "每段最多 7 次" in wisdom[0]
    assert "≤ 7 per segment" in wisdom[1]
