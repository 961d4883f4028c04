"""The leaf checks of config values: strict JSON types, each with the expectation a person reads.

cattrs converts leniently by default (`int("5")`, `str(5)`, `bool("no")` all succeed); a config value of the
wrong type must instead be refused with what would be right. Each config field names one of these checks in
its metadata (see `setting`), and the config structuring hooks call it. A check returns the value as the
field holds it (lists become tuples) or raises `ConfigValueError`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from strata_core.config.errors import ConfigValueError

Check = Callable[[Any], Any]
"""Takes a JSON value (never None: an absent or null key keeps the field's default) and returns the field's."""

CHECK = "config_check"
"""The attrs metadata key of a field's check."""
NESTED = "config_nested"
"""The attrs metadata key of a field holding a config block or a map of them: a `Nested`."""


def setting(check: Check, *, default: Any = None, factory: Callable[[], Any] | None = None, json: str = "") -> Any:
    """An attrs field read from config by `check`; `json` is the key when it differs from the attribute name."""
    metadata: dict[str, Any] = {CHECK: check}
    if json:
        metadata["json"] = json
    if factory is not None:
        return attrs.field(factory=factory, metadata=metadata)
    return attrs.field(default=default, metadata=metadata)


@attrs.frozen
class Nested:
    """What a block field holds: `kind` (a block class, or a union the converter resolves), or a map of them."""

    kind: Any
    is_map: bool
    expected: str


def block(kind: type[Any], *, optional: bool = False) -> Any:
    """An attrs field holding one config block; absent, it is the block's defaults (or None if `optional`)."""
    metadata = {NESTED: Nested(kind, False, "an object")}
    if optional:
        return attrs.field(default=None, metadata=metadata)
    return attrs.field(factory=kind, metadata=metadata)


def blocks(kind: Any, expected: str) -> Any:
    """An attrs field holding a map of names to config blocks (`agent`, `provider`, `mcp`, ...)."""
    return attrs.field(factory=dict, metadata={NESTED: Nested(kind, True, expected)})


def string(expected: str = "a string") -> Check:
    def check(value: Any) -> str:
        if not isinstance(value, str):
            raise ConfigValueError(expected, value)
        return value

    return check


def model_ref(expected: str) -> Check:
    """A `provider/model` reference, never empty: an empty string would silently mean "no model"."""

    def check(value: Any) -> str:
        if not isinstance(value, str) or not value.strip() or value.startswith("/"):
            raise ConfigValueError(expected, value)
        return value

    return check


def boolean(expected: str = "true or false") -> Check:
    def check(value: Any) -> bool:
        if not isinstance(value, bool):
            raise ConfigValueError(expected, value)
        return value

    return check


def _finite(value: Any) -> bool:
    """A JSON number Python can use: not a boolean, not NaN or an infinity (`1e400`, JSON5's `Infinity`)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def number(expected: str = "a number") -> Check:
    def check(value: Any) -> float | int:
        if not _finite(value):
            raise ConfigValueError(expected, value)
        number: float | int = value
        return number

    return check


def whole(expected: str, *, minimum: int) -> Check:
    """A whole number at least `minimum`; `3.0` counts (JSON writers may emit it), `3.5` does not."""

    def check(value: Any) -> int:
        if not _finite(value) or value != int(value) or value < minimum:
            raise ConfigValueError(expected, value)
        return int(value)

    return check


def tokens(expected: str = "a number of tokens") -> Check:
    """A non-negative token count, rounded down (models.dev-style limits are sometimes written as floats)."""

    def check(value: Any) -> int:
        if not _finite(value) or value < 0:
            raise ConfigValueError(expected, value)
        return int(value)

    return check


def one_of(*choices: str) -> Check:
    expected = "one of " + ", ".join(choices)

    def check(value: Any) -> str:
        if value not in choices:
            raise ConfigValueError(expected, value)
        return str(value)

    return check


def strings(expected: str = "a list of strings") -> Check:
    def check(value: Any) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ConfigValueError(expected, value)
        return tuple(value)

    return check


def string_map(expected: str = "an object of strings") -> Check:
    def check(value: Any) -> dict[str, str]:
        mapping: dict[str, str] = json_object(expected)(value)
        for key, item in mapping.items():
            if not isinstance(item, str):
                raise ConfigValueError("a string", item, below=(key,))
        return mapping

    return check


def bool_map(expected: str) -> Check:
    def check(value: Any) -> dict[str, bool]:
        mapping: dict[str, bool] = json_object(expected)(value)
        for key, item in mapping.items():
            if not isinstance(item, bool):
                raise ConfigValueError("true or false", item, below=(key,))
        return mapping

    return check


def json_object(expected: str = "an object") -> Check:
    """Any JSON object, kept as is: options passed through to a model call or a server."""

    def check(value: Any) -> dict[str, Any]:
        if not isinstance(value, Mapping):
            raise ConfigValueError(expected, value)
        return dict(value)

    return check


def either(*checks: Check, expected: str) -> Check:
    """The first check that accepts the value; `expected` describes them all."""

    def check(value: Any) -> Any:
        for candidate in checks:
            try:
                return candidate(value)
            except ConfigValueError:
                continue
        raise ConfigValueError(expected, value)

    return check


def exactly(literal: object, expected: str) -> Check:
    def check(value: Any) -> Any:
        if type(value) is not type(literal) or value != literal:  # 0 == False, yet `0` is not `false`
            raise ConfigValueError(expected, value)
        return value

    return check
