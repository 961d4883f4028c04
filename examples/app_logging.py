"""The application's logging receives Strata's events: Strata configures no logging and prints nothing;
it logs key-value events under stdlib loggers named after its modules, and the application's handlers get them
as records with the level, the logger's name and the event's fields.

Here the project's config has a key Strata does not know and names an instruction URL that answers 404: a
turn goes on without either, and the application's handler holds a warning for each.
"""

import json
import logging
import tempfile
from pathlib import Path

import anyio
import httpx

from strata_core import PromptRequest, TextInput, open_runtime
from strata_core.logging import EventMessage, is_notice
from strata_core.testing import ScriptedModel, ScriptedResolver


class Kept(logging.Handler):
    """The application's own handler: it keeps every record (a real one would write them somewhere)."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


async def main() -> None:
    kept = Kept()
    logging.basicConfig(level=logging.WARNING, handlers=[kept])  # the application's set-up, not Strata's

    project = Path(tempfile.mkdtemp())
    rules = "https://rules.example/team.md"
    (project / "strata.json").write_text(json.dumps({"instructions": [rules], "colour": "teal"}))
    gone = httpx.MockTransport(lambda request: httpx.Response(404, text="no such page"))
    model = ScriptedModel([{"text": "Done, without the team's rules."}])
    async with (
        httpx.AsyncClient(transport=gone) as client,
        open_runtime(
            project, {"HOME": str(project / "home")}, models=ScriptedResolver(model), store="memory", http_client=client
        ) as rt,
    ):
        session = await rt.sessions.create()
        answer = await rt.loop.prompt(PromptRequest(session.id, [TextInput("tidy up")]))
    print("answer:", answer.text)

    events = []
    for record in kept.records:
        # `%(message)s` reads "event key=value ..."; `record.msg` is the event itself, for structured handlers.
        assert isinstance(record.msg, EventMessage)
        kind = "notice" if is_notice(record) else "warning"  # a notice is about the user's own input
        print(f"{record.levelname} {record.name} ({kind}): {record.msg.event} {record.msg.fields()}")
        events.append(record.msg.event)
    assert events == ["config.unknown_key", "instruction URL failed, skipped"]


anyio.run(main)
