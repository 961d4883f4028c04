"""Frontmatter values as JSON: what OpenCode gets from its JS YAML parse once the value is sent as JSON.

PyYAML reads types JSON does not have (dates, `!!binary`, `!!set`, `.nan`). An agent's frontmatter keys that
are not agent keys become model options, encoded into every request, so each value is made JSON-safe where the
file is read, not where the request is built: a bad value is then a config error naming the file and the key.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from strata_core.config.errors import ConfigError


def json_values(data: Mapping[str, Any], path: Path) -> dict[str, Any]:
    """`data` (checked frontmatter) with every value in its JSON form; `path` names the file in errors."""
    return {key: _json_value(value, path, key) for key, value in data.items()}


def _json_value(value: Any, path: Path, key_path: str) -> Any:
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None  # JSON.stringify(NaN) and of Infinity give null
    if isinstance(value, date):
        return js_iso_string(value)
    if isinstance(value, Mapping):
        return {_json_key(k, path, key_path): _json_value(v, path, f"{key_path}.{k}") for k, v in value.items()}
    if isinstance(value, set | frozenset):
        # js-yaml reads `!!set` as an object whose values are null.
        return {_json_key(k, path, key_path): None for k in value}
    if isinstance(value, list | tuple):  # a tuple is an `!!omap` or `!!pairs` entry
        return [_json_value(item, path, f"{key_path}[{index}]") for index, item in enumerate(value)]
    raise _no_json_form(value, path, key_path)


def _json_key(key: Any, path: Path, key_path: str) -> str:
    """A mapping key as JavaScript names it: every object key there is a string."""
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool):
        return {None: "null", True: "true", False: "false"}[key]
    if isinstance(key, int | float):
        return str(key)
    if isinstance(key, date):
        return js_iso_string(key)
    raise ConfigError(
        f"{path}: {key_path}: a YAML {_kind(key)} cannot be a key; keys must be text or numbers",
        path=path,
        key_path=key_path,
    )


def js_iso_string(value: date) -> str:
    """A YAML date or time as JavaScript's `Date.toJSON()` gives it: UTC, milliseconds, `Z`."""
    if not isinstance(value, datetime):
        value = datetime(value.year, value.month, value.day, tzinfo=UTC)
    elif value.tzinfo is None:
        value = value.replace(tzinfo=UTC)  # YAML: a time without a zone is UTC
    moment = value.astimezone(UTC)
    day = f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"
    return f"{day}T{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}.{moment.microsecond // 1000:03d}Z"


def _no_json_form(value: Any, path: Path, key_path: str) -> ConfigError:
    return ConfigError(
        f"{path}: {key_path}: a YAML {_kind(value)} value cannot be sent as a model option (it has no JSON form); "
        "write it as text, a number, a list or a mapping",
        path=path,
        key_path=key_path,
    )


def _kind(value: Any) -> str:
    if isinstance(value, bytes | bytearray):
        return "binary (`!!binary`)"
    if isinstance(value, list | tuple):
        return "list"
    if isinstance(value, Mapping):
        return "mapping"
    return type(value).__name__
