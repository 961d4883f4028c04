"""OpenCode's `/experimental/*` routes its TUI reads at start: capabilities, the Console state, MCP resources and
workspaces, answered as OpenCode 1.18.33 answers them for a project with none of those features.

Strata has no background subagents, no Console (OpenCode's hosted organisation accounts) and no workspaces, so
those answers are the empty ones OpenCode gives when nothing is set up; the MCP resources are the running
servers' own.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from strata_core.logging import get_logger
from strata_core.mcp import sanitize
from strata_server.state import server_state

log = get_logger(__name__)


async def capabilities(request: Request) -> JSONResponse:
    return JSONResponse({"backgroundSubagents": False})


async def console(request: Request) -> JSONResponse:
    return JSONResponse({"consoleManagedProviders": [], "switchableOrgCount": 0})


async def resources(request: Request) -> JSONResponse:
    """The connected MCP servers' resources, keyed `server:resource` as OpenCode keys them; a server whose
    listing fails is left out, as OpenCode leaves it."""
    mcp = server_state(request).runtime.mcp
    found: dict[str, dict[str, Any]] = {}
    if mcp is None:
        return JSONResponse(found)
    await mcp.started()
    for connection in mcp.resource_servers():
        try:
            listed = await connection.resources()
        except Exception as error:  # one broken server must not hide the others' resources
            log.warning("server.mcp_resources_failed", server=connection.name, error=str(error))
            continue
        for resource in listed:
            entry: dict[str, Any] = {"name": resource.name, "uri": str(resource.uri), "client": connection.name}
            if resource.mime_type:
                entry["mimeType"] = resource.mime_type
            found[f"{sanitize(connection.name)}:{sanitize(resource.name)}"] = entry
    return JSONResponse(found)


async def workspaces(request: Request) -> JSONResponse:
    return JSONResponse([])


async def workspace_status(request: Request) -> JSONResponse:
    return JSONResponse([])


ROUTES = [
    Route("/experimental/capabilities", capabilities, methods=["GET"]),
    Route("/experimental/console", console, methods=["GET"]),
    Route("/experimental/resource", resources, methods=["GET"]),
    Route("/experimental/workspace", workspaces, methods=["GET"]),
    Route("/experimental/workspace/status", workspace_status, methods=["GET"]),
]
