"""Settings registry, migrations, persistence, and API keys kept out of the settings file."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import keyring
import pytest
from keyring.backends import fail

import app.secrets
from app.i18n import Lang
from app.llm.errors import ProviderConfigError
from app.llm.factory import build_provider
from app.llm.openai_compat import OpenAICompatProvider
from app.secrets import SERVICE, SecretBackend, SecretStore, mask
from app.settings import (
    OFFLINE_PROFILE,
    OPTIONS,
    SCHEMA_VERSION,
    ModelProfileSettings,
    ProviderSettings,
    Settings,
    SettingsError,
    settings_path,
)
from tests.keyrings import MemoryKeyring

KEY = "sk-live-abcdefghijklmnop0123"


def deepseek_settings(path: Path) -> Settings:
    s = Settings(path)
    s.put_provider(ProviderSettings("DeepSeek", "https://api.deepseek.com/v1", {"X-Trace": "1"}))
    s.put_profile(
        ModelProfileSettings(
            name="DeepSeek R1",
            provider="DeepSeek",
            model_id="deepseek-reasoner",
            context_length=64_000,
            max_tokens=16_000,
            reasoning=True,
            price_input=0.55,
            price_cached_input=0.14,
            price_output=2.19,
        )
    )
    return s


def test_registry_has_titles_in_both_languages() -> None:
    for option in OPTIONS.values():
        assert option.title(Lang.ZH)
        assert option.title(Lang.EN)
        assert option.validate(option.default) == option.default


def test_defaults_without_file(tmp_path: Path) -> None:
    s = Settings.load(tmp_path / "settings.json")
    assert s.get("active_profile") == OFFLINE_PROFILE
    assert s.profile_names() == [OFFLINE_PROFILE]
    assert s.active_profile().rule_based
    assert not (tmp_path / "settings.json").exists()


def test_settings_path_follows_replaysage_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("REPLAYSAGE_HOME", str(tmp_path / "home"))
    assert settings_path() == tmp_path / "home" / "settings.json"


def test_roundtrip(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    s = deepseek_settings(path)
    s.set("ui_language", "zh")
    s.set("analysis_language", "en")
    s.set("replay_folder", "/games/replays")
    s.set("active_profile", "DeepSeek R1")
    s.save()
    loaded = Settings.load(path)
    assert loaded.to_json() == s.to_json()
    assert loaded.ui_lang() is Lang.ZH
    assert loaded.analysis_lang() is Lang.EN
    prof = loaded.active_profile()
    assert (prof.model_id, prof.context_length, prof.max_tokens, prof.reasoning) == (
        "deepseek-reasoner",
        64000,
        16000,
        True,
    )
    assert loaded.provider("DeepSeek").extra_headers == {"X-Trace": "1"}
    assert json.loads(path.read_text())["schema_version"] == SCHEMA_VERSION


def test_profile_feeds_budget_model_profile(tmp_path: Path) -> None:
    from app.budget.profile import ModelProfile

    prof = deepseek_settings(tmp_path / "s.json").profile("DeepSeek R1")
    budget = ModelProfile.from_mapping(prof.budget_mapping())
    assert (budget.context_length, budget.max_tokens, budget.model, budget.provider) == (
        64000, 16000, "deepseek-reasoner", "DeepSeek",
    )  # fmt: skip
    assert budget.price_cached_input == 0.14


def test_invalid_values_rejected(tmp_path: Path) -> None:
    s = Settings(tmp_path / "s.json")
    with pytest.raises(SettingsError, match="ui_language"):
        s.set("ui_language", "fr")
    with pytest.raises(SettingsError, match="unknown setting"):
        s.set("colour", "red")
    with pytest.raises(SettingsError, match="no model profile"):
        s.set("active_profile", "missing")
    with pytest.raises(SettingsError, match="unknown provider"):
        s.put_profile(ModelProfileSettings("x", "nowhere", "m"))
    with pytest.raises(SettingsError, match="keyring"):
        s.put_provider(ProviderSettings("P", "https://x", {"Authorization": "Bearer sk-123"}))


def test_migration_from_v1_keeps_backup(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    v1 = {
        "language": "en",
        "replay_folder": "/r",
        "profiles": [{"name": "Local", "provider": "Ollama", "model": "qwen3:8b", "api_base": "http://localhost:11434/v1",
                      "context_length": 32768}],
    }  # fmt: skip
    path.write_text(json.dumps(v1))
    s = Settings.load(path)
    assert s.migrated_from == 1
    assert (s.get("ui_language"), s.get("analysis_language"), s.get("replay_folder")) == ("en", "en", "/r")
    assert s.provider("Ollama").base_url == "http://localhost:11434/v1"
    assert s.profile("Local").model_id == "qwen3:8b"
    assert json.loads(path.read_text())["schema_version"] == SCHEMA_VERSION
    assert json.loads((tmp_path / "settings.json.v1.bak").read_text()) == v1


def test_newer_file_refused_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    text = json.dumps({"schema_version": SCHEMA_VERSION + 1, "ui_language": "zh"})
    path.write_text(text)
    with pytest.raises(SettingsError, match="newer"):
        Settings.load(path)
    assert path.read_text() == text


def test_corrupt_file_reported_not_replaced(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text("{not json")
    with pytest.raises(SettingsError, match=str(path.name)):
        Settings.load(path)
    assert path.read_text() == "{not json"


def test_removing_active_profile_falls_back_to_offline(tmp_path: Path) -> None:
    s = deepseek_settings(tmp_path / "s.json")
    s.set("active_profile", "DeepSeek R1")
    s.remove_provider("DeepSeek")
    assert s.get("active_profile") == OFFLINE_PROFILE
    assert s.profile_names() == [OFFLINE_PROFILE]


# -- secrets -------------------------------------------------------------------------------------------------------


def test_key_in_keyring_never_in_settings(tmp_path: Path, memory_keyring: MemoryKeyring) -> None:
    s = deepseek_settings(tmp_path / "settings.json")
    store = SecretStore()
    assert store.set("DeepSeek", KEY) is SecretBackend.KEYRING
    assert not store.degraded
    assert store.warning(Lang.EN) == ""
    s.save()
    assert memory_keyring.store[(SERVICE, "provider:DeepSeek")] == KEY
    assert KEY not in (tmp_path / "settings.json").read_text()
    assert KEY not in repr(store)
    assert store.get("DeepSeek") == KEY
    provider = build_provider(s, "DeepSeek R1", secrets=store)
    assert isinstance(provider, OpenAICompatProvider)
    assert provider.url == "https://api.deepseek.com/v1/chat/completions"
    assert provider.model == "deepseek-reasoner"
    assert KEY not in repr(provider)
    store.delete("DeepSeek")
    assert store.get("DeepSeek") is None


def test_no_keyring_session_fallback_warns(tmp_path: Path) -> None:
    keyring.set_keyring(fail.Keyring())  # type: ignore[no-untyped-call]  # keyring's backends are untyped
    store = SecretStore("session", fallback_dir=tmp_path)
    assert store.set("P", KEY) is SecretBackend.SESSION
    assert store.degraded
    assert "session" in store.warning(Lang.EN)
    assert "内存" in store.warning(Lang.ZH)
    assert store.get("P") == KEY
    assert list(tmp_path.iterdir()) == []  # nothing written anywhere
    assert SecretStore("session", fallback_dir=tmp_path).get("P") == KEY  # the session is this process
    app.secrets._SESSION.clear()  # a new process: nothing was kept anywhere
    assert SecretStore("session", fallback_dir=tmp_path).get("P") is None


def test_no_keyring_file_fallback_is_0600(tmp_path: Path) -> None:
    keyring.set_keyring(fail.Keyring())  # type: ignore[no-untyped-call]  # keyring's backends are untyped
    store = SecretStore("file", fallback_dir=tmp_path)
    assert store.set("P", KEY) is SecretBackend.FILE
    assert store.degraded
    assert "plain text" in store.warning(Lang.EN)
    (path,) = list(tmp_path.iterdir())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert SecretStore("file", fallback_dir=tmp_path).get("P") == KEY
    store.delete("P")
    assert SecretStore("file", fallback_dir=tmp_path).get("P") is None


def test_mask_hides_key() -> None:
    assert mask(KEY) == "sk-…0123"
    assert mask("short") == "****"
    assert mask(None) == "(none)"


def test_unknown_profile_is_config_error(tmp_path: Path) -> None:
    with pytest.raises(ProviderConfigError, match="nope"):
        build_provider(Settings(tmp_path / "s.json"), "nope")


def test_failed_migration_leaves_file_untouched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import app.settings as settings_module

    def broken(data: dict[str, Any]) -> dict[str, Any]:
        data["ui_language"] = "zh"
        raise ValueError("step exploded")

    monkeypatch.setitem(settings_module.MIGRATIONS, 1, broken)
    path = tmp_path / "settings.json"
    text = json.dumps({"language": "en"})
    path.write_text(text)
    with pytest.raises(SettingsError, match="step exploded"):
        Settings.load(path)
    assert path.read_text() == text
    assert list(tmp_path.iterdir()) == [path]
