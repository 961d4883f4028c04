"""Serving one editor connection on this process's stdin and stdout until the editor closes it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio
from acp import run_agent

from strata_acp.agent import StrataAgent
from strata_acp.permission import ClientApprover

if TYPE_CHECKING:
    from strata_core.runtime import Runtime


async def serve_stdio(runtime: Runtime, approver: ClientApprover, *, version: str = "0.1.0") -> None:
    """Answer the editor on stdio with `runtime` (opened with `approver=approver`) until stdin closes."""
    # fork, resume and close are still "unstable" methods in the library: without the flag it answers them
    # "Method not found", though editors (and opencode acp) use them.
    async with anyio.create_task_group() as background:
        agent = StrataAgent(runtime, approver, background, version=version)
        agent.mcp.install()
        await run_agent(agent, use_unstable_protocol=True)
        background.cancel_scope.cancel()
