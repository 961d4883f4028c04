"""The project each session works in: the runtime of its `cwd`.

ACP gives every session a working directory; OpenCode runs the session's tools there and files it under that
directory's project. `Projects` holds a runtime per directory: the one `strata acp` was started with, and
others opened on first use (`ProjectOpener`, the front end's way to open a runtime, with its approver) and
kept open until the connection ends. Each has its own `SessionMcp` for the servers the client gives its
sessions. A session is served by the project it was made or opened in; one the client names without opening
it first is the home project's.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

import anyio
from acp import RequestError
from attrs import define, field

from strata_acp.session_mcp import SessionMcp
from strata_acp.working_directory import checked_cwd
from strata_core.logging import get_logger

if TYPE_CHECKING:
    from anyio.abc import TaskGroup, TaskStatus

    from strata_core.runtime import Runtime

log = get_logger(__name__)

ProjectOpener: TypeAlias = Callable[[Path], AbstractAsyncContextManager["Runtime"]]
"""Opens the runtime of a project directory (as `strata acp` opened its own: same approver, same options)."""


@define
class ProjectRuntime:
    """One directory's runtime and the client-given MCP servers of its sessions."""

    runtime: Runtime
    mcp: SessionMcp


def project_of(runtime: Runtime, background: TaskGroup) -> ProjectRuntime:
    mcp = SessionMcp(runtime, background)
    mcp.install()
    return ProjectRuntime(runtime, mcp)


@define
class Projects:
    """The projects of one connection's sessions."""

    home: ProjectRuntime
    background: TaskGroup
    """Where opened runtimes are held open (a runtime is left by the task that entered it)."""
    opener: ProjectOpener | None = None
    """None: every session works in the home project (an embedder that opened one runtime)."""
    _by_directory: dict[Path, ProjectRuntime] = field(factory=dict, init=False)
    _by_session: dict[str, ProjectRuntime] = field(factory=dict, init=False)
    _opening: anyio.Lock = field(factory=anyio.Lock, init=False)

    async def at(self, cwd: str) -> ProjectRuntime:
        """The project of the working directory `cwd` (an absolute directory, else the client's error)."""
        directory = await checked_cwd(cwd)
        if self.opener is None or directory == self.home.runtime.project.directory:
            return self.home
        async with self._opening:  # two sessions in one new directory share its runtime
            if directory not in self._by_directory:
                runtime = await self._open(directory)
                self._by_directory[directory] = project_of(runtime, self.background)
        return self._by_directory[directory]

    def of(self, session_id: str) -> ProjectRuntime:
        """The project serving `session_id`."""
        return self._by_session.get(session_id, self.home)

    def bind(self, session_id: str, project: ProjectRuntime) -> None:
        self._by_session[session_id] = project

    def all(self) -> list[ProjectRuntime]:
        return [self.home, *self._by_directory.values()]

    async def _open(self, directory: Path) -> Runtime:
        try:
            runtime: Runtime = await self.background.start(self._hold, directory)
        except Exception as error:  # its config is broken, its store cannot be opened: the client is told
            log.warning("acp.project_open_failed", directory=str(directory), error=str(error))
            raise RequestError.internal_error({"cwd": str(directory), "reason": str(error)}) from None
        return runtime

    async def _hold(self, directory: Path, *, task_status: TaskStatus[Runtime]) -> None:
        assert self.opener is not None
        async with self.opener(directory) as runtime:
            task_status.started(runtime)
            await anyio.sleep_forever()
