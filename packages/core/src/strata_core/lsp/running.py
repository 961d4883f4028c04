"""The runtime's language servers for a loaded config: the one way they are built, sandboxed as MCP servers are.

Without the `lsp` extra (`lsprotocol`) the config's servers cannot be spoken to: the runtime then starts
none and says so once, naming the extra, rather than failing every edit.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from strata_core.config.paths import StrataPaths
from strata_core.config.service import ConfigInfo
from strata_core.errors import MissingExtraError
from strata_core.extras import needing
from strata_core.logging import get_logger
from strata_core.lsp.contract import LanguageServers, NoLanguageServers
from strata_core.project import ProjectInfo

log = get_logger(__name__)


def configured_language_servers(
    config: ConfigInfo, *, env: Mapping[str, str], paths: StrataPaths, project: ProjectInfo
) -> AbstractAsyncContextManager[LanguageServers]:
    """`async with configured_language_servers(...) as servers:` — the config's `lsp` servers, started on
    first need inside the shell sandbox in force, all shut down on exit."""
    return _running(config, env, paths, project)


@asynccontextmanager
async def _running(
    config: ConfigInfo, env: Mapping[str, str], paths: StrataPaths, project: ProjectInfo
) -> AsyncIterator[LanguageServers]:
    try:
        with needing("lsp", "language servers (the config's lsp)"):
            from strata_core.lsp.service import ProjectLanguageServers
    except MissingExtraError as error:
        log.warning("lsp.unavailable", reason=str(error))
        yield NoLanguageServers()
        return
    from strata_core.lsp.servers import configured_specs
    from strata_core.sandbox import configured_sandbox, writable_root
    from strata_core.sandbox.server_launch import sandboxed

    root = writable_root(project.directory, project.worktree)
    contain = sandboxed(configured_sandbox(config, env, paths, project.id), root)
    specs = configured_specs(config.blocks.lsp)
    async with ProjectLanguageServers(specs, project.directory, env, contain) as servers:
        yield servers
