"""JSON Schema for tool parameters, derived from Python types and a function's signature.

`type_schema` maps one annotation; `function_schema` reads a whole function: one property per parameter
(its description from the docstring's `Args:` section), required unless it has a default, and an
optional first `ToolContext` parameter left out, since the runner passes it, not the model.

Supported: `str`, `int`, `float`, `bool`, `None`, `Any`, `Literal[...]`, `Enum` classes with JSON values,
`list`/`Sequence`/`set`/`tuple`/`dict`/`Mapping` of those, unions (`X | None` included), attrs classes and
TypedDicts (field descriptions from their docstring's `Attributes:` section). Nested classes are inlined,
so a recursive type is refused rather than sent as `$ref`s some providers do not follow.
"""

from __future__ import annotations

import collections.abc as abc
import enum
import inspect
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Literal, Union, get_args, get_origin

import attrs
from attrs import frozen

from strata_core.errors import StrataError
from strata_core.tool.contract import ToolContext
from strata_core.tool.docstring import parse_docstring

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

_PRIMITIVES: dict[Any, str] = {str: "string", bool: "boolean", int: "integer", float: "number"}
_ARRAYS = (list, abc.Sequence, abc.MutableSequence, set, frozenset, abc.Set, abc.MutableSet)
_OBJECTS = (dict, abc.Mapping, abc.MutableMapping)
_SUPPORTED = (
    "str, int, float, bool, None, Any, a Literal, an Enum, a list, tuple, set or dict of those, "
    "a union of those, an attrs class or a TypedDict"
)


class ToolDefinitionError(StrataError):
    """A function that cannot become a tool: an unannotated or unsupported parameter, `*args`, a bad name."""


def object_schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    """The top level of a tool's parameters, in the dialect and key order OpenCode sends."""
    return {"$schema": SCHEMA_DIALECT, "type": "object", "properties": properties, "required": required}


def type_schema(annotation: Any) -> dict[str, Any]:
    """The JSON Schema of values of `annotation`; `TypeError` for a type JSON cannot carry."""
    return _schema(annotation, ())


def _schema(annotation: Any, seen: tuple[type, ...]) -> dict[str, Any]:
    annotation = _unannotated(annotation)
    origin = get_origin(annotation)
    if annotation is Any or annotation is object:
        return {}
    if annotation is None or annotation is type(None):
        return {"type": "null"}
    if annotation in _PRIMITIVES:
        return {"type": _PRIMITIVES[annotation]}
    if origin is Literal:
        return _enum(get_args(annotation))
    if origin is Union or origin is types.UnionType:
        return {"anyOf": [_schema(member, seen) for member in get_args(annotation)]}
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return _enum(tuple(member.value for member in annotation))
    if typing.is_typeddict(annotation):
        return _typed_dict(annotation, seen)
    if isinstance(annotation, type) and attrs.has(annotation):
        return _attrs_class(annotation, seen)
    container = origin or annotation
    if container is tuple:
        return _tuple(get_args(annotation), seen)
    if container in _ARRAYS:
        return _array(container, get_args(annotation), seen)
    if container in _OBJECTS:
        return _mapping(get_args(annotation), seen)
    raise TypeError(f"{_shown(annotation)} has no JSON Schema; use {_SUPPORTED}")


def _unannotated(annotation: Any) -> Any:
    # `Annotated[int, ...]` is an int here; its metadata is for other tools.
    while get_origin(annotation) is typing.Annotated:
        annotation = get_args(annotation)[0]
    return annotation


def _enum(values: tuple[Any, ...]) -> dict[str, Any]:
    kinds = {_json_type(value) for value in values}
    if None in kinds:
        raise TypeError(f"the choices {values!r} are not all JSON strings, numbers, booleans or null")
    schema: dict[str, Any] = {"enum": list(values)}
    if len(kinds) == 1:
        schema = {"type": kinds.pop(), **schema}
    return schema


def _json_type(value: Any) -> str | None:
    if value is None:
        return "null"
    return _PRIMITIVES.get(type(value))


def _array(container: Any, args: tuple[Any, ...], seen: tuple[type, ...]) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "array"}
    if args:
        schema["items"] = _schema(args[0], seen)
    if container in (set, frozenset, abc.Set, abc.MutableSet):
        schema["uniqueItems"] = True
    return schema


def _tuple(args: tuple[Any, ...], seen: tuple[type, ...]) -> dict[str, Any]:
    if not args:
        return {"type": "array"}
    if len(args) == 2 and args[1] is Ellipsis:
        return {"type": "array", "items": _schema(args[0], seen)}
    items = [_schema(arg, seen) for arg in args]
    return {"type": "array", "prefixItems": items, "minItems": len(items), "maxItems": len(items)}


def _mapping(args: tuple[Any, ...], seen: tuple[type, ...]) -> dict[str, Any]:
    if not args:
        return {"type": "object"}
    key, value = args
    if _unannotated(key) not in (str, Any):
        raise TypeError(f"a mapping with {_shown(key)} keys has no JSON Schema: JSON object keys are strings")
    return {"type": "object", "additionalProperties": _schema(value, seen)}


def _attrs_class(cls: type, seen: tuple[type, ...]) -> dict[str, Any]:
    seen = _entered(cls, seen)
    hints = typing.get_type_hints(cls, include_extras=True)
    fields = [f for f in attrs.fields(cls) if f.init]
    required = [f.name for f in fields if f.default is attrs.NOTHING]
    properties = {f.name: _schema(hints.get(f.name, f.type), seen) for f in fields}
    return _class_schema(cls, properties, required)


def _typed_dict(cls: Any, seen: tuple[type, ...]) -> dict[str, Any]:
    seen = _entered(cls, seen)
    fields = typed_dict_fields(cls)
    properties = {name: _schema(hint, seen) for name, (hint, _) in fields.items()}
    required = [name for name, (_, is_required) in fields.items() if is_required]
    return _class_schema(cls, properties, required)


def typed_dict_fields(cls: Any) -> dict[str, tuple[Any, bool]]:
    """A TypedDict's keys: each one's type (without `Required`/`NotRequired`) and whether it must be present.

    Read from the hints, not `__required_keys__`: under `from __future__ import annotations`, Python 3.11
    cannot see a `NotRequired[...]` written as a string when it builds the class.
    """
    fields: dict[str, tuple[Any, bool]] = {}
    for name, hint in typing.get_type_hints(cls, include_extras=True).items():
        hint = _unannotated(hint)
        marker = get_origin(hint)
        if marker in (typing.Required, typing.NotRequired):
            fields[name] = (get_args(hint)[0], marker is typing.Required)
        else:
            fields[name] = (hint, bool(cls.__total__))
    return fields


def _entered(cls: type, seen: tuple[type, ...]) -> tuple[type, ...]:
    if cls in seen:
        raise TypeError(f"{cls.__qualname__} contains itself; a recursive type has no inline JSON Schema")
    return (*seen, cls)


def _class_schema(cls: type, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    docs = parse_docstring(cls.__doc__)
    described = {name: _described(schema, docs.attributes.get(name)) for name, schema in properties.items()}
    schema: dict[str, Any] = {"type": "object", "properties": described, "required": required}
    schema["additionalProperties"] = False
    return _described(schema, docs.summary)


def _described(schema: dict[str, Any], description: str | None) -> dict[str, Any]:
    return {**schema, "description": description} if description else schema


def _shown(annotation: Any) -> str:
    return annotation.__qualname__ if isinstance(annotation, type) else repr(annotation)


# ----------------------------------------------------------------------------------------------- functions


@frozen
class FunctionSchema:
    """What a tool function's signature and docstring say."""

    parameters: dict[str, Any]
    """The JSON Schema of the arguments, as sent to the model."""
    annotations: Mapping[str, Any]
    """Each model-supplied parameter's annotation, to turn JSON arguments back into those types."""
    takes_context: bool
    """Whether the first parameter receives the call's `ToolContext`."""
    description: str
    """The docstring's first paragraph."""


def function_schema(function: Callable[..., Any]) -> FunctionSchema:
    """Read `function`'s parameters, annotations and docstring; `ToolDefinitionError` for what cannot be sent."""
    where = getattr(function, "__qualname__", repr(function))
    try:
        hints = typing.get_type_hints(function, include_extras=True)
    except NameError as error:  # an annotation names something not importable from the function's module
        raise ToolDefinitionError(f"{where}: cannot resolve its annotations ({error})") from None
    parameters = list(inspect.signature(function).parameters.values())
    takes_context = bool(parameters) and _is_context(hints.get(parameters[0].name))
    properties: dict[str, Any] = {}
    required: list[str] = []
    docs = parse_docstring(inspect.getdoc(function))
    for parameter in parameters[1:] if takes_context else parameters:
        at = f"{where}, parameter {parameter.name!r}"
        properties[parameter.name] = _parameter_schema(parameter, hints, at, docs.parameters.get(parameter.name))
        if parameter.default is inspect.Parameter.empty:
            required.append(parameter.name)
    schema = {**object_schema(properties, required), "additionalProperties": False}
    annotations = {name: hints[name] for name in properties}
    return FunctionSchema(schema, annotations, takes_context, docs.summary)


def _parameter_schema(
    parameter: inspect.Parameter, hints: Mapping[str, Any], at: str, description: str | None
) -> dict[str, Any]:
    if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD, parameter.POSITIONAL_ONLY):
        raise ToolDefinitionError(f"{at}: a model passes arguments by name; use an ordinary named parameter")
    if parameter.name not in hints:
        raise ToolDefinitionError(f"{at}: has no type annotation; annotate it so the model knows what to send")
    if _is_context(hints[parameter.name]):
        raise ToolDefinitionError(f"{at}: the ToolContext parameter must come first")
    try:
        schema = type_schema(hints[parameter.name])
    except TypeError as error:
        raise ToolDefinitionError(f"{at}: {error}") from None
    schema = _described(schema, description)
    default = _json_default(parameter.default)
    return schema if default is _NO_DEFAULT else {**schema, "default": default}


_NO_DEFAULT = object()


def _json_default(value: Any) -> Any:
    """A default worth showing the model: a JSON scalar (an enum member as its value)."""
    if isinstance(value, enum.Enum):
        value = value.value
    return value if value is None or type(value) in _PRIMITIVES else _NO_DEFAULT


def _is_context(annotation: Any) -> bool:
    annotation = _unannotated(annotation)
    return isinstance(annotation, type) and issubclass(annotation, ToolContext)
