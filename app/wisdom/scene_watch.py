"""Scene changes: a run's model, provider, knowledge and mod version compared with the last run's.

Why it matters: knowledge learned under another scene may no longer hold, so a change lowers the weight of the
entries it affects (×0.65) and the rules built on them.
"""

from __future__ import annotations

from typing import Any

from app.wisdom.manager import ErrorWisdomManager


def observe_scene(  # noqa: PLR0917 - the gate's public signature, positional since its first caller
    manager: ErrorWisdomManager,
    model_id: str,
    model_version: str | None = None,
    provider: str | None = None,
    knowledge_hash: str | None = None,
    mod_version: str | None = None,
    *,
    mod: str | None = None,
) -> list[dict[str, Any]]:
    """Compare the current scene with the last one seen and register every change (×0.65).

    Model version change → entries of that model; model id change → entries learned without a model scope;
    provider change → everything; knowledge or mod version change → entries of that mod (everything when
    the mod is unknown). The first observation only records the scene.
    """
    st = manager.store.scene_state()
    now: dict[str, str] = {"model_id": model_id}
    if model_version is not None:
        now[f"model_version:{model_id}"] = model_version
    if provider is not None:
        now["provider"] = provider
    if knowledge_hash is not None:
        now[f"knowledge:{mod or '*'}"] = knowledge_hash
    if mod_version is not None:
        now[f"mod_version:{mod or '*'}"] = mod_version
    changes: list[dict[str, Any]] = []
    for key, value in now.items():
        old = st.get(key)
        if old is None or old == value:
            continue
        if key == "model_id":
            what = "model_change"
            out = manager.register_scene_change(
                what, f"模型 {old} → {value}", manager.store.ids_matching(unscoped=True)
            )
        elif key.startswith("model_version:"):
            what = "model_upgrade"
            out = manager.register_scene_change(what, f"{model_id} 版本 {old} → {value}", [f"model:{model_id}"])
        elif key == "provider":
            what = "provider_change"
            out = manager.register_scene_change(what, f"服务商 {old} → {value}", None)
        else:
            what = "knowledge_update" if key.startswith("knowledge:") else "mod_version_change"
            out = manager.register_scene_change(what, f"{key} {old} → {value}", [f"mod:{mod}"] if mod else None)
        changes.append(
            {
                "change_type": what,
                "key": key,
                "from": old,
                "to": value,
                "affected_entries": len(out["affected_entries"]),
                "affected_rules": len(out["affected_rules"]),
            }
        )
    manager.store.set_scene_state(now)
    return changes
