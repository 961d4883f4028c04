"""Your own system prompt: a class with one `build(SystemPromptRequest)` replaces Strata's, and its text is
exactly what the model receives at every step of a turn (here a scripted model that records its requests)."""

import tempfile
from pathlib import Path

import anyio

from strata_core import AssembledSystemPrompt, PromptRequest, SystemPromptRequest, TextInput, open_runtime
from strata_core.prompt.system import PromptLayer
from strata_core.testing import ScriptedModel, ScriptedResolver


class HouseStyle:
    """The shop's own system prompt: nothing of Strata's, one line naming the agent and the model."""

    async def build(self, request: SystemPromptRequest) -> AssembledSystemPrompt:
        text = f"You are the shop's {request.agent.name} assistant on {request.model.id}. Prices are in cents."
        return AssembledSystemPrompt(text, [PromptLayer("agent", "house-style", len(text))])


async def main() -> None:
    project = Path(tempfile.mkdtemp())
    model = ScriptedModel([{"text": "12.50 is 1250 cents."}])
    async with open_runtime(
        project, {"HOME": str(project)}, models=ScriptedResolver(model), store="memory", system_prompt=HouseStyle()
    ) as rt:
        session = await rt.sessions.create()
        await rt.loop.prompt(PromptRequest(session.id, [TextInput("how much is 12.50?")]))
    (request,) = model.main_requests
    print("the model received:", request.system)
    assert request.system == (f"You are the shop's build assistant on {model.info.id}. Prices are in cents.",)


anyio.run(main)
