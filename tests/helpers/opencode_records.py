"""OpenCode 1.18.33's database and export of one recorded session (tests/session/fixtures), moved to a project.

The recording ran in `/tmp/oracle.IcRFIM/work`; `RECORDED_WORK` is replaced by the test's own directory in
the database and in the export alike, so both describe a session of that project.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parents[1] / "session" / "fixtures"
RECORDED_WORK = "/tmp/oracle.IcRFIM/work"
RECORDED_SESSION = "ses_dcc94af71ffeF20cgjbXRXRUNT"


def opencode_database(path: Path, work: Path) -> Path:
    """OpenCode's recorded database at `path` (WAL mode, as OpenCode keeps it), its session in `work`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    dump = (FIXTURES / "opencode-1.18.33-db.sql").read_text().replace(RECORDED_WORK, str(work))
    conn = sqlite3.connect(path)
    try:
        conn.executescript(dump)
        conn.execute("PRAGMA journal_mode=WAL")
    finally:
        conn.close()
    return path


def opencode_export(work: Path, name: str = "opencode-1.18.33-export.json") -> dict[str, Any]:
    """`opencode export` of the recorded session, as if it had run in `work`."""
    document: dict[str, Any] = json.loads((FIXTURES / name).read_text().replace(RECORDED_WORK, str(work)))
    return document
