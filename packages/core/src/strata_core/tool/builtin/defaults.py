"""The ten built-in tools, built from the services they need (the composition root calls this)."""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING

from strata_core.config.paths import StrataPaths
from strata_core.config.schema import SandboxConfig
from strata_core.tool.builtin.apply_patch import ApplyPatchTool
from strata_core.tool.builtin.bash import DEFAULT_HIDDEN_ENV, BashTool
from strata_core.tool.builtin.edit import EditTool
from strata_core.tool.builtin.glob import GlobTool
from strata_core.tool.builtin.grep import GrepTool
from strata_core.tool.builtin.read import NearbyInstructions, ReadTool
from strata_core.tool.builtin.skill import SkillSource, SkillTool
from strata_core.tool.builtin.task import AgentCatalog, SubagentRunner, TaskTool
from strata_core.tool.builtin.todowrite import InMemoryTodoStore, TodoStore, TodoWriteTool
from strata_core.tool.builtin.webfetch import WebFetchTool
from strata_core.tool.builtin.write import WriteTool
from strata_core.tool.contract import Tool
from strata_core.tool.support.code_checks import CodeChecks
from strata_core.tool.support.search import Search
from strata_core.tool.truncation import Truncation

if TYPE_CHECKING:
    import httpx


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
    plan_exit: Tool | None = None,
    sandbox: SandboxConfig | None = None,
    config_env: Collection[str] = (),
    env: Mapping[str, str] | None = None,
    paths: StrataPaths | None = None,
    web_client: httpx.AsyncClient | None = None,
    checks: CodeChecks | None = None,
) -> list[Tool]:
    """bash, read, glob, grep, edit, write, task, webfetch, todowrite, skill and apply_patch (OpenCode's order).

    The registry offers apply_patch instead of edit and write to GPT-5-style models, as OpenCode does.

    `hidden_env` lists the environment variables shell commands must not see (the API keys Strata holds), as
    does `config_env` (every `{env:}` name of the config); `sandbox` (the config block), `env` (for
    `STRATA_SANDBOX`) and `paths` (the dirs kept writable) configure the shell sandbox.
    `plan_exit` (experimental plan mode) comes last when given, where OpenCode registers it. `web_client` is
    the embedder's own HTTP client for webfetch (None: webfetch's pinned connections). `checks` formats
    and diagnoses what edit, write and apply_patch changed (and opens what read reads) in the project's
    formatters and language servers (None: neither).
    """
    search = search or Search()
    checks = checks or CodeChecks()
    tools: list[Tool] = [
        BashTool(
            truncation=truncation,
            hidden_env=frozenset(hidden_env),
            sandbox=sandbox or SandboxConfig(),
            config_env=frozenset(config_env),
            settings_env=os.environ if env is None else env,
            paths=paths or StrataPaths.from_env(env),
        ),
        ReadTool(instructions=instructions, checks=checks),
        GlobTool(search=search),
        GrepTool(search=search),
        EditTool(checks=checks),
        WriteTool(checks=checks),
        TaskTool(agents=agents, runner=subagents),
        WebFetchTool(client=web_client),
        TodoWriteTool(store=todos or InMemoryTodoStore()),
        SkillTool(skills=skills, search=search),
        ApplyPatchTool(checks=checks),
    ]
    return [*tools, plan_exit] if plan_exit is not None else tools
