"""The default `Formatter`: the project's formatters run on a written file, each within `FORMAT_TIMEOUT`.

Whether a built-in applies is decided once per project, on the first file it would serve (it may read
`pyproject.toml` or `package.json`); the command then runs in the project directory with the formatter's
own environment over Strata's. A formatter that fails, is missing or hangs is logged and the file is left as
written: formatting is a courtesy, never a reason for an edit to fail.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import anyio

from strata_core.formatter.formatters import FILE, Command, FormatterSpec
from strata_core.logging import get_logger

log = get_logger(__name__)

FORMAT_TIMEOUT = 10.0
_UNDECIDED = ("",)


class ProjectFormatter:
    def __init__(self, specs: Sequence[FormatterSpec], directory: Path, worktree: Path, env: Mapping[str, str]):
        self._specs = tuple(specs)
        self._directory = directory
        self._worktree = worktree
        self._env = env
        self._commands: dict[str, Command | None] = {}

    def names(self) -> Sequence[str]:
        return tuple(spec.name for spec in self._specs)

    async def format(self, path: Path) -> None:
        for spec in self._specs:
            if spec.serves(path):
                command = await self._command(spec)
                if command is not None:
                    await self._run(spec, tuple(str(path) if part == FILE else part for part in command))

    async def _command(self, spec: FormatterSpec) -> Command | None:
        command = self._commands.get(spec.name, _UNDECIDED)
        if command == _UNDECIDED:
            command = await anyio.to_thread.run_sync(spec.enabled, self._directory, self._worktree, self._env)
            self._commands[spec.name] = command
        return command

    async def _run(self, spec: FormatterSpec, command: Command) -> None:
        env = {**self._env, **spec.environment}
        try:
            with anyio.fail_after(FORMAT_TIMEOUT):
                done = await anyio.run_process(
                    list(command), cwd=self._directory, env=env, check=False, stdin=subprocess.DEVNULL
                )
        except TimeoutError:
            log.warning("formatter.timed_out", formatter=spec.name, seconds=FORMAT_TIMEOUT, command=list(command))
            return
        except OSError as error:
            log.warning("formatter.failed", formatter=spec.name, command=list(command), error=str(error))
            return
        if done.returncode != 0:
            stderr = done.stderr.decode("utf-8", "replace").strip()[-500:]
            log.warning("formatter.failed", formatter=spec.name, code=done.returncode, stderr=stderr)
