"""A `/command args` turned into what `SessionLoop.prompt` is sent, as OpenCode's `SessionPrompt.command` does.

The template is filled (`command_template`), each `` !`cmd` `` replaced by that command's output (run in the
project directory, like the bash tool but without asking: the person wrote the command file), and trimmed; each
`@path` mention that names an existing file or directory is attached to the message, and an `@agent` one becomes
an agent part (the model is asked to hand the work to that subagent). Then:

- a subtask (`subtask: true`, or a command whose agent is a subagent, unless `subtask: false`) is sent as one
  `SubtaskInput` that its agent runs through the task tool, while the user message stays with the agent and
  model the person was using;
- any other command is sent as its text (and attachments) to its agent and model: the command's own model, else
  its agent's, else the model the person chose.
"""

from __future__ import annotations

import subprocess
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

import anyio
from attrs import define, frozen

from strata_core.config.errors import ConfigError
from strata_core.config.paths import StrataPaths
from strata_core.context.agent import AgentInfo, Agents
from strata_core.context.command import CommandInfo, CommandService
from strata_core.context.command_template import (
    fill_arguments,
    mentioned_path,
    mentions,
    replace_shell,
    shell_commands,
)
from strata_core.engine.prompt_input import AgentInput, FileInput, PromptPart, SubtaskInput, TextInput
from strata_core.project import Project
from strata_core.tool.builtin.bash import default_shell

SHELL_SECONDS = 60.0
"""How long a template's `` !`cmd` `` may run; a command that takes longer is stopped and reported in its place."""

TemplateShell = Callable[[str, Path], Awaitable[str]]


@frozen
class CommandPrompt:
    """What a command sends: the parts of the user message, and the agent and model it goes to (None: the
    loop's own choice, i.e. the agent's model or the session's)."""

    parts: tuple[PromptPart, ...]
    agent: str
    model: str | None
    command: CommandInfo


async def run_template_shell(command: str, cwd: Path) -> str:
    """The standard output of `command` (its exit status does not matter, as in OpenCode), or what went wrong."""
    try:
        with anyio.fail_after(SHELL_SECONDS):
            done = await anyio.run_process(
                [default_shell(), "-c", command], cwd=cwd, check=False, stdin=subprocess.DEVNULL
            )
    except TimeoutError:
        return f"Error executing command: `{command}` was stopped after {SHELL_SECONDS:.0f} s"
    except OSError as error:
        return f"Error executing command: {error}"
    return done.stdout.decode("utf-8", errors="replace")


@define
class CommandPrompts:
    """Turns a command and its arguments into a `CommandPrompt`."""

    commands: CommandService
    agents: Agents
    project: Project
    paths: StrataPaths
    shell: TemplateShell = run_template_shell

    async def prepare(
        self,
        name: str,
        arguments: str,
        *,
        agent: str | None = None,
        model: str | None = None,
        files: Sequence[Path] = (),
        words: Sequence[str] | None = None,
    ) -> CommandPrompt:
        """`/name arguments` sent while talking to `agent` on `model` (None: the defaults), with `files`
        attached; `words`: the arguments one by one, when the caller has them so (`strata run --command`'s
        argv), for `$1..$n`."""
        command = await self.commands.require(name)
        runs_on = await self._agent(command, command.agent or agent)
        text = await self._text(command, arguments, words)
        task_model = command.model or (runs_on.model.ref if command.agent and runs_on.model else None) or model
        if (runs_on.mode == "subagent" and command.subtask is not False) or command.subtask is True:
            task = SubtaskInput(text, command.description or "", runs_on.name, model=task_model, command=name)
            talking_to = agent or (await self.agents.default_agent()).name
            return CommandPrompt((task,), talking_to, model, command)
        mentioned = await self._mentioned(text, files)
        parts: list[PromptPart] = [TextInput(text), *mentioned, *(FileInput(path) for path in files)]
        return CommandPrompt(tuple(parts), runs_on.name, task_model, command)

    async def _agent(self, command: CommandInfo, name: str | None) -> AgentInfo:
        if name is None:
            return await self.agents.default_agent()
        found = await self.agents.get(name)
        if found is None:
            known = ", ".join(info.name for info in await self.agents.list() if not info.hidden)
            where = f"{command.source}: agent" if command.source else f"command.{command.name}.agent"
            raise ConfigError(f'{where}: there is no agent "{name}"; agents: {known}.', expected="an agent name")
        return found

    async def _text(self, command: CommandInfo, arguments: str, words: Sequence[str] | None) -> str:
        template = fill_arguments(await command.text(), arguments, words)
        snippets = shell_commands(template)
        if snippets:
            directory = (await self.project.info()).directory
            outputs = [""] * len(snippets)

            async def run(index: int, snippet: str) -> None:
                outputs[index] = await self.shell(snippet, directory)

            async with anyio.create_task_group() as group:
                for index, snippet in enumerate(snippets):
                    group.start_soon(run, index, snippet)
            template = replace_shell(template, outputs)
        return template.strip()

    async def _mentioned(self, text: str, files: Sequence[Path]) -> list[PromptPart]:
        """What the template's `@name`s resolve to, as in OpenCode: a file or directory, else an agent."""
        project = await self.project.info()
        given = {path.resolve() for path in files}
        found: list[PromptPart] = []
        for name in mentions(text):
            path = mentioned_path(name, project.directory, project.worktree, self.paths.home)
            if path is None:
                if await self.agents.get(name) is not None:
                    found.append(AgentInput(name))
                continue  # neither (an address, a decorator): it stays text
            # A file attached both ways is attached once.
            if path.resolve() not in given:
                given.add(path.resolve())
                found.append(FileInput(path))
        return found
