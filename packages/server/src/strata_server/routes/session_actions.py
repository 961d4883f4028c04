"""What a client asks a session to do besides a prompt: share and unshare it, run the user's shell command in it
(`/shell`, the TUI's `!cmd`), run a command (`/command`, the TUI's `/name args`, `/init` among them) and run
`/init` as a turn (`/init`, the SDK's `session.init`).

A command is prepared as `strata run --command` prepares it (its template filled, `` !`cmd` `` run, `@`
mentions attached, a subtask handed to its agent) and run as a prompt; an unknown command is the client's 400
(OpenCode answers a 500).

Strata has no share service (OpenCode's uploads a session to opncd.ai): sharing answers as OpenCode's server
does when sharing is disabled (`OPENCODE_DISABLE_SHARE`), with the session as it is and no share URL.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from strata_core import ConfigError, McpRequestError
from strata_core.engine import PromptRequest, TurnChoice
from strata_core.session import message_data, session_data
from strata_server.errors import bad_request
from strata_server.prompt_body import file_input, model_ref
from strata_server.routes.sessions import session_id
from strata_server.state import server_state

INIT_COMMAND = "init"


async def share(request: Request) -> JSONResponse:
    """The session, unshared: Strata has no share service (OpenCode answers so with sharing disabled)."""
    return JSONResponse(session_data(await server_state(request).runtime.sessions.get(session_id(request))))


async def shell(request: Request) -> JSONResponse:
    """Run the user's command in the session (no model call) and answer the assistant message holding it."""
    state = server_state(request)
    body = await state.body(request, "session.shell")
    target = (await state.runtime.sessions.get(session_id(request))).id
    choice = TurnChoice(target, body["agent"], model_ref(body.get("model")))
    answer = await state.turns.shells.run(state.runtime, target, body["command"], choice, body.get("messageID"))
    await state.hub.delivered()  # the command's events reach the event streams' readers before its answer
    return JSONResponse(message_data(answer))


async def init(request: Request) -> JSONResponse:
    """Run the `init` command as a turn on the model given (its user message takes `messageID`), and answer
    true once it has finished, as OpenCode does."""
    state = server_state(request)
    body = await state.body(request, "session.init")
    target = (await state.runtime.sessions.get(session_id(request))).id
    model = f"{body['providerID']}/{body['modelID']}"
    prepared = await state.runtime.container.command_prompts().prepare(INIT_COMMAND, "", model=model)
    turn_request = PromptRequest(
        target, prepared.parts, agent=prepared.agent, model=prepared.model or model, message_id=body["messageID"]
    )
    await (await state.turns.start(turn_request)).result()
    await state.hub.delivered()
    return JSONResponse(True)


async def command(request: Request) -> JSONResponse:
    """Run `/command arguments` in the session and answer with the turn's last assistant message."""
    state = server_state(request)
    body = await state.body(request, "session.command")
    target = (await state.runtime.sessions.get(session_id(request))).id
    files = [file_input(index, raw, state.runtime.project).path for index, raw in enumerate(body.get("parts", []))]
    model = body.get("model")
    try:
        prepared = await state.runtime.container.command_prompts().prepare(
            body["command"], body["arguments"], agent=body.get("agent"), model=model, files=files
        )
    except (ConfigError, McpRequestError) as error:  # no such command, no such agent, or its MCP prompt failed
        raise bad_request(str(error)) from None
    turn_request = PromptRequest(
        target,
        prepared.parts,
        agent=prepared.agent,
        model=prepared.model or model,
        variant=body.get("variant"),
        message_id=body.get("messageID"),
    )
    answer = await (await state.turns.start(turn_request)).result()
    await state.hub.delivered()
    return JSONResponse(message_data(answer))


ROUTES = [
    Route("/session/{sessionID}/share", share, methods=["POST", "DELETE"]),
    Route("/session/{sessionID}/shell", shell, methods=["POST"]),
    Route("/session/{sessionID}/init", init, methods=["POST"]),
    Route("/session/{sessionID}/command", command, methods=["POST"]),
]
