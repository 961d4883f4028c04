"""Your own session store, passed in and actually used: no SQLite file is opened or created.

Any class with the `SessionStore` methods will do (a database of your application, a remote service); this
one keeps the built-in in-memory store and notes each write, to show where the session went.
"""

import tempfile
from pathlib import Path
from typing import ClassVar

import anyio

from strata_core import MemorySessionStore, PromptRequest, TextInput, open_runtime
from strata_core.message import Message, Part
from strata_core.testing import ScriptedModel, ScriptedResolver


class AuditedStore(MemorySessionStore):
    writes: ClassVar[list[str]] = []

    async def put_message(self, message: Message) -> None:
        self.writes.append(f"message {message.id}")
        await super().put_message(message)

    async def put_part(self, part: Part) -> None:
        self.writes.append(f"part {part.type}")
        await super().put_part(part)


async def main() -> None:
    home = Path(tempfile.mkdtemp())
    resolver = ScriptedResolver(ScriptedModel([{"text": "Stored where you said."}]))
    async with (
        AuditedStore.open() as store,
        open_runtime(home, {"HOME": str(home)}, models=resolver, store=store) as rt,
    ):
        session = await rt.sessions.create()
        await rt.loop.prompt(PromptRequest(session.id, [TextInput("where is this kept?")]))
        assert (await store.messages(session.id))[-1].text == "Stored where you said."

    print("my store saw", len(AuditedStore.writes), "writes:", ", ".join(AuditedStore.writes[:4]), "...")
    assert not list(home.rglob("strata.db*"))  # noqa: ASYNC240 (a check after the work, not a blocking step in it)
    print("no strata.db anywhere under", home)


anyio.run(main)
