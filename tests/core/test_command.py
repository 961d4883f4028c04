"""Custom commands: where they come from, how a template is filled, and what `/name args` sends (reference 16.3)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from strata_core.config.errors import ConfigError
from strata_core.container import PromptContainer
from strata_core.context.command import CommandNotFoundError
from strata_core.context.command_template import fill_arguments, mentions, split_arguments
from strata_core.engine.command_prompt import CommandPrompt
from strata_core.engine.prompt_input import AgentInput, FileInput, SubtaskInput, TextInput


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    return work


def container(project: Path, tmp_path: Path, config: dict[str, Any] | None = None) -> PromptContainer:
    if config is not None:
        (project / "opencode.json").write_text(json.dumps(config))
    home = tmp_path / "home"
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    return PromptContainer(directory=project, env=env)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# --- filling a template ------------------------------------------------------------------------------------


def test_arguments_split_like_words_with_quotes_kept_whole() -> None:
    assert split_arguments("""a "two words" 'three more words' [Image 1] b""") == [
        "a",
        "two words",
        "three more words",
        "[Image 1]",
        "b",
    ]


def test_the_highest_placeholder_takes_every_remaining_argument() -> None:
    assert fill_arguments("Move $1 to $2.", "a.py src new dir") == "Move a.py to src new dir."


def test_missing_arguments_become_empty_and_arguments_is_the_text_as_typed() -> None:
    assert fill_arguments("[$1][$2]", "only") == "[only][]"
    assert fill_arguments("Review $ARGUMENTS now", ' "x y"  z') == 'Review  "x y"  z now'


def test_arguments_are_appended_to_a_template_without_placeholders() -> None:
    assert fill_arguments("Review the diff.", "carefully") == "Review the diff.\n\ncarefully"
    assert fill_arguments("Review the diff.", "  ") == "Review the diff."


def test_mentions_follow_opencodes_pattern() -> None:
    text = "see @src/a.py, @docs. and @explore but not a@b.c or `@x`; @src/a.py again"
    assert mentions(text) == ["src/a.py", "docs", "explore"]


# --- where commands come from ---------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_commands_come_from_config_and_markdown_files_project_over_global(project: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    write(home / ".config/opencode/command/review.md", "---\ndescription: global review\n---\nGlobal $ARGUMENTS")
    write(project / ".opencode/command/review.md", "---\ndescription: project review\nagent: plan\n---\n\nLook at $1\n")
    write(project / ".strata/commands/team/check.md", "Check the team's work.")
    core = container(project, tmp_path, {"command": {"hello": {"template": "Say hello", "description": "greets"}}})
    commands = {c.name: c for c in await core.commands().list()}
    assert list(commands) == ["customize-strata", "hello", "init", "review", "team/check"]
    review = commands["review"]  # the project's file replaces the global one and the built-in
    assert (review.template, review.description, review.agent) == ("Look at $1", "project review", "plan")
    assert review.subtask is None
    assert review.source == project / ".opencode/command/review.md"
    assert commands["hello"].template == "Say hello" and commands["hello"].source is None


@pytest.mark.anyio
async def test_a_markdown_command_overrides_a_config_entry_field_by_field(project: Path, tmp_path: Path) -> None:
    write(project / ".opencode/commands/hello.md", "Hello from the file")
    core = container(project, tmp_path, {"command": {"hello": {"template": "from json", "description": "kept"}}})
    hello = await core.commands().get("hello")
    assert hello is not None and (hello.template, hello.description) == ("Hello from the file", "kept")


@pytest.mark.anyio
async def test_init_and_review_are_built_in_with_opencodes_descriptions(project: Path, tmp_path: Path) -> None:
    commands = {c.name: c for c in await container(project, tmp_path).commands().list() if c.kind == "command"}
    assert list(commands) == ["init", "review"]
    init, review = commands["init"], commands["review"]
    assert (init.description, init.subtask) == ("guided AGENTS.md setup", None)
    assert (review.description, review.subtask) == ("review changes [commit|branch|pr], defaults to uncommitted", True)
    assert f"({project})" in init.template and "${path}" not in review.template and "$ARGUMENTS" in review.template
    sent = await prepare(container(project, tmp_path), "review", "HEAD~1", agent="plan")
    assert isinstance(sent.parts[0], SubtaskInput) and sent.parts[0].agent == "plan"  # the agent in use runs it
    assert "What to review: HEAD~1" in sent.parts[0].prompt and sent.agent == "plan"


@pytest.mark.anyio
async def test_a_config_command_without_template_is_an_error_naming_it(project: Path, tmp_path: Path) -> None:
    core = container(project, tmp_path, {"command": {"broken": {"description": "no text"}}})
    with pytest.raises(ConfigError, match=r"command\.broken: a command needs a template"):
        await core.commands().list()


@pytest.mark.anyio
async def test_a_bad_frontmatter_value_names_the_file(project: Path, tmp_path: Path) -> None:
    path = write(project / ".opencode/command/x.md", "---\nsubtask: maybe\n---\nbody")
    with pytest.raises(ConfigError, match=str(path)):
        await container(project, tmp_path).commands().list()


# --- what a command sends --------------------------------------------------------------------------------------


async def prepare(core: PromptContainer, name: str, arguments: str, **kwargs: Any) -> CommandPrompt:
    result: CommandPrompt = await core.command_prompts().prepare(name, arguments, **kwargs)
    return result


@pytest.mark.anyio
async def test_an_unknown_command_lists_the_available_ones(project: Path, tmp_path: Path) -> None:
    core = container(project, tmp_path, {"command": {"hello": {"template": "hi"}}})
    with pytest.raises(
        CommandNotFoundError,
        match=re.escape('Command not found: "nope". Available commands: customize-strata, hello, init, review.'),
    ):
        await prepare(core, "nope", "")


@pytest.mark.anyio
async def test_shell_output_and_mentioned_files_are_part_of_the_message(project: Path, tmp_path: Path) -> None:
    write(project / "src/a.py", "print(1)\n")
    write(project / ".opencode/command/look.md", "Status: !`echo clean; exit 3` Files: @src/a.py and @$1")
    core = container(project, tmp_path)
    sent = await prepare(core, "look", "docs", agent="plan", model="mock/m")
    (project / "docs").mkdir()
    again = await prepare(core, "look", "docs")
    assert sent.parts == (TextInput("Status: clean\n Files: @src/a.py and @docs"), FileInput(project / "src/a.py"))
    assert (sent.agent, sent.model) == ("plan", "mock/m")
    assert again.parts[1:] == (FileInput(project / "src/a.py"), FileInput(project / "docs"))
    assert again.agent == "build" and again.model is None


@pytest.mark.anyio
async def test_an_agent_mentioned_in_a_template_becomes_an_agent_part(project: Path, tmp_path: Path) -> None:
    write(project / "src/a.py", "x = 1\n")
    core = container(project, tmp_path, {"command": {"ask": {"template": "Ask @explore about @src/a.py, @nobody"}}})
    sent = await prepare(core, "ask", "")
    assert sent.parts[1:] == (AgentInput("explore"), FileInput(project / "src/a.py"))


@pytest.mark.anyio
async def test_the_commands_agent_and_model_win_over_the_current_ones(project: Path, tmp_path: Path) -> None:
    core = container(project, tmp_path, {"command": {"p": {"template": "plan it", "agent": "plan", "model": "a/b"}}})
    sent = await prepare(core, "p", "", agent="build", model="mock/m")
    assert (sent.agent, sent.model) == ("plan", "a/b")


@pytest.mark.anyio
async def test_a_command_for_a_subagent_is_a_subtask_unless_it_says_otherwise(project: Path, tmp_path: Path) -> None:
    config = {
        "command": {
            "find": {"template": "Find $ARGUMENTS", "agent": "explore", "description": "search"},
            "inline": {"template": "Find inline", "agent": "explore", "subtask": False},
            "forced": {"template": "Forced", "subtask": True},
        }
    }
    core = container(project, tmp_path, config)
    find = await prepare(core, "find", "greet", agent="plan", model="mock/m")
    assert find.parts == (SubtaskInput("Find greet", "search", "explore", model="mock/m", command="find"),)
    assert (find.agent, find.model) == ("plan", "mock/m")  # the user message stays where the person was
    inline = await prepare(core, "inline", "")
    assert inline.parts == (TextInput("Find inline"),) and inline.agent == "explore"
    forced = await prepare(core, "forced", "")
    assert forced.parts == (SubtaskInput("Forced", "", "build", command="forced"),) and forced.agent == "build"


@pytest.mark.anyio
async def test_a_command_naming_an_unknown_agent_says_where(project: Path, tmp_path: Path) -> None:
    core = container(project, tmp_path, {"command": {"x": {"template": "t", "agent": "ghost"}}})
    with pytest.raises(ConfigError, match=re.escape('command.x.agent: there is no agent "ghost"')):
        await prepare(core, "x", "")


@pytest.mark.anyio
async def test_skills_are_commands_under_names_still_free_and_hints_name_the_placeholders(
    project: Path, tmp_path: Path
) -> None:
    write(project / ".opencode/skill/tidy/SKILL.md", "---\nname: tidy\ndescription: Tidy imports.\n---\nSort them.")
    write(project / ".opencode/skill/hello/SKILL.md", "---\nname: hello\ndescription: A skill.\n---\nNot this.")
    core = container(project, tmp_path, {"command": {"hello": {"template": "Move $2 to $1, then $10: $ARGUMENTS"}}})
    commands = {c.name: c for c in await core.commands().list()}
    tidy, hello = commands["tidy"], commands["hello"]
    assert (tidy.kind, tidy.description, tidy.hints) == ("skill", "Tidy imports.", ())
    assert tidy.template.startswith("Sort them.\n\n\nBase directory for this skill: ")
    assert hello.kind == "command" and hello.hints == ("$1", "$10", "$2", "$ARGUMENTS")  # OpenCode's order


def test_arguments_given_one_by_one_keep_their_boundaries() -> None:
    assert fill_arguments("[$1][$2] $ARGUMENTS", "x = 1 style", ["x = 1", "style"]) == "[x = 1][style] x = 1 style"
