"""Migration 2: a database written with Strata's old 14-digit ids opens in OpenCode's 12-digit form, in order."""

from __future__ import annotations

import random
import sqlite3
import sys
from contextlib import suppress
from pathlib import Path

import anyio
import pytest
from session_records import assistant_message, session_info, text_part, user_message

from strata_core.clock import FrozenClock
from strata_core.engine.prompt_input import PromptRequest, TextInput
from strata_core.ids import format_id
from strata_core.runtime import open_runtime
from strata_core.serialization import message_to_json, part_to_json, session_to_json
from strata_core.session import id_rewrite, migrations
from strata_core.session.sqlite_store import SqliteSessionStore
from strata_providers.testing import ScriptedModel, ScriptedResolver

pytestmark = pytest.mark.anyio

MS = 1_780_000_000_000


class OldIds:
    """Strata's ids before migration 2: `ms * 4096 + counter` in (here) 14 hex digits."""

    def __init__(self, ms: int = MS, step_ms: int = 0) -> None:
        self.value, self.step = ms * 4096, step_ms * 4096

    def new(self, prefix: str) -> str:
        self.value += 1 + self.step
        return f"{prefix}_{self.value:014x}{'x' * 13}{self.value % 10}"


def write_old_database(path: Path, sessions: int = 1, turns: int = 2, old: OldIds | None = None) -> list[str]:
    """A schema-1 database with old-form ids, as the previous Strata wrote it; the session ids."""
    old = old or OldIds()
    conn = sqlite3.connect(path, isolation_level=None)
    migrations.migrate(conn, str(path), migrations.MIGRATIONS[:1])
    made = []
    conn.execute("BEGIN")
    for _ in range(sessions):
        parent = session_info(old.new("ses"))
        child = session_info(old.new("ses"), parent_id=parent.id)
        made.append(parent.id)
        for info in (parent, child):
            row = (info.id, info.project_id, info.parent_id, 1000, 1000, session_to_json(info))
            conn.execute("INSERT INTO session VALUES (?, ?, ?, ?, ?, ?)", row)
        for turn in range(turns):
            user = user_message(parent.id, old.new("msg"))
            answer = assistant_message(parent.id, user.id, old.new("msg"))
            answer.finish = "stop"
            for message, text in ((user, f"question {turn}"), (answer, f"answer {turn}")):
                message_row = (message.id, parent.id, 1000, message_to_json(message))
                conn.execute("INSERT INTO message VALUES (?, ?, ?, ?)", message_row)
                part = text_part(parent.id, message.id, text, old.new("prt"))
                part_row = (part.id, parent.id, message.id, part_to_json(part))
                conn.execute("INSERT INTO part (id, session_id, message_id, data) VALUES (?, ?, ?, ?)", part_row)
    conn.execute("COMMIT")
    conn.close()
    return made


def id_forms(path: Path) -> set[int]:
    """The lengths of the stored ids and of those inside the documents: {32} old, {30} new, both: half done."""
    with sqlite3.connect(path) as conn:
        ids = [r[0] for t in ("session", "message", "part") for r in conn.execute(f"SELECT id FROM {t}")]
        ids += [r[0] for r in conn.execute("SELECT message_id FROM part")]
        ids += [r[0] for r in conn.execute("SELECT parent_id FROM session WHERE parent_id IS NOT NULL")]
        return {len(i) for i in ids}


async def test_an_old_database_is_backed_up_and_migrated_keeping_its_order_and_references(tmp_path: Path) -> None:
    path = tmp_path / "strata.db"
    (session_id,) = write_old_database(path)
    assert id_forms(path) == {32}
    new_id = format_id("ses", int(session_id[4:18], 16), session_id[-14:])

    async with SqliteSessionStore.open(path) as store:
        history = await store.messages(new_id)
        children = await store.children(new_id)

    assert id_forms(path) == {30}
    assert [p.text for h in history for p in h.parts] == ["question 0", "answer 0", "question 1", "answer 1"]  # type: ignore[union-attr]
    assert all(p.message_id == h.info.id and p.session_id == new_id for h in history for p in h.parts)
    assert history[1].info.parent_id == history[0].info.id  # type: ignore[union-attr]
    assert [c.parent_id for c in children] == [new_id]
    assert id_forms(id_rewrite.backup_path(path)) == {32}  # the copy from before, still old
    with sqlite3.connect(path) as conn:
        assert migrations.current_version(conn) == migrations.LATEST_VERSION


async def test_a_session_straddling_a_wrap_of_the_48_bits_keeps_its_message_order(tmp_path: Path) -> None:
    path = tmp_path / "strata.db"
    wrap_ms = 26 * 2**36  # 2026-08-14: ms * 4096 passes a multiple of 2**48 here
    (session_id,) = write_old_database(path, turns=3, old=OldIds(wrap_ms - 5, step_ms=1))
    new_id = format_id("ses", int(session_id[4:18], 16), session_id[-14:])
    async with SqliteSessionStore.open(path) as store:
        history = await store.messages(new_id)
    texts = [p.text for h in history for p in h.parts]  # type: ignore[union-attr]
    assert texts == [f"{kind} {turn}" for turn in range(3) for kind in ("question", "answer")]
    assert [h.info.id for h in history] == sorted(h.info.id for h in history)
    assert id_forms(path) == {30}


async def test_a_migrated_session_is_continued_by_a_new_turn(tmp_path: Path) -> None:
    path = tmp_path / "strata.db"
    (session_id,) = write_old_database(path)
    new_id = format_id("ses", int(session_id[4:18], 16), session_id[-14:])
    project = tmp_path / "project"
    project.mkdir()
    env = {"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data")}
    model = ScriptedModel([{"text": "Third answer."}])
    async with (
        SqliteSessionStore.open(path) as store,
        open_runtime(
            project, env, models=ScriptedResolver(model), store=store, clock=FrozenClock(MS + 60_000)
        ) as runtime,
    ):
        await runtime.loop.prompt(PromptRequest(new_id, [TextInput("question 2")]))
        history = await runtime.sessions.messages(new_id)

    (request,) = model.main_requests
    assert [m.role for m in request.messages] == ["user", "assistant", "user", "assistant", "user"]
    assert [p.text for p in history[-1].parts if hasattr(p, "text")] == ["Third answer."]
    assert [h.info.id for h in history] == sorted(h.info.id for h in history)


CHILD = """
import sys, anyio
from pathlib import Path
from strata_core.session.sqlite_store import SqliteSessionStore

async def main() -> None:
    async with SqliteSessionStore.open(Path(sys.argv[1])):
        print("migrated", flush=True)

anyio.run(main)
"""


@pytest.mark.parametrize("delay", [0.05, 0.2, 0.3, 0.4, 0.6])  # before the backup, then inside the rewrite
async def test_a_migration_killed_partway_leaves_a_database_in_one_form_that_opens(
    tmp_path: Path, delay: float
) -> None:
    await _kill_migration_and_reopen(tmp_path / "strata.db", delay)


@pytest.mark.slow
async def test_a_migration_killed_at_random_points_always_leaves_a_database_that_opens(tmp_path: Path) -> None:
    seed = random.randrange(2**32)
    print(f"migration kill seed {seed}")  # shown with a failure, to replay the same kill points
    rng = random.Random(seed)
    for run in range(4):
        await _kill_migration_and_reopen(tmp_path / f"run{run}" / "strata.db", rng.uniform(0.0, 0.8))


async def _kill_migration_and_reopen(path: Path, delay: float) -> None:
    """Migrate an old database in a child process, SIGKILL it after `delay` s, then open it here."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_old_database(path, sessions=80, turns=100)
    async with await anyio.open_process([sys.executable, "-c", CHILD, str(path)]) as child:
        await anyio.sleep(delay)
        with suppress(ProcessLookupError):  # a migration that finished first must open as well
            child.kill()  # SIGKILL: no clean-up of any kind
        await child.wait()

    assert id_forms(path) in ({32}, {30})  # never half
    async with SqliteSessionStore.open(path) as store:
        sessions = await store.list_sessions()
        history = await store.messages(sessions[0].id if sessions[0].parent_id is None else sessions[1].id)
    assert id_forms(path) == {30}
    texts = [p.text for h in history for p in h.parts]  # type: ignore[union-attr]
    assert texts == [f"{kind} {turn}" for turn in range(100) for kind in ("question", "answer")]
