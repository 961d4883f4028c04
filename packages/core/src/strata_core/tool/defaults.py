"""The ten built-in tools, built from the services they need (the composition root calls this)."""

from __future__ import annotations

from collections.abc import Collection

from strata_core.tool.apply_patch import ApplyPatchTool
from strata_core.tool.base import Tool
from strata_core.tool.bash import DEFAULT_HIDDEN_ENV, BashTool
from strata_core.tool.edit import EditTool
from strata_core.tool.glob import GlobTool
from strata_core.tool.grep import GrepTool
from strata_core.tool.read import NearbyInstructions, ReadTool
from strata_core.tool.search import Search
from strata_core.tool.skill import SkillSource, SkillTool
from strata_core.tool.task import AgentCatalog, SubagentRunner, TaskTool
from strata_core.tool.todowrite import InMemoryTodoStore, TodoStore, TodoWriteTool
from strata_core.tool.truncation import Truncation
from strata_core.tool.webfetch import WebFetchTool
from strata_core.tool.write import WriteTool


def builtin_tools(
    *,
    truncation: Truncation,
    skills: SkillSource,
    agents: AgentCatalog,
    subagents: SubagentRunner,
    instructions: NearbyInstructions | None = None,
    todos: TodoStore | None = None,
    hidden_env: Collection[str] = DEFAULT_HIDDEN_ENV,
    search: Search | None = None,
) -> list[Tool]:
    """bash, read, glob, grep, edit, write, task, webfetch, todowrite, skill and apply_patch (OpenCode's order).

    The registry offers apply_patch instead of edit and write to GPT-5-style models, as OpenCode does.

    `hidden_env` lists the environment variables shell commands must not see (the API keys Strata holds).
    """
    search = search or Search()
    return [
        BashTool(truncation=truncation, hidden_env=frozenset(hidden_env)),
        ReadTool(instructions=instructions),
        GlobTool(search=search),
        GrepTool(search=search),
        EditTool(),
        WriteTool(),
        TaskTool(agents=agents, runner=subagents),
        WebFetchTool(),
        TodoWriteTool(store=todos or InMemoryTodoStore()),
        SkillTool(skills=skills, search=search),
        ApplyPatchTool(),
    ]
