"""The project's commands in the editor: listed as `available_commands_update`, run when a prompt starts with
`/name`.

The list is what `strata run --command` can run (the config's and the project's commands, built-ins such as
`init` and `review`, MCP prompts); a prompt whose first text is `/name arguments` for one of them is sent as
that command makes it (its template filled, its agent and model), as OpenCode's ACP agent does. Any other
text starting with `/` is an ordinary message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp import RequestError
from acp.schema import AvailableCommand, AvailableCommandsUpdate

from strata_core.engine import PromptPart, PromptRequest, TextInput
from strata_core.errors import StrataError

if TYPE_CHECKING:
    from strata_acp.options import SessionSettings
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


async def prompt_request(
    runtime: Runtime, session_id: str, settings: SessionSettings, parts: list[PromptPart]
) -> PromptRequest:
    """The loop's request: the parts as given, or what a `/command` at their start makes of them."""
    call = command_call(parts)
    if call is not None and await runtime.container.commands().get(call[0]) is not None:
        try:
            prepared = await runtime.container.command_prompts().prepare(
                call[0], call[1], agent=settings.mode, model=settings.model
            )
        except StrataError as error:  # its agent does not exist, or its MCP prompt failed: the client is told
            raise RequestError.invalid_params({"sessionId": session_id, "reason": str(error)}) from None
        return PromptRequest(session_id, prepared.parts, agent=prepared.agent, model=prepared.model or settings.model)
    return PromptRequest(session_id, parts, agent=settings.mode, model=settings.model)
