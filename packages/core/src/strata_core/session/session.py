"""`Session`: the interface of the Session service (`SessionService` is Strata's; the container's `sessions`).

Sessions of one project: create, read, fork, delete, rename, export and import, and a client's edits of
stored messages and parts. The engine, the CLI and the server use sessions only through these methods.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from strata_core import message as m
    from strata_core.session.service import ImportResult
    from strata_core.session_info import SessionInfo
    from strata_core.snapshot.contract import FileDiff

__all__ = ["Session"]


class Session(Protocol):
    """The Session service: every change is stored (and published) before the call returns."""

    async def create(
        self, *, parent_id: str | None = None, title: str | None = None, permission: list[dict[str, str]] | None = None
    ) -> SessionInfo: ...

    async def get(self, session_id: str) -> SessionInfo:
        """The session; `SessionNotFoundError` when there is none."""
        ...

    async def list_sessions(self) -> list[SessionInfo]: ...

    async def children(self, session_id: str) -> list[SessionInfo]: ...

    async def messages(self, session_id: str) -> list[m.MessageWithParts]: ...

    async def set_title(self, session_id: str, title: str) -> SessionInfo: ...

    async def set_permission(self, session_id: str, permission: list[dict[str, str]] | None) -> SessionInfo: ...

    async def set_target(self, session_id: str, agent: str, model: m.ModelRef) -> SessionInfo:
        """Record the agent and model a prompt runs with on the session."""
        ...

    async def touch(self, session_id: str) -> SessionInfo: ...

    async def fork(self, session_id: str, message_id: str | None = None, *, inclusive: bool = True) -> SessionInfo: ...

    async def delete(self, session_id: str) -> None: ...

    async def delete_message(self, session_id: str, message_id: str) -> None: ...

    async def delete_part(self, session_id: str, message_id: str, part_id: str) -> None: ...

    async def put_part(self, part: m.Part) -> None: ...

    async def export(self, session_id: str) -> dict[str, Any]: ...

    async def diff(self, session_id: str, message_id: str | None = None) -> list[FileDiff]:
        """The files a user message's turn changed, or with no message every file the session changed."""
        ...

    async def revert(
        self, session_id: str, message_id: str, part_id: str | None = None, *, force: bool = False
    ) -> SessionInfo:
        """Take back the files changed from `message_id` on and hide those messages; `RevertConflictError` names
        files changed outside the agent (nothing changed then), unless `force`."""
        ...

    async def unrevert(self, session_id: str, *, force: bool = False) -> SessionInfo:
        """Put back what the revert took away; `RevertConflictError` as `revert`."""
        ...

    async def drop_reverted(self, session_id: str) -> SessionInfo:
        """Delete the messages a revert hid and clear it (the loop does, under its lease, before a prompt)."""
        ...

    async def import_session(self, data: Mapping[str, Any] | str, *, new_ids: bool = False) -> ImportResult: ...
