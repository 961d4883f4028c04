"""OpenCode's `mergeDeep`: how config layers, agent options and provider options combine."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def merge_deep(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """Objects merge key by key, anything else is replaced; a key keeps the position it first had.

    Position matters for `permission`, where later keys win: this is JavaScript's object order, which is
    what OpenCode's `mergeDeep` gives.
    """
    merged = dict(base)
    for key, value in override.items():
        current = merged.get(key)
        if isinstance(current, Mapping) and isinstance(value, Mapping):
            merged[key] = merge_deep(current, value)
        else:
            merged[key] = value
    return merged
