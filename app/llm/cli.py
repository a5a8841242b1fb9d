"""``replaysage provider …``: check that a model endpoint works, list profiles, store an API key.

``provider test`` sends one short probe and prints time to first token, tokens per second, usage and how the
reply split between reasoning and text — the quickest way for a user to see that a base URL, model id and key
work — and the context the server really runs with, warning when it is below the profile's context_length. The
key comes from ``REPLAYSAGE_API_KEY`` when set (scripts), else from the keyring.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from app.i18n import N_


def register(sub: Any) -> None:  # argparse's _SubParsersAction
    """Add the ``provider`` command."""
    parser = sub.add_parser("provider", help=N_("model providers: test an endpoint, list profiles, store a key"))
    psub = parser.add_subparsers(dest="provider_command", metavar="ACTION", required=True)

    test = psub.add_parser("test", help=N_("send one short probe and report TTFT, tokens/s, usage"))
    test.add_argument("profile", nargs="?", help=N_("model profile name from the settings"))
    test.add_argument(
        "--base-url", help=N_("endpoint base URL, e.g. https://api.deepseek.com/v1 (instead of a profile)")
    )
    test.add_argument("--model", help=N_("model id (with --base-url)"))
    test.add_argument("--max-tokens", type=int, default=256, help=N_("output limit of the probe (default 256)"))
    test.add_argument(
        "--context-length",
        type=int,
        default=None,
        help=N_("context length to compare the server's with (with --base-url)"),
    )
    test.add_argument("--no-stream", action="store_true", help=N_("request a non-streamed reply"))
    test.add_argument("--lang", help=N_("probe language: zh or en (default: system)"))
    test.add_argument("--json", action="store_true", help=N_("machine-readable output"))
    test.set_defaults(func=_cmd_test)

    lst = psub.add_parser("list", help=N_("list providers and model profiles"))
    lst.add_argument("--json", action="store_true", help=N_("machine-readable output"))
    lst.set_defaults(func=_cmd_list)

    key = psub.add_parser("set-key", help=N_("store a provider's API key in the system keyring (read from stdin)"))
    key.add_argument("provider", help=N_("provider name"))
    key.set_defaults(func=_cmd_set_key)


def _cmd_test(args: argparse.Namespace) -> int:
    import asyncio

    from app.i18n import Lang
    from app.llm.base import ChatProvider
    from app.llm.errors import ProviderConfigError

    lang = Lang.parse(args.lang)
    profile_context: int | None = args.context_length
    if args.base_url:
        if args.profile:
            raise ProviderConfigError("give either a profile name or --base-url/--model, not both")
        if not args.model:
            raise ProviderConfigError("--base-url needs --model")
        from app.llm.factory import resolve_api_key
        from app.llm.openai_compat import OpenAICompatProvider

        provider: ChatProvider = OpenAICompatProvider(
            "command line", args.base_url, args.model, api_key=resolve_api_key("", use_env=True),
            stream=not args.no_stream,
        )  # fmt: skip
    else:
        if not args.profile:
            raise ProviderConfigError("name a model profile, or give --base-url and --model")
        from app.llm.factory import build_provider
        from app.settings import Settings

        settings = Settings.load()
        provider = build_provider(settings, args.profile, use_env_key=True)
        profile_context = settings.profile(args.profile).context_length
    report = asyncio.run(
        _probe(provider, lang, args.max_tokens, False if args.no_stream else None, live=not args.json,
               profile_context=profile_context)
    )  # fmt: skip
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2, sort_keys=True))
        return 0 if report["ok"] else 2
    _print_report(report)
    if not report["ok"]:
        from app.llm.errors import ProviderError

        raise ProviderError(report["provider"], report["model"], report["error"]["message"])
    return 0


async def _probe(
    provider: Any, lang: Any, max_tokens: int, stream: bool | None, *, live: bool, profile_context: int | None = None
) -> dict[str, Any]:
    """Run the probe and read the server's context, echoing the reply as it streams when ``live``."""
    from app.llm.events import ReasoningDelta, Retrying, StreamEvent, TextDelta
    from app.llm.probe import check_connection

    def show(event: StreamEvent) -> None:
        if isinstance(event, ReasoningDelta | TextDelta):
            sys.stdout.write(event.text)
            sys.stdout.flush()
        elif isinstance(event, Retrying):
            print(f"[retry {event.attempt} in {event.delay_s:.1f} s: {event.error}]", file=sys.stderr)

    try:
        report = await check_connection(
            provider,
            lang,
            profile_context=profile_context,
            max_tokens=max_tokens,
            stream=stream,
            on_event=show if live else None,
        )
    finally:
        await provider.aclose()
    if live and (report.result.text or report.result.reasoning):
        print()
    return report.to_json()


def _print_report(r: dict[str, Any]) -> None:
    def fmt(value: Any, unit: str = "") -> str:
        return "-" if value is None else f"{value}{unit}"

    print(f"provider:        {r['provider']} / {r['model']}" + (" (rule-based)" if r["rule_based"] else ""))
    print(f"resolved model:  {r['resolved_model'] or '-'}")
    print(f"finish:          {fmt(r['finish_reason'])}" + (" (truncated)" if r["truncated"] else ""))
    print(f"attempts:        {r['attempts']}")
    print(f"TTFT:            {fmt(r['ttft_s'], ' s')}")
    print(f"tokens/s:        {fmt(r['tokens_per_s'])}")
    print(f"reasoning/text:  {r['reasoning_chars']} / {r['text_chars']} chars "
          f"({r['reasoning_deltas']} / {r['text_deltas']} deltas)")  # fmt: skip
    u = r["usage"]
    if u is None:
        print("usage:           (not reported)")
    else:
        print(f"usage:           prompt {u['prompt_tokens']} (cached {u['cached_prompt_tokens']}), "
              f"completion {u['completion_tokens']} (reasoning {u['reasoning_tokens']})")  # fmt: skip
    c = r["server_context"]
    if c is None or (c["context_length"] is None and not c["ollama_default"]):
        print("server context:  (not reported)")
    else:
        shown = "Ollama default (num_ctx not set)" if c["ollama_default"] else f"{c['context_length']:,}"
        trained = f", model maximum {c['trained_context_length']:,}" if c["trained_context_length"] else ""
        print(f"server context:  {shown} ({c['source']}{trained})")
    if r["profile_context_length"]:
        print(f"profile context: {r['profile_context_length']:,}")
    if r["context_warning"]:
        print(f"warning: {r['context_warning']}", file=sys.stderr)


def _cmd_list(args: argparse.Namespace) -> int:
    from app.secrets import SecretStore
    from app.settings import Settings

    settings = Settings.load()
    store = SecretStore(settings.get("secret_fallback"))
    active = settings.active_profile().name
    profiles = [
        {
            "name": p.name,
            "provider": p.provider,
            "model_id": p.model_id,
            "context_length": p.context_length,
            "context_budget": p.context_budget,
            "max_tokens": p.max_tokens,
            "reasoning": p.reasoning,
            "rule_based": p.rule_based,
            "active": p.name == active,
        }
        for p in settings.profiles
    ]
    providers = [
        {"name": p.name, "base_url": p.base_url, "stream": p.stream, "has_key": store.get(p.name) is not None}
        for p in settings.providers
    ]
    if args.json:
        print(json.dumps({"providers": providers, "profiles": profiles, "key_storage": store.status.value},
                         ensure_ascii=False, indent=2))  # fmt: skip
        return 0
    for p in providers:
        print(f"provider {p['name']}: {p['base_url']} (stream {'on' if p['stream'] else 'off'}, "
              f"key {'stored' if p['has_key'] else 'missing'})")  # fmt: skip
    for q in profiles:
        mark = "*" if q["active"] else " "
        kind = " [rule-based]" if q["rule_based"] else ""
        print(f"{mark} {q['name']}: {q['provider']} / {q['model_id']}, context {q['context_length']:,}{kind}")
    return 0


def _cmd_set_key(args: argparse.Namespace) -> int:
    import getpass

    from app.i18n import system_lang
    from app.secrets import SecretStore
    from app.settings import Settings

    settings = Settings.load()
    settings.provider(args.provider)  # must exist
    key = getpass.getpass("API key: ") if sys.stdin.isatty() else sys.stdin.readline()
    store = SecretStore(settings.get("secret_fallback"))
    where = store.set(args.provider, key)
    print(f"key stored ({where.value})")
    if store.degraded:
        print(store.warning(system_lang()), file=sys.stderr)
    return 0
