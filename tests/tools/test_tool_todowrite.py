"""The todowrite tool: the list replaces the session's, comes back as indented JSON, counts open items."""

from __future__ import annotations

import pytest
from tool_fakes import Asker

from strata_core.tool.builtin.todowrite import InMemoryTodoStore, Todo, TodoWriteTool
from strata_core.tool.contract import ToolContext

pytestmark = pytest.mark.anyio

TODOS = [
    {"content": "a", "status": "pending", "priority": "high"},
    {"content": "b", "status": "completed", "priority": "low"},
]


async def test_the_list_is_stored_and_shown_as_opencode_shows_it(ctx: ToolContext, asker: Asker) -> None:
    store = InMemoryTodoStore()
    result = await TodoWriteTool(store=store).execute({"todos": TODOS}, ctx)
    assert result.output == (
        '[\n  {\n    "content": "a",\n    "status": "pending",\n    "priority": "high"\n  },\n'
        '  {\n    "content": "b",\n    "status": "completed",\n    "priority": "low"\n  }\n]'
    )
    assert result.title == "1 todos"
    assert result.metadata == {"todos": TODOS}
    assert await store.get("ses_test") == (Todo("a", "pending", "high"), Todo("b", "completed", "low"))
    (ask,) = asker.of("todowrite")
    assert ask.patterns == ["*"] and ask.always == ["*"]


async def test_a_new_list_replaces_the_old_one(ctx: ToolContext) -> None:
    store = InMemoryTodoStore()
    tool = TodoWriteTool(store=store)
    await tool.execute({"todos": TODOS}, ctx)
    await tool.execute({"todos": [{"content": "c", "status": "weird", "priority": "x"}]}, ctx)
    assert await store.get("ses_test") == (Todo("c", "weird", "x"),)  # statuses are not policed
    assert await store.get("another") == ()
