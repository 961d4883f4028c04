"""MCP servers through the `strata` command: `mcp list`, a failing server reported once on stderr and as a
JSON event, the servers in `debug prompt` and `debug config`, and no server process left behind."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_harness import STRATA, Cli, mock_provider_config, write_config
from engine_harness import tool_results
from mcp_servers import fixture_server, hanging_server, time_server, wait_for_no_leftovers

from strata_core.sandbox.bubblewrap import probe
from strata_providers.testing import ScriptedServer

Scripted = Callable[[list[dict[str, Any]]], ScriptedServer]
FAILED_LINE = 'MCP server "stuck" failed: did not start within 1000 ms (its tools are not offered)'


def _config(base_url: str, mcp: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {**mock_provider_config(base_url), "mcp": mcp, **extra}


def test_mcp_list_shows_each_servers_status_reason_and_tool_count(cli: Cli) -> None:
    servers = {
        "time": time_server(),
        "stuck": hanging_server(timeout=1000),
        "off": fixture_server(enabled=False),
    }
    write_config(cli.project, {"mcp": servers})
    shown = cli("mcp", "list")
    as_json = cli("mcp", "list", "--json")
    assert shown.returncode == 0, shown.stderr
    rows = [line.split(None, 3) for line in shown.stdout.splitlines()]
    assert rows == [
        ["NAME", "STATUS", "TOOLS", "DETAIL"],
        ["off", "disabled", "0"],
        ["stuck", "failed", "0", "did not start within 1000 ms"],
        ["time", "connected", "2"],
    ]
    assert json.loads(as_json.stdout)[2] == {
        "name": "time",
        "status": "connected",
        "tools": ["time_get_current_time", "time_convert_time"],
    }
    assert wait_for_no_leftovers() == []


def test_mcp_list_without_servers_says_how_to_add_them(cli: Cli) -> None:
    shown = cli("mcp", "list")
    assert shown.returncode == 0 and '"mcp"' in shown.stdout


def test_a_run_reports_a_failed_server_once_on_stderr_and_answers(cli: Cli, scripted: Scripted) -> None:
    server = scripted([{"text": "Hello."}])
    write_config(cli.project, _config(server.base_url, {"stuck": hanging_server(timeout=1000), "time": time_server()}))
    result = cli("run", "say hello")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Hello."
    assert result.stderr.count(FAILED_LINE) == 1
    tools = [t["function"]["name"] for t in server.main_requests[0].body["tools"]]
    assert "time_convert_time" in tools
    assert wait_for_no_leftovers() == []


def test_a_failed_server_is_an_mcp_event_in_json_output(cli: Cli, scripted: Scripted) -> None:
    server = scripted([{"text": "Hello."}])
    write_config(cli.project, _config(server.base_url, {"stuck": hanging_server(timeout=1000)}))
    result = cli("run", "--format", "json", "say hello")
    events = [json.loads(line) for line in result.stdout.splitlines()]
    (failed,) = [e for e in events if e["type"] == "mcp"]
    assert {k: failed[k] for k in ("server", "status", "error")} == {
        "server": "stuck",
        "status": "failed",
        "error": "did not start within 1000 ms",
    }
    assert events[-1]["type"] == "done" and events[-1]["ok"] is True


def test_debug_prompt_and_config_show_the_servers_and_the_agents_mcp_tools(cli: Cli, scripted: Scripted) -> None:
    server = scripted([])
    fixture = fixture_server(environment={"MCP_FIXTURE_INSTRUCTIONS": "Shout with fixture_shout."})
    config = _config(server.base_url, {"fixture": fixture}, permission={"fixture_crash": "deny"})
    write_config(cli.project, config)
    prompt = json.loads(cli("debug", "prompt", "--json").stdout)
    shown = json.loads(cli("debug", "config").stdout)
    (shown_fixture,) = prompt["mcp"]
    assert shown_fixture["status"] == "connected"
    assert "fixture_shout" in shown_fixture["tools"] and "fixture_crash" not in shown_fixture["tools"]
    assert '<mcp_instructions>\n  <server name="fixture">\n    Shout with fixture_shout.' in prompt["system"]
    assert {"kind": "mcp", "source": "mcp", "chars": 106} in prompt["layers"]
    assert shown["mcp"][0]["name"] == "fixture" and "fixture_crash" in shown["mcp"][0]["tools"]
    assert shown["config"]["mcp"]["fixture"]["type"] == "local"
    assert wait_for_no_leftovers() == []


PROBE = """
import json, os, sys
real_exit = os._exit

def leave(code):
    loaded = sorted(m for m in sys.modules if m.split(".")[0] == "mcp" or m.startswith("strata_core.mcp"))
    sys.stderr.write("LOADED " + json.dumps(loaded) + "\\n")
    sys.stderr.flush()
    real_exit(code)

os._exit = leave
sys.argv = ["strata", "run", "say hello"]
from strata_cli.main import main
main()
"""


def _loaded_by_a_run(cli: Cli) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=cli.project, env=dict(cli.env), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stderr.splitlines() if line.startswith("LOADED ")]
    loaded: list[str] = json.loads(line.removeprefix("LOADED "))
    return loaded


def test_a_run_without_an_mcp_block_never_imports_the_mcp_sdk(cli: Cli, scripted: Scripted) -> None:
    server = scripted([{"text": "Hello."}, {"text": "Hello again."}])
    write_config(cli.project, mock_provider_config(server.base_url))
    assert _loaded_by_a_run(cli) == []
    write_config(cli.project, _config(server.base_url, {"time": time_server()}))
    assert {"mcp", "strata_core.mcp.servers"} <= set(_loaded_by_a_run(cli))
    assert wait_for_no_leftovers() == []


def test_ctrl_c_during_an_mcp_call_ends_the_run_and_its_servers(cli: Cli, scripted: Scripted) -> None:
    server = scripted([{"tool_calls": [{"name": "fixture_wait_forever", "arguments": {}}]}, {"text": "Never."}])
    started = cli.project / "call-started"  # inside the project: the server is sandboxed like a command
    fixture = fixture_server(environment={"MCP_FIXTURE_STARTED": str(started)})
    write_config(cli.project, _config(server.base_url, {"fixture": fixture}))
    process = subprocess.Popen(
        [str(STRATA), "run", "wait"], cwd=cli.project, env=dict(cli.env), stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 30
        while not started.exists():
            assert process.poll() is None and time.monotonic() < deadline, "the MCP call never started"
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 130
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert wait_for_no_leftovers() == []


def test_session_commands_start_no_server(cli: Cli) -> None:
    spawned = cli.project / "spawned"  # inside the project: local servers run in the sandbox
    write_config(cli.project, {"mcp": {"spy": {"type": "local", "command": ["sh", "-c", f"touch {spawned}"]}}})
    listed = cli("session", "list")
    assert listed.returncode == 0, listed.stderr
    assert not spawned.exists()
    assert cli("mcp", "list").returncode == 0 and spawned.exists()  # the same entry does start where it should


def test_mcp_list_starts_local_servers_in_the_sandbox_too(cli: Cli) -> None:
    if probe("/usr/bin/bwrap") is not None:
        pytest.skip(f"no sandbox mechanism here: {probe('/usr/bin/bwrap')}")
    inside, outside = cli.project / "spawned", cli.project.parent / "escaped"
    spy = f"touch {inside}; touch {outside}"
    write_config(cli.project, {"mcp": {"spy": {"type": "local", "command": ["sh", "-c", spy]}}})
    assert cli("mcp", "list").returncode == 0
    assert inside.exists() and not outside.exists()


def test_a_local_server_runs_in_the_shell_sandbox(cli: Cli, scripted: Scripted, tmp_path: Path) -> None:
    if probe("/usr/bin/bwrap") is not None:
        pytest.skip(f"no sandbox mechanism here: {probe('/usr/bin/bwrap')}")
    outside = tmp_path / "outside.txt"  # under /tmp, the host's and read-only inside
    host_dir = Path(sys.executable).parent / "strata-probe-written.txt"  # the host's own file system
    calls = [
        {"name": "fixture_probe_write", "arguments": {"path": str(outside)}},
        {"name": "fixture_probe_write", "arguments": {"path": str(host_dir)}},
        {"name": "fixture_probe_write", "arguments": {"path": str(cli.project / "inside.txt")}},
        {"name": "fixture_probe_read", "arguments": {"path": "/proc/1/environ"}},
        {"name": "fixture_probe_read", "arguments": {"path": str(cli.project / ".env")}},
    ]
    server = scripted([{"tool_calls": calls}, {"text": "Done."}])
    (cli.project / ".env").write_text("SECRET=hunter22\n")
    fixture = fixture_server(environment={"MCP_FIXTURE_PROBES": "1"})
    write_config(cli.project, _config(server.base_url, {"fixture": fixture}))
    try:
        done = cli("run", "--auto", "probe", extra_env={"STRATA_PROBE_KEY": "sk-never-seen"})
        assert not outside.exists() and not host_dir.exists()  # nothing written outside the project
    finally:
        host_dir.unlink(missing_ok=True)
    assert done.returncode == 0, done.stderr
    results = tool_results(server.main_requests[1].body)
    assert results[0] == results[1] == "refused: Read-only file system"
    assert results[2] == "written" and (cli.project / "inside.txt").exists()
    # pid 1 is the sandbox's own init, not a process of the host, and a key-like variable was scrubbed
    assert results[3].startswith("read:") and "sk-never-seen" not in results[3] and "PATH=" in results[3]
    assert "hunter22" not in results[4]  # .env files read as empty
    assert wait_for_no_leftovers() == []
