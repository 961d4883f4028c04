"""A raw JSON-RPC driver for an ACP agent subprocess: for clients that misbehave in ways the `acp` library's
client cannot (lines that are not messages, error answers that are not objects, requests never answered,
stdin closed mid-turn).

    async with RawAgent(STRATA_ACP, cwd=project, env=env, answer=answer) as agent:
        await agent.request("initialize", {"protocolVersion": 1})
        await agent.send_line(b"[]")

`answer(message)` decides the reply to each request the agent makes: a dict (the reply's `result` or
`error` member), or `None` never to answer. `received` holds every message from the agent in order.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

WAIT = 30.0
"""Seconds any one wait may take before the test fails."""

Answer = Callable[[dict[str, Any]], Awaitable[dict[str, Any] | None]]


async def allow_once(message: dict[str, Any]) -> dict[str, Any] | None:
    """The polite client: permission allowed once, writes accepted."""
    if message["method"] == "session/request_permission":
        return {"result": {"outcome": {"outcome": "selected", "optionId": "once"}}}
    return {"result": {}}


class RawAgent:
    def __init__(
        self, command: Sequence[str], *, cwd: Path, env: Mapping[str, str], answer: Answer = allow_once
    ) -> None:
        self.command, self.cwd, self.env, self.answer = list(command), cwd, dict(env), answer
        self.received: list[dict[str, Any]] = []
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._next_id = 0
        self._changed = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> RawAgent:
        self.process = await asyncio.create_subprocess_exec(
            *self.command,
            cwd=self.cwd,
            env=self.env,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        self._reader = asyncio.create_task(self._read())
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if self.process.returncode is None:
            self.process.kill()
            await self.process.wait()
        self._reader.cancel()
        for task in self._tasks:
            task.cancel()

    async def send_line(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        await self.process.stdin.drain()

    async def send(self, message: dict[str, Any]) -> None:
        await self.send_line(json.dumps({"jsonrpc": "2.0", **message}).encode())

    def start(self, method: str, params: dict[str, Any]) -> asyncio.Future[dict[str, Any]]:
        """Send a request; the future is its response message (with `result` or `error`)."""
        self._next_id += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[self._next_id] = future
        self._spawn(self.send({"id": self._next_id, "method": method, "params": params}))
        return future

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return await asyncio.wait_for(self.start(method, params), WAIT)

    async def result(self, method: str, params: dict[str, Any]) -> Any:
        response = await self.request(method, params)
        assert "result" in response, response
        return response["result"]

    async def until(self, condition: Callable[[], bool]) -> None:
        async def wait() -> None:
            while not condition():
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(wait(), WAIT)

    def close_stdin(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()

    def updates(self, session_id: str) -> list[dict[str, Any]]:
        return [
            message["params"]["update"]
            for message in self.received
            if message.get("method") == "session/update" and message["params"]["sessionId"] == session_id
        ]

    def requests(self, method: str) -> list[dict[str, Any]]:
        """The agent's requests (and notifications) of `method`, in order."""
        return [message for message in self.received if message.get("method") == method]

    def errors(self) -> list[dict[str, Any]]:
        return [message for message in self.received if "error" in message]

    async def _read(self) -> None:
        assert self.process.stdout is not None
        while line := await self.process.stdout.readline():
            message = json.loads(line)
            self.received.append(message)
            self._changed.set()
            if "method" in message and "id" in message:
                self._spawn(self._reply(message))
            elif (future := self._pending.pop(message.get("id"), None)) is not None and not future.done():
                future.set_result(message)
        self._changed.set()

    async def _reply(self, message: dict[str, Any]) -> None:
        reply = await self.answer(message)
        if reply is not None:
            await self.send({"id": message["id"], **reply})

    def _spawn(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
