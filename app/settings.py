"""The application's settings: one registry of options, a schema version with migrations, JSON on disk.

Every option is declared once in :data:`OPTIONS` (type, default, title in 中文 and English) — the settings page
is generated from it and :meth:`Settings.set` validates against it. Providers and model profiles are structured
lists with their own dataclasses. The file is ``settings.json`` under :func:`app.paths.user_data_dir`, written
atomically; older files are migrated step by step (a copy of the original is kept next to it), a newer file is
refused rather than overwritten, and a corrupt file is reported, never silently replaced.

API keys are never stored here (nor in the database or logs): they live in the OS keyring, see
:mod:`app.secrets`. Anything named like a key inside extra headers (``Authorization``, ``api-key``…) is
refused for the same reason.
"""

from __future__ import annotations

import copy
import json
import os
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from app.errors import KnownError
from app.i18n import N_, Lang, Msg
from app.stream_limits import DEFAULT_LIMITS, OLD_DEFAULTS, StreamLimits
from app.urls import UrlCredentials, split_url_credentials

SCHEMA_VERSION = 3
SETTINGS_FILE = "settings.json"
DEFAULT_AUTOSAVE_PATTERN = "{date} {lineup} {map}"
"""How a kept last replay is named (fields: :data:`app.library.autosave.PATTERN_FIELDS`)."""
OFFLINE_PROFILE = "offline"
"""Name and model id of the built-in rule-based analyst profile (always available, needs no network)."""

_SECRET_HEADERS = ("authorization", "api-key", "x-api-key", "proxy-authorization")


def analysis_lang_of(ui_language: str, analysis_language: str) -> Lang:
    """The language analyses run in for these two option values: its own, else the interface's, else the system's.

    One rule for the settings file, the CLI's default and the settings dialog's budget preview (which reads the
    form before it is saved), so the preview plans exactly as ``plan --lang`` with that language.
    """
    return Lang.parse(analysis_language or ui_language or None)


def _without_url_credentials(raw: dict[str, Any]) -> dict[str, Any]:
    """A settings document with the credentials inside its URLs removed (the rest as it was)."""
    doc = copy.deepcopy(raw)
    for item in doc.get("providers") or []:
        if isinstance(item, dict) and isinstance(item.get("base_url"), str):
            item["base_url"] = split_url_credentials(item["base_url"])[0]
    url = doc.get("team_database_url")
    if isinstance(url, str) and url:
        doc["team_database_url"] = split_url_credentials(url)[0]
    return doc


class SettingsError(KnownError):
    """The settings file or a value is unusable (names the file or option and what is wrong)."""


@dataclass(frozen=True, slots=True)
class Option:
    """One scalar option of the registry.

    Attributes:
        key: JSON key.
        type: ``str``, ``bool``, ``int`` or ``float``.
        default: value when unset.
        label: label on the settings page (a catalogue message).
        choices: allowed values, if restricted.
        kind: UI hint: ``text``, ``folder``, ``file``, ``choice``.
    """

    key: str
    type: type
    default: Any
    label: Msg
    choices: tuple[Any, ...] = ()
    kind: str = "text"

    def title(self, lang: Lang) -> str:
        """The label in ``lang``."""
        return self.label(lang)

    def validate(self, value: Any) -> Any:
        """Return ``value`` coerced to the option's type, or raise :class:`SettingsError`."""
        if self.type is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, self.type) or (self.type is int and isinstance(value, bool)):
            raise SettingsError(f"setting {self.key!r} must be {self.type.__name__}, got {value!r}")
        if self.choices and value not in self.choices:
            allowed = ", ".join(repr(c) for c in self.choices)
            raise SettingsError(f"setting {self.key!r} must be one of {allowed}, got {value!r}")
        return value


OPTIONS: dict[str, Option] = {
    o.key: o
    for o in (
        Option("ui_language", str, "", N_("Interface language"), ("", "zh", "en"), "choice"),
        Option("analysis_language", str, "", N_("Analysis language"), ("", "zh", "en"), "choice"),
        Option("replay_folder", str, "", N_("Replay folder"), kind="folder"),
        Option("autosave", bool, True, N_("Keep every game (copy the game's last replay)")),
        Option(
            "autosave_folder",
            str,
            "",
            N_("Keep copies in (empty: the same folder)"),
            kind="folder",
        ),
        Option(
            "autosave_pattern",
            str,
            DEFAULT_AUTOSAVE_PATTERN,
            N_("Kept replay file name ({date} {lineup} {players} {factions} {map} {game} {mod} {duration})"),
        ),
        Option(
            "replay_folder_offer",
            str,
            "",
            N_("Replay folder found on first start"),
            kind="hidden",
        ),
        Option("knowledge_mod_override", str, "", N_("Knowledge mod (empty: detect)")),
        Option("user_knowledge_file", str, "", N_("User knowledge file"), kind="file"),
        Option("active_profile", str, OFFLINE_PROFILE, N_("Active model profile"), kind="choice"),
        Option("analyst_name", str, "", N_("Analyst name (feedback, preferences)")),
        Option("reviewer_name", str, "", N_("Reviewer name (recorded with rulings)")),
        Option(
            "team_database_url",
            str,
            "",
            N_("Team database (PostgreSQL URL; empty: this computer's file)"),
        ),
        Option("window_layout", str, "", N_("Window layout"), kind="hidden"),
        Option(
            "secret_fallback",
            str,
            "session",
            N_("Key storage without a system keyring"),
            ("session", "file"),
            "choice",
        ),
        Option("max_replay_mb", int, 64, N_("Largest replay file read (MB)")),
        Option(
            "keep_prompts",
            str,
            "always",
            N_("Keep full prompts (always / last: the newest N analyses / never)"),
            ("always", "last", "never"),
            "choice",
        ),
        Option("keep_prompts_last", int, 20, N_("Analyses whose prompts are kept (N)")),
        Option(
            "memory_batch_pending",
            int,
            10,
            N_("Run the memory batch once this many analyses wait (0: daily only)"),
        ),
    )
}
"""Every scalar option, declared once."""

LIMIT_OPTIONS: dict[str, Option] = {
    o.key: o
    for o in (
        Option("connect_s", float, DEFAULT_LIMITS.connect_s, N_("Connect deadline (s)")),
        Option("first_byte_s", float, DEFAULT_LIMITS.first_byte_s, N_("First token deadline (s)")),
        Option(
            "idle_s",
            float,
            DEFAULT_LIMITS.idle_s,
            N_("Gap between content deadline (s, keep-alives do not count)"),
        ),
        Option("reply_s", float, DEFAULT_LIMITS.reply_s, N_("Whole reply deadline (s)")),
        Option(
            "request_s",
            float,
            DEFAULT_LIMITS.request_s,
            N_("Request deadline with retries (s)"),
        ),
        Option("error_body_s", float, DEFAULT_LIMITS.error_body_s, N_("Error body deadline (s)")),
        Option("error_body_bytes", int, DEFAULT_LIMITS.error_body_bytes, N_("Error body cap (bytes)")),
        Option("max_attempts", int, DEFAULT_LIMITS.max_attempts, N_("Attempts per request")),
        Option("run_s", float, DEFAULT_LIMITS.run_s, N_("Run deadline (s, 0: none)")),
        Option(
            "requests_per_minute",
            float,
            DEFAULT_LIMITS.requests_per_minute,
            N_("Requests per minute (all processes together, 0: none)"),
        ),
        Option(
            "tokens_per_minute",
            float,
            DEFAULT_LIMITS.tokens_per_minute,
            N_("Tokens per minute (all processes together, 0: none)"),
        ),
    )
}
"""The per-provider limits (:class:`app.stream_limits.StreamLimits` fields), with titles for the settings page."""


@dataclass(frozen=True, slots=True)
class ProviderSettings:
    """An OpenAI-compatible endpoint (its API key lives in the keyring under the provider's name).

    Attributes:
        name: unique display name (e.g. ``DeepSeek``).
        base_url: e.g. ``https://api.deepseek.com/v1`` (``/chat/completions`` is appended).
        extra_headers: added to every request (never credentials: those go to the keyring).
        stream: stream replies (off for servers whose streaming is broken).
        limits: deadlines and retries of its requests, the run deadline and its rates (:data:`LIMIT_OPTIONS`).
        url_credentials: credentials that were typed into the base URL, on their way to the keyring
            (:meth:`Settings.put_provider` moves them); never written to the settings file.
    """

    name: str
    base_url: str
    extra_headers: Mapping[str, str] = field(default_factory=dict)
    stream: bool = True
    limits: StreamLimits = DEFAULT_LIMITS
    url_credentials: UrlCredentials = field(default=UrlCredentials(), compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        """The persisted form."""
        # only the limits chosen: the others follow the app's defaults, also when those change
        chosen = {k: v for k, v in self.limits.to_json().items() if v != getattr(DEFAULT_LIMITS, k)}
        return {"name": self.name, "base_url": self.base_url, "extra_headers": dict(self.extra_headers),
                "stream": self.stream, "limits": chosen}  # fmt: skip

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ProviderSettings:
        """Parse and validate the persisted form."""
        name = _req_str(data, "name", "provider")
        headers = data.get("extra_headers") or {}
        if not isinstance(headers, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in headers.items()
        ):
            raise SettingsError(f"provider {name!r}: extra_headers must map strings to strings")
        for key in headers:
            if key.lower() in _SECRET_HEADERS:
                raise SettingsError(
                    f"provider {name!r}: header {key!r} would store a credential in the settings file; "
                    "enter the API key instead (it is kept in the system keyring)"
                )
        limits = data.get("limits") or {}
        if not isinstance(limits, Mapping):
            raise SettingsError(f"provider {name!r}: limits must be an object")
        try:
            parsed = StreamLimits.from_mapping(limits, f"provider {name!r} limits")
        except ValueError as exc:
            raise SettingsError(str(exc)) from None
        base_url, creds = split_url_credentials(_req_str(data, "base_url", f"provider {name!r}"))
        return cls(name=name, base_url=base_url, extra_headers=dict(headers), stream=bool(data.get("stream", True)),
                   limits=parsed, url_credentials=creds)  # fmt: skip


@dataclass(frozen=True, slots=True)
class ModelProfileSettings:
    """A model at a provider with its budget numbers and prices (plain fields, see ``app.budget.ModelProfile``).

    Attributes:
        name: unique profile name shown in the model picker.
        provider: the :class:`ProviderSettings` name (``offline`` for the rule-based analyst).
        model_id: the model id sent to the provider.
        context_length: the model's context window in tokens.
        context_budget: soft cap per request; 0 = the tier default (decided by ``app.budget``).
        max_tokens: output limit per request (reasoning counts against it).
        reasoning: the model emits reasoning tokens.
        price_input: price per million uncached input tokens.
        price_cached_input: price per million cached input tokens.
        price_output: price per million output tokens.
        stream: None follows the provider's setting; True/False overrides it.
        extra_headers: headers for this model only (merged over the provider's).
    """

    name: str
    provider: str
    model_id: str
    context_length: int = 128_000
    context_budget: int = 0
    max_tokens: int = 8192
    reasoning: bool = False
    price_input: float = 0.0
    price_cached_input: float = 0.0
    price_output: float = 0.0
    stream: bool | None = None
    extra_headers: Mapping[str, str] = field(default_factory=dict)

    @property
    def rule_based(self) -> bool:
        """True for the offline analyst."""
        return self.provider == OFFLINE_PROFILE

    def to_json(self) -> dict[str, Any]:
        """The persisted form."""
        data = asdict(self)
        data["extra_headers"] = dict(self.extra_headers)
        return data

    def budget_mapping(self) -> dict[str, Any]:
        """Input for ``app.budget.profile.ModelProfile.from_mapping`` (its field names)."""
        return {
            "provider": self.provider,
            "model": self.model_id,
            "context_length": self.context_length,
            "context_budget": self.context_budget,
            "max_tokens": self.max_tokens,
            "reasoning": self.reasoning,
            "price_input": self.price_input,
            "price_cached_input": self.price_cached_input,
            "price_output": self.price_output,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ModelProfileSettings:
        """Parse and validate the persisted form (unknown keys are ignored, types are checked)."""
        name = _req_str(data, "name", "model profile")
        where = f"model profile {name!r}"
        values: dict[str, Any] = {"name": name, "provider": _req_str(data, "provider", where),
                                  "model_id": _req_str(data, "model_id", where)}  # fmt: skip
        for f in fields(cls):
            if f.name in values or f.name not in data:
                continue
            value = data[f.name]
            if f.name in ("context_length", "context_budget", "max_tokens"):
                if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                    raise SettingsError(f"{where}: {f.name} must be a non-negative integer, got {value!r}")
            elif f.name.startswith("price_"):
                if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
                    raise SettingsError(f"{where}: {f.name} must be a non-negative number, got {value!r}")
                value = float(value)
            elif f.name == "reasoning":
                value = bool(value)
            elif f.name == "stream":
                value = None if value is None else bool(value)
            elif f.name == "extra_headers":
                probe = {"name": name, "base_url": "-", "extra_headers": value}
                value = ProviderSettings.from_json(probe).extra_headers
            values[f.name] = value
        if values.get("context_length", 1) <= 0:
            raise SettingsError(f"{where}: context_length must be positive")
        return cls(**values)


BUILTIN_OFFLINE = ModelProfileSettings(
    name=OFFLINE_PROFILE, provider=OFFLINE_PROFILE, model_id=OFFLINE_PROFILE, context_length=200_000,
    max_tokens=16_000,
)  # fmt: skip
"""The embedded rule-based analyst: always listed first, not stored in the file. Its 200K context gives the
same segment/window structure (and lookbacks) a typical long-context model gets."""


def _req_str(data: Mapping[str, Any], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise SettingsError(f"{where}: {key} must be a non-empty string, got {value!r}")
    return value.strip()


# -- migrations ------------------------------------------------------------------------------------------------


def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """v1 (pre-release) had one ``language`` and profiles with ``api_base`` + ``model``; v2 splits and renames."""
    lang = data.pop("language", "")
    data.setdefault("ui_language", lang)
    data.setdefault("analysis_language", lang)
    providers: dict[str, dict[str, Any]] = {p["name"]: p for p in data.get("providers", []) if isinstance(p, dict)}
    profiles = []
    for item in data.get("profiles", []):
        if not isinstance(item, dict):
            continue
        prof = dict(item)
        if "model" in prof and "model_id" not in prof:
            prof["model_id"] = prof.pop("model")
        api_base = prof.pop("api_base", None)
        if api_base and prof.get("provider") not in providers:
            name = str(prof.get("provider") or prof.get("name"))
            providers[name] = {"name": name, "base_url": api_base, "extra_headers": {}, "stream": True}
            prof["provider"] = name
        profiles.append(prof)
    data["providers"] = list(providers.values())
    data["profiles"] = profiles
    return data


def _v2_to_v3(data: dict[str, Any]) -> dict[str, Any]:
    """v3 keeps only the provider limits a user chose; a value equal to an old default was not chosen.

    v2 wrote every limit out, so the old defaults (a dead server held a run for an hour, issue 29) stuck to
    every provider saved before.
    """
    for prov in data.get("providers", []) or []:
        limits = prov.get("limits") if isinstance(prov, dict) else None
        if isinstance(limits, dict):
            prov["limits"] = {k: v for k, v in limits.items() if not (k in OLD_DEFAULTS and v == OLD_DEFAULTS[k])}
    return data


MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _v1_to_v2, 2: _v2_to_v3}
"""``MIGRATIONS[n]`` turns a version-n document into version n+1; applied in order on a copy."""


def migrate(data: Mapping[str, Any], source: str = "settings") -> dict[str, Any]:
    """Bring a settings document to :data:`SCHEMA_VERSION` (all steps or nothing).

    Raises:
        SettingsError: the document is newer than this app, or a migration step failed.
    """
    doc = copy.deepcopy(dict(data))
    version = doc.get("schema_version", 1)
    if not isinstance(version, int) or version < 1:
        raise SettingsError(f"{source}: schema_version must be a positive integer, got {version!r}")
    if version > SCHEMA_VERSION:
        raise SettingsError(
            f"{source} was written by a newer ReplaySage (schema {version}, this app knows {SCHEMA_VERSION}); "
            "update the app — the file was left untouched"
        )
    while version < SCHEMA_VERSION:
        step = MIGRATIONS[version]
        try:
            doc = step(doc)
        except Exception as exc:  # a failed step must not leave a half-migrated document
            raise SettingsError(f"{source}: migrating from schema {version} failed: {exc}") from exc
        version += 1
        doc["schema_version"] = version
    return doc


# -- the settings object ---------------------------------------------------------------------------------------


def settings_path() -> Path:
    """Where the settings live (``REPLAYSAGE_HOME`` redirects it)."""
    from app.paths import user_data_dir

    return user_data_dir() / SETTINGS_FILE


class Settings:
    """Loaded settings: scalar options, providers and model profiles. Not thread-safe; save explicitly."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else settings_path()
        self._values: dict[str, Any] = {}
        self._providers: dict[str, ProviderSettings] = {}
        self._profiles: dict[str, ModelProfileSettings] = {}
        self.migrated_from: int | None = None
        self.url_credentials_moved = False  # a base URL held a credential: it went to the keyring

    # -- loading and saving ---------------------------------------------------------------------------------

    @classmethod
    def load(cls, path: Path | None = None) -> Settings:
        """Read the file (defaults if it does not exist), migrating older schemas.

        Raises:
            SettingsError: the file is not valid JSON, newer than the app, or holds invalid values.
        """
        settings = cls(path)
        if not settings.path.exists():
            return settings
        try:
            raw = json.loads(settings.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise SettingsError(f"cannot read settings file {settings.path}: {exc}") from exc
        if not isinstance(raw, dict):
            raise SettingsError(f"settings file {settings.path} does not hold a JSON object")
        version = raw.get("schema_version", 1)
        doc = migrate(raw, str(settings.path))
        try:
            settings._apply(doc)
        except SettingsError as exc:
            raise SettingsError(f"{settings.path}: {exc}") from exc
        if settings.url_credentials_moved and version == SCHEMA_VERSION:
            settings.save()  # the file must not keep the credential it was loaded with
        if version != SCHEMA_VERSION:
            settings.migrated_from = version
            backup = settings.path.with_name(f"{settings.path.name}.v{version}.bak")
            if not backup.exists():  # the old file as it was, but never a credential it held (issue 29, 11)
                backup.write_text(json.dumps(_without_url_credentials(raw), indent=2), encoding="utf-8")
            settings.save()
        return settings

    def _apply(self, doc: Mapping[str, Any]) -> None:
        for key, option in OPTIONS.items():
            if key in doc:
                self._values[key] = option.validate(doc[key])
        if self._values.get("team_database_url"):  # a password typed into the file goes where set() puts it
            self._values["team_database_url"] = self._keep_team_database_credentials(self._values["team_database_url"])
        for item in doc.get("providers", []) or []:
            if not isinstance(item, Mapping):
                raise SettingsError(f"{self.path}: a provider entry is not an object")
            prov = ProviderSettings.from_json(item)
            self._providers[prov.name] = self._keep_url_credentials(prov)
        for item in doc.get("profiles", []) or []:
            if not isinstance(item, Mapping):
                raise SettingsError(f"{self.path}: a model profile entry is not an object")
            prof = ModelProfileSettings.from_json(item)
            if prof.name != OFFLINE_PROFILE:
                self._profiles[prof.name] = prof

    def to_json(self) -> dict[str, Any]:
        """The persisted document (no secrets by construction)."""
        return {
            "schema_version": SCHEMA_VERSION,
            **{k: self._values[k] for k in OPTIONS if k in self._values},
            "providers": [p.to_json() for p in self._providers.values()],
            "profiles": [p.to_json() for p in self._profiles.values()],
        }

    def save(self) -> None:
        """Write atomically (temp file + rename) so a crash never leaves half a file."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(self.to_json(), ensure_ascii=False, indent=2) + "\n"
        fd, tmp = tempfile.mkstemp(prefix=".settings-", suffix=".tmp", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    # -- scalar options -------------------------------------------------------------------------------------

    def get(self, key: str) -> Any:
        """The value of an option (its default when unset)."""
        option = OPTIONS.get(key)
        if option is None:
            raise SettingsError(f"unknown setting {key!r}")
        return self._values.get(key, option.default)

    def set(self, key: str, value: Any) -> None:
        """Set an option after validating it against the registry."""
        option = OPTIONS.get(key)
        if option is None:
            raise SettingsError(f"unknown setting {key!r}")
        if key == "active_profile" and value not in self.profile_names():
            raise SettingsError(f"no model profile named {value!r}")
        value = option.validate(value)
        if key == "team_database_url":
            value = self._keep_team_database_credentials(value)
        self._values[key] = value

    def ui_lang(self) -> Lang:
        """The interface language (system language when unset)."""
        return Lang.parse(self.get("ui_language") or None)

    def prompt_retention(self) -> int | None:
        """How many of the newest analyses keep their full prompts (None: all; 0: none), from ``keep_prompts``."""
        mode = self.get("keep_prompts")
        if mode == "always":
            return None
        return max(int(self.get("keep_prompts_last")), 0) if mode == "last" else 0

    def analysis_lang(self) -> Lang:
        """The analysis language (the interface language when unset)."""
        return analysis_lang_of(self.get("ui_language"), self.get("analysis_language"))

    # -- providers and profiles -----------------------------------------------------------------------------

    @property
    def providers(self) -> list[ProviderSettings]:
        """Configured providers, in insertion order."""
        return list(self._providers.values())

    def provider(self, name: str) -> ProviderSettings:
        """A provider by name."""
        try:
            return self._providers[name]
        except KeyError:
            raise SettingsError(f"no provider named {name!r}") from None

    def put_provider(self, provider: ProviderSettings) -> None:
        """Add or replace a provider (validated)."""
        if provider.name == OFFLINE_PROFILE:
            raise SettingsError(f"{OFFLINE_PROFILE!r} is reserved for the built-in rule-based analyst")
        parsed = ProviderSettings.from_json(provider.to_json())
        if provider.url_credentials and not parsed.url_credentials:
            parsed = replace(parsed, url_credentials=provider.url_credentials)
        self._providers[provider.name] = self._keep_url_credentials(parsed)

    def _keep_url_credentials(self, provider: ProviderSettings) -> ProviderSettings:
        """Move credentials found in a base URL to the keyring; the provider keeps the clean URL only."""
        if not provider.url_credentials:
            return provider
        from app.secrets import SecretStore

        SecretStore(self.get("secret_fallback")).set_url_credentials(provider.name, provider.url_credentials)
        self.url_credentials_moved = True
        return replace(provider, url_credentials=UrlCredentials())

    def _keep_team_database_credentials(self, url: str) -> str:
        """Move a password found in the team database URL to the keyring; the setting keeps the clean URL."""
        clean, creds = split_url_credentials(url)
        if not creds:
            return clean
        from app.secrets import TEAM_DATABASE, SecretStore

        if creds.username and not creds.password:  # a user name alone is no secret: it stays in the URL
            return url.strip()
        SecretStore(self.get("secret_fallback")).set_url_credentials(TEAM_DATABASE, creds)
        self.url_credentials_moved = True
        return clean

    def remove_provider(self, name: str) -> None:
        """Remove a provider and the profiles using it (its keyring entry is the caller's to delete)."""
        self._providers.pop(name, None)
        for prof in [p for p in self._profiles.values() if p.provider == name]:
            self.remove_profile(prof.name)

    @property
    def profiles(self) -> list[ModelProfileSettings]:
        """Model profiles: the built-in offline analyst first, then the configured ones."""
        return [BUILTIN_OFFLINE, *self._profiles.values()]

    def profile_names(self) -> list[str]:
        """Names of all profiles (offline first)."""
        return [p.name for p in self.profiles]

    def profile(self, name: str) -> ModelProfileSettings:
        """A profile by name (``offline`` is always there)."""
        if name == OFFLINE_PROFILE:
            return BUILTIN_OFFLINE
        try:
            return self._profiles[name]
        except KeyError:
            raise SettingsError(f"no model profile named {name!r}") from None

    def active_profile(self) -> ModelProfileSettings:
        """The profile analyses use (falls back to offline if the stored one was removed)."""
        name = self.get("active_profile")
        return self._profiles.get(name, BUILTIN_OFFLINE)

    def put_profile(self, profile: ModelProfileSettings) -> None:
        """Add or replace a profile; its provider must exist."""
        if profile.name == OFFLINE_PROFILE:
            raise SettingsError(f"{OFFLINE_PROFILE!r} is the built-in rule-based analyst and cannot be replaced")
        if profile.provider not in self._providers:
            raise SettingsError(f"model profile {profile.name!r} names an unknown provider {profile.provider!r}")
        self._profiles[profile.name] = ModelProfileSettings.from_json(profile.to_json())

    def remove_profile(self, name: str) -> None:
        """Remove a profile; the active profile falls back to offline."""
        self._profiles.pop(name, None)
        if self._values.get("active_profile") == name:
            self._values["active_profile"] = OFFLINE_PROFILE
