"""`serve()`: the API on a running runtime, until the process is told to stop.

Before it serves, the tool calls a crashed writer left running in the project's sessions are marked
interrupted (`settle_crashed_calls`), as the CLI does when it next takes a session. The server's task group
holds the event hub and every turn started over the API; uvicorn serves the app in the same event loop. On
stop, uvicorn closes the connections (event streams are given a short grace), then the running turns are
cancelled, which leaves each one stored as aborted, as an abort would.
"""

from __future__ import annotations

import signal
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import anyio
import uvicorn

from strata_core.bus import Bus
from strata_core.engine import settle_if_idle
from strata_core.errors import StrataError
from strata_core.permission import BusApprover
from strata_core.runtime import Runtime, RuntimeOptions
from strata_core.session import SessionStore, SharedStore
from strata_server.app import create_app
from strata_server.event_hub import EventHub
from strata_server.event_relay import PERMISSION_REPLY, SESSION_ABORT, EventRelay
from strata_server.event_shapes import EventShapes, Payload
from strata_server.settings import ServerSettings
from strata_server.state import ServerState
from strata_server.turns import Turns

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

SHUTDOWN_GRACE_SECONDS = 2


def runtime_options(settings: ServerSettings) -> RuntimeOptions:
    """The `open_runtime` keywords of a runtime to serve: its questions go out on its bus as `permission.asked`
    and are answered by `POST /permission/{id}/reply`, or refused after `permission_timeout`."""
    bus = Bus()
    return RuntimeOptions(bus=bus, approver=BusApprover(bus), approval_timeout=settings.permission_timeout)


async def serve(runtime: Runtime, settings: ServerSettings, *, ready: Callable[[str], None] | None = None) -> None:
    """Serve until SIGINT/SIGTERM; `ready(url)` is called once the socket listens (port 0 gets a free one).

    `runtime` is opened with `runtime_options(settings)`, so permission questions can be answered over HTTP."""
    settings.check()
    questions = runtime.approver
    if not isinstance(questions, BusApprover):
        raise ServerStartError(
            "the runtime to serve must ask through the bus: open it with strata_server.runtime_options(settings)"
        )
    sock = listen(settings)
    await settle_crashed_calls(runtime)
    async with anyio.create_task_group() as group:
        shapes = EventShapes(runtime.store, runtime.container.ids(), runtime.clock)
        hub = EventHub(runtime.bus, shapes, relay=_relay(runtime.store, shapes))
        await group.start(hub.run)
        turns = Turns(runtime, group)
        hub.on_request = lambda message: _carry_out(message, turns, questions, group)
        state = ServerState(runtime, settings, turns, hub, runtime.clock.now_ms(), questions)
        config = uvicorn.Config(
            create_app(state),
            host=settings.hostname,
            port=settings.port,
            log_config=None,
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=SHUTDOWN_GRACE_SECONDS,
        )
        server = _Server(config)
        if ready is not None:
            group.start_soon(_announce, server, settings, ready)
        await server.serve(sockets=[sock])
        group.cancel_scope.cancel()


async def settle_crashed_calls(runtime: Runtime) -> None:
    """Mark interrupted the tool calls a crashed writer (a killed server, a killed `strata run`) left `running`
    or `pending` in the project's sessions, before the first request reads them. A session another live process
    is writing keeps its calls: they may really be running (`settle_if_idle` takes the session's lease)."""
    for session in await runtime.sessions.list_sessions():
        if await runtime.store.unfinished_tool_parts(session.id):
            await settle_if_idle(runtime.store, session.id, runtime.clock)


class ServerStartError(StrataError, OSError):
    """The server cannot listen where it was asked to; the message says where and what to do."""


def listen(settings: ServerSettings) -> socket.socket:
    """The listening socket, bound before uvicorn starts, so a taken port is one clear error."""
    family = socket.AF_INET6 if ":" in settings.hostname else socket.AF_INET
    try:
        sock = socket.create_server((settings.hostname, settings.port), family=family)
    except OSError as error:
        raise ServerStartError(
            f"Cannot listen on {settings.hostname}:{settings.port}: {error.strerror or error}. Choose another "
            "--port (0 picks a free one), or stop what is listening there."
        ) from error
    # Accepted connections inherit this. asyncio sets TCP_NODELAY only on sockets whose `proto` is
    # IPPROTO_TCP, and create_server's is 0: without it a kept-alive client waited ~40 ms for every answer
    # after its first (uvicorn writes the head and the body apart; Nagle held the body for the delayed ACK).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


class _Server(uvicorn.Server):
    """uvicorn's server, except that a stop signal ends `serve()` normally: uvicorn raises the signal again
    after shutting down, which would kill the process before the runtime stores the aborted turns."""

    @contextmanager
    def capture_signals(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        original = {sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in original.items():
                signal.signal(sig, handler)


async def _announce(server: uvicorn.Server, settings: ServerSettings, ready: Callable[[str], None]) -> None:
    while not server.started:
        if server.should_exit:
            return
        await anyio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1] if server.servers else settings.port  # port 0: the real one
    host = f"[{settings.hostname}]" if ":" in settings.hostname else settings.hostname
    ready(f"http://{host}:{port}")


def _relay(store: SessionStore, shapes: EventShapes) -> EventRelay | None:
    """The event relay to the other servers sharing the store, if it is shared (PostgreSQL)."""
    if not isinstance(store, SharedStore):
        return None
    return EventRelay(store, shapes, store.event_channel())


def _carry_out(message: Payload, turns: Turns, questions: BusApprover, group: TaskGroup) -> None:
    """Another host's request that may be this host's to carry out: an abort of a session whose turn may run here,
    a reply to a permission question that may have been asked here (ignored when it was not)."""
    properties = message.get("properties", {})
    if message.get("type") == SESSION_ABORT and isinstance(properties.get("sessionID"), str):
        group.start_soon(turns.abort, properties["sessionID"])
    elif message.get("type") == PERMISSION_REPLY and properties.get("reply") in ("once", "always", "reject"):
        questions.reply(str(properties.get("requestID")), properties["reply"], properties.get("message"))
