"""A request to an MCP server that did not give a usable answer, as one error in Strata's words.

The SDK ends a request in three ways besides its result: the server's JSON-RPC error (`MCPError`), a result
that does not match the protocol (pydantic's `ValidationError`, a dump with a link), or, under our bound, no
answer (`TimeoutError`, with no message at all). `answering` turns each into an `McpRequestError` naming the
server, the request and what went wrong, so a caller (a `/server:prompt` command, a listing) reports it as an
ordinary failure instead of a crash.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import anyio

from strata_core.errors import StrataError

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails


class McpRequestError(StrataError):
    """An MCP server answered a request with an error, with a malformed result, or not in time; the message
    names the server and the request."""

    def __init__(self, server: str, reason: str) -> None:
        super().__init__(f'MCP server "{server}" {reason}')
        self.server = server
        self.reason = reason
        """What went wrong, without the server's name (a server's status says it)."""

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.server, self.reason))


@contextmanager
def answering(server: str, request: str, timeout_ms: int | None) -> Iterator[None]:
    """Bounds the request made inside by `timeout_ms` (None: no bound of ours) and words its failure.

    `request` names what was asked, e.g. `prompts/get "review"`."""
    from mcp.shared.exceptions import MCPError
    from pydantic import ValidationError

    try:
        with anyio.fail_after(timeout_ms / 1000 if timeout_ms is not None else None):
            yield
    except TimeoutError:
        raise McpRequestError(server, f"did not answer {request} within {timeout_ms} ms") from None
    except MCPError as error:
        raise McpRequestError(server, f"answered {request} with an error: {error.message}") from error
    except ValidationError as error:
        problems = "; ".join(_problem(detail) for detail in error.errors(include_url=False)[:3])
        raise McpRequestError(server, f"answered {request} with a malformed result ({problems})") from error


def _problem(detail: ErrorDetails) -> str:
    """One validation problem as `where: what`, e.g. `tools[3].inputSchema.type: Input should be 'object'`."""
    where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in detail["loc"]).lstrip(".")
    return f"{where or 'result'}: {detail['msg']}"
