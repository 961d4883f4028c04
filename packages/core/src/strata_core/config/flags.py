"""On/off switches read from the environment, the way OpenCode reads its `OPENCODE_*` flags."""

from __future__ import annotations

from collections.abc import Mapping

PREFIXES = ("STRATA", "OPENCODE")


def env_flag(env: Mapping[str, str], name: str) -> bool:
    """Whether `STRATA_{name}` or `OPENCODE_{name}` is set to `1` or `true` (any case, spaces around ignored)."""
    return any(env.get(f"{prefix}_{name}", "").strip().lower() in ("1", "true") for prefix in PREFIXES)
