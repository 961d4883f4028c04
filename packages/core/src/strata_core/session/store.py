"""The `SessionStore` protocol: where sessions, messages and parts live.

Implementations: `sqlite_store.SqliteSessionStore` (the embedded default) and `memory_store.MemorySessionStore`
(tests, embedding). Every write is durable when the awaited call returns, so a process killed at any moment
leaves a consistent, resumable session.

The protocol holds what the core calls, nothing more. Opening and closing are the implementation's own
(`async with SqliteSessionStore.open(path)`): whoever opens a store closes it, so a store an application
hands to `open_runtime(store=...)` stays open after the runtime. `StoreLifetime` is what the implementations
share of that: `async with store:` (or `async with Store.open(...)`, which is the store itself) connects on
entry and closes on exit; a store that fails to connect is not closed, as it was never open.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Protocol, Self, runtime_checkable

from strata_core.errors import StrataError
from strata_core.message import AssistantMessage, Message, MessageWithParts, Part, ToolPart, UserMessage
from strata_core.session_info import SessionInfo

if TYPE_CHECKING:
    from strata_core.session.postgres_events import NotifyChannel


class SessionNotFoundError(StrataError, LookupError):
    def __init__(self, session_id: str) -> None:
        super().__init__(f"Session not found: {session_id}")
        self.session_id = session_id


class RecordOwnerError(StrataError, ValueError):
    """A message stored under an id another session holds, or a part under an id another message holds.

    Ids are unique across the store and a record never moves: replacing it under a new owner would take it out
    of the session it belongs to, so the write is refused and nothing is stored."""

    def __init__(self, record_id: str, owner_kind: str) -> None:
        super().__init__(
            f"{record_id} already belongs to another {owner_kind}; a record cannot move, so use a new id "
            "(or leave the id out for one to be made)"
        )
        self.record_id = record_id


def owner_error(record: Message | Part) -> RecordOwnerError:
    """The refusal of storing `record` under an id another owner holds (a message's session, a part's message)."""
    return RecordOwnerError(record.id, "session" if isinstance(record, UserMessage | AssistantMessage) else "message")


class StoreClosedError(StrataError, RuntimeError):
    """The store was used before it was opened or after it was closed (a defect in the caller)."""


class StoreLifetime:
    """The base of the stores: `connect()` and `close()` are the implementation's, entering and leaving are here."""

    __slots__ = ()  # the stores are slotted attrs classes: a base without slots would give them a `__dict__`

    async def connect(self) -> None:
        """Reach the storage and make it ready (idempotent)."""

    async def close(self) -> None:
        """Release what `connect` took (idempotent); later calls raise `StoreClosedError`."""

    async def __aenter__(self) -> Self:
        await self.connect()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()


class SessionStore(Protocol):
    async def put_session(self, info: SessionInfo) -> None:
        """Create or replace a session record."""
        ...

    async def get_session(self, session_id: str) -> SessionInfo | None: ...

    async def list_sessions(self, project_id: str | None = None) -> list[SessionInfo]:
        """Sessions (of one project, or all), most recently updated first."""
        ...

    async def children(self, parent_id: str) -> list[SessionInfo]: ...

    async def delete_session(self, session_id: str) -> None:
        """Remove a session with its messages and parts (not its children)."""
        ...

    async def put_message(self, message: Message) -> None:
        """Create or replace a message record (not its parts); `RecordOwnerError` if another session holds the id."""
        ...

    async def put_part(self, part: Part) -> None:
        """Create or replace one part; parts keep the order they were first put in. `RecordOwnerError` if
        another message (of this session or another) holds the id."""
        ...

    async def delete_message(self, session_id: str, message_id: str) -> None:
        """Remove a message of the session with its parts (nothing when there is no such message)."""
        ...

    async def delete_part(self, session_id: str, message_id: str, part_id: str) -> None:
        """Remove one part of a message of the session (nothing when there is no such part)."""
        ...

    async def messages(self, session_id: str) -> list[MessageWithParts]:
        """All messages of a session in id (creation) order, each with its parts."""
        ...

    async def message_session(self, message_id: str) -> str | None:
        """The id of the session holding the message `message_id` (ids are unique across sessions), or None."""
        ...

    async def newest_message_id(self, session_id: str) -> str | None:
        """The greatest message id of a session (the last of `messages`), without loading any message."""
        ...

    async def unfinished_tool_parts(self, session_id: str) -> list[ToolPart]:
        """The session's tool parts still `pending` or `running`, in part order, without loading the session."""
        ...

    async def newest_message(self, session_id: str) -> Message | None:
        """The session's newest message (the last of `messages`) without its parts, without loading the session."""
        ...

    def lease(
        self, session_id: str, *, wait: bool = False, on_wait: Callable[[], None] | None = None
    ) -> AbstractAsyncContextManager[bool]:
        """Hold the session's one-writer lease for the block (`lease.py`); yields whether this is the process's
        first holder. Held by another process: `SessionBusyError` at once, or with `wait` a wait until it is
        free (`on_wait` called once before waiting). A holder that dies releases it."""
        ...

    def batch(self) -> AbstractAsyncContextManager[None]:
        """Group the writes made inside `async with store.batch():` into one transaction.

        They become durable together when the block exits normally, and are all undone if it raises. Other
        tasks' calls wait until the batch ends; writes inside it must come from the task that opened it.
        Without a batch, every write is its own transaction.
        """
        ...


@runtime_checkable
class SharedStore(Protocol):
    """A store other processes, on other hosts, use at once (PostgreSQL): they also share events, and a stored
    part can be read alone (what an event too big to send names)."""

    def event_channel(self) -> NotifyChannel:
        """A new end of the channel the processes sharing this store send their events through."""
        ...

    async def part(self, session_id: str, part_id: str) -> Part | None: ...
