"""The body of `strata serve`: open the runtime with questions answered over the API, then serve it."""

from __future__ import annotations

from collections.abc import Callable

from dependency_injector import providers

from strata_cli.app import AppContainer, start_runtime
from strata_cli.errors import CliError
from strata_core.permission.flow import PermissionFlow
from strata_server import ServerSettings, ServerStartError, serve


async def serve_project(container: AppContainer, settings: ServerSettings, ready: Callable[[str], None]) -> None:
    core = container.core
    flow = providers.Singleton(
        PermissionFlow, bus=core.bus, ids=core.ids, mode="interactive", reply_timeout=settings.permission_timeout
    )
    core.permissions.override(flow)
    async with start_runtime(container, "interactive") as runtime:
        try:
            await serve(runtime, settings, ready=ready)
        except ServerStartError as error:
            raise CliError(str(error)) from error
