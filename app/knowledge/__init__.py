"""Game knowledge per mod: entries (units, structures, upgrades, powers, protocols), taxonomy, prompt text.

Public API (imported lazily so the replay reader, which only needs :func:`hash_names`, stays fast):

* :func:`hash_names` — ``hash -> internal name`` for a header mod name (cached);
* :func:`load_knowledge` / :func:`load_with_user_knowledge` — a :class:`Knowledge` with lookups by hash, name or
  alias, ``faction_of``, kind/tag queries and producers;
* :func:`render_prompt` / :func:`prompt_for_replay` / :func:`replay_factions` — the faction-filtered prompt text;
* errors: :class:`KnowledgeError`, :class:`MalformedKnowledgeError`, :class:`UnknownModError` (all ``KnownError``).
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "hash_names": "app.knowledge.names",
    "knowledge_mod": "app.knowledge.names",
    "load_knowledge": "app.knowledge.loader",
    "load_with_user_knowledge": "app.knowledge.loader",
    "user_knowledge_path": "app.knowledge.files",
    "Knowledge": "app.knowledge.model",
    "Entry": "app.knowledge.model",
    "LoadReport": "app.knowledge.model",
    "render_prompt": "app.knowledge.render",
    "prompt_for_replay": "app.knowledge.render",
    "replay_factions": "app.knowledge.render",
    "KnowledgeError": "app.knowledge.errors",
    "MalformedKnowledgeError": "app.knowledge.errors",
    "UnknownModError": "app.knowledge.errors",
}

__all__ = [
    "Entry",
    "Knowledge",
    "KnowledgeError",
    "LoadReport",
    "MalformedKnowledgeError",
    "UnknownModError",
    "hash_names",
    "knowledge_mod",
    "load_knowledge",
    "load_with_user_knowledge",
    "prompt_for_replay",
    "render_prompt",
    "replay_factions",
    "user_knowledge_path",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'app.knowledge' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
