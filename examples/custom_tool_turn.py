"""A full turn with a custom tool against a scripted model: the model calls the tool, the tool runs under
the permission rules, its result goes back to the model, and the answer and the call are stored."""

import tempfile
from pathlib import Path

import anyio

from strata_core import PromptRequest, TextInput, open_runtime
from strata_core.message import ToolPart, ToolStateCompleted
from strata_core.testing import ScriptedModel, ScriptedResolver
from strata_core.tool import ToolContext, tool


@tool
async def word_count(ctx: ToolContext, path: str) -> str:
    """Count the words of a text file in the project.

    Args:
        path: The file, relative to the project directory.
    """
    print(f"tool called: word_count({path!r})")
    return str(len((ctx.directory / path).read_text().split()))


async def main() -> None:
    project = Path(tempfile.mkdtemp())
    (project / "notes.txt").write_text("buy milk and eggs\n")
    call = {"tool_calls": [{"name": "word_count", "arguments": {"path": "notes.txt"}}]}
    model = ScriptedModel([call, {"text": "The file has 4 words."}])
    resolver, env = ScriptedResolver(model), {"HOME": str(project / "home")}
    async with open_runtime(project, env, models=resolver, store="memory", tools=[word_count]) as rt:
        session = await rt.sessions.create()
        answer = await rt.loop.prompt(PromptRequest(session.id, [TextInput("How many words are in notes.txt?")]))
        history = await rt.sessions.messages(session.id)

    (stored_call,) = [part for message in history for part in message.parts if isinstance(part, ToolPart)]
    assert isinstance(stored_call.state, ToolStateCompleted) and stored_call.state.output == "4"
    print("stored call:", stored_call.tool, stored_call.state.input, "->", stored_call.state.output)
    print("answer:", answer.text)
    assert "word_count" in {offered.name for offered in model.main_requests[0].tools}


anyio.run(main)
