"""The language-server service and the formatters on their own: apply_patch over two files, a server that
crashes and starts again, one that never reports (the wait is bounded), and ruff and prettier formatting a
written file that a later read shows formatted."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from engine_harness import Script, ask, engine, scripted, tool_results
from lsp_tools import FAKE_SERVER, NPM_BIN, tool
from tool_fakes import Asker, Updates

from strata_core.config.code_tools import LspConfig, LspServerConfig
from strata_core.llm import ModelInfo
from strata_core.lsp.servers import configured_specs
from strata_core.lsp.service import ProjectLanguageServers
from strata_core.permission.rules import from_config
from strata_core.tool.builtin.apply_patch import ApplyPatchTool
from strata_core.tool.contract import ToolContext
from strata_core.tool.support.code_checks import CodeChecks


def fake(mode: str, counter: Path) -> LspConfig:
    command = (sys.executable, str(FAKE_SERVER), mode, str(counter))
    return LspConfig(True, {"pyright": LspServerConfig(disabled=True), "fake": LspServerConfig(command, (".py",))})


def context(project: Path) -> ToolContext:
    asker = Asker(rules=from_config({"*": "allow"}))
    return ToolContext(
        session_id="ses_test",
        message_id="msg_test",
        call_id="call_test",
        agent="build",
        ruleset=asker.rules,
        directory=project,
        worktree=project,
        model=ModelInfo(provider_id="mock", id="gpt-5"),
        ask=asker,
        update_metadata=Updates(),
    )


@pytest.mark.anyio
async def test_apply_patch_reports_each_changed_file(project: Path, env: dict[str, str], tmp_path: Path) -> None:
    patch = (
        "*** Begin Patch\n*** Update File: calc.py\n@@\n-    return a + b\n+    return a - b\n"
        "*** Add File: pkg/extra.py\n+VALUE = 1\n*** End Patch"
    )
    servers = ProjectLanguageServers(configured_specs(fake("report", tmp_path / "starts")), project, env)
    async with servers:
        result = await ApplyPatchTool(checks=CodeChecks(servers=servers)).execute(
            {"patchText": patch}, context(project)
        )
    assert result.output == (
        "Success. Updated the following files:\nM calc.py\nA pkg/extra.py"
        "\n\nLSP errors detected in calc.py, please fix:\n"
        f'<diagnostics file="{project / "calc.py"}">\nERROR [1:1] fake error 1\n</diagnostics>'
        "\n\nLSP errors detected in pkg/extra.py, please fix:\n"
        f'<diagnostics file="{project / "pkg" / "extra.py"}">\nERROR [1:1] fake error 1\n</diagnostics>'
    )
    assert result.metadata["diagnostics"][str(project / "calc.py")][0]["message"] == "fake error 1"


@pytest.mark.anyio
async def test_a_crashed_server_is_reported_and_started_again(
    project: Path, env: dict[str, str], tmp_path: Path
) -> None:
    starts = tmp_path / "starts"
    calc = project / "calc.py"
    async with ProjectLanguageServers(configured_specs(fake("crash", starts)), project, env) as servers:
        await servers.touch(calc, wait=True)
        assert servers.diagnostics() == {}
        with anyio.fail_after(10):
            while [s.status for s in servers.status()] != ["error"]:  # noqa: ASYNC110 (no event to wait on)
                await anyio.sleep(0.05)
        await servers.touch(calc, wait=True)
    assert len(starts.read_text().splitlines()) == 2


@pytest.mark.anyio
async def test_a_server_that_never_reports_costs_at_most_the_wait(
    project: Path, env: dict[str, str], tmp_path: Path
) -> None:
    calc = project / "calc.py"
    async with ProjectLanguageServers(configured_specs(fake("silent", tmp_path / "starts")), project, env) as servers:
        with anyio.fail_after(15):  # the 5 s wait, with room for a loaded machine; never the 10 s initialize
            await servers.touch(calc, wait=True)
        assert servers.diagnostics() == {}
        assert [(s.id, s.status) for s in servers.status()] == [("fake", "connected")]


@pytest.mark.anyio
async def test_servers_end_with_the_service(project: Path, env: dict[str, str], tmp_path: Path) -> None:
    async with ProjectLanguageServers(configured_specs(fake("silent", tmp_path / "starts")), project, env) as servers:
        await servers.touch(project / "calc.py", wait=False)
        with anyio.fail_after(10):
            while not servers.status():  # noqa: ASYNC110 (the start runs in the service's own task group)
                await anyio.sleep(0.05)
        (pid,) = [running.process.pid for running in servers._running.values()]
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


async def turn(project: Path, env: dict[str, str], script: Script, config: dict[str, Any]) -> list[str]:
    async with scripted(script) as server, engine(project, env, server, mode="auto", extra_config=config) as rt:
        session = await rt.sessions.create()
        await rt.loop.prompt(ask(session.id, "change it"))
    return tool_results(server.main_requests[-1].body)


def call(name: str, **arguments: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


@pytest.mark.anyio
async def test_ruff_formats_a_written_file_and_a_read_shows_it(project: Path, env: dict[str, str]) -> None:
    calc = str(project / "calc.py")
    script = [call("write", filePath=calc, content="x   =  [1,2]\n"), call("read", filePath=calc), {"text": "ok"}]
    written, read = await turn(project, env, script, {"formatter": True})
    assert written == "Wrote file successfully."
    assert "1: x = [1, 2]\n" in read
    assert (project / "calc.py").read_text() == "x = [1, 2]\n"


@pytest.mark.anyio
async def test_prettier_formats_where_the_project_depends_on_it(project: Path, env: dict[str, str]) -> None:
    prettier = tool(NPM_BIN / "prettier")
    (project / "package.json").write_text(json.dumps({"devDependencies": {"prettier": "3"}}))
    (project / "node_modules" / ".bin").mkdir(parents=True)
    (project / "node_modules" / ".bin" / "prettier").symlink_to(prettier)
    main = project / "main.ts"
    script = [call("write", filePath=str(main), content="const a = {b:1}\n"), call("read", filePath=str(main))]
    _, read = await turn(project, env, [*script, {"text": "ok"}], {"formatter": True})
    assert main.read_text() == "const a = { b: 1 };\n"
    assert "1: const a = { b: 1 };\n" in read


@pytest.mark.anyio
async def test_formatting_off_leaves_the_file_as_written(project: Path, env: dict[str, str]) -> None:
    calc = project / "calc.py"
    await turn(project, env, [call("write", filePath=str(calc), content="x   =  1\n"), {"text": "ok"}], {})
    assert calc.read_text() == "x   =  1\n"


@pytest.mark.anyio
async def test_a_custom_formatter_from_config(project: Path, env: dict[str, str], tmp_path: Path) -> None:
    script_path = tmp_path / "upper.py"
    script_path.write_text("import sys, pathlib\np = pathlib.Path(sys.argv[1])\np.write_text(p.read_text().upper())\n")
    config = {"formatter": {"upper": {"command": [sys.executable, str(script_path), "$FILE"], "extensions": [".txt"]}}}
    notes = project / "notes.txt"
    await turn(project, env, [call("write", filePath=str(notes), content="shout\n"), {"text": "ok"}], config)
    assert notes.read_text() == "SHOUT\n"
