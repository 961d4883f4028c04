"""The session store a runtime opens: the caller's own, one in memory, a SQLite file, or a shared PostgreSQL
database; each is entered on the runtime's exit stack, so it closes with the runtime."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from contextlib import AsyncExitStack
from pathlib import Path
from typing import TypeAlias

import anyio

from strata_core.clock import Clock
from strata_core.project import ProjectInfo
from strata_core.session.database_url import checked_database_url, configured_database_url, is_database_url
from strata_core.session.sqlite_store import SqliteSessionStore
from strata_core.session.store import SessionStore

StoreChoice: TypeAlias = "SessionStore | Path | str"
"""The caller's own store (it opens and closes it), a SQLite file, a PostgreSQL database (a `postgresql://`
URL), or `"memory"`: a store in memory."""


def is_store_choice(choice: object) -> bool:
    """Whether a string names a store (`"memory"` or a database URL); anything else is taken as given."""
    return not isinstance(choice, str) or choice == "memory" or is_database_url(choice)


async def open_store(
    stack: AsyncExitStack,
    choice: StoreChoice | None,
    *,
    env: Mapping[str, str],
    default_database: Callable[[], Path],
    clock: Clock,
    on_lost_lease: Callable[[str], Awaitable[None]],
) -> SessionStore:
    """The chosen store, open; None means `STRATA_DATABASE_URL`'s database when set, else the default SQLite
    file. `on_lost_lease(session_id)` stops a turn whose lease another host took (PostgreSQL only)."""
    if choice == "memory":
        # Imported here: its row classes cost ~2.5 ms of start-up that a run on SQLite never uses.
        from strata_core.session.memory_store import MemorySessionStore

        return await stack.enter_async_context(MemorySessionStore.open())
    if choice is None:
        url = configured_database_url(env)  # STRATA_DATABASE_URL: the shared store
        choice = url if url is not None else default_database()
    if isinstance(choice, Path):
        return await stack.enter_async_context(SqliteSessionStore.open(choice, clock))
    if isinstance(choice, str):
        # Imported here: only a runtime configured with a URL loads the driver.
        from strata_core.session.postgres_store import PostgresSessionStore

        url = checked_database_url(choice, source="open_runtime: store=")
        store = await stack.enter_async_context(PostgresSessionStore.open(url, clock))
        keeper = await stack.enter_async_context(anyio.create_task_group())
        stack.callback(keeper.cancel_scope.cancel)  # runs first on exit: the keeper never delays it
        keeper.start_soon(store.keep_leases, on_lost_lease)
        return store
    return choice


async def adopt_path_keyed_sessions(store: SessionStore, project: ProjectInfo) -> None:
    """Sessions stored under the project's former id (its worktree path's hash) move to its id (the root commit),
    so a repository's sessions stay listed in it after the change; one indexed query when there are none."""
    if project.path_id is None or project.path_id == project.id:
        return
    for info in await store.list_sessions(project.path_id):
        info.project_id = project.id
        await store.put_session(info)
