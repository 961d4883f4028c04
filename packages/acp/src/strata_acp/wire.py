"""The JSON-RPC wire on stdio: newline-delimited messages, guarded before they reach the `acp` library.

The library's own stdio transport trusts its peer: a line that is JSON but not an object, or a request whose
id is an object, crashes its receive loop (`null` reads as end of input); a response whose `error` is not an
object kills it; a message sent after the connection closed waits forever for a writer that is gone. Here
such lines get JSON-RPC errors (-32700, -32600), such errors become objects, and late messages are dropped;
requests read are counted until answered, so the end of input can wait for their answers (`all_answered`).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from acp import RequestError
from acp.task import MessageSender, TaskSupervisor

from strata_core.logging import get_logger

log = get_logger(__name__)


class StdioWire:
    """One end of the conversation with the editor: decoded messages in, messages out."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._tasks = TaskSupervisor(source="strata_acp.wire")
        self._sender = MessageSender(writer, self._tasks)
        self._closed = False
        self._unanswered: set[Any] = set()
        """Ids of the editor's requests handed to the library and not answered yet."""
        self._answered = asyncio.Event()

    async def send(self, message: dict[str, Any]) -> None:
        if self._closed:
            # The writer's queue is no longer read: waiting for it would hang whoever sends (a request's
            # answer after the editor left), and raising would fail the connection's shutdown.
            log.info("acp.dropped_after_close", id=message.get("id"), method=message.get("method"))
            return
        if "method" not in message and message.get("id") in self._unanswered:
            self._unanswered.discard(message.get("id"))
            self._answered.set()
        await self._sender.send(message)

    async def receive(self) -> dict[str, Any] | None:
        """The next message that is a JSON object; `None` at the end of input."""
        while True:
            line = await self._read_line()
            if not line:
                return None
            message = await self._message(line.strip())
            if message is not None:
                if "method" in message and "id" in message:
                    self._unanswered.add(message["id"])
                return message

    async def all_answered(self) -> None:
        """Return once every request read so far has its answer on the way out."""
        while self._unanswered:
            self._answered.clear()
            await self._answered.wait()

    async def close(self) -> None:
        self._closed = True
        await self._sender.close()
        await self._tasks.shutdown()

    async def _message(self, line: bytes) -> dict[str, Any] | None:
        """The line's message, or `None` (after telling the editor why) when it is not one."""
        if not line:
            return None
        try:
            value = json.loads(line)
        except (ValueError, RecursionError) as error:  # bad JSON, bad UTF-8, nesting too deep to decode
            await self._refuse(RequestError.parse_error({"details": str(error)}))
            return None
        if not isinstance(value, dict):
            # Batches are not part of ACP, and a bare value is no message at all.
            await self._refuse(RequestError.invalid_request({"details": "a message must be a JSON object"}))
            return None
        if not _valid_id(value.get("id")):
            await self._refuse(RequestError.invalid_request({"details": "an id must be a string, number or null"}))
            return None
        return _with_error_object(value)

    async def _refuse(self, error: RequestError) -> None:
        log.warning("acp.bad_message", code=error.code, data=error.data)
        await self.send({"jsonrpc": "2.0", "id": None, "error": error.to_error_obj()})

    async def _read_line(self) -> bytes:
        """One line however long (the reader's limit only bounds each chunk); what is left at the end."""
        chunks: list[bytes] = []
        try:
            while True:
                try:
                    chunks.append(await self._reader.readuntil(b"\n"))
                    return b"".join(chunks)
                except asyncio.LimitOverrunError as overrun:
                    chunks.append(await self._reader.readexactly(overrun.consumed))
        except asyncio.IncompleteReadError as end:
            chunks.append(end.partial)
            return b"".join(chunks)


def _with_error_object(message: dict[str, Any]) -> dict[str, Any]:
    """A response's `error` as the object JSON-RPC says it is: anything else still fails the request."""
    error = message.get("error")
    if "error" not in message or (isinstance(error, dict) and isinstance(error.get("code", 0), int)):
        return message
    return {**message, "error": {"code": -32603, "message": f"Internal error: the client answered {error!r}"}}


def _valid_id(value: object) -> bool:
    """JSON-RPC's id: a string, a number or null (the library keys its tables by it)."""
    return value is None or (isinstance(value, str | int | float) and not isinstance(value, bool))
