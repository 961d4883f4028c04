"""What both wires share: one streaming POST, its server-sent events, and how failures are reported.

A wire supplies the request (`WireRequest`) and a `StreamDecoder` that turns SSE events into Strata's stream
events. This module does the HTTP: it checks the status, reads the events with httpx-sse, maps every
httpx failure to a `ModelError`, retries through `retry.stream_with_retries`, and closes the response
however the caller leaves.
"""

from __future__ import annotations

import ipaddress
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
from anyio.abc import TaskGroup
from attrs import field, frozen

from strata_core import json_text
from strata_core.http import NonLoopbackRequestError, is_loopback_host
from strata_core.llm import (
    BadResponseError,
    ModelInfo,
    ModelRequest,
    ServerNotListeningError,
    StreamEvent,
    TransportError,
)
from strata_providers.deadlines import AttemptTimer, Deadlines
from strata_providers.errors import error_for_status, error_from_payload
from strata_providers.retry import RetryPolicy, stream_with_retries
from strata_providers.stream_reader import BodyReader
from strata_providers.stream_reader import StreamDecoder as StreamDecoder
from strata_providers.stream_reader import decode_event as decode_event
from strata_providers.wire_json import encode_body

_CLOSE_GRACE = 5.0
"""Seconds a cancelled caller still grants us to close the response cleanly."""


@frozen
class Endpoint:
    """Where a provider lives and how to authenticate to it."""

    base_url: str
    api_key: str | None = field(default=None, repr=False)
    headers: Mapping[str, str] = field(factory=dict, repr=False)
    """Extra headers from the provider's config (`options.headers`)."""
    deadlines: Deadlines = field(factory=Deadlines)
    """How long a call may wait (`options.headerTimeout`, `chunkTimeout`, `timeout`)."""

    def url(self, path: str) -> str:
        return f"{self.base_url.rstrip('/')}/{path.lstrip('/')}"


@frozen
class WireRequest:
    """One HTTP request, ready to send."""

    url: str
    headers: Mapping[str, str]
    body: Mapping[str, Any]
    provider_id: str = ""
    base_url: str = ""
    """Who the request is for and its configured `baseURL`: what a refused connection's error names."""


def request_headers(
    own: Mapping[str, str], endpoint: Endpoint, info: ModelInfo, request: ModelRequest
) -> dict[str, str]:
    """A wire's own headers, then provider, model, session and per-request ones (later ones win)."""
    headers = {"content-type": "application/json", "accept": "text/event-stream", **own}
    headers.update(endpoint.headers)
    headers.update(info.headers)
    if request.session_id:
        # OpenCode sends both to non-OpenCode providers, so gateways can pin a session to one backend.
        headers["x-session-affinity"] = request.session_id
        headers["x-session-id"] = request.session_id
    headers.update(request.headers)
    return headers


@asynccontextmanager
async def open_stream(
    client: httpx.AsyncClient,
    request: WireRequest,
    new_decoder: Callable[[], StreamDecoder],
    policy: RetryPolicy,
    deadlines: Deadlines | None = None,
) -> AsyncIterator[AsyncIterator[StreamEvent]]:
    """The events of one model call, retried per `policy`; leaving the block closes the response."""
    bounds = deadlines or Deadlines()
    callers: BaseException | None = None
    try:
        async with anyio.create_task_group() as readers:  # each attempt's body is read in a task here
            events = stream_with_retries(
                lambda: stream_attempt(client, request, new_decoder(), readers, bounds), policy
            )
            try:
                yield events
            finally:
                # Shielded: a cancelled caller must still release the connection, or the server keeps generating.
                with anyio.move_on_after(_CLOSE_GRACE, shield=True):
                    await events.aclose()
    except BaseExceptionGroup as group:
        # The readers never raise, so the group holds what the caller's block raised: that goes on as it was
        # (raised outside this handler, so it keeps its own cause, context and traceback).
        if len(group.exceptions) != 1:
            raise
        callers = group.exceptions[0]
    if callers is not None:
        raise callers


async def stream_attempt(
    client: httpx.AsyncClient,
    request: WireRequest,
    decoder: StreamDecoder,
    readers: TaskGroup,
    deadlines: Deadlines | None = None,
) -> AsyncGenerator[StreamEvent, None]:
    """One attempt: POST, then decoded events (the body read by a task in `readers`); every expected failure
    is raised as a `ModelError`.

    Each wait is bounded by `deadlines` (`deadlines.py`): the client's own read timeout stays as a backstop,
    but keepalive bytes reset it while no output arrives, so it cannot be the bound.
    """
    timer = AttemptTimer.start(deadlines or Deadlines(), request.url)
    content = encode_body(request.body)  # a history's messages encoded once, not again every step
    post = client.build_request("POST", request.url, headers=request.headers, content=content)
    try:
        response = await timer.headers(client.send(post, stream=True))
        try:
            await timer.chunk(_check_response(response))
            reader = BodyReader(response, decoder, timer)
            readers.start_soon(reader.run)
            try:
                while (batch := await reader.next_batch()) is not None:
                    for event in batch:
                        yield event
            finally:
                await reader.stop()
        finally:
            await response.aclose()
    except NonLoopbackRequestError:
        raise  # the test suite's network guard: a bug in the test, not a provider failure
    except httpx.TimeoutException as exc:
        raise TransportError(f"{_timeout_kind(exc)} talking to {request.url}: {_describe(exc)}") from exc
    except httpx.ConnectError as exc:
        raise connect_failure(request, exc) from exc
    except httpx.HTTPError as exc:
        raise TransportError(f"connection to {request.url} failed: {_describe(exc)}") from exc


async def _check_response(response: httpx.Response) -> None:
    if not response.is_success:
        body = (await response.aread()).decode("utf-8", errors="replace")
        raise error_for_status(response.status_code, response.headers, body)
    content_type = response.headers.get("content-type", "")
    if "text/event-stream" not in content_type:
        body = (await response.aread()).decode("utf-8", errors="replace")
        payload = _maybe_json(body)
        if isinstance(payload, dict) and "error" in payload:
            raise error_from_payload(payload["error"])
        raise BadResponseError(
            f"expected an event stream (text/event-stream), got {content_type or 'no content type'}: {body[:200]}",
            status=response.status_code,
            body=body,
        )


def _timeout_kind(exc: httpx.TimeoutException) -> str:
    if isinstance(exc, httpx.ConnectTimeout):
        return "timed out connecting"
    if isinstance(exc, httpx.ReadTimeout):
        return "no data for too long (idle read timeout)"
    return "timed out"


def connect_failure(request: WireRequest, exc: httpx.ConnectError) -> TransportError:
    """A failed connect: refused by this machine or the local network is final (nothing listens there, and
    retrying for 14 s will not start it); anything else (a timeout, DNS, a remote refusal) may pass."""
    if _refused(exc) and is_local_address(httpx.URL(request.url).host):
        where = request.base_url or request.url
        if not request.provider_id:
            return ServerNotListeningError(f"nothing is listening at {where}: the connection was refused")
        return ServerNotListeningError(
            f'provider "{request.provider_id}": nothing is listening at its baseURL {where} (connection refused). '
            f"Start the model server there, or set provider.{request.provider_id}.options.baseURL in "
            f"strata.json to the address it listens on."
        )
    return TransportError(f"connection to {request.url} failed: {_describe(exc)}")


def _refused(exc: BaseException) -> bool:
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ConnectionRefusedError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


# Names that only a local resolver answers (RFC 6762 mDNS, RFC 8375, ICANN's private-use `.internal`, and the
# home routers' `.lan`): a server named so is on this network, so a refusal from it is final as an IP's would be.
_LOCAL_NAME_SUFFIXES = (".local", ".localhost", ".internal", ".lan", ".home.arpa")


def is_local_address(host: str) -> bool:
    """A host on this machine or a private network: `localhost`, a loopback, private or link-local IP, a
    single-label name (`mybox`, from /etc/hosts or the search domain) or a local-only name (`nas.local`).

    Decided from the name alone: resolving it again after a refusal would put a DNS lookup on the failure path."""
    if is_loopback_host(host):
        return True
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        name = host.rstrip(".").lower()
        return "." not in name or name.endswith(_LOCAL_NAME_SUFFIXES)
    return address.is_private or address.is_link_local


def _describe(exc: Exception) -> str:
    return str(exc) or type(exc).__name__


def _maybe_json(text: str) -> Any:
    try:
        return json_text.loads(text)
    except ValueError:
        return None
