"""API keys: kept in the OS keyring only, with an explicit, visible fallback when the machine has none.

A headless Linux box (and some minimal desktops) has no keyring backend: ``keyring`` then picks its *fail*
backend and ``set_password`` raises ``NoKeyringError`` (engineering notes §1.13). We never silently write the key
somewhere else. The fallback is a setting (``secret_fallback``):

* ``session`` (default): the key is held in this process's memory only and asked for again next start;
* ``file``: a JSON file with mode 0600 in the user data folder — readable by anyone with access to the account.

Either way :attr:`SecretStore.status` and :meth:`SecretStore.warning` tell the UI to show a warning. Keys never
appear in ``repr``, logs, the settings file or the database.

"Session" means this process: every :class:`SecretStore` shares one memory, so a credential moved out of the
settings file when they are loaded still reaches the provider or team database that the same run builds later.
What does not outlast the run is said, not left to fail quietly at the next one: :func:`notify` hands a notice to
the front end (the CLI prints it on stderr), naming what was kept only in memory, what is missing now, and where
a key can live instead (``REPLAYSAGE_API_KEY``, ``REPLAYSAGE_DATABASE_URL``, a keyring backend, or the ``file``
fallback).
"""

from __future__ import annotations

import contextlib
import enum
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from app.i18n import Lang, pick, system_lang, tr
from app.urls import UrlCredentials

SERVICE = "ReplaySage"
ENV_API_KEY = "REPLAYSAGE_API_KEY"
FALLBACK_FILE = "secrets-fallback.json"
TEAM_DATABASE = "team-database"
"""The account (next to the providers') under which the team database URL's password is kept."""


class Notice(str):
    """A notice's text in the system language (what the CLI prints), with both languages for a GUI to pick."""

    zh: str
    en: str

    def __new__(cls, zh: str, en: str) -> Notice:
        """The notice in both languages; as a string, in the system language."""
        self = super().__new__(cls, pick(system_lang(), zh, en))
        self.zh, self.en = zh, en
        return self

    def __reduce__(self) -> tuple[type[Notice], tuple[str, str]]:  # a worker process sends notices over a pipe
        return Notice, (self.zh, self.en)

    def text(self, lang: Lang) -> str:
        """The notice in ``lang``."""
        return pick(lang, self.zh, self.en)


_SESSION: dict[str, str] = {}
"""Keys held in this process's memory only (no keyring, ``session`` fallback), shared by every store."""
_notices: list[str] = []
_sink: Callable[[str], None] | None = None


def notify(text: str) -> None:
    """Tell the user about a credential (kept for this run only, or missing): to the sink, else kept for later."""
    if _sink is not None:
        _sink(text)
    elif text not in _notices:
        _notices.append(text)


def set_notice_sink(sink: Callable[[str], None] | None) -> None:
    """Where notices go from now on (the CLI: stderr); notices given before are passed to it at once."""
    global _sink  # noqa: PLW0603 - one front end per process decides where notices go
    _sink = sink
    if sink is not None:
        for text in take_notices():
            sink(text)


def session_keys() -> dict[str, str]:
    """The keys this process holds in memory only, for a worker process it starts (through a pipe, never a file)."""
    return dict(_SESSION)


def seed_session(keys: dict[str, str], *, replace: bool = False) -> None:
    """In a worker process: hold the keys its parent held in memory (see :func:`session_keys`).

    ``replace``: forget the keys held before (a long-lived worker follows its front end: a key removed there is
    gone here too).
    """
    if replace:
        _SESSION.clear()
    _SESSION.update(keys)


def take_notices() -> list[str]:
    """The notices not yet shown (a GUI shows them), and forget them."""
    out = list(_notices)
    _notices.clear()
    return out


def _where_keys_live(lang: Lang) -> str:
    return tr(
        lang,
        "set {env_api_key} (REPLAYSAGE_DATABASE_URL for the team database), install a keyring "
        "backend (e.g. the Secret Service), or set secret_fallback to file (a plain-text file "
        "only your account can read)",
        env_api_key=ENV_API_KEY,
    )


def _account_title(account: str, lang: Lang) -> str:
    name, _, part = account.partition("#")
    if name == TEAM_DATABASE:
        return tr(lang, "the password of the team database URL")
    if part == "url":
        return tr(lang, "the credential in the base URL of provider {name!r}", name=name)
    return tr(lang, "the API key of provider {name!r}", name=name)


def missing_credential_notice(account: str) -> Notice:
    """The notice for a credential that should be there but is not (no keyring kept it from an earlier run)."""
    zh, en = Lang.ZH, Lang.EN
    return Notice(
        f"未找到{_account_title(account, zh)}：本机没有系统钥匙串，之前输入的密钥只在那次运行中有效，"
        f"本次请求不带凭据。{_where_keys_live(zh)}。",
        f"{_account_title(account, en)} was not found: this computer has no system keyring, so a key given in an "
        f"earlier run lasted only for that run, and this run sends none. To keep one, {_where_keys_live(en)}.",
    )


class SecretBackend(enum.StrEnum):
    """Where keys are actually kept."""

    KEYRING = "keyring"
    SESSION = "session"  # no keyring: memory only, lost at exit
    FILE = "file"  # no keyring: 0600 file, the user opted in


def _account(provider: str) -> str:
    return f"provider:{provider}"


class SecretStore:
    """Get and set provider API keys.

    Args:
        fallback: what to do without a keyring backend: ``session`` or ``file``.
        fallback_dir: folder of the 0600 fallback file (default: the user data folder).
    """

    def __init__(
        self, fallback: Literal["session", "file"] | str = "session", fallback_dir: Path | None = None
    ) -> None:
        self._fallback = SecretBackend.FILE if fallback == "file" else SecretBackend.SESSION
        self._dir = fallback_dir
        self._memory = _SESSION
        self._backend: SecretBackend | None = None

    def __repr__(self) -> str:
        return f"SecretStore(backend={self.status.value}, keys=<{len(self._memory)} in memory, masked>)"

    # -- backend detection ----------------------------------------------------------------------------------

    @property
    def status(self) -> SecretBackend:
        """The backend in use (detected once)."""
        if self._backend is None:
            self._backend = SecretBackend.KEYRING if keyring_available() else self._fallback
        return self._backend

    @property
    def degraded(self) -> bool:
        """True when keys are not in an OS keyring: the UI must show :meth:`warning`."""
        return self.status is not SecretBackend.KEYRING

    def warning(self, lang: Lang) -> str:
        """The warning to show when degraded (empty otherwise)."""
        if self.status is SecretBackend.SESSION:
            return tr(
                lang,
                "No system keyring found: API keys are kept in memory for this session only and must be "
                "re-entered after a restart.",
            )
        if self.status is SecretBackend.FILE:
            return tr(
                lang,
                "No system keyring found: API keys are stored in plain text in a file only your account "
                "can read ({file_path}).",
                file_path=self._file_path(),
            )
        return ""

    # -- operations -----------------------------------------------------------------------------------------

    def get(self, provider: str) -> str | None:
        """The key of ``provider``, or None."""
        if provider in self._memory:
            return self._memory[provider]
        if self.status is SecretBackend.KEYRING:
            import keyring
            import keyring.errors

            try:
                value: str | None = keyring.get_password(SERVICE, _account(provider))
            except keyring.errors.KeyringError:
                return None
            return value
        if self.status is SecretBackend.FILE:
            return self._read_file().get(provider)
        return None

    def set(self, provider: str, key: str) -> SecretBackend:
        """Store a key; returns where it went (the UI warns unless ``KEYRING``)."""
        key = key.strip()
        if not key:
            self.delete(provider)
            return self.status
        if self.status is SecretBackend.KEYRING:
            import keyring
            import keyring.errors

            try:
                keyring.set_password(SERVICE, _account(provider), key)
                return SecretBackend.KEYRING
            except keyring.errors.KeyringError:
                self._backend = self._fallback  # the backend broke (locked, dbus gone): degrade visibly
        if self.status is SecretBackend.FILE:
            data = self._read_file()
            data[provider] = key
            self._write_file(data)
        else:
            self._memory[provider] = key
            notify(self._session_notice(provider))
        return self.status

    def _session_notice(self, account: str) -> Notice:
        zh, en = Lang.ZH, Lang.EN
        return Notice(
            f"本机没有系统钥匙串：{_account_title(account, zh)}只保存在本次运行的内存中，不写入任何文件"
            f"（设置文件里也没有），下次运行将不带凭据。{_where_keys_live(zh)}。",
            f"no system keyring: {_account_title(account, en)} is kept in this run's memory only and written "
            f"nowhere (not in the settings file either), so the next run will send none. To keep it, "
            f"{_where_keys_live(en)}.",
        )

    def set_url_credentials(self, provider: str, credentials: UrlCredentials) -> SecretBackend:
        """Keep the credentials that were inside a provider's base URL (see :mod:`app.urls`)."""
        return self.set(url_credentials_account(provider), credentials.to_json())

    def url_credentials(self, provider: str) -> UrlCredentials:
        """The credentials kept for a provider's base URL (empty when none)."""
        return UrlCredentials.from_json(self.get(url_credentials_account(provider)))

    def delete(self, provider: str) -> None:
        """Forget the key of ``provider`` everywhere we may have put it."""
        self._memory.pop(provider, None)
        if self.status is SecretBackend.KEYRING:
            import keyring
            import keyring.errors

            with contextlib.suppress(keyring.errors.KeyringError):
                keyring.delete_password(SERVICE, _account(provider))
        path = self._file_path()
        if path.exists():
            data = self._read_file()
            if data.pop(provider, None) is not None:
                self._write_file(data)

    # -- 0600 file -------------------------------------------------------------------------------------------

    def _file_path(self) -> Path:
        if self._dir is not None:
            return self._dir / FALLBACK_FILE
        from app.paths import user_data_dir

        return user_data_dir() / FALLBACK_FILE

    def _read_file(self) -> dict[str, str]:
        path = self._file_path()
        try:
            data: Any = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def _write_file(self, data: dict[str, str]) -> None:
        path = self._file_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)


def url_credentials_account(provider: str) -> str:
    """The name under which a provider's base-URL credentials are kept (next to its API key)."""
    return f"{provider}#url"


def keyring_available() -> bool:
    """True when ``keyring`` has a usable backend (not the *fail* or *null* backend)."""
    try:
        import keyring
        from keyring.backends import fail
    except ImportError:
        return False
    try:
        backend = keyring.get_keyring()
    except Exception:  # a broken backend configuration is "no keyring"
        return False
    if isinstance(backend, fail.Keyring):
        return False
    with contextlib.suppress(ImportError):
        from keyring.backends import null

        if isinstance(backend, null.Keyring):
            return False
    priority = getattr(backend, "priority", 1)
    return not (isinstance(priority, int | float) and priority <= 0)


def mask(key: str | None) -> str:
    """A display form of a key that reveals nothing useful (``sk-…wxyz`` style, at most the last 4 characters)."""
    if not key:
        return "(none)"
    if len(key) < 12:
        return "****"
    return f"{key[:3]}…{key[-4:]}"
