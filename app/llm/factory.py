"""Build a :class:`~app.llm.base.ChatProvider` from the settings (profile + registered factory + keyring key)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from app.llm.base import ChatProvider
from app.llm.errors import ProviderConfigError
from app.llm.registry import OPENAI_COMPAT, ProviderContext, provider_factory, register_provider
from app.secrets import ENV_API_KEY, SecretBackend, SecretStore, missing_credential_notice, notify

if TYPE_CHECKING:
    import httpx

    from app.llm.ratelimit import RateLedger
    from app.settings import ModelProfileSettings, Settings


def resolve_api_key(provider: str, secrets: SecretStore | None = None, *, use_env: bool = False) -> str | None:
    """The key for ``provider``: ``REPLAYSAGE_API_KEY`` when ``use_env`` (scripted use), else the keyring."""
    if use_env:
        env = os.environ.get(ENV_API_KEY, "").strip()
        if env:
            return env
    return (secrets or SecretStore()).get(provider)


def build_provider(
    settings: Settings,
    profile: str | ModelProfileSettings | None = None,
    *,
    secrets: SecretStore | None = None,
    client: httpx.AsyncClient | None = None,
    api_key: str | None = None,
    use_env_key: bool = False,
    rates: RateLedger | None = None,
    limits: Mapping[str, float] | None = None,
) -> ChatProvider:
    """The provider for a model profile (the active one by default), built by its registered factory.

    A rule-based profile names its provider directly (``offline``: registered by :mod:`app.analyst`); every other
    profile is a configured OpenAI-compatible endpoint (:data:`~app.llm.registry.OPENAI_COMPAT`).

    Args:
        settings: loaded settings.
        profile: a profile name or object; None uses the active profile.
        secrets: where keys are kept (default: a :class:`SecretStore` with the configured fallback).
        client: the shared HTTP client; None lets the provider own one.
        api_key: use this key instead of looking one up.
        use_env_key: let ``REPLAYSAGE_API_KEY`` override the keyring (CLI, scripts).
        rates: the ledger that shares the provider's configured rates across processes (None: this process only).
        limits: deadlines put over the provider's configured limits for this run (``analyze``/``batch`` flags).

    Raises:
        ProviderConfigError: the profile or its provider is unknown, or no factory is registered for it.
    """
    from app.settings import SettingsError

    try:
        prof = settings.active_profile() if profile is None else (
            settings.profile(profile) if isinstance(profile, str) else profile
        )  # fmt: skip
    except SettingsError as exc:
        raise ProviderConfigError(str(exc)) from exc
    name = prof.provider if prof.rule_based else OPENAI_COMPAT
    context = ProviderContext(settings, prof, secrets, client, api_key, use_env_key, rates, limits)
    return provider_factory(name)(context)


def _openai_compat(ctx: ProviderContext) -> ChatProvider:
    """A configured OpenAI-compatible endpoint (the profile's provider settings plus its key)."""
    from app.settings import SettingsError

    prof = ctx.profile
    try:
        prov = ctx.settings.provider(prof.provider)
    except SettingsError as exc:
        raise ProviderConfigError(f"model profile {prof.name!r}: {exc}") from exc
    from app.llm.openai_compat import OpenAICompatProvider
    from app.llm.ratelimit import rate_gate

    store = ctx.secrets or SecretStore(ctx.settings.get("secret_fallback"))
    key = ctx.api_key or resolve_api_key(prov.name, store, use_env=ctx.use_env_key)
    url_credentials = store.url_credentials(prov.name)
    if not key and not url_credentials and store.status is SecretBackend.SESSION:  # none outlasts a run
        notify(missing_credential_notice(prov.name))
    headers = {**prov.extra_headers, **prof.extra_headers}
    try:
        limits = prov.limits.with_overrides(ctx.limits, f"provider {prov.name!r} limits")
    except ValueError as exc:
        raise ProviderConfigError(str(exc)) from None
    return OpenAICompatProvider(
        prof.name,
        prov.base_url,
        prof.model_id,
        api_key=key,
        extra_headers=headers,
        stream=prov.stream if prof.stream is None else prof.stream,
        max_tokens=prof.max_tokens or None,
        client=ctx.client,
        limits=limits,
        url_credentials=url_credentials,
        rate_gate=rate_gate(prov.name, limits, ctx.rates),
    )


register_provider(OPENAI_COMPAT, _openai_compat)
