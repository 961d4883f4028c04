"""Checking a tool call's arguments against the tool's JSON Schema, with errors phrased the way OpenCode's are.

OpenCode decodes arguments with Effect Schema and reports the first problem as
`SchemaError(Expected string, got 5\n  at ["filePath"])`; models prompted for OpenCode have seen that
shape, so the same wording is produced here from jsonschema's errors.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from strata_core.tool.contract import JSONSchema

if TYPE_CHECKING:
    from jsonschema import ValidationError

_TYPE_NAMES = {
    "string": "string",
    "number": "number",
    "boolean": "boolean",
    "object": "object",
    "array": "array",
    "null": "null",
}


def _show(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def _expected_type(expected: Any, got: Any) -> str:
    names = expected if isinstance(expected, list) else [expected]
    shown = []
    for name in names:
        if name == "integer":
            is_number = isinstance(got, int | float) and not isinstance(got, bool)
            shown.append("an integer" if is_number else "number")
        else:
            shown.append(_TYPE_NAMES.get(str(name), str(name)))
    return " | ".join(shown)


def _message(error: ValidationError) -> str:
    kind, bound, value = error.validator, error.validator_value, error.instance
    if kind == "type":
        return f"Expected {_expected_type(bound, value)}, got {_show(value)}"
    if kind == "enum":
        return f"Expected {' | '.join(_show(v) for v in bound)}, got {_show(value)}"
    if kind == "const":
        return f"Expected {_show(bound)}, got {_show(value)}"
    comparisons = {
        "exclusiveMinimum": "greater than",
        "minimum": "greater than or equal to",
        "exclusiveMaximum": "less than",
        "maximum": "less than or equal to",
    }
    if kind in comparisons:
        return f"Expected a value {comparisons[str(kind)]} {_show(bound)}, got {_show(value)}"
    return str(error.message)


def _path(parts: list[Any]) -> str:
    return "".join(f"[{part}]" if isinstance(part, int) else f"[{_show(part)}]" for part in parts)


def describe(error: ValidationError) -> str:
    """One error as `SchemaError(<what>\\n  at <where>)`."""
    parts = list(error.absolute_path)
    if error.validator == "required" and isinstance(error.instance, Mapping):
        missing = next((key for key in error.validator_value if key not in error.instance), None)
        if missing is not None:
            parts.append(missing)
        message = "Missing key"
    else:
        message = _message(error)
    where = f"\n  at {_path(parts)}" if parts else ""
    return f"SchemaError({message}{where})"


def first_problem(schema: JSONSchema, args: Any) -> str | None:
    """The first way `args` breaks `schema`, described; `None` when the arguments are valid."""
    # Imported at the first tool call, not at start-up: jsonschema and its registries cost ~25 ms to import.
    from jsonschema.validators import validator_for

    validator_class = validator_for(schema)
    validator = validator_class(schema)
    for error in validator.iter_errors(args):
        return describe(error)
    return None


_INVALID_ARGUMENTS = "tool was called with invalid arguments: "


def invalid_arguments_message(tool: str, detail: str) -> str:
    return f"The {tool} {_INVALID_ARGUMENTS}{detail}.\nPlease rewrite the input so it satisfies the expected schema."


def is_invalid_arguments_message(text: str) -> bool:
    """Whether a tool error is `invalid_arguments_message`'s: the call never ran."""
    return text.startswith("The ") and _INVALID_ARGUMENTS in text.split("\n", 1)[0]
