"""Provider registry: a provider name → a factory that builds the :class:`~app.llm.base.ChatProvider`.

Why: :mod:`app.llm` holds providers only. Providers that live elsewhere (the rule-based analyst in
:mod:`app.analyst`) register themselves here, so the provider layer never imports them and
:func:`app.llm.factory.build_provider` has one lookup instead of special cases. The OpenAI-compatible client
registers itself under :data:`OPENAI_COMPAT` (every configured endpoint uses it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.llm.base import ChatProvider
from app.llm.errors import ProviderConfigError

if TYPE_CHECKING:
    import httpx

    from app.llm.ratelimit import RateLedger
    from app.secrets import SecretStore
    from app.settings import ModelProfileSettings, Settings

OPENAI_COMPAT = "openai_compat"
"""The registry name of the OpenAI-compatible HTTP client (all configured endpoints)."""


@dataclass(frozen=True, slots=True)
class ProviderContext:
    """What a factory may use to build a provider for one model profile.

    Attributes:
        settings: loaded settings.
        profile: the model profile to build for.
        secrets: where keys are kept (None: the default store).
        client: the shared HTTP client (None lets an HTTP provider own one).
        api_key: use this key instead of looking one up.
        use_env_key: let ``REPLAYSAGE_API_KEY`` override the keyring (CLI, scripts).
        rates: where the provider's request rate is shared (the store's ledger; None: this process only).
        limits: limits put over the provider's configured ones for this run (the command line's deadline flags),
            by :class:`~app.stream_limits.StreamLimits` field name.
    """

    settings: Settings
    profile: ModelProfileSettings
    secrets: SecretStore | None = None
    client: httpx.AsyncClient | None = None
    api_key: str | None = None
    use_env_key: bool = False
    rates: RateLedger | None = None
    limits: Mapping[str, float] | None = None


ProviderFactory = Callable[[ProviderContext], ChatProvider]

_FACTORIES: dict[str, ProviderFactory] = {}


def register_provider(name: str, factory: ProviderFactory) -> None:
    """Register (or replace) the factory of provider ``name``; registering the same factory again is a no-op."""
    _FACTORIES[name] = factory


def provider_factory(name: str) -> ProviderFactory:
    """The factory registered under ``name``.

    Raises:
        ProviderConfigError: nothing is registered under that name.
    """
    try:
        return _FACTORIES[name]
    except KeyError:
        known = ", ".join(sorted(_FACTORIES)) or "none"
        raise ProviderConfigError(f"no provider named {name!r} is registered (registered: {known})") from None


def registered_providers() -> tuple[str, ...]:
    """The registered names, sorted (:mod:`app.llm.factory` registers :data:`OPENAI_COMPAT` when imported)."""
    return tuple(sorted(_FACTORIES))
