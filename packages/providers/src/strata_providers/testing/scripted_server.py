"""A loopback model server that speaks chat completions and Anthropic Messages from one script.

    async with ScriptedServer([{"text": "Hello."}]) as server:
        ...  # point a provider's baseURL at server.base_url
        assert server.main_requests[0].body["messages"][-1]["content"] == "hi"

It runs on its own thread and event loop, so it answers while the test's loop is busy and while the test
blocks on a subprocess (`strata run` in an end-to-end test); `with ScriptedServer(...)` works from plain
synchronous code too. Every request is recorded (path, headers, parsed body) before it is answered.

A model request that finds the script exhausted gets an immediate 400 (which no client retries) saying the
script ran out, and is remembered: leaving the `with` block raises `ScriptExhaustedError` for it, so a test
cannot pass while a request went unscripted, whatever the code under test did with the failure.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from contextlib import AbstractContextManager
from types import TracebackType
from typing import Any, Literal

import anyio
import anyio.to_thread
from anyio.abc import SocketAttribute, SocketStream
from anyio.from_thread import BlockingPortal, start_blocking_portal
from anyio.streams.buffered import BufferedByteReceiveStream
from attrs import define, field

from strata_core.testing import (
    DEFAULT_TITLE_MARKERS,
    TITLE_TEXT,
    ScriptExhaustedError,
    Turn,
    check_consumed,
    is_title_text,
    parse_script,
)
from strata_providers.testing.http import HttpRequest, read_request, send_json, stream_response
from strata_providers.testing.wire_events import Wire, error_body, error_headers, sse_events

SCRIPT_EXHAUSTED_CODE = "script_exhausted"
"""`error.code` of the answer to an unscripted request."""


@define
class RecordedRequest:
    """One request the server received, in arrival order."""

    index: int
    method: str
    path: str
    headers: dict[str, str]
    """Header names in lower case."""
    body: Any
    """The parsed JSON body (None for a GET or a body that is not JSON)."""
    raw: bytes = field(repr=False)
    wire: Wire | None
    is_title: bool = False
    turn: Turn | None = None
    """The turn that answered it (None for GETs and unknown paths)."""
    _disconnected: threading.Event = field(factory=threading.Event, repr=False)

    @property
    def disconnected(self) -> bool:
        """The client went away before the answer was complete (cancelled, or stopped reading)."""
        return self._disconnected.is_set()


class ScriptedServer:
    """Answers model requests from `script`, one turn per non-title request, and records every request.

    - `title_markers`: a request whose system prompt contains one of these (case-insensitive) is a title
      request, answered with `title_text` without consuming a turn.
    - `done_text`: None (the default) makes a request after the last turn a 400 saying the script ran out,
      remembered and raised as `ScriptExhaustedError` when the server stops (or by `assert_script_consumed()`,
      whichever comes first). A text (the oracle server answers "Done.") answers such requests with it instead,
      for callers that mean to let the code under test make as many calls as it likes.
    """

    def __init__(
        self,
        script: Sequence[Turn | Mapping[str, Any]] = (),
        *,
        title_markers: Sequence[str] = DEFAULT_TITLE_MARKERS,
        title_text: str = TITLE_TEXT,
        done_text: str | None = None,
        host: str = "127.0.0.1",
    ) -> None:
        self.script = parse_script(script)
        self.title_markers = tuple(title_markers)
        self.title_text = title_text
        self.done_text = done_text
        self.host = host
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._turns_used = 0
        self._unscripted: list[ScriptExhaustedError] = []
        self._reported = 0
        """How many of `_unscripted` were raised already: each is raised once, by whoever checks first."""
        self._port: int | None = None
        self._portal_cm: AbstractContextManager[BlockingPortal] | None = None
        self._serving: Future[None] | None = None

    # -- lifecycle ---------------------------------------------------------------------------------------

    def __enter__(self) -> ScriptedServer:
        self._portal_cm = start_blocking_portal(name="scripted-server")
        portal = self._portal_cm.__enter__()
        try:
            self._serving, self._port = portal.start_task(self._serve, name="scripted-server")
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, exc_type: type[BaseException] | None = None, *exc: object) -> None:
        if self._portal_cm is not None:
            if self._serving is not None:
                self._serving.cancel()
            self._portal_cm.__exit__(None, None, None)
            self._portal_cm = None
            self._port = None
        if exc_type is None:  # an error already on its way out says more than this one would
            self._raise_unreported()

    async def __aenter__(self) -> ScriptedServer:
        return await anyio.to_thread.run_sync(self.__enter__)

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await anyio.to_thread.run_sync(self.__exit__, exc_type, exc, tb)

    # -- what tests look at ------------------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("ScriptedServer is not running: use it as a context manager")
        return self._port

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        """What a provider's `baseURL` should be: the wires append `/chat/completions` or `/messages`."""
        return f"{self.url}/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def main_requests(self) -> list[RecordedRequest]:
        """Model requests that consumed (or asked for) a turn, titles excluded."""
        return [r for r in self.requests if r.wire is not None and not r.is_title]

    @property
    def title_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.is_title]

    @property
    def turns_used(self) -> int:
        with self._lock:
            return self._turns_used

    @property
    def unscripted(self) -> list[ScriptExhaustedError]:
        """One error per model request that found the script exhausted, in arrival order."""
        with self._lock:
            return list(self._unscripted)

    def assert_script_consumed(self) -> None:
        """Fail if a request went unscripted or scripted turns were never asked for.

        An unscripted request reported here is not raised again when the server stops.
        """
        with self._lock:
            unscripted, self._reported = list(self._unscripted), len(self._unscripted)
            turns_used = self._turns_used
        check_consumed("ScriptedServer", self.script, turns_used, unscripted)

    async def wait_for_disconnect(self, request: RecordedRequest) -> None:
        """Wait until the server has seen `request`'s client go away; bound it with `anyio.fail_after`."""
        # The flag is set on the server's thread; wait for it in short slices so cancellation gets through.
        while not await anyio.to_thread.run_sync(request._disconnected.wait, 0.05):
            pass

    # -- serving -----------------------------------------------------------------------------------------

    async def _serve(self, *, task_status: anyio.abc.TaskStatus[int]) -> None:
        listener = await anyio.create_tcp_listener(local_host=self.host, local_port=0)
        async with listener:
            task_status.started(listener.extra(SocketAttribute.local_port))
            await listener.serve(self._handle)

    async def _handle(self, stream: SocketStream) -> None:
        async with stream:
            receive = BufferedByteReceiveStream(stream)
            request = await read_request(receive)
            if request is None:
                return
            recorded, turn = self._record(request)
            if turn is None:
                await self._answer_other(stream, request)
            elif turn.is_error_response:
                assert recorded.wire is not None
                await send_json(stream, turn.status or 500, error_body(turn, recorded.wire), error_headers(turn))
            else:
                await self._answer_stream(stream, receive, recorded, turn)

    def _record(self, request: HttpRequest) -> tuple[RecordedRequest, Turn | None]:
        wire = _wire_of(request)
        body = _json_or_none(request.body)
        title = wire is not None and is_title_text(_system_text(body), self.title_markers)
        with self._lock:
            index = len(self._requests)
            turn = None if wire is None else self._turn_for(title, index)
            recorded = RecordedRequest(
                index,
                request.method,
                request.path,
                request.headers,
                body,
                request.body,
                wire,
                title,
                turn,
            )
            self._requests.append(recorded)
        return recorded, turn

    def _turn_for(self, title: bool, index: int) -> Turn:
        if title:
            return Turn(text=self.title_text)
        self._turns_used += 1
        if self._turns_used <= len(self.script):
            return self.script[self._turns_used - 1]
        if self.done_text is not None:
            return Turn(text=self.done_text)
        error = ScriptExhaustedError("ScriptedServer", self._turns_used, len(self.script), index)
        self._unscripted.append(error)
        # 400: every client (Strata's wires, OpenCode's AI SDK) reports it at once instead of retrying.
        return Turn(status=400, code=SCRIPT_EXHAUSTED_CODE, message=str(error))

    def _raise_unreported(self) -> None:
        with self._lock:
            unreported, self._reported = self._unscripted[self._reported :], len(self._unscripted)
        if unreported:
            raise unreported[0]

    async def _answer_stream(
        self, stream: SocketStream, receive: BufferedByteReceiveStream, recorded: RecordedRequest, turn: Turn
    ) -> None:
        assert recorded.wire is not None
        model = recorded.body.get("model", "scripted") if isinstance(recorded.body, dict) else "scripted"
        events = sse_events(turn, recorded.wire, recorded.index, str(model))
        complete = turn.cut_after is None
        finished = await stream_response(stream, receive, events, delay=turn.delay, hang=turn.hang, complete=complete)
        if not finished:
            recorded._disconnected.set()

    async def _answer_other(self, stream: SocketStream, request: HttpRequest) -> None:
        if request.method == "GET" and request.path.split("?")[0].endswith("/models"):
            models = [{"id": "scripted", "object": "model", "owned_by": "strata"}]
            await send_json(stream, 200, {"object": "list", "data": models})
        else:
            await send_json(stream, 404, {"error": {"message": f"no route {request.method} {request.path}"}})


def _wire_of(request: HttpRequest) -> Literal["chat", "messages"] | None:
    path = request.path.split("?")[0]
    if request.method != "POST":
        return None
    if path.endswith("/chat/completions"):
        return "chat"
    if path.endswith("/messages"):
        return "messages"
    return None


def _system_text(body: Any) -> str:
    """The system prompt of a request in either wire's shape (the first message's text for chat)."""
    if not isinstance(body, dict):
        return ""
    system = body.get("system")
    if system is None and body.get("messages"):
        first = body["messages"][0]
        system = first.get("content") if isinstance(first, dict) else None
    if isinstance(system, list):
        return "\n".join(str(part.get("text", "")) for part in system if isinstance(part, dict))
    return system if isinstance(system, str) else ""


def _json_or_none(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return None
