"""The ASGI layers in front of the routes: HTTP basic auth and the request body limit.

Both are plain ASGI middleware, so a refused request never reaches a route.
"""

from __future__ import annotations

import base64
import binascii
import hmac

from attrs import define
from starlette.types import ASGIApp, Receive, Scope, Send

from strata_server.errors import ApiError, json_error


@define
class BasicAuth:
    """Every HTTP request needs `Authorization: Basic` with this username and password; CORS preflights pass
    (browsers send them without credentials; the CORS layer answers them)."""

    app: ASGIApp
    username: str
    password: str

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] == "OPTIONS" or self._authorized(scope):
            await self.app(scope, receive, send)
            return
        error = ApiError(
            401,
            "UnauthorizedError",
            "This server needs HTTP basic auth: the username and password it was started with.",
        )
        await json_error(error, {"WWW-Authenticate": 'Basic realm="strata"'})(scope, receive, send)

    def _authorized(self, scope: Scope) -> bool:
        header = dict(scope["headers"]).get(b"authorization", b"")
        scheme, _, encoded = header.partition(b" ")
        if scheme.lower() != b"basic":
            return False
        try:
            user, _, password = base64.b64decode(encoded, validate=True).decode().partition(":")
        except (binascii.Error, UnicodeDecodeError):
            return False
        expected = f"{self.username}:{self.password}".encode()
        return hmac.compare_digest(f"{user}:{password}".encode(), expected)


@define
class BodyLimit:
    """Requests that declare a body over `max_bytes` are answered 413 before it is read; a body without a
    declared length is counted as it is read (`body.read_json`)."""

    app: ASGIApp
    max_bytes: int

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        declared = dict(scope["headers"]).get(b"content-length") if scope["type"] == "http" else None
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await json_error(body_too_large(self.max_bytes))(scope, receive, send)
            return
        await self.app(scope, receive, send)


def body_too_large(max_bytes: int) -> ApiError:
    return ApiError(413, "PayloadTooLargeError", f"The request body is over the server's limit of {max_bytes} bytes.")
