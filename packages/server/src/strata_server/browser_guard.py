"""What a web page could make a browser send to this server, refused before any route runs.

- **Host (DNS rebinding).** A page on `attacker.example` that re-points its own name at 127.0.0.1 reaches this
  server as `attacker.example`: the same origin to the browser, so CORS never applies and the page reads every
  answer. A request is served only when its `Host` names this server: an IP address literal (a name-less host
  cannot be rebound; a page can only be that address's own origin), `localhost`, the name the server was
  bound to (`--hostname`), or a name given with `--allowed-host` (a reverse proxy's, a LAN name). The port is
  not compared (a proxy may forward from another one). So a server bound to `0.0.0.0` answers by any of its
  addresses, and by a DNS name only once that name is configured.
- **Origin (CSRF).** A state-changing request (POST, PUT, PATCH, DELETE) that carries an `Origin` is served
  only from the server's own origin (its host and port are the request's `Host`) or an origin given with
  `--cors`; `null` (a sandboxed frame, a file) is refused. Clients outside a browser (the SDK under node,
  OpenCode's TUI, `strata run --attach`, curl) send no `Origin` and pass, with or without the password.
- **Content type.** Every body OpenCode's API takes is JSON, and its clients say so; a state-changing request
  with a body or a `Content-Type` must send `application/json`. A browser sends `text/plain`, form and untyped
  bodies cross-origin without asking first (a "simple request"): they are refused with a 415.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from attrs import define
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from strata_core.tool.support import is_address
from strata_server.errors import ApiError, json_error

STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
LOOPBACK_NAMES = frozenset({"localhost"})


def host_name(host: str) -> str:
    """The name or address of a `Host` header, without its port or IPv6 brackets, lower case, no final dot."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    if host.count(":") == 1:  # more than one: a bare IPv6 address (a --hostname), which has no port
        host = host.partition(":")[0]
    return host.rstrip(".")


def server_names(hostname: str, allowed_hosts: Iterable[str]) -> frozenset[str]:
    """The names a request's `Host` may give besides an address: localhost, the bound name, the configured ones."""
    return LOOPBACK_NAMES | {host_name(hostname)} | {host_name(name) for name in allowed_hosts}


def cors_origins(origins: Iterable[str]) -> frozenset[str]:
    """The `--cors` origins as an `Origin` header is compared with them (browsers send it in lower case)."""
    return frozenset(origin.lower() for origin in origins)


def host_refusal(host: str | None, names: frozenset[str]) -> ApiError | None:
    """Why a request with this `Host` is refused, or None; no Host at all (HTTP/1.0, never a browser) passes."""
    if host is None:
        return None
    name = host_name(host)
    if is_address(name) or name in names:
        return None
    return ApiError(
        403,
        "ForbiddenError",
        f"Host {host!r} is not a name of this server, so the request is refused (a web page that points its own "
        "name at this server must not reach it: DNS rebinding). Use the server's address or localhost, or start "
        "it with --allowed-host NAME for a name that really is this server's.",
    )


def origin_refusal(origin: str | None, host: str | None, cors: frozenset[str]) -> ApiError | None:
    """Why a state-changing request from this browser `Origin` is refused, or None (no Origin passes)."""
    if origin is None or origin.lower() in cors:
        return None
    parts = urlsplit(origin.lower())
    if parts.scheme in ("http", "https") and host is not None and parts.netloc == host.strip().lower():
        return None  # the server's own origin
    return ApiError(
        403,
        "ForbiddenError",
        f"Requests from the web page at {origin!r} may not change anything on this server (cross-site request "
        "forgery); only its own origin and the origins given with --cors may.",
    )


def media_refusal(content_type: str | None, has_body: bool) -> ApiError | None:
    """Why a state-changing request's body is refused for its type, or None: JSON, or no body and no type."""
    if content_type is None and not has_body:
        return None
    media = (content_type or "").partition(";")[0].strip().lower()
    if media == "application/json" or (media.startswith("application/") and media.endswith("+json")):
        return None
    sent = f"Content-Type {media}" if media else "no Content-Type"
    return ApiError(
        415,
        "UnsupportedMediaTypeError",
        f"The request body must be JSON sent with Content-Type: application/json, not {sent}.",
    )


def refusal(scope: Scope, names: frozenset[str], cors: frozenset[str]) -> ApiError | None:
    """The first of the three checks a request fails (Host, then Origin and content type), or None."""
    headers = Headers(scope=scope)
    host = headers.get("host")
    refused = host_refusal(host, names)
    if refused is not None or scope["method"] not in STATE_CHANGING:
        return refused
    has_body = headers.get("content-length", "0").strip() != "0" or "transfer-encoding" in headers
    return origin_refusal(headers.get("origin"), host, cors) or media_refusal(headers.get("content-type"), has_body)


@define
class BrowserGuard:
    """ASGI middleware: a request `refusal` names is answered with its JSON error and never reaches a route."""

    app: ASGIApp
    names: frozenset[str]
    """`server_names(...)`."""
    cors: frozenset[str]
    """The `--cors` origins, lower case (`cors_origins`)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        refused = refusal(scope, self.names, self.cors) if scope["type"] == "http" else None
        if refused is None:
            await self.app(scope, receive, send)
            return
        await json_error(refused)(scope, receive, send)
