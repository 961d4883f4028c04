"""The ASGI app: OpenCode's routes over one open runtime, behind CORS, the browser guard (Host, Origin, JSON
bodies), the body limit and basic auth."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from strata_core.errors import StrataError
from strata_core.logging import get_logger
from strata_server.browser_guard import BrowserGuard, cors_origins, server_names
from strata_server.errors import ApiError, error_response, json_error
from strata_server.routes import (
    api_v2,
    app_info,
    credentials,
    events,
    experimental,
    files,
    permissions,
    prompts,
    questions,
    services,
    session_actions,
    session_changes,
    sessions,
    tui,
    unimplemented,
)
from strata_server.security import BasicAuth, BodyLimit
from strata_server.state import ServerState

log = get_logger(__name__)


def implemented_routes() -> list[BaseRoute]:
    """Every route Strata serves (what `/doc` documents), in OpenCode's paths."""
    return [
        *app_info.ROUTES,
        *credentials.ROUTES,
        *sessions.ROUTES,
        *session_changes.ROUTES,
        *prompts.ROUTES,
        *session_actions.ROUTES,
        *permissions.ROUTES,
        *questions.ROUTES,
        *files.ROUTES,
        *services.ROUTES,
        *api_v2.ROUTES,
        *experimental.ROUTES,
        *tui.ROUTES,
        *events.ROUTES,
        *unimplemented.ROUTES,
    ]


def create_app(state: ServerState) -> Starlette:
    settings = state.settings
    routes = implemented_routes()
    names = server_names(settings.hostname, settings.allowed_hosts)
    middleware = [
        Middleware(BrowserGuard, names=names, cors=cors_origins(settings.cors)),
        Middleware(BodyLimit, max_bytes=settings.max_body_bytes),
    ]
    if settings.password is not None:
        middleware.append(Middleware(BasicAuth, username=settings.username, password=settings.password))
    if settings.cors:
        # Outermost, so a preflight is answered (and a refusal carries the CORS headers) before the guards run.
        cors = Middleware(CORSMiddleware, allow_origins=list(settings.cors), allow_methods=["*"], allow_headers=["*"])
        middleware.insert(0, cors)
    middleware.append(Middleware(_LastResort))
    app = Starlette(
        routes=[*routes, *unimplemented.unimplemented_routes(routes)],
        middleware=middleware,
        exception_handlers={ApiError: error_response, StrataError: error_response, HTTPException: _http_error},
    )
    app.state.strata = state
    return app


async def _http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    if error.status_code == 404:
        message = f"No route {request.url.path}; GET /doc lists the API."
        return json_error(ApiError(404, "NotFoundError", message))
    if error.status_code == 405:
        return json_error(
            ApiError(405, "MethodNotAllowedError", f"{request.method} is not served at {request.url.path}.")
        )
    return json_error(ApiError(error.status_code, "HTTPError", str(error.detail)))


class _LastResort:
    """Answers a failure nobody expected as a 500 JSON error (logged with its traceback, never sent)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception as error:
            if started or scope["type"] != "http":
                raise
            response = await error_response(Request(scope), error)
            await response(scope, receive, send)
