"""The Commands service: prompt templates a person runs as `/name args` (reference 15.1, 16.3).

Commands come from the config's `command` entries (every JSON source, already merged) and from markdown files
`{command,commands}/**/*.md` in each config directory (`ConfigInfo.config_dirs`: the global ones, then the
project's `.opencode`/`.strata` dirs, ...). A file's name under `command(s)/`, without `.md`, is the command's
name (`team/review.md` is `/team/review`); its frontmatter gives `description`, `agent`, `model` and `subtask`,
its trimmed body the template. Later sources win field by field, so a project's file overrides a global one
and a markdown file overrides a JSON entry of the same name (OpenCode merges config dirs after JSON files).

Two commands are built in, as in OpenCode, and a command of the same name replaces them: `init` (write or
refresh the project's AGENTS.md) and `review` (review a change; a subtask). Their templates are Strata's own,
under `prompts/commands/`, with `${path}` replaced by the worktree.

After those, as in OpenCode 1.18.33: the prompts of the MCP servers (`server:prompt`, from the runtime's
`CommandSource`s, asked each time since servers start and change while the runtime runs; the template is
fetched from the server when the command runs, its arguments as `$1..$n`), then every skill, as a command of
its name whose template is the skill's body and its base directory. A name already taken is skipped.

The files are read the first time commands are asked for, not at start-up: a run that uses none pays nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, Protocol, TypeAlias

import anyio
import anyio.to_thread
from attrs import define, field, frozen

from strata_core.config.errors import ConfigError
from strata_core.config.merge import merge_deep
from strata_core.config.schema import CommandConfig
from strata_core.config.service import Config
from strata_core.config.structure import config_keys, structure_block
from strata_core.context.command_template import template_hints
from strata_core.context.skill import SkillInfo, Skills, base_directory_note
from strata_core.markdown import MarkdownFrontmatterError, parse_markdown
from strata_core.project import Project
from strata_core.texts import read_prompt

MARKDOWN_COMMANDS = ("command", "commands")
"""The folders of a config directory whose `**/*.md` files are commands."""
BUILTIN_COMMANDS: dict[str, dict[str, Any]] = {
    "init": {"description": "guided AGENTS.md setup"},
    "review": {"description": "review changes [commit|branch|pr], defaults to uncommitted", "subtask": True},
}
"""OpenCode's built-in commands, with its descriptions (interface labels); each template is
`prompts/commands/NAME.txt`."""
CommandKind: TypeAlias = Literal["command", "mcp", "skill"]


@frozen
class CommandInfo:
    """One command: the template and how it is run."""

    name: str
    template: str
    description: str | None = None
    agent: str | None = None
    """The agent that answers it; default: the agent the person is talking to."""
    model: str | None = None
    """`provider/model` it runs on; default: the agent's, else the session's."""
    subtask: bool | None = None
    """True: run by its agent as a subtask; False: never; None: when its agent is a subagent."""
    source: Path | None = None
    """The markdown file it was read from; None for a config entry."""
    kind: CommandKind = "command"
    """Where it comes from, in OpenCode's words (`source` in its API): a command, an MCP prompt, a skill."""
    hints: tuple[str, ...] = ()
    """The placeholders it takes (`$1`, `$ARGUMENTS`), for a client to prompt for."""
    fetch: Callable[[], Awaitable[str]] | None = field(default=None, eq=False, repr=False)
    """For an MCP prompt: gets the template from its server (`template` is empty until then)."""

    async def text(self) -> str:
        """The template: `template`, or what the server answers for an MCP prompt."""
        return self.template if self.fetch is None else await self.fetch()


class CommandSource(Protocol):
    """Commands that exist once something has started (the MCP servers' prompts): asked for each time."""

    async def commands(self) -> list[CommandInfo]: ...


class CommandNotFoundError(ConfigError):
    """A `/name` (or `--command name`) that no config entry or command file defines."""

    def __init__(self, name: str, available: list[str]) -> None:
        listed = ", ".join(available) if available else "none are defined (add .opencode/command/NAME.md)"
        super().__init__(f'Command not found: "{name}". Available commands: {listed}.')
        self.name = name


class Commands(Protocol):
    """The command service: the commands available to sessions of this project."""

    async def list(self) -> list[CommandInfo]: ...

    async def get(self, name: str) -> CommandInfo | None: ...


@define
class CommandService:
    """Commands from the config and the config directories' markdown files, read once, on first use."""

    config: Config
    project: Project | None = None
    """Where `${path}` in a built-in template points (the worktree); without it, the built-ins are left out."""
    skills: Skills | None = None
    """Whose skills are commands too; None: no skill commands."""
    sources: Sequence[CommandSource] = ()
    _commands: dict[str, CommandInfo] | None = field(default=None, init=False, repr=False)

    async def list(self) -> list[CommandInfo]:
        """Every command, by name."""
        commands = await self._all()
        return [commands[name] for name in sorted(commands)]

    async def get(self, name: str) -> CommandInfo | None:
        return (await self._all()).get(name)

    async def require(self, name: str) -> CommandInfo:
        """The command called `name`; an unknown name lists the ones there are."""
        found = await self.get(name)
        if found is None:
            raise CommandNotFoundError(name, [command.name for command in await self.list()])
        return found

    async def _all(self) -> dict[str, CommandInfo]:
        """The config's and files' commands, then the sources' and the skills' under names still free."""
        commands = dict(await self._load())
        for source in self.sources:
            for command in await source.commands():
                commands.setdefault(command.name, command)
        for skill in await self.skills.all() if self.skills is not None else []:
            commands.setdefault(skill.name, skill_command(skill))
        return commands

    async def _load(self) -> dict[str, CommandInfo]:
        if self._commands is None:
            info = await self.config.get()
            entries = {name: _as_entry(entry) for name, entry in info.blocks.command.items()}
            sources: dict[str, Path] = {}
            for directory in info.config_dirs:
                found = await anyio.to_thread.run_sync(read_markdown_commands, directory)
                entries = merge_deep(entries, {name: entry for name, (entry, _) in found.items()})
                sources.update({name: path for name, (_, path) in found.items()})
            # A command of the user's replaces a built-in of the same name whole (no `subtask` left behind).
            entries = {**await self._builtins(), **entries}
            self._commands = {name: _command(name, entry, sources.get(name)) for name, entry in entries.items()}
        return self._commands

    async def _builtins(self) -> dict[str, dict[str, Any]]:
        if self.project is None:
            return {}
        worktree = str((await self.project.info()).worktree)
        return {
            name: {**entry, "template": read_prompt(f"commands/{name}.txt").replace("${path}", worktree)}
            for name, entry in BUILTIN_COMMANDS.items()
        }


def skill_command(skill: SkillInfo) -> CommandInfo:
    """A skill run as `/name`: its body, then where its relative paths start (as its tool output says)."""
    template = skill.content
    if skill.directory is not None:
        template += "\n\n\n" + "\n".join(base_directory_note(skill.directory, "scripts/, references/"))
    return CommandInfo(skill.name, template, skill.description, kind="skill")


def read_markdown_commands(directory: Path) -> dict[str, tuple[dict[str, Any], Path]]:
    """The command entries of one config directory's markdown files, with the file each came from."""
    if not directory.is_dir():
        return {}
    from strata_core.config.markdown_files import markdown_files  # only when there is a directory to look in

    entries: dict[str, tuple[dict[str, Any], Path]] = {}
    keys = config_keys(CommandConfig)
    for relative in markdown_files(directory, MARKDOWN_COMMANDS, nested=True):
        path = directory / relative
        try:
            document = parse_markdown(path)
        except MarkdownFrontmatterError as error:
            raise ConfigError(str(error), path=path, line=error.line) from error
        # Frontmatter keys a command does not read (`name`, tags of other tools) are left alone, as OpenCode does.
        entry = {key: value for key, value in document.data.items() if key in keys and key != "template"}
        structure_block(entry, CommandConfig, path)
        name = Path(relative).relative_to(Path(relative).parts[0]).with_suffix("").as_posix()
        entries[name] = ({**entry, "template": document.body}, path)
    return entries


def _as_entry(entry: CommandConfig) -> dict[str, Any]:
    values: dict[str, Any] = {
        "template": entry.template,
        "description": entry.description,
        "agent": entry.agent,
        "model": entry.model,
        "subtask": entry.subtask,
    }
    return {key: value for key, value in values.items() if value is not None}


def _command(name: str, entry: Mapping[str, Any], source: Path | None) -> CommandInfo:
    template = entry.get("template")
    if not isinstance(template, str):
        raise ConfigError(
            f"command.{name}: a command needs a template (the prompt text, with $ARGUMENTS where the arguments go)",
            key_path=f"command.{name}.template",
            expected="a string",
        )
    return CommandInfo(
        name=name,
        template=template,
        description=entry.get("description"),
        agent=entry.get("agent"),
        model=entry.get("model"),
        subtask=entry.get("subtask"),
        source=source,
        hints=tuple(template_hints(template)),
    )
