"""The `bash` tool: run a command line in the project, with permissions read from the command itself.

Before anything runs, the command is parsed (tree-sitter-bash): paths outside the project that `cd`, `rm`,
`cp` ... name, and a `workdir` outside it, need `external_directory`; every simple command needs `bash`,
remembered by its arity prefix. The command then runs in the shell sandbox (`strata_core.sandbox`): inside
bubblewrap in `read-only`/`workspace-write` mode where it works, its processes ended with the call in every
mode, its environment the user's less every variable that is or looks like a secret.
"""

from __future__ import annotations

import os
import platform
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import anyio
import anyio.to_thread
from attrs import define, field

from strata_core.config.paths import StrataPaths
from strata_core.config.schema import SandboxConfig
from strata_core.extras import needing
from strata_core.tool.builtin.base import MAX_SAFE_INTEGER, BuiltinTool, object_schema, string
from strata_core.tool.contract import JSONSchema, ToolContext, ToolFailure, ToolResult, ToolTarget
from strata_core.tool.descriptions import render, tool_description
from strata_core.tool.support.paths_guard import absolute, directory_pattern, inside_project, real
from strata_core.tool.truncation import Truncation

if TYPE_CHECKING:
    from strata_core.sandbox import ShellSandbox
    from strata_core.tool.support.shell_parse import CommandScan
    from strata_core.tool.support.shell_process import OutputCollector

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
ABORTED = "User aborted the command"

DEFAULT_HIDDEN_ENV = frozenset(
    {
        "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY",
        "OPENROUTER_API_KEY", "GROQ_API_KEY", "MISTRAL_API_KEY", "DEEPSEEK_API_KEY", "XAI_API_KEY",
        "TOGETHER_API_KEY", "TOGETHER_AI_API_KEY", "FIREWORKS_API_KEY", "CEREBRAS_API_KEY", "MOONSHOT_API_KEY",
        "DEEPINFRA_API_KEY", "PERPLEXITY_API_KEY", "AZURE_OPENAI_API_KEY", "AZURE_API_KEY", "ZHIPU_API_KEY",
        "OPENCODE_API_KEY", "STRATA_API_KEY",
    }
)  # fmt: skip
"""Provider keys Strata may hold: the floor, to which the composition root adds its catalogue's key variables."""


def timeout_message(timeout_ms: int) -> str:
    return (
        f"shell tool terminated command after exceeding timeout {timeout_ms} ms. If this command is expected to "
        "take longer and is not waiting for interactive input, retry with a larger timeout value in milliseconds."
    )


def shell_metadata_block(lines: list[str]) -> str:
    return "\n\n<shell_metadata>\n" + "\n".join(lines) + "\n</shell_metadata>" if lines else ""


def default_shell() -> str:
    return shutil.which("bash") or "/bin/sh"


async def ask_permissions(ctx: ToolContext, command: str, found: CommandScan, cwd: Path) -> None:
    resolved = [real(path) for path in found.outside]
    directories = [path if path.is_dir() else path.parent for path in resolved]
    if not inside_project(cwd, ctx.directory, ctx.worktree):
        directories.append(real(cwd))
    directories = list(dict.fromkeys(directories))  # one ask per directory, in first-seen order
    if directories:
        globs = [directory_pattern(directory) for directory in directories]
        metadata = {"command": command, "directories": [str(d) for d in directories], "patterns": globs}
        await ctx.ask("external_directory", globs, globs, metadata)
    if found.patterns:
        await ctx.ask("bash", list(found.patterns), list(found.always), {"command": command})


@define
class BashTool(BuiltinTool):
    """Runs shell commands. `hidden_env` names the variables kept from commands (Strata's own API keys);
    `sandbox` and `config_env` (the config's `{env:}` names, hidden too) configure the sandbox, whose
    variables (`STRATA_SANDBOX`, `STRATA_BWRAP`) are read from `settings_env`."""

    NAME: ClassVar[str] = "bash"
    PARAMETERS: ClassVar[JSONSchema] = object_schema(
        {
            "command": string("The command line to run."),
            "timeout": {
                "minimum": -MAX_SAFE_INTEGER,
                "exclusiveMinimum": 0,
                "type": "integer",
                "maximum": MAX_SAFE_INTEGER,
                "description": "Time limit in milliseconds.",
            },
            "workdir": string("Directory to run in (the working directory when left out); use it instead of `cd`."),
        },
        ["command"],
    )

    truncation: Truncation = field(factory=Truncation.default)
    hidden_env: frozenset[str] = DEFAULT_HIDDEN_ENV
    shell: str = field(factory=default_shell)
    home: Path = field(factory=Path.home)
    sandbox: SandboxConfig = field(factory=SandboxConfig)
    config_env: frozenset[str] = frozenset()
    settings_env: Mapping[str, str] = field(factory=lambda: os.environ)
    paths: StrataPaths = field(factory=StrataPaths.from_env)
    _sandbox: ShellSandbox | None = field(default=None, init=False, repr=False)

    async def description(self, target: ToolTarget) -> str:
        values = {
            "os": platform.system().lower(),
            "shell": Path(self.shell).name,
            "tmp": str(StrataPaths.from_env().tmp),
            "default_timeout_ms": str(DEFAULT_TIMEOUT_MS),
            "max_timeout_ms": str(MAX_TIMEOUT_MS),
            "max_lines": str(self.truncation.max_lines),
            "max_bytes": str(self.truncation.max_bytes),
        }
        return render(tool_description(self.NAME), values)

    async def execute(self, args: Any, ctx: ToolContext) -> ToolResult:
        # Imported at the first command, not at start-up: the tree-sitter parser and the process runner cost
        # ~5 ms to import, which every `strata` process would pay though most turns never run a command.
        # Without tree-sitter (strata-core's `bash` extra) the tool is still offered and each call is a tool error
        # naming the extra: nothing may run unparsed (its permissions come from the parse), and the model (and
        # whoever reads the transcript) learns why, where a tool silently missing would leave both guessing.
        with needing("bash", "the bash tool's command parsing"):
            from strata_core.tool.support.shell_parse import scan

        command = str(args["command"])
        timeout_ms = args.get("timeout")
        if timeout_ms is not None and timeout_ms < 0:
            raise ToolFailure(f"Invalid timeout value: {timeout_ms}. Timeout must be a positive number.")
        timeout_ms = min(int(timeout_ms or DEFAULT_TIMEOUT_MS), MAX_TIMEOUT_MS)
        cwd = absolute(str(args["workdir"]), ctx.directory) if args.get("workdir") else ctx.directory
        found = scan(command, cwd, self.home, lambda path: inside_project(path, ctx.directory, ctx.worktree))
        await ask_permissions(ctx, command, found, cwd)
        if not cwd.is_dir():
            raise ToolFailure(f"Working directory does not exist: {cwd}")
        return await self._run(command, cwd, timeout_ms, ctx)

    def shell_sandbox(self) -> ShellSandbox:
        """The sandbox commands run in, built at the first command (its modules stay out of start-up)."""
        if self._sandbox is None:
            from strata_core.sandbox import SandboxSettings, shell_sandbox

            settings = SandboxSettings.from_config(self.sandbox, self.settings_env, self.home, self.config_env)
            self._sandbox = shell_sandbox(settings, self.paths, self.truncation.directory)
        return self._sandbox

    def environment(self) -> dict[str, str]:
        """The environment commands get: the user's, scrubbed (`strata_core.sandbox.environment`)."""
        from strata_core.sandbox import scrubbed_environment

        settings = self.shell_sandbox().settings
        hidden = self.hidden_env | settings.hidden_env
        return scrubbed_environment(os.environ, hidden=hidden, allow=settings.env_allow)

    async def _run(self, command: str, cwd: Path, timeout_ms: int, ctx: ToolContext) -> ToolResult:
        from strata_core.sandbox import writable_root
        from strata_core.tool.support.created_config import review_created_config
        from strata_core.tool.support.shell_process import OutputCollector, run_shell

        ctx.update_metadata(None, {"output": ""})
        collector = OutputCollector(self.truncation, lambda live: ctx.update_metadata(None, {"output": live}))
        sandbox = self.shell_sandbox()
        root = writable_root(ctx.directory, ctx.worktree)
        prepared = await anyio.to_thread.run_sync(
            lambda: sandbox.prepare([self.shell, "-c", command], cwd=cwd, root=root)
        )
        limit = timeout_ms / 1000 + 0.1
        quarantine = self.paths.state / "quarantine" / ctx.session_id / ctx.call_id
        ended = False
        try:
            env = self.environment()
            exit = await run_shell(
                prepared.argv, cwd=cwd, env=env, time_limit=limit, collector=collector, pass_fds=prepared.pass_fds
            )
            ended = True
        except anyio.get_cancelled_exc_class():
            # Cancelled (the user aborted): the call ends completed with the output so far and the abort note,
            # as OpenCode's shell tool answers an abort (no progress update first), then the cancellation goes on.
            ctx.end_on_abort(self._result(command, collector, None, [ABORTED]))
            raise
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(sandbox.finish, prepared)
                if not ended:  # config it made off its chain goes, since no one can be asked about it now
                    await review_created_config(ctx, prepared.before, quarantine, asking=False)
        notes = [timeout_message(timeout_ms)] if exit.timed_out else []
        moved = await review_created_config(ctx, prepared.before, quarantine)
        return self._result(command, collector, exit.code, [*notes, moved] if moved else notes)

    def _result(self, command: str, collector: OutputCollector, code: int | None, notes: list[str]) -> ToolResult:
        from strata_core.tool.support.shell_process import preview, tail

        end = tail(collector.text, self.truncation.max_lines, self.truncation.max_bytes)
        cut = collector.cut or end.cut
        saved = collector.saved
        if saved is None and end.cut:
            saved = self.truncation.write_sync(collector.text)
        output = end.text or "(no output)"
        if cut and saved is not None:
            output = f"...output truncated...\n\nFull output saved to: {saved}\n\n{output}"
        output += shell_metadata_block(notes)
        metadata: dict[str, Any] = {"output": collector.live or preview(output), "exit": code, "truncated": cut}
        if cut and saved is not None:
            metadata["outputPath"] = str(saved)
        return ToolResult(output=output, title=command, metadata=metadata)
