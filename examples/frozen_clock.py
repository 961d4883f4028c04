"""One frozen clock fixes every time the core reads: the environment block's date, the times stored on
messages, and the time part of every id (seeded entropy makes the ids reproducible as a whole)."""

import tempfile
from datetime import UTC, datetime
from pathlib import Path

import anyio

from strata_core import FrozenClock, PromptRequest, TextInput, ids, open_runtime, seeded_entropy
from strata_core.testing import ScriptedModel, ScriptedResolver


async def main() -> None:
    project = Path(tempfile.mkdtemp())
    clock = FrozenClock.at(datetime(2026, 3, 1, 12, 0, tzinfo=UTC))
    model = ScriptedModel([{"text": "It is Sunday."}])
    async with open_runtime(
        project,
        {"HOME": str(project)},
        models=ScriptedResolver(model),
        store="memory",
        clock=clock,
        id_entropy=seeded_entropy(42),
    ) as rt:
        session = await rt.sessions.create()
        await rt.loop.prompt(PromptRequest(session.id, [TextInput("what day is it?")]))
        history = await rt.sessions.messages(session.id)

    system = "\n".join(model.main_requests[0].system)
    print(system[system.index("Today's date") :].splitlines()[0])
    print("created:", history[0].info.time.created, "and", history[1].info.time.created)
    made = [session.id, *(message.info.id for message in history)]
    assert {ids.time_part(identifier) for identifier in made} == {clock.ms % ids.TIME_PART_MODULUS}
    print("ids share the clock's prefix:", made)


anyio.run(main)
