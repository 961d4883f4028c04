"""The body of `strata acp`: open the runtime with questions answered by the editor, then serve it on stdio."""

from __future__ import annotations

import os
import stat
from importlib import metadata

from strata_acp import ClientApprover, serve_stdio
from strata_cli.app import AppContainer, start_runtime
from strata_cli.errors import CliError


def check_streams() -> None:
    """An editor talks to `strata acp` over pipes; a regular file as stdin or stdout cannot carry the protocol."""
    for number, name in ((0, "standard input"), (1, "standard output")):
        if stat.S_ISREG(os.fstat(number).st_mode):
            raise CliError(
                f"strata acp speaks to an editor over pipes, and its {name} is a file: start it from an ACP client."
            )


async def serve_acp(container: AppContainer) -> None:
    check_streams()
    approver = ClientApprover()
    async with start_runtime(container, approver=approver) as runtime:
        await serve_stdio(runtime, approver, version=metadata.version("strata-cli"))
