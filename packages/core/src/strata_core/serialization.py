"""The one cattrs converter: storage, export/import and config data all go through it.

It renames fields to their OpenCode JSON names (`json` field metadata), drops `None` values the way
OpenCode's JSON omits absent optionals, and resolves the tagged unions (parts by `type`, tool states by
`status`, messages by `role`).
"""

from __future__ import annotations

import json
from typing import Any, TypeVar, get_args

import attrs
import cattrs
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

from strata_core import message as m
from strata_core import session_info
from strata_core.errors import StrataError

T = TypeVar("T")

converter = cattrs.Converter(omit_if_default=False)


def _renamed(cls: type[Any]) -> dict[str, Any]:
    return {a.name: override(rename=a.metadata["json"]) for a in attrs.fields(cls) if "json" in a.metadata}


def _unstructure_fn(cls: type[Any]) -> Any:
    unstructure = make_dict_unstructure_fn(cls, converter, **_renamed(cls))

    def unstructure_without_none(value: Any) -> dict[str, Any]:
        return {k: v for k, v in unstructure(value).items() if v is not None}

    return unstructure_without_none


def _structure_fn(cls: type[Any]) -> Any:
    return make_dict_structure_fn(cls, converter, **_renamed(cls))


def _register_tagged_union(union: Any, tag: str) -> None:
    by_tag: dict[str, Any] = {str(attrs.fields_dict(cls)[tag].default): cls for cls in get_args(union)}

    def structure(value: Any, _: Any) -> Any:
        if not isinstance(value, dict) or value.get(tag) not in by_tag:
            raise ValueError(f"expected an object with {tag!r} one of {sorted(by_tag)}, got {value!r:.200}")
        return converter.structure(value, by_tag[value[tag]])

    converter.register_structure_hook(union, structure)


# Tokens use OpenCode's nested `cache: {read, write}` shape on the wire.
_tokens_fields = ("input", "output", "reasoning")


def _unstructure_tokens(tokens: m.Tokens) -> dict[str, Any]:
    out: dict[str, Any] = {k: getattr(tokens, k) for k in _tokens_fields}
    out["cache"] = {"read": tokens.cache_read, "write": tokens.cache_write}
    if tokens.total is not None:
        out["total"] = tokens.total
    return out


def _structure_tokens(value: Any, _: Any) -> m.Tokens:
    cache = value.get("cache") or {}
    return m.Tokens(
        input=int(value.get("input") or 0),
        output=int(value.get("output") or 0),
        reasoning=int(value.get("reasoning") or 0),
        cache_read=int(cache.get("read") or 0),
        cache_write=int(cache.get("write") or 0),
        total=value.get("total"),
    )


converter.register_unstructure_hook(m.Tokens, _unstructure_tokens)
converter.register_structure_hook(m.Tokens, _structure_tokens)

# MessageError is stored as OpenCode does: {name, data: {message, ...}}.


def _unstructure_error(error: m.MessageError) -> dict[str, Any]:
    return {"name": error.name, "data": {"message": error.message, **error.data}}


def _structure_error(value: Any, _: Any) -> m.MessageError:
    data = dict(value.get("data") or {})
    message = str(data.pop("message", "") or value.get("message") or "")
    return m.MessageError(name=str(value.get("name", "UnknownError")), message=message, data=data)


converter.register_unstructure_hook(m.MessageError, _unstructure_error)
converter.register_structure_hook(m.MessageError, _structure_error)

_ATTRS_CLASSES: frozenset[type[Any]] = frozenset(
    {
        m.ModelRef,
        m.PathInfo,
        m.MessageTime,
        m.PartTime,
        m.OutputFormat,
        m.ToolCompletedTime,
        *get_args(m.ToolState),
        *get_args(m.Part),
        *get_args(m.Message),
        session_info.SessionTime,
        session_info.SessionModel,
        session_info.SessionInfo,
    }
)

# Hook factories: cattrs generates (and caches) a class's functions the first time that class is converted.
# Generating all ~25 pairs up front cost ~24 ms at import, paid by every `strata` start-up.
converter.register_unstructure_hook_factory(_ATTRS_CLASSES.__contains__, _unstructure_fn)
converter.register_structure_hook_factory(_ATTRS_CLASSES.__contains__, _structure_fn)

_register_tagged_union(m.ToolState, "status")
_register_tagged_union(m.Part, "type")
_register_tagged_union(m.Message, "role")


def unstructure(value: Any) -> Any:
    return converter.unstructure(value)


def structure(value: Any, cls: Any) -> Any:
    return converter.structure(value, cls)


def part_to_json(part: m.Part) -> str:
    return json.dumps(converter.unstructure(part), ensure_ascii=False, separators=(",", ":"))


def part_from_json(text: str) -> m.Part:
    return part_from_data(json.loads(text))


class PartShapeError(StrataError, ValueError):
    """Data that is not a part Strata can store (a client's edit, say): what does not fit, in one line."""


def part_from_data(data: Any) -> m.Part:
    """A part from OpenCode's JSON shape; `PartShapeError` names the first field that does not fit."""
    try:
        part: m.Part = converter.structure(data, m.Part)  # type: ignore[arg-type]
    except Exception as error:  # cattrs raises an exception group, a KeyError or a ValueError
        raise PartShapeError(_first_problem(error)) from None
    return part


def _first_problem(error: BaseException) -> str:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    notes = [note for note in getattr(error, "__notes__", []) if isinstance(note, str)]
    where = f" ({notes[0]})" if notes else ""
    return f"{type(error).__name__}: {error}{where}"


def message_to_json(message: m.Message) -> str:
    return json.dumps(converter.unstructure(message), ensure_ascii=False, separators=(",", ":"))


def message_from_json(text: str) -> m.Message:
    message: m.Message = converter.structure(json.loads(text), m.Message)  # type: ignore[arg-type]
    return message


def session_to_json(info: session_info.SessionInfo) -> str:
    return json.dumps(converter.unstructure(info), ensure_ascii=False, separators=(",", ":"))


def session_from_json(text: str) -> session_info.SessionInfo:
    return converter.structure(json.loads(text), session_info.SessionInfo)
