"""What the file tools do after they changed a file: format it, then read its language servers' diagnostics.

One `CodeChecks` per runtime holds the project's `Formatter` and `LanguageServers` (both do nothing unless
the config's `formatter` / `lsp` turn them on) and returns the note a tool appends to its result, in
OpenCode's words (`lsp/report.py`), with the diagnostics for the result's metadata.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from strata_core.formatter.contract import Formatter, NoFormatter
from strata_core.lsp.contract import LanguageServers, NoLanguageServers


class Checked(NamedTuple):
    """A changed file's checks: the text for the model (may be empty) and `metadata.diagnostics`."""

    note: str
    diagnostics: dict[str, Any]


class CodeChecks:
    # A plain class: it is built on every start-up that builds the tools, and attrs' class creation costs more.
    def __init__(self, formatter: Formatter | None = None, servers: LanguageServers | None = None) -> None:
        self.formatter: Formatter = formatter or NoFormatter()
        self.servers: LanguageServers = servers or NoLanguageServers()

    async def _format_and_wait(self, paths: Sequence[Path]) -> None:
        for path in paths:
            await self.formatter.format(path)
        for path in paths:
            await self.servers.touch(path, wait=True)

    async def after_edit(self, path: Path) -> Checked:
        from strata_core.lsp import report  # here: a run without language servers never loads it

        await self._format_and_wait([path])
        found = self.servers.diagnostics()
        return Checked(report.edit_note(path, found), report.metadata(found))

    async def after_write(self, path: Path) -> Checked:
        from strata_core.lsp import report

        await self._format_and_wait([path])
        found = self.servers.diagnostics()
        return Checked(report.write_note(path, found), report.metadata(found))

    async def after_patch(self, paths: Sequence[Path], worktree: Path) -> Checked:
        from strata_core.lsp import report

        await self._format_and_wait(paths)
        found = self.servers.diagnostics()
        return Checked(report.patch_note(paths, worktree, found), report.metadata(found))

    async def after_read(self, path: Path) -> None:
        """The file is opened in its servers (warming them up), without waiting for anything."""
        await self.servers.touch(path, wait=False)
