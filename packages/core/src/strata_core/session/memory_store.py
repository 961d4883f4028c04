"""A `SessionStore` in memory, with the SQLite store's semantics, for tests and embedding.

Records are kept as the same JSON the SQLite store writes, so what comes back is always a fresh object
(mutating a part after `put_part` does not change the store), and serialisation is exercised exactly as
on disk. Tables mirror the SQLite ones: sessions, messages and parts keyed by id, parts ordered by a
sequence number given at first insert. Reads scan the tables: fine for tests and small embeddings, not
meant for thousands of sessions.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from attrs import define, field, frozen

from strata_core.message import Message, MessageWithParts, Part, ToolPart
from strata_core.serialization import (
    message_from_json,
    message_to_json,
    part_from_json,
    part_to_json,
    session_from_json,
    session_to_json,
)
from strata_core.session._gate import AccessGate
from strata_core.session.lease import InProcessLeases
from strata_core.session.store import StoreClosedError, StoreLifetime, owner_error
from strata_core.session_info import SessionInfo


@frozen
class _SessionRow:
    project_id: str
    parent_id: str | None
    created: int
    updated: int
    data: str


@frozen
class _MessageRow:
    session_id: str
    data: str


@frozen
class _PartRow:
    session_id: str
    message_id: str
    data: str


@define
class _Tables:
    sessions: dict[str, _SessionRow] = field(factory=dict)
    messages: dict[str, _MessageRow] = field(factory=dict)
    parts: dict[str, _PartRow] = field(factory=dict)
    """In insertion order: replacing a value keeps the key's place, which is the part's position."""

    def copy(self) -> _Tables:
        # Rows are immutable, so copying the dicts is a full snapshot.
        return _Tables(dict(self.sessions), dict(self.messages), dict(self.parts))


@define(eq=False)
class MemorySessionStore(StoreLifetime):
    """Ready on construction; `close()` ends it (later calls raise `StoreClosedError`, as SQLite's would)."""

    _tables: _Tables = field(factory=_Tables, init=False)
    _closed: bool = field(default=False, init=False)
    _gate: AccessGate = field(factory=AccessGate, init=False)
    _leases: InProcessLeases = field(factory=InProcessLeases, init=False)

    def lease(
        self, session_id: str, *, wait: bool = False, on_wait: Callable[[], None] | None = None
    ) -> AbstractAsyncContextManager[bool]:
        return self._leases.hold(session_id, wait=wait, on_wait=on_wait)

    @classmethod
    def open(cls) -> MemorySessionStore:
        """`async with MemorySessionStore.open() as store:`, as the other stores are opened."""
        return cls()

    async def close(self) -> None:
        self._closed = True

    @asynccontextmanager
    async def _access(self) -> AsyncIterator[_Tables]:
        async with self._gate.access():
            if self._closed:
                raise StoreClosedError("the in-memory session store is closed")
            yield self._tables

    @asynccontextmanager
    async def batch(self) -> AsyncIterator[None]:
        async with self._gate.hold() as outermost:
            if not outermost:
                yield
                return
            if self._closed:
                raise StoreClosedError("the in-memory session store is closed")
            snapshot = self._tables.copy()
            try:
                yield
            except BaseException:
                self._tables = snapshot
                raise

    # -----------------------------------------------------------------------------------------------------
    # Sessions

    async def put_session(self, info: SessionInfo) -> None:
        row = _SessionRow(info.project_id, info.parent_id, info.time.created, info.time.updated, session_to_json(info))
        async with self._access() as tables:
            tables.sessions[info.id] = row

    async def get_session(self, session_id: str) -> SessionInfo | None:
        async with self._access() as tables:
            row = tables.sessions.get(session_id)
            return None if row is None else session_from_json(row.data)

    async def list_sessions(self, project_id: str | None = None) -> list[SessionInfo]:
        async with self._access() as tables:
            rows = [
                (row.updated, session_id, row)
                for session_id, row in tables.sessions.items()
                if project_id is None or row.project_id == project_id
            ]
        # Session ids are descending (newest smallest), so on a tie the smaller id is the newer session.
        rows.sort(key=lambda item: (-item[0], item[1]))
        return [session_from_json(row.data) for _, _, row in rows]

    async def children(self, parent_id: str) -> list[SessionInfo]:
        async with self._access() as tables:
            rows = [(row.created, sid, row) for sid, row in tables.sessions.items() if row.parent_id == parent_id]
        rows.sort(key=lambda item: item[1], reverse=True)  # descending ids: on a tie, the older session first
        rows.sort(key=lambda item: item[0])
        return [session_from_json(row.data) for _, _, row in rows]

    async def delete_session(self, session_id: str) -> None:
        async with self._access() as tables:
            tables.parts = {pid: row for pid, row in tables.parts.items() if row.session_id != session_id}
            tables.messages = {mid: row for mid, row in tables.messages.items() if row.session_id != session_id}
            tables.sessions.pop(session_id, None)

    # -----------------------------------------------------------------------------------------------------
    # Messages and parts

    async def put_message(self, message: Message) -> None:
        row = _MessageRow(message.session_id, message_to_json(message))
        async with self._access() as tables:
            held = tables.messages.get(message.id)
            if held is not None and held.session_id != row.session_id:
                raise owner_error(message)
            tables.messages[message.id] = row

    async def put_part(self, part: Part) -> None:
        row = _PartRow(part.session_id, part.message_id, part_to_json(part))
        async with self._access() as tables:
            held = tables.parts.get(part.id)
            if held is not None and (held.session_id, held.message_id) != (row.session_id, row.message_id):
                raise owner_error(part)
            tables.parts[part.id] = row

    async def delete_message(self, session_id: str, message_id: str) -> None:
        async with self._access() as tables:
            row = tables.messages.get(message_id)
            if row is None or row.session_id != session_id:
                return
            del tables.messages[message_id]
            tables.parts = {pid: p for pid, p in tables.parts.items() if p.message_id != message_id}

    async def delete_part(self, session_id: str, message_id: str, part_id: str) -> None:
        async with self._access() as tables:
            row = tables.parts.get(part_id)
            if row is not None and (row.session_id, row.message_id) == (session_id, message_id):
                del tables.parts[part_id]

    async def messages(self, session_id: str) -> list[MessageWithParts]:
        async with self._access() as tables:
            rows = sorted((mid, row) for mid, row in tables.messages.items() if row.session_id == session_id)
            parts: dict[str, list[Part]] = {message_id: [] for message_id, _ in rows}
            for p in tables.parts.values():
                bucket = parts.get(p.message_id) if p.session_id == session_id else None
                if bucket is not None:
                    bucket.append(part_from_json(p.data))
            return [MessageWithParts(message_from_json(row.data), parts[mid]) for mid, row in rows]

    async def unfinished_tool_parts(self, session_id: str) -> list[ToolPart]:
        async with self._access() as tables:
            found = (part_from_json(p.data) for p in tables.parts.values() if p.session_id == session_id)
            return [p for p in found if isinstance(p, ToolPart) and p.state.status in ("pending", "running")]

    async def message_session(self, message_id: str) -> str | None:
        async with self._access() as tables:
            row = tables.messages.get(message_id)
            return None if row is None else row.session_id

    async def newest_message_id(self, session_id: str) -> str | None:
        async with self._access() as tables:
            return max((mid for mid, row in tables.messages.items() if row.session_id == session_id), default=None)

    async def newest_message(self, session_id: str) -> Message | None:
        async with self._access() as tables:
            newest = max((mid for mid, row in tables.messages.items() if row.session_id == session_id), default=None)
            return None if newest is None else message_from_json(tables.messages[newest].data)
