"""Serving one editor connection on this process's stdin and stdout until the editor closes it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio
from acp import stdio_streams

# `acp.run_agent`'s own class, from its module: the package's name for it warns that it is deprecated.
from acp.core import DEFAULT_STDIO_BUFFER_LIMIT_BYTES, AgentSideConnection

from strata_acp.agent import StrataAgent
from strata_acp.permission import ClientApprover
from strata_acp.projects import ProjectOpener, Projects, project_of
from strata_acp.wire import StdioWire

if TYPE_CHECKING:
    from strata_core.runtime import Runtime

ANSWER_GRACE = 5.0
"""Seconds the requests read before the end of input have to be answered before the process exits."""


async def serve_stdio(
    runtime: Runtime, approver: ClientApprover, *, version: str = "0.1.0", open_project: ProjectOpener | None = None
) -> None:
    """Answer the editor on stdio with `runtime` (opened with `approver=approver`) until stdin closes.

    A session whose `cwd` is another directory works in the runtime `open_project` opens for it (with the same
    approver); without it, every session works in `runtime`."""
    reader, writer = await stdio_streams(limit=DEFAULT_STDIO_BUFFER_LIMIT_BYTES)
    wire = StdioWire(reader, writer)
    async with anyio.create_task_group() as background:
        projects = Projects(project_of(runtime, background), background, open_project)
        agent = StrataAgent(projects, approver, background, version=version)
        # fork, resume and close are still "unstable" methods in the library: without the flag it answers them
        # "Method not found", though editors (and opencode acp) use them.
        connection = AgentSideConnection(agent, wire, listening=False, use_unstable_protocol=True)
        try:
            await connection.listen()
        finally:
            with anyio.CancelScope(shield=True):
                await _end(agent, wire)
                await connection.close()
            background.cancel_scope.cancel()


async def _end(agent: StrataAgent, wire: StdioWire) -> None:
    """At the end of input: stop the turns, and give the requests already read a moment to be answered
    (`echo '...' | strata acp` gets its answers). Closing the connection then cancels what is left; what
    that still sends is dropped by the wire, not waited for."""
    await agent.cancel_all()
    with anyio.move_on_after(ANSWER_GRACE):
        await wire.all_answered()
