"""`strata run` end to end: the installed script against a loopback ScriptedServer in a temp project."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cli_harness import STRATA, Cli, mock_provider_config, user_text, write_config

from strata_providers.testing import ScriptedServer

Scripted = Callable[[list[dict[str, Any]]], ScriptedServer]


def _read_call(path: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "read", "arguments": {"filePath": path}}]}


def test_a_hello_turn_streams_the_answer_to_stdout(cli: Cli, scripted: Scripted) -> None:
    server = scripted([{"text": "Hello there."}])
    write_config(cli.project, mock_provider_config(server.base_url))
    done = cli("run", "say", "hello")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Hello there.\n"
    assert done.stderr.splitlines()[0] == "> build · mock/gpt-4o-mock"
    # Words are joined with spaces, with no quotes added around them (unlike `opencode run`).
    assert user_text(server.main_requests[0].body) == "say hello"


def test_a_read_tool_turn_shows_one_line_for_the_tool(cli: Cli, scripted: Scripted) -> None:
    (cli.project / "sub").mkdir()
    (cli.project / "sub" / "notes.txt").write_text("apples\nbread\n")
    server = scripted([_read_call(str(cli.project / "sub" / "notes.txt")), {"text": "Two items."}])
    write_config(cli.project, mock_provider_config(server.base_url))
    done = cli("run", "read the notes")
    assert done.returncode == 0, done.stderr
    assert "→ Read sub/notes.txt · 2 lines" in done.stderr.splitlines()  # what it read
    assert done.stdout == "Two items.\n"
    tool_message = server.main_requests[1].body["messages"][-1]
    assert tool_message["role"] == "tool" and "1: apples" in tool_message["content"]


def test_json_format_prints_one_event_per_line(cli: Cli, scripted: Scripted) -> None:
    (cli.project / "a.txt").write_text("x\n")
    server = scripted([_read_call(str(cli.project / "a.txt")), {"text": "Done reading."}])
    write_config(cli.project, mock_provider_config(server.base_url))
    done = cli("run", "--format", "json", "read a.txt")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [event["type"] for event in events]
    assert kinds[0] == "session" and kinds[-1] == "done"
    assert kinds.count("step_start") == 2 and kinds.count("step_finish") == 2
    tool = next(event for event in events if event["type"] == "tool_use")
    assert tool["part"]["tool"] == "read" and tool["part"]["state"]["status"] == "completed"
    text = next(event for event in events if event["type"] == "text")
    assert text["part"]["text"] == "Done reading."
    assert {event["sessionID"] for event in events} == {events[0]["sessionID"]}
    assert events[-1]["ok"] is True and events[-1]["finish"] == "stop"
    assert done.stderr == ""


def test_piped_stdin_is_appended_and_files_are_attached(cli: Cli, scripted: Scripted) -> None:
    (cli.project / "spec.md").write_text("# Spec\nShip it.\n")
    server = scripted([{"text": "ok"}])
    write_config(cli.project, mock_provider_config(server.base_url))
    done = cli("run", "summarise", "-f", "spec.md", stdin="from the pipe\n")
    assert done.returncode == 0, done.stderr
    text = user_text(server.main_requests[0].body)
    assert text.startswith("summarise\nfrom the pipe")
    assert "Called the Read tool with the following input" in text and "Ship it." in text


def test_continue_session_fork_and_title(cli: Cli, scripted: Scripted) -> None:
    server = scripted([{"text": "first"}, {"text": "second"}, {"text": "third"}])
    write_config(cli.project, mock_provider_config(server.base_url))
    assert cli("run", "--title", "My work", "one").returncode == 0
    assert cli("run", "-c", "two").returncode == 0
    second = server.main_requests[1].body["messages"]
    assert [m["role"] for m in second[1:]] == ["user", "assistant", "user"]
    listed = json.loads(cli("session", "list", "--json").stdout)
    assert [s["title"] for s in listed] == ["My work"]
    done = cli("run", "-s", listed[0]["id"], "--fork", "three")
    assert done.returncode == 0, done.stderr
    titles = sorted(s["title"] for s in json.loads(cli("session", "list", "--json").stdout))
    assert titles == ["My work", "My work (fork #1)"]


def test_an_ask_fails_fast_without_auto_and_passes_with_it(cli: Cli, scripted: Scripted) -> None:
    (cli.project / ".env").write_text("TOKEN=1\n")
    env_file = str(cli.project / ".env")
    server = scripted([_read_call(env_file), _read_call(env_file), {"text": "read it"}])
    write_config(cli.project, mock_provider_config(server.base_url))
    done = cli("run", "show the env")
    assert done.returncode == 1
    assert "✗ Read .env — Permission 'read'" in done.stderr
    assert "Error: Permission 'read' for" in done.stderr and "Re-run with --auto" in done.stderr
    assert len(server.main_requests) == 1  # the turn stopped: nobody could answer
    done = cli("run", "--auto", "show the env")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "read it\n"


def test_shell_commands_do_not_see_the_api_keys_strata_holds(cli: Cli, scripted: Scripted) -> None:
    command = 'echo "${MY_MOCK_KEY:-hidden} ${GROQ_API_KEY:-hidden} ${OPENAI_API_KEY:-hidden} $VISIBLE"'
    server = scripted([{"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}, {"text": "ok"}])
    config = mock_provider_config(server.base_url)
    config["provider"]["mock"]["options"]["apiKey"] = "{env:MY_MOCK_KEY}"
    write_config(cli.project, config)
    keys = {"MY_MOCK_KEY": "mock-secret", "GROQ_API_KEY": "g", "OPENAI_API_KEY": "o", "VISIBLE": "shown"}
    done = cli("run", "--auto", "print the keys", extra_env=keys)
    assert done.returncode == 0, done.stderr
    assert server.main_requests[0].headers["authorization"] == "Bearer mock-secret"
    tool_message = server.main_requests[1].body["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["content"].startswith("hidden hidden hidden shown\n")


def test_bad_input_gives_one_paragraph_and_a_non_zero_exit(cli: Cli, scripted: Scripted) -> None:
    server = scripted([])
    write_config(cli.project, mock_provider_config(server.base_url))
    cases = {
        ("run", "-m", "mock/nope", "hi"): 'Error: Unknown model "nope" for provider "mock".',
        ("run", "--agent", "nobody", "hi"): 'Error: Agent not found: "nobody". Available agents: build,',
        ("run", "--agent", "explore", "hi"): 'Error: Agent "explore" is a subagent (primary agents call it through the',
        ("run", "--agent", "title", "hi"): 'Error: Agent "title" is a hidden agent; choose one of: build, plan.',
        ("run", "-m", "openai/gpt-4o", "hi"): "Error: Model openai/gpt-4o needs an API key: set OPENAI_API_KEY",
        ("run", "-s", "ses_missing", "hi"): "Error: Session not found: ses_missing",
        ("run",): "Error: nothing to send",
    }
    for args, expected in cases.items():
        done = cli(*args)
        assert done.returncode != 0, args
        assert done.stderr.splitlines()[-1 if args == ("run",) else 0].startswith(expected), done.stderr
        assert "Traceback" not in done.stderr
    assert server.requests == []
    assert json.loads(cli("session", "list", "--json").stdout) == []  # nothing was left behind
    missing_key = cli("run", "-m", "anthropic/claude-sonnet-4-5", "hi").stderr
    assert "ANTHROPIC_API_KEY" in missing_key and "Or use a local OpenAI-compatible server" in missing_key


def test_no_model_configured_says_what_to_set(cli: Cli) -> None:
    done = cli("run", "hi")
    assert done.returncode == 1
    assert done.stderr.startswith("Error: No model is configured.")
    assert "OPENAI_API_KEY" in done.stderr and "http://localhost:8080/v1" in done.stderr


def test_a_broken_config_names_the_file(cli: Cli) -> None:
    (cli.project / "opencode.json").write_text('{"model": }')
    done = cli("run", "hi")
    assert done.returncode == 1
    assert done.stderr.startswith(f"Error: {cli.project / 'opencode.json'}:1:")


def test_an_unreachable_server_is_a_clear_error(cli: Cli, scripted: Scripted) -> None:
    server = scripted([])
    port = server.port
    server.__exit__(None, None, None)  # nothing listens there any more
    write_config(cli.project, mock_provider_config(f"http://127.0.0.1:{port}/v1"))
    done = cli("run", "hi", extra_env={"STRATA_MODEL_RETRIES": "0"})
    assert done.returncode == 1
    error = [line for line in done.stderr.splitlines() if line.startswith("Error:")]
    assert len(error) == 1 and "127.0.0.1" in error[0], done.stderr
    assert "Traceback" not in done.stderr


def test_a_server_error_fails_the_run(cli: Cli, scripted: Scripted) -> None:
    server = scripted([{"status": 400, "message": "model is sleeping"}])
    write_config(cli.project, mock_provider_config(server.base_url))
    done = cli("run", "hi")
    assert done.returncode == 1
    assert "model is sleeping" in done.stderr


def test_a_custom_provider_on_the_messages_wire_run_from_another_directory(
    cli: Cli, scripted: Scripted, tmp_path: Path
) -> None:
    server = scripted([{"text": "From the Messages wire."}])
    config = mock_provider_config(server.base_url, npm="@ai-sdk/anthropic", model="claude-sonnet-4-5-mock")
    write_config(cli.project, config)
    done = cli("run", "--dir", str(cli.project), "hi", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "From the Messages wire.\n"
    request = server.main_requests[0]
    assert request.path == "/v1/messages" and request.body["model"] == "claude-sonnet-4-5-mock"
    assert f"Working directory: {cli.project}" in json.dumps(request.body["system"])


def test_ctrl_c_stops_the_turn_keeps_the_session_and_exits_130(cli: Cli, scripted: Scripted) -> None:
    slow = " ".join(f"word{i}" for i in range(100))
    server = scripted([{"text": slow, "chunk_size": 10, "delay": 0.2}, {"text": "Resumed."}])
    write_config(cli.project, mock_provider_config(server.base_url))
    proc = subprocess.Popen(
        [str(STRATA), "run", "--format", "json", "write an essay"], cwd=cli.project, env=dict(cli.env),
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 20
    while not server.main_requests and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # a few chunks in
    proc.send_signal(signal.SIGINT)
    stdout, _ = proc.communicate(timeout=20)
    assert proc.returncode == 130
    events = [json.loads(line) for line in stdout.splitlines()]
    assert events[-1]["type"] == "done" and events[-1]["ok"] is False
    assert events[-2]["type"] == "error" and events[-2]["error"]["name"] == "MessageAbortedError"
    partial = [e for e in events if e["type"] == "text"]
    assert partial and partial[0]["part"]["text"].startswith("word0") and "word99" not in partial[0]["part"]["text"]
    done = cli("run", "-c", "go on")  # the session is intact and can be continued
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Resumed.\n"


def test_a_retry_is_announced_and_the_turn_still_succeeds(cli: Cli, scripted: Scripted) -> None:
    busy = {"status": 429, "retry_after": 0, "message": "slow down"}
    server = scripted([busy, {"text": "Made it."}, busy, {"text": "Again."}])
    write_config(cli.project, mock_provider_config(server.base_url))
    done = cli("run", "--format", "json", "hi")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    retry = next(event for event in events if event["type"] == "retry")
    assert retry["attempt"] == 1 and "slow down" in retry["message"]
    assert events[-1]["ok"] is True
    done = cli("run", "hi again")
    assert done.returncode == 0 and done.stdout == "Again.\n"
    assert "↻" in done.stderr and "slow down" in done.stderr and "retrying in 0s (attempt 1)" in done.stderr


def test_json_format_ends_with_error_and_done_when_no_model_is_configured(cli: Cli) -> None:
    done = cli("run", "--format", "json", "hi")
    assert done.returncode == 1
    error, last = (json.loads(line) for line in done.stdout.splitlines())
    assert error["type"] == "error" and error["sessionID"] is None
    assert error["error"]["name"] == "ModelNotFoundError" and "No model is configured" in error["error"]["message"]
    assert error["error"]["data"]["message"] == error["error"]["message"]
    assert last == {"type": "done", "timestamp": last["timestamp"], "sessionID": None, "ok": False, "finish": None}
    assert done.stderr.startswith("Error: No model is configured")  # the paragraph, as in the default format
