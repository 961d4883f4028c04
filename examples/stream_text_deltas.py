"""(c) The in-memory store and the bus: an interface renders the answer as it streams, piece by piece, and
finds the whole of it stored once the turn is done."""

import tempfile
from pathlib import Path

import anyio

from strata_core import PromptRequest, TextInput, open_runtime
from strata_core.bus import PartDelta
from strata_providers.testing import ScriptedModel, ScriptedResolver


async def main() -> None:
    project = Path(tempfile.mkdtemp())
    model = ScriptedModel([{"text": "Hello there.", "chunk_size": 3}])  # streamed 3 characters at a time
    resolver = ScriptedResolver(model)
    async with open_runtime(project, {"HOME": str(project)}, models=resolver, store="memory") as rt:
        session = await rt.sessions.create()
        deltas: list[str] = []
        async with rt.bus.subscribe() as events, anyio.create_task_group() as group:
            group.start_soon(rt.loop.prompt, PromptRequest(session.id, [TextInput("hi")]))
            async for event in events:
                if isinstance(event, PartDelta):
                    deltas.append(event.delta)
                if "".join(deltas) == "Hello there.":
                    break
        stored = await rt.sessions.messages(session.id)

    print("deltas:", deltas)
    print("stored:", stored[-1].text)
    assert "".join(deltas) == stored[-1].text == "Hello there."


anyio.run(main)
