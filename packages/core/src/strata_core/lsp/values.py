"""The values language servers report: a file's `Diagnostic`s (LSP's 0-based positions) and a `ServerStatus`."""

from __future__ import annotations

from typing import Any, Literal

from attrs import frozen

ERROR = 1
"""LSP's severity of an error: the only one the model is shown."""


@frozen
class Diagnostic:
    """One problem a server reported in a file."""

    line: int
    character: int
    end_line: int
    end_character: int
    message: str
    severity: int = ERROR
    source: str | None = None
    code: str | int | None = None

    def as_json(self) -> dict[str, Any]:
        """LSP's own shape, as OpenCode keeps diagnostics in a tool result's metadata."""
        shape: dict[str, Any] = {
            "range": {
                "start": {"line": self.line, "character": self.character},
                "end": {"line": self.end_line, "character": self.end_character},
            },
            "severity": self.severity,
            "message": self.message,
        }
        if self.source is not None:
            shape["source"] = self.source
        if self.code is not None:
            shape["code"] = self.code
        return shape


@frozen
class ServerStatus:
    """One running (or failed) server, as `/lsp` and the debug commands list it."""

    id: str
    name: str
    root: str
    """The server's root, relative to the project directory."""
    status: Literal["connected", "error"]
