"""Text no encoder accepts (a lone UTF-16 surrogate: a `\\ud800` escape from the model or in the config, bytes
that are not UTF-8 in an argument, on stdin or in a file) arrives as U+FFFD: the run goes on, it never ends in an
internal error. A project directory whose name is not UTF-8 is refused with one clear error."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_harness import RUN_TIMEOUT, STRATA, Cli, mock_provider_config, user_text, write_config
from opencode_records import RECORDED_SESSION, opencode_database

from strata_providers.testing import ScriptedServer

NPMS = {"chat": "@ai-sdk/openai-compatible", "messages": "@ai-sdk/anthropic"}
Scripted = Callable[[list[dict[str, Any]]], ScriptedServer]
# The scripted server writes its chunks with json.dumps, which escapes a lone surrogate: the wire holds `\ud800`.
LONE = "\ud800"


def chat_tool_results(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


@pytest.mark.parametrize("wire", sorted(NPMS))
def test_model_text_with_a_lone_surrogate_is_printed_with_a_replacement(
    cli: Cli, scripted: Scripted, wire: str
) -> None:
    server = scripted([{"text": f"hello {LONE} world"}])
    write_config(cli.project, mock_provider_config(server.base_url, npm=NPMS[wire]))
    done = cli("run", "hi")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "hello \ufffd world\n"
    (stored,) = json.loads(cli("session", "list", "--json").stdout)
    exported = json.loads(cli("session", "export", stored["id"]).stdout)
    assert [p["text"] for m in exported["messages"] for p in m["parts"] if p["type"] == "text"][-1] == (
        "hello \ufffd world"
    )


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        ({"name": "read", "arguments": {"filePath": f"a{LONE}.txt"}}, "a\ufffd.txt"),
        ({"name": "read", "arguments": '{"filePath": "a\\ud800.txt"}'}, "a\ufffd.txt"),  # the escape in raw JSON
        ({"name": f"re{LONE}ad", "arguments": {"filePath": "a.txt"}}, "re\ufffdad"),
        ({"name": "bash", "arguments": {"command": f"echo hi{LONE}", "description": f"say {LONE}"}}, "hi\ufffd"),
        ({"name": "write", "arguments": {"filePath": f"b{LONE}.txt", "content": f"x{LONE}"}}, "successfully"),
    ],
    ids=["path", "raw-arguments", "tool-name", "command", "written-path"],
)
@pytest.mark.parametrize("wire", sorted(NPMS))
def test_a_tool_call_with_a_lone_surrogate_gets_a_result_the_model_can_act_on(
    cli: Cli, scripted: Scripted, wire: str, call: dict[str, Any], expected: str
) -> None:
    (cli.project / "a.txt").write_text("alpha")
    server = scripted([{"tool_calls": [call]}, {"text": "Carried on."}])
    write_config(cli.project, mock_provider_config(server.base_url, npm=NPMS[wire]))
    done = cli("run", "--auto", "go")
    assert done.returncode == 0, done.stderr
    assert "Carried on." in done.stdout
    follow_up = json.dumps(server.main_requests[1].body, ensure_ascii=False)
    assert expected in follow_up


def test_a_file_that_is_not_utf8_can_be_edited_and_the_run_goes_on(cli: Cli, scripted: Scripted) -> None:
    (cli.project / "bad.txt").write_bytes(b"alpha \xff\xfe beta\n")
    edit = {"filePath": "bad.txt", "oldString": "beta", "newString": "gamma"}
    server = scripted(
        [
            {"tool_calls": [{"name": "read", "arguments": {"filePath": "bad.txt"}}]},
            {"tool_calls": [{"name": "edit", "arguments": edit}]},
            {"text": "Edited."},
        ]
    )
    write_config(cli.project, mock_provider_config(server.base_url))
    done = cli("run", "--auto", "edit it")
    assert done.returncode == 0, done.stderr
    assert "Edited." in done.stdout
    assert (cli.project / "bad.txt").read_bytes() == b"alpha \xff\xfe gamma\n"  # the other bytes untouched
    assert "Edit applied successfully" in chat_tool_results(server.main_requests[2].body)[-1]


def test_an_argument_and_stdin_that_are_not_utf8_are_sent_with_replacements(cli: Cli, scripted: Scripted) -> None:
    server = scripted([{"text": "Got it."}])
    write_config(cli.project, mock_provider_config(server.base_url))
    done = subprocess.run(
        [str(STRATA).encode(), b"run", b"caf\xe9 menu"],
        cwd=cli.project,
        env=cli.env,
        input=b"piped \xff bytes\n",
        capture_output=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert done.stdout.decode() == "Got it.\n"
    assert user_text(server.main_requests[0].body) == "caf\ufffd menu\npiped \ufffd bytes"


def test_a_config_value_with_an_escaped_lone_surrogate_is_sent_with_a_replacement(cli: Cli, scripted: Scripted) -> None:
    server = scripted([{"text": "Fine."}])
    config = {**mock_provider_config(server.base_url), "agent": {"build": {"prompt": f"Be {LONE} brief."}}}
    (cli.project / "opencode.json").write_text(json.dumps(config))  # the file holds the escape `\ud800`
    done = cli("run", "hi")
    assert done.returncode == 0, done.stderr
    system = server.main_requests[0].body["messages"][0]["content"]
    assert "Be \ufffd brief." in system


def test_a_project_directory_that_is_not_utf8_is_one_clear_error(cli: Cli, tmp_path: Path) -> None:
    odd = Path(os.fsdecode(os.fsencode(tmp_path) + b"/w\xffrk"))
    odd.mkdir()
    subprocess.run(["git", "init", "-q", str(odd)], check=True)
    done = subprocess.run(
        [str(STRATA), "run", "hi"], cwd=odd, env=cli.env, capture_output=True, timeout=RUN_TIMEOUT, check=False
    )
    assert done.returncode == 1
    assert done.stderr.decode() == (
        f"Error: the project directory {tmp_path}/w\ufffdrk has a name that is not valid UTF-8 (shown here with "
        "\ufffd for those bytes); Strata keeps paths as UTF-8 text: rename the directory, or run Strata in another "
        "one.\n"
    )


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([b"session", b"show", b"ses_\xff"], "Error: Session not found: ses_\ufffd\n"),
        ([b"run", b"-s", b"ses_\xff", b"hi"], "Error: Session not found: ses_\ufffd\n"),
    ],
    ids=["session-show", "run-session"],
)
def test_any_argument_that_is_not_utf8_gets_a_clear_error(cli: Cli, args: list[bytes], expected: str) -> None:
    write_config(cli.project, mock_provider_config("http://127.0.0.1:9/v1"))
    done = subprocess.run(
        [os.fsencode(STRATA), *args],
        cwd=cli.project,
        env=cli.env,
        capture_output=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert done.returncode in (1, 2), done.stderr
    assert expected in done.stderr.decode()


def test_an_opencode_session_whose_text_escapes_a_lone_surrogate_is_imported(cli: Cli) -> None:
    database = opencode_database(Path(cli.env["XDG_DATA_HOME"]) / "opencode" / "opencode.db", cli.project)
    with sqlite3.connect(database) as writer:  # JSON.stringify writes a JavaScript string's lone half escaped
        (part_id, data) = writer.execute('SELECT id, data FROM part WHERE data LIKE \'%"type":"text"%\'').fetchone()
        text = json.loads(data)
        writer.execute("UPDATE part SET data = ? WHERE id = ?", (json.dumps({**text, "text": f"odd {LONE}"}), part_id))
    done = cli("session", "import", "--from-opencode", RECORDED_SESSION)
    assert done.returncode == 0, done.stderr
    exported = json.loads(cli("session", "export", RECORDED_SESSION).stdout)
    assert "odd \ufffd" in [p.get("text") for m in exported["messages"] for p in m["parts"]]
