"""A server's prompts as commands: `/server:prompt args`, as OpenCode 1.18.33 offers them.

The name is the server's and the prompt's, each sanitised as tool names are, joined by `:`. The prompt's
arguments become `$1..$n` in order: the template is fetched from the server with each argument set to its
placeholder when the command runs, then filled like any command's (`/fixture:review "x = 1" style`).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from strata_core.context.command import CommandInfo
from strata_core.mcp.connection import ServerConnection
from strata_core.mcp.tools import sanitize

if TYPE_CHECKING:
    from mcp import types


def prompt_command(connection: ServerConnection, prompt: types.Prompt) -> CommandInfo:
    placeholders = {argument.name: f"${index}" for index, argument in enumerate(prompt.arguments or (), 1)}
    return CommandInfo(
        name=f"{sanitize(connection.name)}:{sanitize(prompt.name)}",
        template="",
        description=prompt.description,
        kind="mcp",
        hints=tuple(placeholders.values()),
        fetch=partial(connection.prompt_text, prompt.name, placeholders),
    )
