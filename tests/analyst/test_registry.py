"""The provider registry: app.llm builds the offline analyst only through what app.analyst registered."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.llm.errors import ProviderConfigError
from app.llm.registry import OPENAI_COMPAT, provider_factory, registered_providers
from tests.conftest import REPO_ROOT

UNREGISTERED = """
import json, sys
from pathlib import Path
from app.llm.errors import ProviderConfigError
from app.llm.factory import build_provider
from app.llm.registry import registered_providers
from app.settings import Settings
names = list(registered_providers())
try:
    build_provider(Settings(Path(sys.argv[1])), "offline")
    outcome = "built"
except ProviderConfigError as exc:
    outcome = str(exc)
print(json.dumps({"names": names, "analyst_loaded": "app.analyst" in sys.modules, "outcome": outcome}))
"""


def test_the_provider_layer_alone_knows_only_http_endpoints(tmp_path: Path) -> None:
    """In a fresh process that never imports app.analyst, 'offline' is simply not registered (no hidden import)."""
    out = subprocess.run(
        [sys.executable, "-c", UNREGISTERED, str(tmp_path / "s.json")],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    doc = json.loads(out.stdout)
    assert doc["names"] == [OPENAI_COMPAT]
    assert doc["analyst_loaded"] is False
    assert "no provider named 'offline' is registered" in doc["outcome"]


def test_registration_adds_the_offline_analyst() -> None:
    import app.llm.factory  # noqa: F401 - registers the OpenAI-compatible client
    from app.analyst import register
    from app.analyst.provider import OfflineAnalyst

    register()
    register()  # idempotent
    assert set(registered_providers()) == {"offline", OPENAI_COMPAT}
    with pytest.raises(ProviderConfigError, match="no provider named 'nope'"):
        provider_factory("nope")
    assert OfflineAnalyst.__module__ == "app.analyst.provider"


def test_provider_test_command_reaches_the_offline_analyst(tmp_path: Path) -> None:
    """``replaysage provider test offline`` (the CLI registers the analyst) answers with the rule-based intro."""
    env_home = tmp_path / "home"
    out = subprocess.run(
        [sys.executable, "-m", "app.cli", "provider", "test", "offline", "--lang", "en", "--json"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "REPLAYSAGE_HOME": str(env_home)},
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["rule_based"] is True
    assert doc["model"] == "offline"
