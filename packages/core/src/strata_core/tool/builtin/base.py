"""What the built-in tools share: a fixed name, a fixed parameter schema, a description from `prompts/tools/`.

Parameter schemas match what OpenCode 1.18.33 sends, key for key (tests/tools/schemas holds the
recording), so a model prompted for OpenCode calls Strata's tools the same way. Only the descriptions
inside them are Strata's own words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from strata_core.tool.contract import JSONSchema, ToolPermission, ToolTarget
from strata_core.tool.descriptions import tool_description
from strata_core.tool.schema import SCHEMA_DIALECT, object_schema

__all__ = ["MAX_SAFE_INTEGER", "SCHEMA_DIALECT", "BuiltinTool", "non_negative_integer", "object_schema", "string"]

MAX_SAFE_INTEGER = 9007199254740991
"""JavaScript's `Number.MAX_SAFE_INTEGER`: OpenCode's integer parameters carry it as their bounds."""


def string(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


def non_negative_integer(description: str) -> dict[str, Any]:
    return {"minimum": 0, "type": "integer", "maximum": MAX_SAFE_INTEGER, "description": description}


class BuiltinTool:
    """Mixin for a built-in tool: subclasses set `NAME` and `PARAMETERS` and write `execute`."""

    NAME: ClassVar[str]
    PARAMETERS: ClassVar[JSONSchema]

    @property
    def name(self) -> str:
        return self.NAME

    def parameters(self) -> JSONSchema:
        return self.PARAMETERS

    async def description(self, target: ToolTarget) -> str:
        return tool_description(self.NAME)

    def permission(self, args: Mapping[str, Any]) -> ToolPermission | None:
        # Every built-in asks for itself in `execute`, with OpenCode's finer patterns (reference §12.10: a
        # command, a path, `.env` files, outside directories); a second, generic ask would ask twice.
        return None
