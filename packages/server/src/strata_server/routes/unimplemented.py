"""`GET /doc`, and a clear 501 for every route OpenCode serves that Strata does not (rather than a 404 page)."""

from __future__ import annotations

import re

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from strata_server.errors import ApiError
from strata_server.openapi import document, opencode_routes


async def doc(request: Request) -> JSONResponse:
    return JSONResponse(document())


async def not_implemented(request: Request) -> JSONResponse:
    raise ApiError(
        501,
        "NotImplementedError",
        f"{request.method} {request.url.path} is part of OpenCode's API but not implemented by Strata's server; "
        "GET /doc lists what is.",
    )


def starlette_path(opencode_path: str) -> str:
    """OpenCode's `/api/fs/read/*` wildcard as a Starlette path parameter; `{param}` is the same in both."""
    return re.sub(r"\*$", "{rest:path}", opencode_path)


def unimplemented_routes(implemented: list[BaseRoute]) -> list[BaseRoute]:
    """A 501 route for each OpenCode path and method that `implemented` lacks."""
    have = {(r.path, method) for r in implemented if isinstance(r, Route) for method in r.methods or ()}
    routes: list[BaseRoute] = []
    for path, methods in opencode_routes().items():
        missing = [m for m in methods if (starlette_path(path), m) not in have]
        if missing:
            routes.append(Route(starlette_path(path), not_implemented, methods=missing))
    return routes


ROUTES = [Route("/doc", doc, methods=["GET"])]
