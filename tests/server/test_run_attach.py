"""`strata run --attach URL` runs the turn on a running server and renders it here, as a local run does."""

from __future__ import annotations

import json
import os
from pathlib import Path

import httpx
import pytest
from cli_harness import Cli, mock_provider_config
from server_harness import OPENCODE, ORACLE, ORACLE_CACHE, ServeFactory, running_server

BASH = {"tool_calls": [{"name": "bash", "arguments": {"command": "echo hi", "description": "Print hi"}}]}


def test_a_turn_runs_on_the_server_and_streams_here(serve: ServeFactory, tmp_path: Path, env: dict[str, str]) -> None:
    server = serve([{"text": "Hello there."}])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = Cli(elsewhere, env, in_process=True)("run", "--attach", server.url, "--title", "remote", "say", "hello")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Hello there."
    with httpx.Client(base_url=server.url) as client:
        (session,) = client.get("/session").json()
        messages = client.get(f"/session/{session['id']}/message").json()
    assert session["title"] == "remote"
    assert [m["info"]["role"] for m in messages] == ["user", "assistant"]
    assert messages[0]["parts"][0]["text"] == "say hello"


def test_a_question_is_refused_without_auto_and_approved_with_it(
    serve: ServeFactory, tmp_path: Path, env: dict[str, str]
) -> None:
    server = serve([BASH, BASH, {"text": "Ran it."}])  # a rejection ends its turn
    cli = Cli(tmp_path, env, in_process=True)
    refused = cli("run", "--attach", server.url, "run", "it")
    approved = cli("run", "--attach", server.url, "--auto", "-c", "run", "it", "again")
    assert refused.returncode == 1
    assert "Permission 'bash' for echo hi needs approval; rerun with --auto" in refused.stderr
    assert approved.returncode == 0, approved.stderr
    assert approved.stdout.strip().endswith("Ran it.")


def test_an_unreachable_or_wrong_server_is_one_clear_paragraph(
    serve: ServeFactory, tmp_path: Path, env: dict[str, str]
) -> None:
    server = serve([], extra_env={"STRATA_SERVER_PASSWORD": "sesame"})
    cli = Cli(tmp_path, env, in_process=True)
    unauthorized = cli("run", "--attach", server.url, "hello")
    unknown = cli(
        "run", "--attach", server.url, "-s", "ses_nope", "hello", extra_env={"STRATA_SERVER_PASSWORD": "sesame"}
    )
    assert unauthorized.returncode == 1 and "answered 401" in unauthorized.stderr
    assert "STRATA_SERVER_PASSWORD" in unauthorized.stderr and "Traceback" not in unauthorized.stderr
    assert unknown.returncode == 1 and "Session not found: ses_nope" in unknown.stderr


@pytest.mark.slow
@pytest.mark.opencode_live
@pytest.mark.skipif(not OPENCODE.exists(), reason=f"OpenCode 1.18.33 is not installed at {OPENCODE}")
@pytest.mark.skipif(not (ORACLE / "serve.sh").exists(), reason=f"no oracle serve.sh at {ORACLE}")
def test_attach_runs_a_turn_on_opencode_serve_too(tmp_path: Path, env: dict[str, str]) -> None:
    fixture = tmp_path / "fixture"
    fixture.mkdir()
    (fixture / "opencode.json").write_text(json.dumps(mock_provider_config("http://127.0.0.1:__PORT__/v1")))
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "Hello from OpenCode."}]))
    command = ["bash", str(ORACLE / "serve.sh"), str(fixture), str(script)]
    oracle_env = {**os.environ, "STRATA_ORACLE_CACHE": str(ORACLE_CACHE), "TMPDIR": str(tmp_path)}
    with running_server(fixture, oracle_env, command=command, listening="opencode serve: ") as server:
        done = Cli(tmp_path, env, in_process=True)("run", "--attach", server.url, "say", "hello")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Hello from OpenCode."


def test_json_output_names_the_agent_and_model_the_server_chose(
    serve: ServeFactory, tmp_path: Path, env: dict[str, str]
) -> None:
    server = serve([{"text": "Hello there."}])
    done = Cli(tmp_path, env, in_process=True)("run", "--attach", server.url, "--format", "json", "say", "hello")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[0]["type"] == "session"
    assert (lines[0]["agent"], lines[0]["model"]) == ("build", "mock/gpt-4o-mock")
    assert [line["type"] for line in lines[1:]] == ["step_start", "text", "step_finish", "done"]
    assert lines[2]["part"]["text"] == "Hello there." and lines[-1]["ok"] is True


def test_an_attached_run_ends_with_the_usage_line_of_its_turn(
    serve: ServeFactory, tmp_path: Path, env: dict[str, str]
) -> None:
    server = serve(
        [
            {"text": "First.", "usage": {"input": 500, "output": 50}},
            {**BASH, "usage": {"input": 1_000, "output": 100}},
            {"text": "Second.", "usage": {"input": 2_000, "output": 200}},
        ]
    )
    attach = Cli(tmp_path, env, in_process=True)
    assert attach("run", "--attach", server.url, "one").returncode == 0
    done = attach("run", "--attach", server.url, "--auto", "-c", "two")  # an earlier turn of the session
    assert done.returncode == 0, done.stderr
    assert "tokens 3,000 in · 300 out · 0 cache read · 0 cache write" in done.stderr  # both steps, this turn only
