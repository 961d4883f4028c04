"""The project's language servers as a running service: `async with ProjectLanguageServers(...) as servers:`.

A server starts on the first file it serves, once per (server, root), inside the containment MCP servers
get (`contain`), and reads in the service's task group until it exits. A server that cannot start (command
missing, initialize refused) is logged once and not tried again; one that crashes later is logged once,
listed as `error`, and started again on the next file that needs it. Closing the service shuts every
server down and ends its process (its process group), so no server outlives the runtime.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

import anyio
from anyio.abc import Process, TaskGroup

from strata_core.logging import get_logger
from strata_core.lsp.client import PULL_TIMEOUT, LanguageServerClient
from strata_core.lsp.jsonrpc import JsonRpcConnection, LanguageServerGoneError, LanguageServerReplyError
from strata_core.lsp.servers import ServerSpec
from strata_core.lsp.values import Diagnostic, ServerStatus
from strata_core.sandbox.server_launch import Contain, LocalLaunch

log = get_logger(__name__)

SYMBOL_KINDS = frozenset({5, 6, 11, 12, 13, 14, 23, 10})
"""Class, method, interface, function, variable, constant, struct, enum: the kinds workspace search keeps."""
SYMBOLS_PER_SERVER = 10
STDERR_LINES = 20


class _Running:
    """One started server: its client, its process, what to call once it has ended, and the end of its stderr
    (logged with a crash: the server's own account of why)."""

    def __init__(self, client: LanguageServerClient, process: Process, finish: Callable[[], None]) -> None:
        self.client, self.process, self.finish = client, process, finish
        self.stderr: deque[str] = deque(maxlen=STDERR_LINES)

    async def read_stderr(self) -> None:
        if self.process.stderr is None:
            return
        pending = b""
        try:
            async for chunk in self.process.stderr:
                lines = (pending + chunk).split(b"\n")
                pending = lines.pop()
                self.stderr.extend(line.decode("utf-8", "replace")[:500] for line in lines if line.strip())
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            return  # the server was stopped (its pipes closed) while this was still reading


class ProjectLanguageServers:
    """The default `LanguageServers`: the configured servers of one project directory."""

    def __init__(
        self, specs: Sequence[ServerSpec], directory: Path, env: Mapping[str, str], contain: Contain | None = None
    ) -> None:
        self._specs = tuple(specs)
        self._directory = directory
        self._env = env
        self._contain = contain
        self._running: dict[tuple[str, Path], _Running] = {}
        self._starting: dict[tuple[str, Path], anyio.Event] = {}
        self._broken: set[tuple[str, Path]] = set()
        self._group: TaskGroup | None = None

    async def __aenter__(self) -> ProjectLanguageServers:
        self._group = await anyio.create_task_group().__aenter__()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> bool | None:
        group, self._group = self._group, None
        with anyio.CancelScope(shield=True):
            for running in list(self._running.values()):
                await self._stop(running)
        assert group is not None
        group.cancel_scope.cancel()
        return await group.__aexit__(kind, error, traceback)

    # --- LanguageServers -----------------------------------------------------------------------------------

    async def touch(self, path: Path, *, wait: bool) -> None:
        if not wait:
            # The read tool's touch warms the servers up without holding the read (OpenCode forks it too).
            assert self._group is not None
            self._group.start_soon(self._touch, path, False)
            return
        await self._touch(path, True)

    async def _touch(self, path: Path, wait: bool) -> None:
        clients = await self._clients(path)

        async def one(client: LanguageServerClient) -> None:
            try:
                after = anyio.current_time()
                version = await client.open(path)
                if wait:
                    await client.wait_for_diagnostics(path, version, after)
            except (LanguageServerGoneError, OSError) as error:
                log.warning("lsp.touch_failed", server=client.server_id, file=str(path), error=str(error))

        async with anyio.create_task_group() as group:
            for client in clients:
                group.start_soon(one, client)

    def diagnostics(self) -> Mapping[Path, Sequence[Diagnostic]]:
        merged: dict[Path, list[Diagnostic]] = {}
        for running in self._running.values():
            for path, items in running.client.diagnostics().items():
                merged.setdefault(path, []).extend(items)
        return merged

    def status(self) -> Sequence[ServerStatus]:
        def entry(server: str, root: Path, state: Literal["connected", "error"]) -> ServerStatus:
            relative = os.path.relpath(root, self._directory)
            return ServerStatus(id=server, name=server, root="" if relative == "." else relative, status=state)

        listed = [entry(*key, "connected" if run.client.alive else "error") for key, run in self._running.items()]
        return listed + [entry(*key, "error") for key in sorted(self._broken - set(self._running))]

    async def workspace_symbols(self, query: str) -> Sequence[Mapping[str, Any]]:
        found: list[Mapping[str, Any]] = []
        for running in list(self._running.values()):
            symbols = await running.client.workspace_symbols(query)
            kept = [item for item in symbols if isinstance(item, dict) and item.get("kind") in SYMBOL_KINDS]
            found.extend(kept[:SYMBOLS_PER_SERVER])
        return found

    # --- starting and stopping ----------------------------------------------------------------------------

    async def _clients(self, path: Path) -> list[LanguageServerClient]:
        if self._directory not in path.parents:
            return []
        clients = []
        for spec in self._specs:
            if not spec.serves(path):
                continue
            root = spec.root(path, self._directory)
            if root is None or (spec.id, root) in self._broken:
                continue
            client = await self._client(spec, root)
            if client is not None:
                clients.append(client)
        return clients

    async def _client(self, spec: ServerSpec, root: Path) -> LanguageServerClient | None:
        key = (spec.id, root)
        while (starting := self._starting.get(key)) is not None:
            await starting.wait()
        running = self._running.get(key)
        if running is not None and running.client.alive:
            return running.client
        if running is not None:
            await self._stop(running)
        self._starting[key] = anyio.Event()
        try:
            return await self._start(spec, root)
        finally:
            self._starting.pop(key).set()

    async def _start(self, spec: ServerSpec, root: Path) -> LanguageServerClient | None:
        key = (spec.id, root)
        start = spec.launch(root, self._env)
        if start is None:
            log.info("lsp.not_installed", server=spec.id, root=str(root))
            self._broken.add(key)
            return None
        try:
            running = await self._spawn(spec.id, root, start.launch)
        except OSError as error:
            log.warning("lsp.start_failed", server=spec.id, root=str(root), error=str(error))
            self._broken.add(key)
            return None
        try:
            await running.client.initialize(self._connection(running), start.initialization)
        except (TimeoutError, LanguageServerReplyError, LanguageServerGoneError) as error:
            log.warning("lsp.initialize_failed", server=spec.id, root=str(root), error=str(error))
            self._broken.add(key)
            with anyio.CancelScope(shield=True):
                await self._stop(running)
            return None
        except BaseException:
            with anyio.CancelScope(shield=True):  # the edit was cancelled mid-start: no server left behind
                await self._stop(running)
            raise
        self._running[key] = running
        log.info("lsp.started", server=spec.id, root=str(root))
        return running.client

    async def _spawn(self, server: str, root: Path, launch: LocalLaunch) -> _Running:
        finish: Callable[[], None] = lambda: None  # noqa: E731
        if self._contain is not None:
            launch, finish = await anyio.to_thread.run_sync(self._contain, launch)
        process = await anyio.open_process(
            list(launch.argv), cwd=launch.cwd, env=dict(launch.env), start_new_session=True, stderr=subprocess.PIPE
        )
        return _Running(LanguageServerClient(server, root), process, finish)

    def _connection(self, running: _Running) -> JsonRpcConnection:
        process = running.process
        assert process.stdin is not None and process.stdout is not None and self._group is not None
        connection = JsonRpcConnection(
            process.stdin, process.stdout, running.client.handlers(), running.client.on_notification
        )
        self._group.start_soon(self._serve, running, connection)
        self._group.start_soon(running.read_stderr)
        return connection

    async def _serve(self, running: _Running, connection: JsonRpcConnection) -> None:
        await connection.serve()
        key = (running.client.server_id, running.client.root)
        if self._running.get(key) is running:
            with anyio.move_on_after(1):
                await running.process.wait()
            stderr = "\n".join([*running.client.messages, *running.stderr])
            log.warning("lsp.crashed", server=key[0], root=str(key[1]), code=running.process.returncode, stderr=stderr)

    async def _stop(self, running: _Running) -> None:
        key = (running.client.server_id, running.client.root)
        if self._running.get(key) is running:
            del self._running[key]
        await running.client.shutdown()
        with anyio.move_on_after(PULL_TIMEOUT):
            await running.process.wait()
        if running.process.returncode is None:
            try:
                os.killpg(running.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            await running.process.wait()
        # Its pipes closed now, in this event loop: left to the garbage collector, they close after the loop
        # has ended, and asyncio raises "Event loop is closed" from the transport's __del__.
        await running.process.aclose()
        running.finish()
