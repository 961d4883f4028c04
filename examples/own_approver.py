"""A custom tool whose calls the config says to `ask` about, answered by the application's own approver:
an async function from the question to "once", "always", "reject" or `Reject(message)` (a no the model reads,
and goes on from)."""

import json
import tempfile
from pathlib import Path

import anyio

from strata_core import Approval, PromptRequest, Reject, TextInput, open_runtime
from strata_core.bus import PermissionRequest
from strata_core.message import ToolPart, ToolStateCompleted, ToolStateError
from strata_core.testing import ScriptedModel, ScriptedResolver
from strata_core.tool import tool


@tool(permission="deploy", permission_patterns=lambda args: [args["target"]])
def deploy(target: str) -> str:
    """Deploy the project.

    Args:
        target: Where to deploy: staging or production.
    """
    return f"deployed to {target}"


async def approver(request: PermissionRequest) -> Approval:
    print("asked:", request.permission, list(request.patterns))
    return "once" if request.patterns == ("staging",) else Reject("Only staging today.")


async def main() -> None:
    project = Path(tempfile.mkdtemp())
    (project / "strata.json").write_text(json.dumps({"permission": {"deploy": "ask"}}))
    first = {"tool_calls": [{"name": "deploy", "arguments": {"target": "staging"}}]}
    second = {"tool_calls": [{"name": "deploy", "arguments": {"target": "production"}}]}
    model = ScriptedModel([first, second, {"text": "Staging is deployed; production waits."}])
    resolver, env = ScriptedResolver(model), {"HOME": str(project / "home")}
    async with open_runtime(project, env, models=resolver, store="memory", tools=[deploy], approver=approver) as rt:
        session = await rt.sessions.create()
        answer = await rt.loop.prompt(PromptRequest(session.id, [TextInput("Deploy to staging, then production.")]))
        history = await rt.sessions.messages(session.id)

    for part in (part for message in history for part in message.parts if isinstance(part, ToolPart)):
        if isinstance(part.state, ToolStateCompleted):
            print("ran:", part.state.output)
        elif isinstance(part.state, ToolStateError):
            print("refused:", part.state.error)
    print("answer:", answer.text)


anyio.run(main)
