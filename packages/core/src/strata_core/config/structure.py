"""JSON config to `ConfigBlocks`, through the one cattrs converter, and its failures to `ConfigError`s.

The hooks registered here on `strata_core.serialization.converter` read each config field by its check
(`config/checks.py`), keep unknown keys in a block's `extra`, resolve `mcp` servers by their `type` tag and
`permission` values by `permission.rules.parse_permission`. When cattrs gathers a failure, the exception's
notes give the path to it; `config_error` turns the first into one sentence:
`<file>: compaction.reserved: expected a whole number of tokens, got "abc"`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar, cast, get_args

import attrs
from cattrs.errors import IterableValidationNote
from cattrs.gen import make_dict_structure_fn, override

from strata_core.config import provider_schema as p
from strata_core.config import schema as s
from strata_core.config.checks import CHECK, NESTED
from strata_core.config.errors import MISSING, ConfigError, ConfigValueError, shown
from strata_core.config.locate import locate
from strata_core.serialization import converter

__all__ = ["config_error", "config_keys", "structure_block", "structure_config"]

T = TypeVar("T")

BLOCKS: tuple[type[Any], ...] = (
    s.AgentConfig,
    s.CompactionConfig,
    s.ToolOutputConfig,
    s.SkillsConfig,
    s.ExperimentalConfig,
    s.CommandConfig,
    s.McpLocalConfig,
    s.McpRemoteConfig,
    s.McpSwitch,
    s.ConfigBlocks,
    p.ModelLimitConfig,
    p.ModalitiesConfig,
    p.ModelProviderConfig,
    p.ModelConfig,
    p.ProviderOptions,
    p.ProviderConfig,
)
EXTRA = "extra"


def structure_config(data: Mapping[str, Any], source: Path | None = None) -> s.ConfigBlocks:
    """`data` (one file's JSON, or every source merged) as typed blocks; `source` names the file in errors."""
    return structure_block(data, s.ConfigBlocks, source)


def structure_block(
    value: Any, cls: type[T], source: Path | None, *, at: tuple[str, ...] = (), text: str | None = None
) -> T:
    """`value` as the block `cls`, found in `source` at key path `at` (how errors name the place); with the
    source's `text`, errors also give the line and column of the bad value."""
    try:
        return converter.structure(value, cls)
    except Exception as error:
        raise config_error(error, source, at, text) from error


def config_keys(cls: type[Any]) -> frozenset[str]:
    """The JSON keys a block reads (not `extra`)."""
    return frozenset(_json_name(a) for a in attrs.fields(cls) if a.name != EXTRA)


def config_error(
    error: BaseException, source: Path | None, at: tuple[str, ...] = (), text: str | None = None
) -> ConfigError:
    """The first failure cattrs gathered, as one sentence naming the file (and line:column when `text` is
    given), the key path and the expectation."""
    keys, leaf = next(_failures(error, at))
    if isinstance(leaf, ConfigValueError):
        keys, expected, got = (*keys, *leaf.below), leaf.expected, shown(leaf.value)
    else:  # a defect in a hook rather than a bad value; say what happened rather than hide it
        expected, got = "a valid value", f"{type(leaf).__name__}: {leaf}"
    key_path = ".".join(keys) or "(top level)"
    where = str(source) if source is not None else "config"
    # A missing key has no position of its own: point at the nearest enclosing value that is there.
    positions = (locate(text, keys[:depth]) for depth in range(len(keys), 0, -1)) if text is not None else ()
    line, column = next((found for found in positions if found), (None, None))
    if line is not None:
        where += f":{line}:{column}"
    return ConfigError(
        f"{where}: {key_path}: expected {expected}, got {got}",
        path=source,
        line=line,
        column=column,
        key_path=key_path,
        expected=expected,
    )


def _failures(error: BaseException, keys: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], BaseException]]:
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from _failures(inner, (*keys, *_note_keys(inner)))
    else:
        yield keys, error


def _note_keys(error: BaseException) -> tuple[str, ...]:
    keys: list[str] = []
    for note in getattr(error, "__notes__", ()):
        if isinstance(note, IterableValidationNote):
            keys.append(str(note.index))
        elif hasattr(note, "name"):  # AttributeValidationNote: the Python name, shown as the JSON key
            keys.append(_JSON_NAMES.get(note.name, note.name))
    return tuple(keys)


# ---------------------------------------------------------------------------------------------------------
# Hooks.


def _json_name(field: attrs.Attribute[Any]) -> str:
    return str(field.metadata.get("json", field.name))


_JSON_NAMES: dict[str, str] = {
    a.name: _json_name(a) for cls in BLOCKS for a in attrs.fields(cls) if "json" in a.metadata
}


def _block_structure_fn(cls: type[Any]) -> Callable[[Any, Any], Any]:
    attrs.resolve_types(cls)
    fields = attrs.fields(cls)
    overrides = {a.name: override(rename=_json_name(a), struct_hook=_field_hook(a)) for a in fields}
    generated = make_dict_structure_fn(cls, converter, **overrides)  # type: ignore[arg-type]
    known = config_keys(cls)
    keeps_extra = any(a.name == EXTRA for a in fields)

    def structure(value: Any, _: Any) -> Any:
        if not isinstance(value, Mapping):
            raise ConfigValueError("an object", value)
        data = {key: item for key, item in value.items() if key in known}
        if keeps_extra:
            data[EXTRA] = {key: item for key, item in value.items() if key not in known}
        return generated(data, cls)

    return structure


def _field_hook(field: attrs.Attribute[Any]) -> Callable[[Any, Any], Any]:
    """How one field is read: None (an absent or null key) keeps the default; otherwise its check, or the
    converter for a nested block after making sure the value is an object."""
    default: Any = field.default

    def fallback() -> Any:
        return default.factory() if isinstance(default, attrs.Factory) else default  # type: ignore[arg-type]

    if CHECK in field.metadata:
        check = field.metadata[CHECK]

        def checked(value: Any, _: Any) -> Any:
            return fallback() if value is None else check(value)

        return checked
    expected, kind = field.metadata[NESTED], field.type

    def structured(value: Any, _: Any) -> Any:
        if value is None:
            return fallback()
        if not isinstance(value, Mapping):
            raise ConfigValueError(expected, value)
        return converter.structure(value, _without_none(kind))

    return structured


def _without_none(kind: Any) -> Any:
    args = [arg for arg in get_args(kind) if arg is not type(None)]
    return args[0] if type(None) in get_args(kind) and len(args) == 1 else kind


_MCP_TYPES: dict[str, type[Any]] = {"local": s.McpLocalConfig, "remote": s.McpRemoteConfig}
_MCP_REQUIRED = {
    "local": ("command", "the command and its arguments, as a list of strings"),
    "remote": ("url", "a URL"),
}
_MCP_EXPECTED = 'an object with "type" local or remote (or only "enabled")'


def _structure_mcp(value: Any, _: Any) -> s.McpServerConfig:
    if not isinstance(value, Mapping):
        raise ConfigValueError(_MCP_EXPECTED, value)
    kind = value.get("type")
    if kind is None and set(value) <= {"enabled"}:
        return converter.structure(value, s.McpSwitch)
    if kind not in _MCP_TYPES:
        raise ConfigValueError("local or remote", MISSING if kind is None else kind, below=("type",))
    required, expected = _MCP_REQUIRED[kind]
    if value.get(required) is None:
        raise ConfigValueError(expected, MISSING, below=(required,))
    return cast(s.McpServerConfig, converter.structure(value, _MCP_TYPES[kind]))


converter.register_structure_hook_factory(lambda cls: cls in BLOCKS, _block_structure_fn)
converter.register_structure_hook(s.PermissionConfig, lambda value, _: s.read_permission(value))
converter.register_structure_hook(s.McpServerConfig, _structure_mcp)
