"""`SessionService`: sessions of one project — create, list, fork, delete, rename, export and import, and a
client's edits of stored messages and parts.

It owns the rules around session records (default titles, fork titles, recursive delete, what an import
may overwrite); the store only keeps records. Every multi-record change is one store batch, so a fork or
an import is either all there or not there at all.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attrs import define, evolve, field, frozen

from strata_core import message as m
from strata_core.bus import (
    Bus,
    BusEvent,
    MessageRemoved,
    PartRemoved,
    SessionCreated,
    SessionDeleted,
    SessionUpdated,
)
from strata_core.clock import Clock
from strata_core.distributions import installed_version
from strata_core.errors import StrataError
from strata_core.ids import Ids
from strata_core.logging import get_logger
from strata_core.session.export import export_data, parse_export_text, read_export
from strata_core.session.lease import SessionBusyError
from strata_core.session.record_ids import ImportIdsTakenError, copy_history, repeated_id
from strata_core.session.revert import SessionReverter
from strata_core.session.store import RecordOwnerError, SessionNotFoundError, SessionStore
from strata_core.session.summary import changes
from strata_core.session_info import SessionInfo, SessionModel, SessionTime
from strata_core.snapshot.contract import FileDiff, NoSnapshot, Snapshot

if TYPE_CHECKING:
    from strata_core.project import Project

log = get_logger(__name__)


def _package_version() -> str:
    """strata-core's installed version (read from its `.dist-info`, see `strata_core.distributions`)."""
    return installed_version("strata-core") or "0+unknown"  # unknown: a source tree that was never installed


VERSION = f"strata/{_package_version()}"
"""Written into each new session's `version`. OpenCode writes its bare version; the prefix tells a Strata
session from an OpenCode one in an export (both projects have had a 0.1.0)."""
DEFAULT_VARIANT = "default"
"""The variant OpenCode records on a session whose prompt named none."""


class MessageNotFoundError(StrataError, LookupError):
    def __init__(self, session_id: str, message_id: str) -> None:
        super().__init__(f"Message not found: {message_id} (in session {session_id})")


class SessionExistsError(StrataError, ValueError):
    """An import would overwrite a session that is already in the store (of this project, or another one)."""

    def __init__(self, existing: SessionInfo, *, here: bool) -> None:
        where = "here" if here else f"in another project ({existing.directory})"
        super().__init__(
            f"Session {existing.id} is already stored {where}. Delete it first to restore it from this export, "
            f"or import a copy under new ids."
        )
        self.existing = existing
        self.here = here


@frozen
class ImportResult:
    info: SessionInfo
    messages: int
    parts: int
    warnings: tuple[str, ...]
    """What was guessed or skipped while reading the export; also logged as `session.import.warning`."""


@define
class SessionService:
    """Sessions of the project `project_id`, created in `directory`. The constructor does no I/O.

    With a `bus`, every change is published (`SessionCreated`, `SessionUpdated`, `SessionDeleted`) after it is
    stored, so the server's event stream sees sessions a turn makes (subagents) as well as the API's own.
    With a `project`, a new session records its directory relative to the worktree (`path`), as OpenCode does.
    """

    store: SessionStore
    project_id: str
    directory: str
    clock: Clock
    ids: Ids
    bus: Bus | None = None
    project: Project | None = None
    snapshots: Snapshot = field(factory=NoSnapshot)
    """The worktree snapshots the turns took: what `diff` reads and `revert` puts files back from."""

    async def create(
        self, *, parent_id: str | None = None, title: str | None = None, permission: list[dict[str, str]] | None = None
    ) -> SessionInfo:
        now = self.clock.now_ms()
        info = SessionInfo(
            id=self.ids.new("ses"),
            project_id=self.project_id,
            directory=self.directory,
            title=title or default_title(now, child=parent_id is not None),
            version=VERSION,
            time=SessionTime(created=now, updated=now),
            parent_id=parent_id,
            permission=permission,
            path=await self._relative_path(),
        )
        await self.store.put_session(info)
        self._publish(SessionCreated(info))
        return info

    async def _relative_path(self) -> str | None:
        """`directory` relative to the worktree: `` at its top, `sub/dir` below it, and outside a repository
        (where the worktree is `/`) the whole path without its leading slash, as OpenCode 1.18.33 records it."""
        if self.project is None:
            return None
        worktree = (await self.project.info()).worktree
        directory = Path(self.directory)
        if directory != worktree and worktree not in directory.parents:
            return None  # a directory the project does not hold (an embedder's choice): nothing to relate
        relative = directory.relative_to(worktree).as_posix()
        return "" if relative == "." else relative

    async def get(self, session_id: str) -> SessionInfo:
        info = await self.store.get_session(session_id)
        if info is None:
            raise SessionNotFoundError(session_id)
        return info

    async def list_sessions(self) -> list[SessionInfo]:
        """This project's sessions, most recently updated first."""
        return await self.store.list_sessions(self.project_id)

    async def children(self, session_id: str) -> list[SessionInfo]:
        return await self.store.children(session_id)

    async def messages(self, session_id: str) -> list[m.MessageWithParts]:
        await self.get(session_id)
        return await self.store.messages(session_id)

    async def set_title(self, session_id: str, title: str) -> SessionInfo:
        return await self._update(session_id, title=title)

    async def set_permission(self, session_id: str, permission: list[dict[str, str]] | None) -> SessionInfo:
        """Replace the session's own rules (the deprecated `tools` map of a prompt does this)."""
        return await self._update(session_id, permission=permission)

    async def set_target(self, session_id: str, agent: str, model: m.ModelRef) -> SessionInfo:
        """Record the agent and model a prompt runs with on the session (OpenCode stores them before the
        prompt's user message, `default` naming a model's default variant)."""
        target = SessionModel(
            id=model.model_id, provider_id=model.provider_id, variant=model.variant or DEFAULT_VARIANT
        )
        return await self._update(session_id, agent=agent, model=target)

    async def touch(self, session_id: str) -> SessionInfo:
        return await self._update(session_id)

    async def _update(self, session_id: str, **changes: Any) -> SessionInfo:
        async with self.store.batch():  # read and written as one, so a change stored meanwhile is kept
            info = await self.get(session_id)
            updated = evolve(info, time=evolve(info.time, updated=self.clock.now_ms()), **changes)
            await self.store.put_session(updated)
        self._publish(SessionUpdated(updated))
        return updated

    def _publish(self, event: BusEvent) -> None:
        if self.bus is not None:
            self.bus.publish(event)

    async def fork(self, session_id: str, message_id: str | None = None, *, inclusive: bool = True) -> SessionInfo:
        """A new session holding a copy of the history, up to and including `message_id` (all of it if None).

        `inclusive=False` copies only what came before `message_id`, which is OpenCode's `fork`: the TUI
        uses it to edit that message again. Copies get new ids; parent links follow them.
        """
        original = await self.get(session_id)
        history = await self.store.messages(session_id)
        if message_id is not None:
            if all(message.info.id != message_id for message in history):
                raise MessageNotFoundError(session_id, message_id)
            history = [h for h in history if h.info.id < message_id or (inclusive and h.info.id == message_id)]
        now = self.clock.now_ms()
        fork = SessionInfo(
            id=self.ids.new("ses"),
            project_id=self.project_id,
            directory=self.directory,
            title=forked_title(original.title),
            version=VERSION,
            time=SessionTime(created=now, updated=now),
            path=await self._relative_path(),
        )
        await self._write(fork, copy_history(history, fork.id, self.ids))
        self._publish(SessionCreated(fork))
        return fork

    async def delete(self, session_id: str) -> None:
        """Delete a session with its messages, and its child sessions (subagent runs) recursively.

        A session of the tree with a turn running (here or in another process) is `SessionBusyError` and nothing
        is deleted: the turn would go on writing its answer into a session that is gone. The leases are held
        until every record is deleted, so no turn starts meanwhile."""
        await self.get(session_id)
        tree = await self._tree(session_id)
        async with AsyncExitStack() as held:
            for info in tree:
                await held.enter_async_context(self._idle(info.id))
            for info in tree:
                await self.store.delete_session(info.id)
                self._publish(SessionDeleted(info))

    async def _tree(self, session_id: str) -> list[SessionInfo]:
        """The session and its descendants, children before their parents (the order they are deleted in)."""
        found: list[SessionInfo] = []
        for child in await self.store.children(session_id):
            found.extend(await self._tree(child.id))
        info = await self.store.get_session(session_id)
        return [*found, info] if info is not None else found

    async def delete_message(self, session_id: str, message_id: str) -> None:
        """Remove a message and its parts (OpenCode's `session.deleteMessage`; files it changed stay changed).
        A message that is not there is already gone; a session with a turn running is `SessionBusyError`."""
        await self.get(session_id)
        async with self._idle(session_id):
            await self.store.delete_message(session_id, message_id)
        self._publish(MessageRemoved(session_id, message_id))

    async def delete_part(self, session_id: str, message_id: str, part_id: str) -> None:
        """Remove one part of a message (OpenCode's `part.delete`), as `delete_message` does a message."""
        await self.get(session_id)
        async with self._idle(session_id):
            await self.store.delete_part(session_id, message_id, part_id)
        self._publish(PartRemoved(session_id, message_id, part_id))

    async def put_part(self, part: m.Part) -> None:
        """Store a part a client edited, whole, or added to an existing message (OpenCode's `part.update`)."""
        await self.get(part.session_id)
        async with self._idle(part.session_id):
            if not any(h.info.id == part.message_id for h in await self.store.messages(part.session_id)):
                raise MessageNotFoundError(part.session_id, part.message_id)
            await self.store.put_part(part)
        if self.bus is not None:
            self.bus.part_updated(part)

    async def diff(self, session_id: str, message_id: str | None = None) -> list[FileDiff]:
        """The files the turn of the user message `message_id` changed (its `summary.diffs`), or with no
        message every file the session's turns changed (what the `session.diff` event carries; the HTTP
        route answers `[]` without a message, as OpenCode's does)."""
        await self.get(session_id)
        history = await self.store.messages(session_id)
        if message_id is None:
            return await changes(self.snapshots, history)
        for message in history:
            if message.info.id == message_id and isinstance(message.info, m.UserMessage):
                return [FileDiff.from_json(diff) for diff in (message.info.summary or {}).get("diffs", [])]
        return []

    async def revert(
        self, session_id: str, message_id: str, part_id: str | None = None, *, force: bool = False
    ) -> SessionInfo:
        """Put the files the session's steps changed from `message_id` (or its part `part_id`) on back as they
        were, and hide those messages until `unrevert` or the next prompt (`revert.py`)."""
        info = await self.get(session_id)
        async with self._idle(session_id):
            return await self._reverter().revert(info, message_id, part_id, force=force)

    async def unrevert(self, session_id: str, *, force: bool = False) -> SessionInfo:
        """Put back what the session's revert took away, and show its messages again."""
        info = await self.get(session_id)
        async with self._idle(session_id):
            return await self._reverter().unrevert(info, force=force)

    async def drop_reverted(self, session_id: str) -> SessionInfo:
        """Delete the messages a revert hid and clear it; only for the holder of the session's lease (the loop,
        before a new prompt)."""
        return await self._reverter().drop_reverted(await self.get(session_id))

    def _reverter(self) -> SessionReverter:
        return SessionReverter(self.store, self.bus or Bus(), self.snapshots, self.clock)

    @asynccontextmanager
    async def _idle(self, session_id: str) -> AsyncIterator[None]:
        """Hold the session's lease for an edit: a turn running anywhere (this process too) makes it busy,
        since the turn's writer would put back what the edit took away."""
        async with self.store.lease(session_id) as first:
            if not first:
                raise SessionBusyError(session_id, elsewhere=False)
            yield

    async def export(self, session_id: str) -> dict[str, Any]:
        """The session as `opencode export` writes it: `{info, messages: [{info, parts}]}`."""
        info = await self.get(session_id)
        return export_data(info, await self.store.messages(session_id))

    async def import_session(self, data: Mapping[str, Any] | str, *, new_ids: bool = False) -> ImportResult:
        """Store a session from an export (a parsed document, or the text of a file), in this project.

        The session keeps its ids, so importing the export of a session that was deleted restores it as
        it was. If the session id is taken, this raises `SessionExistsError` rather than overwrite or merge;
        if a message or part id is taken (or used twice by the export), `ImportIdsTakenError`. With
        `new_ids=True` it imports a copy under fresh ids instead, in both cases.
        """
        document = parse_export_text(data) if isinstance(data, str) else data
        read = read_export(
            document, project_id=self.project_id, directory=self.directory, now=self.clock.now_ms(), ids=self.ids
        )
        info, history, warnings = read.info, list(read.messages), list(read.warnings)
        existing = await self.store.get_session(info.id)
        if existing is not None and not new_ids:
            raise SessionExistsError(existing, here=existing.project_id == self.project_id)
        repeated = repeated_id(history)
        if repeated is not None and not new_ids:
            raise ImportIdsTakenError(info.id, repeated, f"the export uses the id {repeated} twice")
        if existing is not None or repeated is not None:
            info, history = self._copy(info, history)
        if info.parent_id is not None and await self.store.get_session(info.parent_id) is None:
            warnings.append(f"the parent session {info.parent_id} is not here; imported as a top-level session")
            info = evolve(info, parent_id=None)
        info, history = await self._write_import(info, history, new_ids=new_ids)
        self._publish(SessionCreated(info))
        for warning in warnings:
            log.notice("session.import.warning", session_id=info.id, warning=warning)
        parts = sum(len(message.parts) for message in history)
        return ImportResult(info, len(history), parts, tuple(warnings))

    def _copy(
        self, info: SessionInfo, history: Sequence[m.MessageWithParts]
    ) -> tuple[SessionInfo, list[m.MessageWithParts]]:
        copy = evolve(info, id=self.ids.new("ses"))
        return copy, copy_history(history, copy.id, self.ids)

    async def _write_import(
        self, info: SessionInfo, history: list[m.MessageWithParts], *, new_ids: bool
    ) -> tuple[SessionInfo, list[m.MessageWithParts]]:
        """Store the import, or its copy under new ids if a record's id is another session's and `new_ids`.

        The store refuses an id another owner holds (and the batch stores nothing); asking it is the one check
        that holds against a write racing this one."""
        try:
            await self._write(info, history)
        except RecordOwnerError as error:
            if not new_ids:
                raise await self._ids_taken(info.id, error.record_id) from error
            info, history = self._copy(info, history)
            await self._write(info, history)
        return info, history

    async def _ids_taken(self, session_id: str, record_id: str) -> ImportIdsTakenError:
        holder = await self.store.message_session(record_id)
        if holder is not None:
            return ImportIdsTakenError(session_id, record_id, f"its message {record_id} is already stored in {holder}")
        return ImportIdsTakenError(session_id, record_id, f"its part {record_id} is already stored in another message")

    async def _write(self, info: SessionInfo, history: Sequence[m.MessageWithParts]) -> None:
        async with self.store.batch():
            await self.store.put_session(info)
            for message in history:
                await self.store.put_message(message.info)
                for part in message.parts:
                    await self.store.put_part(part)


def default_title(now_ms: int, *, child: bool = False) -> str:
    """`New session - 2026-05-28T10:00:00.000Z` (or `Child session - …`): a title the title agent may replace."""
    stamp = datetime.fromtimestamp(now_ms // 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{'Child' if child else 'New'} session - {stamp}.{now_ms % 1000:03d}Z"


_FORK_TITLE = re.compile(r"^(.+) \(fork #(\d+)\)$")


def forked_title(title: str) -> str:
    """`Title` -> `Title (fork #1)`, `Title (fork #1)` -> `Title (fork #2)`."""
    match = _FORK_TITLE.match(title)
    if match:
        return f"{match.group(1)} (fork #{int(match.group(2)) + 1})"
    return f"{title} (fork #1)"
