"""Parameter schemas derived from a function's signature and its Google-style docstring."""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import Any, Literal, NotRequired, Optional, TypedDict

import attrs
import pytest
from jsonschema.validators import Draft202012Validator

from strata_core.tool.contract import ToolContext
from strata_core.tool.docstring import parse_docstring
from strata_core.tool.schema import ToolDefinitionError, function_schema, type_schema


class Colour(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@attrs.frozen
class Point:
    """A place on the board.

    Attributes:
        x: Column, from the left.
        y: Row, from the top.
    """

    x: int
    y: int = 0


class Range(TypedDict):
    """Lines to look at.

    Attributes:
        start: First line, 1-based.
    """

    start: int
    end: NotRequired[int]


@attrs.frozen
class Node:
    children: list[Node]


@pytest.mark.parametrize(
    ("annotation", "schema"),
    [
        (str, {"type": "string"}),
        (int, {"type": "integer"}),
        (float, {"type": "number"}),
        (bool, {"type": "boolean"}),
        (None, {"type": "null"}),
        (Any, {}),
        (Literal["a", "b"], {"type": "string", "enum": ["a", "b"]}),
        (Literal[1, "x"], {"enum": [1, "x"]}),
        (Colour, {"type": "string", "enum": ["red", "green"]}),
        (Level, {"type": "integer", "enum": [1, 2]}),
        (list[str], {"type": "array", "items": {"type": "string"}}),
        (Sequence[int], {"type": "array", "items": {"type": "integer"}}),
        (list, {"type": "array"}),
        (set[str], {"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
        (tuple[int, ...], {"type": "array", "items": {"type": "integer"}}),
        (
            tuple[int, str],
            {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "minItems": 2, "maxItems": 2},
        ),
        (dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}),
        (Mapping[str, Any], {"type": "object", "additionalProperties": {}}),
        (dict, {"type": "object"}),
        (Optional[int], {"anyOf": [{"type": "integer"}, {"type": "null"}]}),  # noqa: UP045 - both spellings
        (str | None, {"anyOf": [{"type": "string"}, {"type": "null"}]}),
        (int | str, {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
    ],
)
def test_each_supported_type_has_its_json_schema(annotation: Any, schema: dict[str, Any]) -> None:
    assert type_schema(annotation) == schema


def test_an_attrs_class_is_an_object_with_its_fields_described_and_defaults_optional() -> None:
    assert type_schema(Point) == {
        "type": "object",
        "description": "A place on the board.",
        "properties": {
            "x": {"type": "integer", "description": "Column, from the left."},
            "y": {"type": "integer", "description": "Row, from the top."},
        },
        "required": ["x"],
        "additionalProperties": False,
    }


def test_a_typed_dict_is_an_object_whose_not_required_keys_are_optional() -> None:
    assert type_schema(Range) == {
        "type": "object",
        "description": "Lines to look at.",
        "properties": {"start": {"type": "integer", "description": "First line, 1-based."}, "end": {"type": "integer"}},
        "required": ["start"],
        "additionalProperties": False,
    }


@pytest.mark.parametrize("annotation", [bytes, dict[int, str], Node, Literal[b"x"], complex])
def test_types_json_cannot_carry_are_refused(annotation: Any) -> None:
    with pytest.raises(TypeError):
        type_schema(annotation)


async def search(
    ctx: ToolContext,
    query: str,
    limit: int = 10,
    colour: Colour = Colour.RED,
    near: Point | None = None,
    tags: list[str] | None = None,
) -> str:
    """Search the notes for a phrase.

    The second paragraph is for people reading the code, not for the model.

    Args:
        query: The phrase to look for,
            spread over two lines.
        limit (int): At most this many hits.
        colour: Only notes of this colour.

    Returns:
        The hits, one per line.
    """
    return query


def test_a_function_schema_has_required_parameters_defaults_and_docstring_descriptions() -> None:
    derived = function_schema(search)
    assert derived.takes_context
    assert derived.description == "Search the notes for a phrase."
    assert derived.parameters == {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "The phrase to look for, spread over two lines."},
            "limit": {"type": "integer", "description": "At most this many hits.", "default": 10},
            "colour": {
                "type": "string",
                "enum": ["red", "green"],
                "description": "Only notes of this colour.",
                "default": "red",
            },
            "near": {"anyOf": [type_schema(Point), {"type": "null"}], "default": None},
            "tags": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}], "default": None},
        },
        "required": ["query"],
        "additionalProperties": False,
    }
    assert list(derived.annotations) == ["query", "limit", "colour", "near", "tags"]


def test_a_derived_schema_is_valid_json_schema_that_checks_arguments() -> None:
    schema = function_schema(search).parameters
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    assert validator.is_valid({"query": "x", "near": {"x": 1}, "colour": "green"})
    assert not validator.is_valid({"query": "x", "colour": "blue"})
    assert not validator.is_valid({"limit": 3})
    assert not validator.is_valid({"query": "x", "surprise": 1})


def plain(path: str) -> str:
    """Read a path."""
    return path


def test_a_function_without_a_context_parameter_passes_everything_to_the_model() -> None:
    derived = function_schema(plain)
    assert not derived.takes_context and derived.parameters["required"] == ["path"]


def untyped(path) -> str:  # type: ignore[no-untyped-def]
    """No annotation."""
    return str(path)


def variadic(*paths: str) -> str:
    """Star args."""
    return ""


def late_context(path: str, ctx: ToolContext) -> str:
    """Context second."""
    return path


def takes_bytes(data: bytes) -> str:
    """Bytes."""
    return ""


@pytest.mark.parametrize(
    ("function", "complaint"),
    [
        (untyped, "parameter 'path': has no type annotation"),
        (variadic, "parameter 'paths': a model passes arguments by name"),
        (late_context, "parameter 'ctx': the ToolContext parameter must come first"),
        (takes_bytes, "parameter 'data': bytes has no JSON Schema"),
    ],
)
def test_a_function_that_cannot_become_a_tool_is_refused_naming_the_parameter(function: Any, complaint: str) -> None:
    with pytest.raises(ToolDefinitionError, match=complaint) as raised:
        function_schema(function)
    assert function.__qualname__ in str(raised.value)


def test_a_docstring_reads_summary_args_and_attributes_google_style() -> None:
    docs = parse_docstring(
        """Fetch a page
        from the web.

        Arguments:
            url (str): Where.
            *args: Ignored extras.
        Attributes:
            cache: Whether to keep it.
        Raises:
            ValueError: never listed as a parameter.
        """
    )
    assert docs.summary == "Fetch a page from the web."
    assert docs.parameters == {"url": "Where.", "args": "Ignored extras."}
    assert docs.attributes == {"cache": "Whether to keep it."}
