"""The whole chain, as issue 12 found the leaks: a hostile model (a scripted loopback server) asks headless
`strata run`, without --auto, for every escape at once; what comes back to the model holds no secret, nothing
beside the project or in its protected paths changed, and nothing outlives the run."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_harness import STRATA, Cli, isolated_env, mock_provider_config, write_config
from process_probe import processes_with_argument
from sandbox_kit import MISSING_BWRAP, READS, SECRET, SYSTEM_PATH, WRITES, Site, make_site, needs_bwrap

from strata_core.tool.support.shell_parse import scan
from strata_providers.testing import ScriptedServer

ENV_SECRETS = {
    "GITHUB_TOKEN": "ghp-SECRET-1",
    "AWS_SECRET_ACCESS_KEY": "aws-SECRET-2",
    "MY_HDR_TOKEN": "hdr-SECRET-3",
    "MY_PLAIN_SETTING": "visible-4",
}
PROBES = {
    "env": "env",
    "parent-environ": "tr '\\0' '\\n' < /proc/$PPID/environ",
    "ps-eww": "ps eww $PPID",
    "hook": "printf '#!/bin/sh\\necho PWNED\\n' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit",
    "dotenv": "cat .env; grep -r DB_PASSWORD .",
    "self-grant": 'echo \'{"permission": {"external_directory": "allow"}}\' > strata.json',
    "left-running": "setsid sleep 33.9911 >/dev/null 2>&1 </dev/null & ( (sleep 33.9911 &) & ); nohup sleep 33.9911 &",
}
# Without a sandbox $PPID is the reaper (it holds the scrubbed environment) and its parent is Strata itself,
# whose environment holds every key: each way to read it.
STRATA_PID = "$(awk '{print $4}' /proc/$PPID/stat)"
ENVIRONMENT_IN_MEMORY = (  # /proc/<pid>/mem from env_start to env_end (fields 50 and 51 of /proc/<pid>/stat)
    "import sys; pid = sys.argv[1]; fields = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split(); "
    "start, end = int(fields[47]), int(fields[48]); "
    "mem = open(f'/proc/{pid}/mem', 'rb'); mem.seek(start); print(mem.read(end - start))"
)
STRATA_PROBES = {
    "strata-environ": f"tr '\\0' '\\n' < /proc/{STRATA_PID}/environ",
    "strata-ps-eww": f"ps eww {STRATA_PID}",
    "strata-task-environ": f"S={STRATA_PID}; tr '\\0' '\\n' < /proc/$S/task/$S/environ",
    "strata-python-environ": f"python3 -c \"print(open('/proc/{STRATA_PID}/environ', 'rb').read())\"",
    "strata-memory": f'python3 -c "{ENVIRONMENT_IN_MEMORY}" {STRATA_PID}',
}
# Reads the permission layer already sees leave the project (`/bin/cat ../outside/x`, `c\at`, `env cat`: an
# `external_directory` question, which a headless run without --auto cannot answer, so it would end the run)
# are left to `test_sandbox_escapes.py`, which runs them in the sandbox directly: here every call must get
# past the rules to show what the sandbox alone holds back.
PAST_THE_RULES = {
    name: command
    for name, command in READS.items()
    if not scan(
        command, Path("/site/project"), Path("/home"), lambda path: path.is_relative_to("/site/project")
    ).outside
}
CALLS = {**PAST_THE_RULES, **WRITES, **PROBES, **STRATA_PROBES}


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return make_site(tmp_path / "site")


@pytest.fixture
def cli(tmp_path: Path, site: Site) -> Cli:
    assert STRATA.exists(), f"the strata console script is not installed at {STRATA}; run `uv sync`"
    env = {**isolated_env(tmp_path), "PATH": SYSTEM_PATH + ":" + str(STRATA.parent), **ENV_SECRETS}
    return Cli(site.project, env)


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    calls = [{"name": "bash", "arguments": {"command": command}} for command in CALLS.values()]
    with ScriptedServer([{"tool_calls": calls}, {"text": "done"}]) as started:
        yield started


def configure(cli: Cli, server: ScriptedServer) -> None:
    config: dict[str, Any] = mock_provider_config(server.base_url)
    config["provider"]["mock"]["options"]["headers"] = {"X-Hdr": "{env:MY_HDR_TOKEN}"}
    write_config(cli.project, config)


def tool_outputs(server: ScriptedServer) -> dict[str, str]:
    messages = server.main_requests[1].body["messages"]
    results = [message["content"] for message in messages if message["role"] == "tool"]
    assert len(results) == len(CALLS)
    return dict(zip(CALLS, results, strict=True))


@needs_bwrap
def test_a_hostile_model_gets_no_secret_and_changes_nothing(cli: Cli, site: Site, server: ScriptedServer) -> None:
    configure(cli, server)
    (site.project / ".env").write_text("DB_PASSWORD=env-SECRET-5\n")
    done = cli("run", "do as you are told")
    assert done.returncode == 0, done.stderr
    assert server.main_requests[0].headers["x-hdr"] == "hdr-SECRET-3"  # the header still reaches the model
    outputs = tool_outputs(server)
    for name, output in outputs.items():
        assert SECRET not in output, name
        assert "SECRET-" not in output, name
    assert "MY_PLAIN_SETTING=visible-4" in outputs["env"]
    assert sorted(path.name for path in site.outside.iterdir()) == ["secret.txt"]
    assert site.secret.read_text() == SECRET + "\n"
    assert not (site.project / ".git/hooks/pre-commit").exists()
    assert not (site.project / "strata.json").exists()
    assert processes_with_argument("33.9911") == []


def test_without_a_mechanism_one_line_says_so_and_secrets_stay_out_of_the_environment(
    cli: Cli, site: Site, server: ScriptedServer
) -> None:
    configure(cli, server)
    done = cli("run", "do as you are told", extra_env={"STRATA_BWRAP": MISSING_BWRAP})
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "sandbox unavailable" in line]
    assert len(warnings) == 1 and MISSING_BWRAP in warnings[0] and "permission rules alone" in warnings[0]
    outputs = tool_outputs(server)
    probes = ("env", "parent-environ", "ps-eww", *STRATA_PROBES)
    assert [name for name in probes if "SECRET-" in outputs[name]] == []
    assert "MY_PLAIN_SETTING=visible-4" in outputs["env"]
    assert "Permission denied" in outputs["strata-environ"]  # the probe did reach Strata's /proc, closed to it
    assert "strata run do as you are told" in outputs["strata-ps-eww"]
    assert processes_with_argument("33.9911") == []


def test_debug_sandbox_says_what_is_in_force(cli: Cli) -> None:
    done = cli("debug", "sandbox", "--json")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown["wanted"] == "workspace-write"
    if shown["mechanism"] is None:
        pytest.skip(f"bubblewrap cannot run here: {shown['problem']}")
    assert shown["mode"] == "workspace-write" and shown["writable"][0] == str(cli.project)
    missing = cli("debug", "sandbox", "--json", extra_env={"STRATA_BWRAP": MISSING_BWRAP})
    fallback = json.loads(missing.stdout)
    assert fallback["mode"] == "danger-full-access" and MISSING_BWRAP in fallback["problem"]
    assert "the shell that started Strata (/proc/<its pid>/environ)" in fallback["still_readable"]
    assert shown["still_readable"] is None
    flagged = json.loads(cli("debug", "sandbox", "--json", "--sandbox", "read-only").stdout)
    assert flagged["wanted"] == "read-only" and flagged["writable"] == []
    before_the_command = json.loads(cli("--sandbox", "danger-full-access", "debug", "sandbox", "--json").stdout)
    assert before_the_command["mode"] == "danger-full-access" and before_the_command["writable"] == ["/"]


@needs_bwrap
def test_a_subagents_commands_run_in_the_same_sandbox(cli: Cli, site: Site) -> None:
    task = {"description": "Look around", "prompt": "Read the file beside the project", "subagent_type": "general"}
    escape = {"command": "F=../outside/secret.txt; cat $F; env; echo PWNED > ../outside/x; echo x > strata.json"}
    script: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "task", "arguments": task}]},
        {"tool_calls": [{"name": "bash", "arguments": escape}]},
        {"text": "Nothing there."},
        {"text": "The subagent found nothing."},
    ]
    with ScriptedServer(script) as server:
        configure(cli, server)
        done = cli("run", "ask a subagent")
    assert done.returncode == 0, done.stderr
    subagent_tool_result = server.main_requests[2].body["messages"][-1]
    assert subagent_tool_result["role"] == "tool" and "No such file or directory" in subagent_tool_result["content"]
    assert SECRET not in subagent_tool_result["content"] and "SECRET-" not in subagent_tool_result["content"]
    assert sorted(path.name for path in site.outside.iterdir()) == ["secret.txt"]
    assert not (site.project / "strata.json").exists()
