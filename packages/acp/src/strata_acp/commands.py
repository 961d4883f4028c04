"""The project's commands in the editor: listed as `available_commands_update`, run when a prompt starts with
`/name`.

The list is what `strata run --command` can run (the config's and the project's commands, built-ins such as
`init` and `review`, MCP prompts); a prompt whose first text is `/name arguments` for one of them is sent as
that command makes it (its template filled, its agent and model), as OpenCode's ACP agent does. Any other
text starting with `/` is an ordinary message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp.schema import AvailableCommand, AvailableCommandsUpdate

from strata_core.engine import PromptPart, TextInput

if TYPE_CHECKING:
    from strata_core.runtime import Runtime


async def available_commands(runtime: Runtime) -> AvailableCommandsUpdate:
    commands = await runtime.container.commands().list()
    return AvailableCommandsUpdate(
        session_update="available_commands_update",
        available_commands=[AvailableCommand(name=c.name, description=c.description or c.name) for c in commands],
    )


def command_call(parts: list[PromptPart]) -> tuple[str, str] | None:
    """(name, arguments) when the prompt opens with `/name`."""
    first = parts[0] if parts else None
    if not isinstance(first, TextInput) or not first.text.startswith("/"):
        return None
    name, _, arguments = first.text[1:].partition(" ")
    return (name, arguments.strip()) if name else None
