"""Migration 2: the ids Strata wrote before it used OpenCode's format, rewritten into it.

Strata once wrote `ms * 0x1000 + counter` in at least 12 hex digits, which is 14 for today's times; OpenCode
keeps the low 48 bits in exactly 12 (`strata_core.ids`). Old-form ids (`ses_`, `msg_`, `prt_` followed by 14
hex digits and 14 base62) get the new form with the same random tail: messages and parts keep their 48 low
bits, sessions become descending like OpenCode's. Every occurrence of an old id in the JSON documents (a
parent's id, a part's `messageID`, a compaction's tail, a task's child session in tool metadata) is replaced
by the same mapping, so every reference follows.

A session's messages are ordered by id: if its ids straddle a wrap-around of the 48 bits, the earlier ones
are numbered down from the later ones so the order is kept. Parts are ordered by `seq`, which is untouched.
Before anything is rewritten the database is copied next to its file as `strata.db.bak-2` (SQLite's backup
API, just before the migration's transaction, which cannot hold the write lock meanwhile; written under a
temporary name, then renamed, so a backup that exists is whole). The rewrite itself is one transaction: a
crash leaves the old form, and the next open tries again.
"""

from __future__ import annotations

import re
import sqlite3
from collections import defaultdict
from pathlib import Path

from strata_core.ids import TIME_MASK, format_id

VERSION = 2
OLD_ID = re.compile(r"\b(ses|msg|prt)_([0-9a-f]{14})([0-9A-Za-z]{14})\b")


def backup_path(database: Path) -> Path:
    return database.with_name(f"{database.name}.bak-{VERSION}")


def needs_rewrite(conn: sqlite3.Connection) -> bool:
    """Whether any stored id is in the old form (then the caller backs the file up first)."""
    for table in ("session", "message", "part"):
        for (identifier,) in conn.execute(f"SELECT id FROM {table}"):
            if OLD_ID.fullmatch(identifier):
                return True
    return False


def back_up(conn: sqlite3.Connection) -> None:
    """Copy the database next to its file (nothing for an in-memory database)."""
    row = conn.execute("PRAGMA database_list").fetchone()
    if not row or not row[2]:
        return
    target = backup_path(Path(row[2]))
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    with sqlite3.connect(partial) as copy:
        conn.backup(copy)
    copy.close()
    partial.replace(target)


def rewrite_ids(conn: sqlite3.Connection) -> None:
    """Rewrite every old-form id and every reference to one; runs inside the migration's transaction."""
    mapping = _mapping(conn)
    if not mapping:
        return

    def convert(text: str) -> str:
        return OLD_ID.sub(lambda match: mapping.get(match.group(0), match.group(0)), text)

    for seq, identifier, session_id, message_id, data in conn.execute(
        "SELECT seq, id, session_id, message_id, data FROM part"
    ).fetchall():
        conn.execute(
            "UPDATE part SET id = ?, session_id = ?, message_id = ?, data = ? WHERE seq = ?",
            (convert(identifier), convert(session_id), convert(message_id), convert(data), seq),
        )
    for identifier, session_id, data in conn.execute("SELECT id, session_id, data FROM message").fetchall():
        conn.execute(
            "UPDATE message SET id = ?, session_id = ?, data = ? WHERE id = ?",
            (convert(identifier), convert(session_id), convert(data), identifier),
        )
    for identifier, parent_id, data in conn.execute("SELECT id, parent_id, data FROM session").fetchall():
        conn.execute(
            "UPDATE session SET id = ?, parent_id = ?, data = ? WHERE id = ?",
            (convert(identifier), None if parent_id is None else convert(parent_id), convert(data), identifier),
        )


def _mapping(conn: sqlite3.Connection) -> dict[str, str]:
    mapping: dict[str, str] = {}
    for (identifier,) in conn.execute("SELECT id FROM session"):
        if match := OLD_ID.fullmatch(identifier):
            mapping[identifier] = format_id("ses", int(match.group(2), 16), match.group(3))
    by_session: dict[str, list[str]] = defaultdict(list)
    for identifier, session_id in conn.execute("SELECT id, session_id FROM message ORDER BY id"):
        if OLD_ID.fullmatch(identifier):
            by_session[session_id].append(identifier)
    for identifiers in by_session.values():
        mapping.update(_ordered(identifiers))
    for (identifier,) in conn.execute("SELECT id FROM part"):
        if match := OLD_ID.fullmatch(identifier):
            mapping[identifier] = format_id("prt", int(match.group(2), 16), match.group(3))
    return mapping


def _ordered(identifiers: list[str]) -> dict[str, str]:
    """New ids for one session's messages (old ids in order), in the same order even across a 48-bit wrap."""
    values = [int(OLD_ID.fullmatch(i).group(2), 16) & TIME_MASK for i in identifiers]  # type: ignore[union-attr]
    for at in range(len(values) - 2, -1, -1):
        values[at] = min(values[at], values[at + 1] - 1)  # only lowers the ones before a wrap
    if values and values[0] < 0:
        raise ValueError(f"cannot keep the order of {len(values)} messages across a wrap of the 48-bit ids")
    return {old: f"msg_{value:012x}{old[-14:]}" for old, value in zip(identifiers, values, strict=True)}
