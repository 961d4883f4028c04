"""The body of `strata acp`: open the runtime with questions answered by the editor, then serve it on stdio."""

from __future__ import annotations

import os
import stat
from contextlib import AbstractAsyncContextManager
from importlib import metadata
from pathlib import Path

from dependency_injector import providers

from strata_acp import ClientApprover, serve_stdio
from strata_cli.app import AppContainer, start_runtime
from strata_cli.errors import CliError
from strata_core.runtime import Runtime


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

    def open_project(directory: Path) -> AbstractAsyncContextManager[Runtime]:
        """The runtime of a session's working directory: this one's pieces, that directory's config."""
        return start_runtime(project_container(container, directory), approver=approver)

    async with start_runtime(container, approver=approver) as runtime:
        await serve_stdio(runtime, approver, version=metadata.version("strata-cli"), open_project=open_project)


def project_container(container: AppContainer, directory: Path) -> AppContainer:
    """`container` for another project directory: the same environment, model catalogue and parameters."""
    other = AppContainer(directory=directory)
    other.env.override(providers.Object(container.env()))
    other.model_resolver_factory.override(providers.Object(container.model_resolver_factory()))
    other.parameters.override(providers.Object(container.parameters()))
    return other
