"""The `.env` rule reaches every tool that reads or writes content; config files and `.git/` are protected."""

from __future__ import annotations

from pathlib import Path

import pytest
from tool_fakes import DEFAULT_RULES, Asker, MakeContext, rules

from strata_core.tool.builtin.apply_patch import ApplyPatchTool
from strata_core.tool.builtin.edit import EditTool
from strata_core.tool.builtin.glob import GlobTool
from strata_core.tool.builtin.grep import GrepTool
from strata_core.tool.builtin.webfetch import WebFetchTool
from strata_core.tool.builtin.write import WriteTool
from strata_core.tool.contract import ToolContext
from strata_core.tool.runner import run_tool
from strata_core.tool.support.content_guard import REDACTED_DIFF, is_protected
from strata_core.tool.support.search import Search

pytestmark = pytest.mark.anyio

HEADLESS = (*DEFAULT_RULES, *rules({"protected_path": "ask"}))


def headless(make_ctx: MakeContext) -> tuple[ToolContext, Asker]:
    """Every ask a person would answer is refused, as in `strata run` without `--auto`."""
    asker = Asker(rules=HEADLESS, reject={"read", "protected_path", "external_directory"})
    return make_ctx(ask=asker, ruleset=HEADLESS), asker


@pytest.fixture
def env_files(project: Path) -> None:
    (project / ".env").write_text("TOKEN=root-secret\n")
    (project / ".env.local").write_text("TOKEN=local-secret\n")
    (project / "sub").mkdir()
    (project / "sub" / ".env").write_text("TOKEN=sub-secret\n")
    (project / ".env.example").write_text("TOKEN=example\n")
    (project / "app.py").write_text("TOKEN = 'in code'\n")


@pytest.mark.parametrize("use_rg", [True, False])
async def test_grep_with_no_path_keeps_env_files_out(
    env_files: None, project: Path, make_ctx: MakeContext, use_rg: bool
) -> None:
    ctx, _ = headless(make_ctx)
    outcome = await run_tool(GrepTool(search=Search(use_rg=use_rg)), {"pattern": "TOKEN"}, ctx, agent_ruleset=None)
    output = outcome.result.output
    assert "secret" not in output
    assert "in code" in output and "example" in output
    assert "left out" in output and str(project / "sub" / ".env") in output


async def test_grep_on_an_env_file_by_name_asks(env_files: None, project: Path, make_ctx: MakeContext) -> None:
    ctx, asker = headless(make_ctx)
    outcome = await run_tool(GrepTool(), {"pattern": "TOKEN", "path": ".env"}, ctx, agent_ruleset=None)
    assert "secret" not in outcome.result.output
    assert [ask.patterns for ask in asker.asked] == [[".env"]]


async def test_glob_still_lists_env_files(env_files: None, project: Path, make_ctx: MakeContext) -> None:
    ctx, _ = headless(make_ctx)
    outcome = await run_tool(GlobTool(), {"pattern": "**/.env*"}, ctx, agent_ruleset=None)
    assert str(project / "sub" / ".env") in outcome.result.output


@pytest.mark.parametrize(
    "tool, args",
    [
        (EditTool(), {"filePath": ".env", "oldString": "root-secret", "newString": "x"}),
        (WriteTool(), {"filePath": ".env", "content": "TOKEN=x\n"}),
        (
            ApplyPatchTool(),
            {"patchText": "*** Begin Patch\n*** Update File: .env\n@@\n-TOKEN=root-secret\n+x\n*** End Patch"},
        ),
        (WriteTool(), {"filePath": "sub/.env", "content": "TOKEN=x\n"}),
    ],
    ids=["edit", "write", "apply_patch", "write-new-dir"],
)
async def test_writing_tools_ask_the_env_rule(
    env_files: None,
    project: Path,
    make_ctx: MakeContext,
    tool: EditTool | WriteTool | ApplyPatchTool,
    args: dict[str, str],
) -> None:
    ctx, asker = headless(make_ctx)
    outcome = await run_tool(tool, args, ctx, agent_ruleset=None)
    assert outcome.is_error and outcome.blocked
    assert [ask.permission for ask in asker.asked] == ["read"]
    assert (project / ".env").read_text() == "TOKEN=root-secret\n"
    assert (project / "sub" / ".env").read_text() == "TOKEN=sub-secret\n"


async def test_an_approved_edit_of_an_env_file_keeps_no_diff(
    env_files: None, project: Path, make_ctx: MakeContext
) -> None:
    asker = Asker(rules=HEADLESS)  # a person says yes
    ctx = make_ctx(ask=asker, ruleset=HEADLESS)
    edit = {"filePath": ".env", "oldString": "root-secret", "newString": "rotated"}
    outcome = await run_tool(EditTool(), edit, ctx, agent_ruleset=None)
    assert not outcome.is_error
    assert (project / ".env").read_text() == "TOKEN=rotated\n"
    metadata = outcome.result.metadata
    assert metadata["diff"] == REDACTED_DIFF and metadata["filediff"]["patch"] == REDACTED_DIFF
    assert "root-secret" not in str(metadata)
    patch = "*** Begin Patch\n*** Update File: .env.local\n@@\n-TOKEN=local-secret\n+TOKEN=new\n*** End Patch"
    patched = await run_tool(ApplyPatchTool(), {"patchText": patch}, ctx, agent_ruleset=None)
    assert not patched.is_error and "local-secret" not in str(patched.result.metadata)


async def test_webfetch_does_not_read_local_files(env_files: None, project: Path, make_ctx: MakeContext) -> None:
    ctx, _ = headless(make_ctx)
    outcome = await run_tool(WebFetchTool(), {"url": f"file://{project}/.env"}, ctx, agent_ruleset=None)
    assert outcome.is_error and "secret" not in outcome.result.output


@pytest.mark.parametrize(
    "relative",
    ["strata.json", "strata.jsonc", "opencode.json", "opencode.jsonc", "sub/strata.json", ".strata/x.md",
     ".opencode/agent/evil.md", ".git/hooks/pre-commit", ".git/config", "sub/.git/config", "sub/.git"],
)  # fmt: skip
async def test_writes_to_config_and_git_ask_protected_path(project: Path, make_ctx: MakeContext, relative: str) -> None:
    ctx, asker = headless(make_ctx)
    outcome = await run_tool(WriteTool(), {"filePath": relative, "content": "x"}, ctx, agent_ruleset=None)
    assert outcome.is_error and outcome.blocked
    assert [(ask.permission, ask.patterns) for ask in asker.asked] == [("protected_path", [relative])]
    assert not (project / relative).exists()


@pytest.mark.parametrize("last", ["HEAD", "config", "objects/.keep"])
async def test_writes_that_make_or_fill_a_bare_repository_ask_protected_path(
    project: Path, make_ctx: MakeContext, last: str
) -> None:
    # Git takes `x.git/` for a git dir once it holds HEAD, objects and refs, and obeys its config when run
    # inside it; whichever of them is written last makes it one, and what follows is written into one.
    planted = {"HEAD": "ref: refs/heads/main\n", "config": "[core]\n\tfsmonitor = touch pwn\n", "objects/.keep": ""}
    for name, content in {"refs/.keep": "", **planted}.items():
        if name != last:
            (project / "x.git" / name).parent.mkdir(parents=True, exist_ok=True)
            (project / "x.git" / name).write_text(content)
    ctx, asker = headless(make_ctx)
    write = {"filePath": f"x.git/{last}", "content": planted[last]}
    outcome = await run_tool(WriteTool(), write, ctx, agent_ruleset=None)
    assert outcome.is_error and outcome.blocked
    assert [(ask.permission, ask.patterns) for ask in asker.asked] == [("protected_path", [f"x.git/{last}"])]
    assert not (project / "x.git" / last).exists()


async def test_a_dir_holding_some_of_a_repositorys_names_is_not_protected(project: Path, make_ctx: MakeContext) -> None:
    (project / "docs/objects").mkdir(parents=True)
    ctx, asker = headless(make_ctx)
    outcome = await run_tool(WriteTool(), {"filePath": "docs/HEAD", "content": "x"}, ctx, agent_ruleset=None)
    assert not outcome.is_error and [ask.permission for ask in asker.asked] != ["protected_path"]


async def test_edit_and_apply_patch_of_strata_json_ask_protected_path(project: Path, make_ctx: MakeContext) -> None:
    (project / "strata.json").write_text('{"permission": {}}\n')
    ctx, asker = headless(make_ctx)
    edit = {"filePath": "strata.json", "oldString": "{}", "newString": '{"external_directory": "allow"}'}
    assert (await run_tool(EditTool(), edit, ctx, agent_ruleset=None)).is_error
    patch = "*** Begin Patch\n*** Add File: opencode.json\n+{}\n*** End Patch"
    assert (await run_tool(ApplyPatchTool(), {"patchText": patch}, ctx, agent_ruleset=None)).is_error
    assert [ask.permission for ask in asker.asked] == ["protected_path", "protected_path"]
    assert (project / "strata.json").read_text() == '{"permission": {}}\n'
    assert not (project / "opencode.json").exists()


async def test_a_symlink_to_a_protected_file_is_protected(project: Path, make_ctx: MakeContext) -> None:
    (project / "strata.json").write_text("{}\n")
    (project / "notes.json").symlink_to(project / "strata.json")
    ctx, asker = headless(make_ctx)
    outcome = await run_tool(WriteTool(), {"filePath": "notes.json", "content": "{}"}, ctx, agent_ruleset=None)
    assert outcome.is_error
    assert [(ask.permission, ask.patterns) for ask in asker.asked] == [("protected_path", ["strata.json"])]


async def test_protected_path_can_be_allowed_in_config(project: Path, make_ctx: MakeContext) -> None:
    allowing = (*HEADLESS, *rules({"protected_path": {".strata/*": "allow"}}))
    ctx = make_ctx(ask=Asker(rules=allowing, reject={"protected_path"}), ruleset=allowing)
    outcome = await run_tool(WriteTool(), {"filePath": ".strata/notes.md", "content": "x"}, ctx, agent_ruleset=None)
    assert not outcome.is_error
    assert (project / ".strata" / "notes.md").read_text() == "x"


def test_only_config_names_and_protected_directories_are_protected() -> None:
    assert is_protected(".git/hooks/pre-commit") and is_protected("a/opencode.jsonc")
    assert not is_protected("src/strata.py") and not is_protected("docs/git/notes.md")
    assert not is_protected("../elsewhere/strata.json")  # outside: external_directory decides


async def test_without_any_read_rule_grep_hides_nothing(project: Path, make_ctx: MakeContext) -> None:
    (project / "a.txt").write_text("needle\n")
    outcome = await run_tool(GrepTool(), {"pattern": "needle"}, make_ctx(ruleset=()), agent_ruleset=None)
    assert outcome.result.output.startswith("Found 1 matches") and "left out" not in outcome.result.output
