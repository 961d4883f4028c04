"""The system prompt a directory would get: prompt assembly alone, with no store, no model and no runtime.

`PromptContainer` holds what the prompt is assembled from (project, config, agents, skills, instructions);
nothing here opens a database or calls a model.
"""

import tempfile
from pathlib import Path

import anyio

from strata_core import ModelInfo, PromptContainer, SystemPromptRequest


async def main() -> None:
    project = Path(tempfile.mkdtemp()) / "shop"
    (project / ".git").mkdir(parents=True)
    (project / "AGENTS.md").write_text("Prices are in cents. Never round them.\n")

    container = PromptContainer(directory=project, env={"HOME": str(project.parent / "home")})
    agent = await container.agents().default_agent()
    model = ModelInfo("anthropic", "claude-sonnet-4-5")
    prompt = await container.system_prompt().build(SystemPromptRequest(agent, model))

    print(f"system prompt for {project.name}: {len(prompt.text)} characters in layers", [x.kind for x in prompt.layers])
    print(prompt.text[prompt.text.index("<env>") :])
    assert f"Instructions from: {project / 'AGENTS.md'}" in prompt.text
    assert not (project.parent / "home" / ".local" / "share" / "strata").exists()  # nothing was stored


anyio.run(main)
