"""The status of the runtime's helper services, as OpenCode reports them: MCP servers (`/mcp`), language servers
(`/lsp`), formatters (`/formatter`), and the language servers' workspace symbols (`/find/symbol`).

Each comes from the runtime's own service, read only: a project without an `mcp`, `lsp` or `formatter` key
runs none, and its answer is the empty one. `/find/symbol` asks the running language servers
(`workspace/symbol`); with none running it is an empty list, as OpenCode answers without language servers:
Strata has no symbol index of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from strata_server.errors import bad_request
from strata_server.state import server_state


async def mcp_status(request: Request) -> JSONResponse:
    """Every configured server's status once each has started or failed (each within its start timeout, as
    OpenCode waits for its clients before it answers)."""
    mcp = server_state(request).runtime.mcp
    statuses = await mcp.started() if mcp is not None else {}
    answer: dict[str, dict[str, str]] = {}
    for name, status in statuses.items():
        entry: dict[str, str] = {"status": status.status}
        if status.status == "failed":
            entry["error"] = status.error or "failed"
        answer[name] = entry
    return JSONResponse(answer)


async def lsp_status(request: Request) -> JSONResponse:
    servers = server_state(request).runtime.container.language_servers()
    return JSONResponse([{"id": s.id, "name": s.name, "root": s.root, "status": s.status} for s in servers.status()])


async def formatter_status(request: Request) -> JSONResponse:
    """The formatters in force (the config's `formatter` key turns on the built-ins and adds its own). The
    core's formatter service tells their names only, so the extensions are the ones the config gives (none for
    a built-in) and each is listed enabled: it runs on the files it serves when its program is installed."""
    runtime = server_state(request).runtime
    entries = runtime.config.blocks.formatter.formatters
    listed = []
    for name in runtime.container.formatter().names():
        entry = entries.get(name)
        extensions = list(entry.extensions) if entry is not None and entry.extensions else []
        listed.append({"name": name, "extensions": extensions, "enabled": True})
    return JSONResponse(listed)


async def find_symbols(request: Request) -> JSONResponse:
    query = request.query_params.get("query")
    if query is None:
        raise bad_request("query: the symbol search needs a query parameter.")
    servers = server_state(request).runtime.container.language_servers()
    found = [symbol_data(item) for item in await servers.workspace_symbols(query)]
    return JSONResponse([symbol for symbol in found if symbol is not None])


def symbol_data(item: Mapping[str, Any]) -> dict[str, Any] | None:
    """OpenCode's `Symbol` from LSP's `SymbolInformation`; a `WorkspaceSymbol` without a range (its location is
    resolved later, which OpenCode does not do either) is left out."""
    location = item.get("location")
    if not isinstance(location, Mapping) or "range" not in location or "uri" not in location:
        return None
    return {
        "name": item["name"],
        "kind": item["kind"],
        "location": {"uri": location["uri"], "range": location["range"]},
    }


ROUTES = [
    Route("/mcp", mcp_status, methods=["GET"]),
    Route("/lsp", lsp_status, methods=["GET"]),
    Route("/formatter", formatter_status, methods=["GET"]),
    Route("/find/symbol", find_symbols, methods=["GET"]),
]
