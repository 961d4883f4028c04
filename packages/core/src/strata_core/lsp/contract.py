"""What the tools and the server ask of language servers: the `LanguageServers` service.

The default (`NoLanguageServers`) is what a project without an `lsp` key gets: nothing starts, nothing is
imported, every answer is empty. `service.ProjectLanguageServers` is the real one; `values.py` holds what
they report, and `report.py` turns diagnostics into the text the model reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from strata_core.lsp.values import Diagnostic, ServerStatus


class LanguageServers(Protocol):
    """The project's language servers, started on first need for a file they serve."""

    async def touch(self, path: Path, *, wait: bool) -> None:
        """Open (or update) `path` in every server for it; with `wait`, until its diagnostics are in (at most
        5 s). Best effort: a server that fails or never answers only costs the wait."""
        ...

    def diagnostics(self) -> Mapping[Path, Sequence[Diagnostic]]:
        """Every file's latest diagnostics, in the order the servers first reported them."""
        ...

    def status(self) -> Sequence[ServerStatus]: ...

    async def workspace_symbols(self, query: str) -> Sequence[Mapping[str, Any]]:
        """`workspace/symbol` of every running server (code-like kinds, 10 per server), as LSP shapes them."""
        ...


class NoLanguageServers:
    """No language servers: the project has no `lsp` key, or turned it off."""

    async def touch(self, path: Path, *, wait: bool) -> None:
        return None

    def diagnostics(self) -> Mapping[Path, Sequence[Diagnostic]]:
        return {}

    def status(self) -> Sequence[ServerStatus]:
        return ()

    async def workspace_symbols(self, query: str) -> Sequence[Mapping[str, Any]]:
        return ()
