"""The `todowrite` tool: the model replaces the session's todo list; the list is shown back as JSON."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Protocol

from attrs import define, field, frozen

from strata_core.tool.builtin.base import BuiltinTool, object_schema, string
from strata_core.tool.contract import JSONSchema, ToolContext, ToolResult


@frozen
class Todo:
    content: str
    status: str
    """pending, in_progress, completed or cancelled (not enforced, as in OpenCode)."""
    priority: str

    def as_json(self) -> dict[str, str]:
        return {"content": self.content, "status": self.status, "priority": self.priority}


class TodoStore(Protocol):
    """Where a session's todo list lives (the session store, or memory)."""

    async def update(self, session_id: str, todos: Sequence[Todo]) -> None: ...

    async def get(self, session_id: str) -> Sequence[Todo]: ...


@define
class InMemoryTodoStore:
    lists: dict[str, tuple[Todo, ...]] = field(factory=dict)

    async def update(self, session_id: str, todos: Sequence[Todo]) -> None:
        self.lists[session_id] = tuple(todos)

    async def get(self, session_id: str) -> Sequence[Todo]:
        return self.lists.get(session_id, ())


def _todo(item: Mapping[str, Any]) -> Todo:
    return Todo(str(item["content"]), str(item["status"]), str(item["priority"]))


@define
class TodoWriteTool(BuiltinTool):
    NAME: ClassVar[str] = "todowrite"
    PARAMETERS: ClassVar[JSONSchema] = object_schema(
        {
            "todos": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "content": string("What the task is, briefly."),
                        "status": string("One of: pending, in_progress, completed, cancelled."),
                        "priority": string("One of: high, medium, low."),
                    },
                    "required": ["content", "status", "priority"],
                },
                "description": "The whole todo list, replacing the previous one.",
            }
        },
        ["todos"],
    )

    store: TodoStore = field(factory=InMemoryTodoStore)

    async def execute(self, args: Any, ctx: ToolContext) -> ToolResult:
        await ctx.ask("todowrite", ["*"], ["*"], {})
        todos = [_todo(item) for item in args["todos"]]
        await self.store.update(ctx.session_id, todos)
        listed = [todo.as_json() for todo in todos]
        open_count = sum(1 for todo in todos if todo.status != "completed")
        return ToolResult(
            output=json.dumps(listed, indent=2, ensure_ascii=False),
            title=f"{open_count} todos",
            metadata={"todos": listed},
        )
