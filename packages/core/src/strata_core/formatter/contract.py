"""What the edit tools ask of formatters: `Formatter.format(path)`, run after they wrote a file.

The default (`NoFormatter`) is what a project without a `formatter` key gets. `service.ProjectFormatter` runs
the configured formatter for the file's extension. Formatting never changes a tool's result text: the file
on disk is formatted, and a later read shows it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol


class Formatter(Protocol):
    async def format(self, path: Path) -> None:
        """Format `path` in place with the formatters for it; failures are logged, never raised."""
        ...

    def names(self) -> Sequence[str]:
        """The formatters in force, as `/formatter` and `strata debug` list them."""
        ...


class NoFormatter:
    """No formatting: the project has no `formatter` key, or turned it off."""

    async def format(self, path: Path) -> None:
        return None

    def names(self) -> Sequence[str]:
        return ()
