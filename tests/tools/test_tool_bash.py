"""The bash tool with real processes: output, exit codes, timeouts and aborts that end the whole group,
long output saved to a file, live progress, the environment, and permissions read from the command."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest
from process_probe import processes_with_argument
from tool_fakes import Asker, MakeContext, Updates, rules

from strata_core.permission.rules import DeniedError, RejectedError
from strata_core.tool.builtin.bash import BashTool
from strata_core.tool.contract import ToolContext, ToolResult, ToolTarget
from strata_core.tool.truncation import Truncation

pytestmark = pytest.mark.anyio


@pytest.fixture
def bash(truncation: Truncation) -> BashTool:
    return BashTool(truncation=truncation)


async def run(tool: BashTool, ctx: ToolContext, command: str, **extra: object) -> ToolResult:
    return await tool.execute({"command": command, **extra}, ctx)


async def test_stdout_and_stderr_come_back_together_with_the_exit_code(bash: BashTool, ctx: ToolContext) -> None:
    command = "echo hello; echo err >&2; exit 3"
    result = await run(bash, ctx, command)
    assert result.output == "hello\nerr\n"
    assert result.title == command
    assert result.metadata == {"output": "hello\nerr\n", "exit": 3, "truncated": False}


async def test_silence_is_reported_as_no_output(bash: BashTool, ctx: ToolContext) -> None:
    assert (await run(bash, ctx, "true")).output == "(no output)"


async def test_a_timeout_stops_the_command_and_says_so(bash: BashTool, ctx: ToolContext) -> None:
    started = time.monotonic()
    result = await run(bash, ctx, "sleep 5", timeout=300)
    assert time.monotonic() - started < 3
    assert result.output == (
        "(no output)\n\n<shell_metadata>\nshell tool terminated command after exceeding timeout 300 ms. If this "
        "command is expected to take longer and is not waiting for interactive input, retry with a larger timeout "
        "value in milliseconds.\n</shell_metadata>"
    )
    assert result.metadata["exit"] is None


async def test_a_timeout_kills_everything_the_command_started(bash: BashTool, ctx: ToolContext) -> None:
    await run(bash, ctx, "sleep 30.0101 & sleep 30", timeout=300)
    await anyio.sleep(0.1)
    assert processes_with_argument("30.0101") == []


async def test_an_abort_kills_the_group_and_keeps_the_output_so_far(
    bash: BashTool, make_ctx: MakeContext, updates: Updates
) -> None:
    printed_both = anyio.Event()

    def watch(title: str | None, metadata: Mapping[str, Any]) -> None:
        updates(title, metadata)
        if len(str(metadata.get("output", "")).splitlines()) >= 2:
            printed_both.set()

    ended: list[ToolResult] = []
    ctx = make_ctx(update_metadata=watch, end_on_abort=ended.append)
    async with anyio.create_task_group() as group:
        group.start_soon(run, bash, ctx, "echo started; sleep 30.0202 & echo $!; sleep 30")
        with anyio.fail_after(5):
            await printed_both.wait()
        group.cancel_scope.cancel()
    (result,) = ended  # the call's end, answered to the abort (no progress update after it, as OpenCode's)
    assert result.title == "echo started; sleep 30.0202 & echo $!; sleep 30"
    assert result.output.startswith("started\n")
    assert result.output.endswith("\n\n<shell_metadata>\nUser aborted the command\n</shell_metadata>")
    assert "User aborted" not in str(updates.seen[-1][1].get("output"))
    await anyio.sleep(0.1)
    assert processes_with_argument("30.0202") == []


async def test_long_output_keeps_the_tail_and_saves_everything(bash: BashTool, ctx: ToolContext) -> None:
    result = await run(bash, ctx, "seq 1 30000")
    head, _, tail = result.output.partition("\n\n28002\n")
    saved = Path(result.metadata["outputPath"])
    assert head == f"...output truncated...\n\nFull output saved to: {saved}"
    assert tail.endswith("29999\n30000\n") and len(tail.splitlines()) == 1998
    assert await anyio.Path(saved).read_text() == "".join(f"{i}\n" for i in range(1, 30001))
    assert result.metadata["truncated"] is True


async def test_progress_is_published_while_the_command_runs(bash: BashTool, ctx: ToolContext, updates: Updates) -> None:
    await run(bash, ctx, "echo one; sleep 0.3; echo two")
    outputs = [meta["output"] for _, meta in updates.seen if "output" in meta]
    assert outputs[0] == "" and "one\n" in outputs and outputs[-1] == "one\ntwo\n"


async def test_strata_api_keys_are_hidden_from_commands(
    bash: BashTool, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("MY_APP_SETTING", "visible")
    result = await run(bash, ctx, 'echo "${OPENAI_API_KEY:-hidden} $MY_APP_SETTING"')
    assert result.output == "hidden visible\n"
    custom = BashTool(truncation=bash.truncation, hidden_env=frozenset({"MY_APP_SETTING"}))
    assert (await run(custom, ctx, 'echo "${MY_APP_SETTING:-hidden}"')).output == "hidden\n"


async def test_workdir_is_resolved_against_the_project(bash: BashTool, project: Path, ctx: ToolContext) -> None:
    (project / "sub").mkdir()
    assert (await run(bash, ctx, "pwd", workdir="sub")).output == f"{project}/sub\n"


async def test_each_command_is_asked_about_with_its_arity_prefix(
    bash: BashTool, ctx: ToolContext, asker: Asker
) -> None:
    await run(bash, ctx, "echo a && git status --short | head -1")
    (ask,) = asker.of("bash")
    assert ask.patterns == ["echo a", "git status --short", "head -1"]
    assert ask.always == ["echo *", "git status *", "head *"]
    assert asker.of("external_directory") == []


async def test_a_denied_command_never_runs(bash: BashTool, project: Path, ctx: ToolContext, asker: Asker) -> None:
    asker.rules = rules({"*": "allow", "bash": {"*": "allow", "rm *": "deny"}})
    (project / "keep.txt").write_text("x")
    with pytest.raises(DeniedError):
        await run(bash, ctx, "touch ran.txt; rm keep.txt")
    assert (project / "keep.txt").exists() and not (project / "ran.txt").exists()


@pytest.mark.parametrize(
    "command",
    ["cd {outside} && ls", "cd .. && ls", "rm -f {outside}/x", "cat ../elsewhere/secret", "touch {outside}/new"],
)
async def test_leaving_the_project_needs_external_directory(
    bash: BashTool, project: Path, outside: Path, ctx: ToolContext, asker: Asker, command: str
) -> None:
    asker.reject.add("external_directory")
    asker.rules = rules({"*": "allow", "external_directory": "ask"})
    with pytest.raises(RejectedError):
        await run(bash, ctx, command.format(outside=outside))
    (ask,) = asker.of("external_directory")
    assert ask.patterns[0] in (f"{outside}/*", f"{project.parent}/*")
    assert asker.of("bash") == []


async def test_a_symlink_out_of_the_project_is_followed_before_judging(
    bash: BashTool, project: Path, outside: Path, ctx: ToolContext, asker: Asker
) -> None:
    (outside / "victim.txt").write_text("x")
    (project / "link").symlink_to(outside)
    await run(bash, ctx, "rm link/victim.txt")
    assert [ask.patterns for ask in asker.of("external_directory")] == [[f"{outside}/*"]]


async def test_a_workdir_outside_the_project_needs_external_directory(
    bash: BashTool, outside: Path, ctx: ToolContext, asker: Asker
) -> None:
    result = await run(bash, ctx, "pwd", workdir=str(outside))
    assert result.output == f"{outside}\n"
    (ask,) = asker.of("external_directory")
    assert ask.patterns == [f"{outside}/*"] and ask.metadata["directories"] == [str(outside)]


async def test_the_description_states_the_shell_and_the_limits(bash: BashTool, ctx: ToolContext) -> None:
    text = await bash.description(ToolTarget("build", ctx.ruleset, ctx.model))  # type: ignore[arg-type]
    assert "${" not in text
    assert "bash" in text and "120000" in text and "2000 lines" in text and "51200 bytes" in text
