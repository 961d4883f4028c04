"""How a long-running helper server (a local MCP server, a language server) is started inside the shell sandbox.

`LocalLaunch` is the process as it will be spawned; a `Contain` wraps it in the containment in force before
it is spawned, and `sandboxed` builds the one for a `ShellSandbox`: the user's servers get the containment
the model's shell commands get.
"""

from __future__ import annotations

import errno
import os
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from attrs import evolve, frozen

if TYPE_CHECKING:
    from strata_core.sandbox.sandbox import ShellSandbox


@frozen
class LocalLaunch:
    """A local server's process, as it will be spawned (in a process group of its own, stdio piped)."""

    argv: tuple[str, ...]
    env: Mapping[str, str]
    cwd: Path
    configured: Mapping[str, str] = {}
    """The part of `env` the server's own `environment` set (kept as written when the rest is scrubbed)."""


Contain: TypeAlias = Callable[[LocalLaunch], tuple[LocalLaunch, Callable[[], None]]]
"""Wraps a launch in the containment in force; gives the launch to spawn and what to call once the server has
ended. Blocking (it may search the project for files to hide): the connection runs it in a thread."""


def _runnable(launch: LocalLaunch) -> bool:
    """A command named by a path (`./server.py`), relative to the server's directory, that can be run."""
    command = launch.argv[0] if launch.argv else ""
    return os.sep in command and os.access(launch.cwd / command, os.X_OK)


def sandboxed(sandbox: ShellSandbox, root: Path) -> Contain:
    """A `Contain` that starts servers inside `sandbox` (its server layout), `root` being the project's
    writable root: the user's MCP servers get the containment the model's shell commands get, the scrubbed
    environment included (what a server's own `environment` sets is passed as written; `sandbox.env_allow`
    lets an inherited variable through)."""
    from strata_core.sandbox.environment import scrubbed_environment

    settings = sandbox.settings

    def contain(launch: LocalLaunch) -> tuple[LocalLaunch, Callable[[], None]]:
        command = launch.argv[0] if launch.argv else ""
        if shutil.which(command, path=launch.env.get("PATH", os.defpath)) is None and not _runnable(launch):
            # Inside bwrap a missing command is bwrap's own message on the server's stderr; say it here.
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), command)
        inherited = {name: value for name, value in launch.env.items() if name not in launch.configured}
        kept = scrubbed_environment(inherited, hidden=settings.hidden_env, allow=settings.env_allow)
        prepared = sandbox.prepare_server(launch.argv, cwd=launch.cwd, root=root)
        env = {**kept, **dict(prepared.env), **launch.configured}
        return evolve(launch, argv=prepared.argv, env=env), lambda: sandbox.finish(prepared)

    return contain
