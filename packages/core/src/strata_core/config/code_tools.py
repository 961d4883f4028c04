"""The config's `lsp` and `formatter` keys, typed: which language servers and formatters a project turns on.

Both follow OpenCode's shape: `true` turns the built-ins on, `false` (or no key) turns everything off, and an
object of entries overrides or adds servers (which also turns the built-ins on). An entry is
`{"disabled": true}`, or a command with the file extensions it serves:

    "lsp": {"pyright": {"disabled": true}, "pylsp": {"command": ["pylsp"], "extensions": [".py"]}}
    "formatter": {"black": {"command": ["black", "$FILE"], "extensions": [".py"]}}

A formatter command names the file to format as `$FILE` (OpenCode's placeholder).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from attrs import frozen

from strata_core.config import checks as c
from strata_core.config.errors import ConfigValueError

_Entry = TypeVar("_Entry")


@frozen
class LspServerConfig:
    """`lsp.<id>`: a server to start for files with these extensions, or a built-in turned off."""

    command: tuple[str, ...] = ()
    extensions: tuple[str, ...] = ()
    env: Mapping[str, str] = {}
    initialization: Mapping[str, Any] = {}
    disabled: bool = False


@frozen
class LspConfig:
    """`lsp`: whether language servers run at all, and the entries that override or add to the built-ins."""

    enabled: bool = False
    servers: Mapping[str, LspServerConfig] = {}


@frozen
class FormatterEntryConfig:
    """`formatter.<name>`: a command run on a file after the agent wrote it, or a built-in turned off."""

    command: tuple[str, ...] = ()
    extensions: tuple[str, ...] = ()
    environment: Mapping[str, str] = {}
    disabled: bool = False


@frozen
class FormatterConfig:
    """`formatter`: whether formatters run at all, and the entries that override or add to the built-ins."""

    enabled: bool = False
    formatters: Mapping[str, FormatterEntryConfig] = {}


_COMMAND = "the command and its arguments, as a non-empty list of strings"
_EXTENSIONS = 'a list of file extensions such as [".py"]'


def _field(entry: Mapping[str, Any], key: str, check: c.Check, default: Any) -> Any:
    value = entry.get(key)
    if value is None:
        return default
    try:
        return check(value)
    except ConfigValueError as error:
        raise error.inside(key) from None


def _lsp_server(entry: Mapping[str, Any]) -> LspServerConfig:
    if _field(entry, "disabled", c.boolean(), False):
        return LspServerConfig(disabled=True)
    command = _field(entry, "command", c.strings(_COMMAND), ())
    if not command:
        raise ConfigValueError(_COMMAND, entry.get("command"), below=("command",))
    return LspServerConfig(
        command=command,
        extensions=_field(entry, "extensions", c.strings(_EXTENSIONS), ()),
        env=_field(entry, "env", c.string_map(), {}),
        initialization=_field(entry, "initialization", c.json_object(), {}),
    )


def _formatter(entry: Mapping[str, Any]) -> FormatterEntryConfig:
    if _field(entry, "disabled", c.boolean(), False):
        return FormatterEntryConfig(disabled=True)
    command = _field(entry, "command", c.strings(_COMMAND), ())
    if not command:
        raise ConfigValueError(_COMMAND, entry.get("command"), below=("command",))
    return FormatterEntryConfig(
        command=command,
        extensions=_field(entry, "extensions", c.strings(_EXTENSIONS), ()),
        environment=_field(entry, "environment", c.string_map(), {}),
    )


def _entries(value: Any, expected: str, read: Callable[[Mapping[str, Any]], _Entry]) -> dict[str, _Entry]:
    """`true`/`false`, or an object of entries each read by `read`; a wrong entry names its key."""
    entries = c.json_object(expected)(value)
    read_entries: dict[str, _Entry] = {}
    for name, entry in entries.items():
        if not isinstance(entry, Mapping):
            raise ConfigValueError("an object", entry, below=(name,))
        try:
            read_entries[name] = read(entry)
        except ConfigValueError as error:
            raise error.inside(name) from None
    return read_entries


def read_lsp(value: Any) -> LspConfig:
    """The check of an `lsp` value."""
    if isinstance(value, bool):
        return LspConfig(enabled=value)
    return LspConfig(True, _entries(value, "true, false, or an object of language servers", _lsp_server))


def read_formatter(value: Any) -> FormatterConfig:
    """The check of a `formatter` value."""
    if isinstance(value, bool):
        return FormatterConfig(enabled=value)
    return FormatterConfig(True, _entries(value, "true, false, or an object of formatters", _formatter))
