"""The CLI renders Strata's log events as short lines (log_setup.py): in a log file normally, on stderr with
STRATA_DEBUG=1 (then with the traceback of a logged exception), never on stdout."""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from strata_cli.log_setup import ShortLineFormatter
from strata_core.logging import EventMessage
from strata_providers.testing import ScriptedServer

STRATA = Path(sys.executable).with_name("strata")


def _record(exc_info: bool) -> logging.LogRecord:
    try:
        raise ValueError("no title today\nsecond line")
    except ValueError:
        info = sys.exc_info() if exc_info else None
    message = EventMessage(event="title.failed", session_id="ses_1")
    return logging.LogRecord("strata_core.engine.title", logging.WARNING, __file__, 1, message, (), info)


def test_an_event_is_one_line_with_its_fields() -> None:
    line = ShortLineFormatter(tracebacks=False).format(_record(exc_info=False))
    assert line == "warning: title.failed (session_id=ses_1)"


def test_a_logged_exception_without_debug_is_named_on_the_line_without_a_traceback() -> None:
    line = ShortLineFormatter(tracebacks=False).format(_record(exc_info=True))
    assert line == "warning: title.failed (session_id=ses_1 exception=ValueError: no title today)"


def test_a_logged_exception_with_debug_is_followed_by_its_traceback() -> None:
    text = ShortLineFormatter(tracebacks=True).format(_record(exc_info=True))
    first, *rest = text.splitlines()
    assert first == "warning: title.failed (session_id=ses_1)"
    assert rest[0] == "Traceback (most recent call last):" and rest[-1] == "second line"


def test_a_foreign_record_shows_its_message() -> None:
    record = logging.LogRecord("asyncio", logging.ERROR, __file__, 1, "Task was destroyed: %s", ("t",), None)
    assert ShortLineFormatter(tracebacks=False).format(record) == "error: Task was destroyed: t"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _project_whose_title_model_is_unreachable(tmp_path: Path, server: ScriptedServer) -> Path:
    """The answer comes from `server`; the title agent's model from a port nobody listens on, so the title
    fails and the title service logs `title.failed` with the exception."""
    project = tmp_path / "work"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)

    def provider(base_url: str, model: str) -> dict[str, Any]:
        return {
            "npm": "@ai-sdk/openai-compatible",
            "options": {"baseURL": base_url, "apiKey": "x"},
            "models": {model: {"name": model}},
        }

    config = {
        "provider": {
            "mock": provider(server.base_url, "gpt-4o-mock"),
            "dead": provider(f"http://127.0.0.1:{_closed_port()}/v1", "tiny"),
        },
        "model": "mock/gpt-4o-mock",
        "agent": {"title": {"model": "dead/tiny"}},
    }
    (project / "opencode.json").write_text(json.dumps(config))
    return project


def _run(project: Path, tmp_path: Path, **extra_env: str) -> subprocess.CompletedProcess[str]:
    home = tmp_path / "home"
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_STATE_HOME": str(home / "state"),
        "STRATA_MODEL_RETRIES": "0",
        **extra_env,
    }
    return subprocess.run(
        [str(STRATA), "run", "say hello"], cwd=project, env=env, capture_output=True, text=True, timeout=60
    )


def test_a_log_line_goes_to_the_log_file_not_the_terminal(tmp_path: Path) -> None:
    with ScriptedServer([{"text": "Hello!"}]) as server:
        project = _project_whose_title_model_is_unreachable(tmp_path, server)
        done = _run(project, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Hello!\n"
    assert "title.failed" not in done.stderr and "warning" not in done.stderr
    logged = (tmp_path / "home/state/strata/log/strata.log").read_text()
    [warning] = [line for line in logged.splitlines() if " warning: title.failed" in line]
    assert "(session_id=ses_" in warning and " exception=" in warning and "Traceback" not in logged


def test_with_strata_debug_a_logged_exception_shows_its_traceback_on_stderr(tmp_path: Path) -> None:
    with ScriptedServer([{"text": "Hello!"}]) as server:
        project = _project_whose_title_model_is_unreachable(tmp_path, server)
        done = _run(project, tmp_path, STRATA_DEBUG="1")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Hello!\n"  # log lines never reach stdout
    [warning] = [line for line in done.stderr.splitlines() if line.startswith("warning: title.failed")]
    assert warning.startswith("warning: title.failed (session_id=ses_") and " exception=" not in warning
    assert "Traceback (most recent call last):" in done.stderr


def test_a_full_log_file_is_started_afresh(tmp_path: Path) -> None:
    log = tmp_path / "home/state/strata/log/strata.log"
    log.parent.mkdir(parents=True)
    log.write_text("old line\n" * 200_000)
    with ScriptedServer([{"text": "Hello!"}]) as server:
        project = _project_whose_title_model_is_unreachable(tmp_path, server)
        done = _run(project, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "old line" not in log.read_text() and "title.failed" in log.read_text()
    assert log.with_name("strata.log.1").read_text().startswith("old line")
