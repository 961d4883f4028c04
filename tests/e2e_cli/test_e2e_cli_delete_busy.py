"""`strata session delete` of a session a run is writing is refused (the run's answer is kept, nothing is left
without a session); once the run ends, the delete goes through."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

from cli_harness import RUN_TIMEOUT, Cli
from hostile_server import HostileServer
from session_runs import held_answers, second_run_held, user_texts


def _row_counts(cli: Cli) -> tuple[int, int, int]:
    database = Path(cli.env["XDG_DATA_HOME"]) / "strata" / "strata.db"
    with sqlite3.connect(database) as conn:
        counts = tuple(
            conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for table in ("session", "message", "part")
        )
    return counts


def test_deleting_a_session_while_a_run_writes_it_is_refused_and_the_run_keeps_its_answer(cli: Cli) -> None:
    gate = threading.Event()
    with HostileServer(held_answers(gate)) as server, second_run_held(cli, server) as (session_id, slow):
        refused = cli("session", "delete", session_id)
        gate.set()
        out, err = slow.communicate(timeout=RUN_TIMEOUT)

    assert refused.returncode == 1
    assert refused.stderr.startswith(f"Error: session is busy: {session_id} has a turn running")
    assert slow.returncode == 0, err
    assert "Answer 2." in out
    assert user_texts(cli, session_id) == ["first", "slow one"]

    deleted = cli("session", "delete", session_id)
    assert deleted.returncode == 0, deleted.stderr
    assert json.loads(cli("session", "list", "--json").stdout) == []
    assert _row_counts(cli) == (0, 0, 0)
