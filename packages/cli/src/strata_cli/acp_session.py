"""The body of `strata acp`: open the runtime with questions answered by the editor, then serve it on stdio."""

from __future__ import annotations

from importlib import metadata

from strata_acp import ClientApprover, serve_stdio
from strata_cli.app import AppContainer, start_runtime


async def serve_acp(container: AppContainer) -> None:
    approver = ClientApprover()
    async with start_runtime(container, approver=approver) as runtime:
        await serve_stdio(runtime, approver, version=metadata.version("strata-cli"))
