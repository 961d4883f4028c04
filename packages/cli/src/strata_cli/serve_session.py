"""The body of `strata serve`: open the runtime with questions answered over the API, then serve it."""

from __future__ import annotations

from collections.abc import Callable

from strata_cli.app import AppContainer, start_runtime
from strata_cli.errors import CliError
from strata_server import ServerSettings, ServerStartError, runtime_options, serve


async def serve_project(container: AppContainer, settings: ServerSettings, ready: Callable[[str], None]) -> None:
    async with start_runtime(container, **runtime_options(settings)) as runtime:
        try:
            await serve(runtime, settings, ready=ready)
        except ServerStartError as error:
            raise CliError(str(error)) from error
