"""A turn run in a child process, for the crash test to kill: `python crash_child.py PROJECT DB [SESSION]`.

Prints `PROMPTING <session id>` once the session exists and the prompt is about to start, then runs one
turn against the model configured in PROJECT/strata.json, with the session store at DB.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio

from strata_core.engine.prompt_input import PromptRequest, TextInput
from strata_core.permission.approval import approve_all
from strata_core.runtime import open_runtime
from strata_providers.catalog import ProviderCatalog
from strata_providers.params import ProviderParameters


async def main(project: Path, database: Path, session_id: str | None) -> None:
    async with open_runtime(
        project,
        dict(os.environ),
        approver=approve_all,
        models=lambda config, env, client: ProviderCatalog(config.blocks, env, client),
        parameters=ProviderParameters(),
        store=database,
    ) as runtime:
        if session_id is None:
            session_id = (await runtime.sessions.create()).id
        print(f"PROMPTING {session_id}", flush=True)
        await runtime.loop.prompt(PromptRequest(session_id, [TextInput("read the notes, then explain")]))
        print("DONE", flush=True)


if __name__ == "__main__":
    anyio.run(main, Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else None)
