"""`strata` with no arguments: an interactive session (prompt_toolkit for input, rich for output).

Enter sends, Alt-Enter adds a line, Tab cycles the primary agents, and the bottom toolbar always
shows the agent and model the next message goes to. A turn runs with the prompt closed; Ctrl-C cancels it
(the app stays), permission questions are asked inline, and slash commands manage sessions (see `slash`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import anyio
from attrs import define, field, frozen
from prompt_toolkit import PromptSession
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import FileHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.key_binding.bindings.completion import generate_completions
from rich.console import Console
from rich.markup import escape

from strata_cli import slash
from strata_cli.agent_view import primary_agents
from strata_cli.app import AppContainer, build_container, pick_primary_agent, start_runtime
from strata_cli.completion import CompletionSource, PromptCompleter, completes_here
from strata_cli.errors import CliError, describe
from strata_cli.interactive_view import TurnView
from strata_cli.mentions import mentionable_agents, message_parts
from strata_cli.model_choices import usable_models
from strata_cli.output import one_line, visible
from strata_cli.permission_prompt import ask_permission
from strata_cli.run_session import expected_model
from strata_cli.slash_actions import run_slash
from strata_cli.transcript import conversation_lines, recent_turns
from strata_cli.turn import drive_turn
from strata_cli.usage_line import usage_line
from strata_core.bus import Bus, PermissionReply, PermissionRequest
from strata_core.context import AgentInfo, CommandInfo
from strata_core.engine import PromptPart, PromptRequest
from strata_core.permission import BusApprover
from strata_core.runtime import Runtime
from strata_core.session import UsageTotals, usage_of
from strata_core.session_info import SessionInfo
from strata_core.text import valid_text

RESUMED_TURNS = 3
"""Turns of a resumed session shown before the prompt (`/history N` shows more)."""


@frozen
class StartOptions:
    directory: Path
    model: str | None
    agent: str | None
    continue_last: bool
    session_id: str | None


def run_interactive(
    *, directory: Path, model: str | None, agent: str | None, continue_last: bool, session_id: str | None
) -> None:
    """Run the interactive mode until /quit or Ctrl-D."""
    container = build_container(directory)
    anyio.run(_main, container, StartOptions(directory, model, agent, continue_last, session_id))


async def _main(container: AppContainer, start: StartOptions) -> None:
    bus = Bus()
    async with start_runtime(container, bus=bus, approver=BusApprover(bus)) as runtime:
        app = await Interactive.open(container, runtime, start)
        await app.run()


@define
class Interactive:
    """The state of one interactive session: who answers (agent, model), where (session), and the prompt."""

    runtime: Runtime
    console: Console
    agents: dict[str, AgentInfo]
    """Every agent by name; Tab cycles the primary ones."""
    agent: str
    base_model: str
    """The model used when neither /model nor the agent names one: the session's, else the configured default."""
    session: SessionInfo | None
    model_override: str | None = None
    commands: dict[str, CommandInfo] = field(factory=dict)
    """Custom commands by name (`/name args`)."""
    variant: str | None = None
    """The model variant (`/variant high`) the next messages run with; None for the model's defaults."""
    usage: UsageTotals = field(factory=UsageTotals)
    """The session's tokens and cost so far, for the toolbar (recounted after each turn)."""
    _prompt: PromptSession[str] | None = field(default=None, init=False)

    @classmethod
    async def open(cls, container: AppContainer, runtime: Runtime, start: StartOptions) -> Interactive:
        agent = await pick_primary_agent(runtime.agents, start.agent)
        session = await _starting_session(runtime, start)
        # A bad --model, or no model at all, fails now with the catalogue's message saying what to set.
        base_model = await expected_model(runtime, agent, start.model, session)
        agents = {info.name: info for info in await runtime.agents.list()}
        console = Console(highlight=False)
        app = cls(runtime, console, agents, agent.name, base_model, session, start.model)
        app.commands = await _custom_commands(runtime, console)
        if session is not None:
            app.usage = usage_of(await runtime.sessions.messages(session.id))
        return app

    @property
    def primary(self) -> list[str]:
        return primary_agents(list(self.agents.values()))

    @property
    def model(self) -> str:
        """The model the next message goes to."""
        own = self.agents[self.agent].model
        return self.model_override or (own.ref if own else self.base_model)

    async def run(self) -> None:
        self.console.print(
            f"[bold]Strata[/bold] in {escape(str(self.runtime.project.directory))} — "
            "Enter sends, Tab switches agent, /help for commands, Ctrl-D quits."
        )
        if self.session is not None:
            await self.show_resumed()
        while True:
            try:
                # Typed or pasted bytes that are not UTF-8 come as lone surrogates: U+FFFD from here on.
                text = valid_text(await self._prompt_session().prompt_async(self._prompt_message))
            except KeyboardInterrupt:
                continue  # Ctrl-C at the prompt clears the input
            except EOFError:
                return
            if not text.strip():
                continue
            if not await self._handle(text):
                return

    async def _handle(self, text: str) -> bool:
        """Act on one input; False when the person asked to leave."""
        try:
            command = slash.parse(text, custom=self.commands)
            if command is None:
                await self.send(slash.message_text(text))
                return True
            return await run_slash(self, command)
        except slash.UnknownSlashCommandError as error:
            self.console.print(f"[yellow]{escape(str(error))}[/yellow]")
        except Exception as error:  # an expected failure is shown and the app goes on
            described = describe(error)
            if described is None:
                raise
            self.console.print(f"[red bold]Error:[/red bold] {escape(described[0])}")
        return True

    async def send(self, text: str) -> None:
        """One turn: the message (its `@` mentions resolved) goes to the current agent and model."""
        project = self.runtime.project
        home = self.runtime.container.paths().home
        parts = message_parts(text, self.agents, directory=project.directory, worktree=project.worktree, home=home)
        await self.send_parts(parts, self.agent, self.model_override)

    async def run_command(self, name: str, arguments: str) -> None:
        """`/name arguments`: the custom command's prompt, sent to its agent and model."""
        prompts = self.runtime.container.command_prompts()
        prepared = await prompts.prepare(name, arguments, agent=self.agent, model=self.model_override)
        await self.send_parts(list(prepared.parts), prepared.agent, prepared.model)

    async def show_resumed(self, turns: int = RESUMED_TURNS) -> None:
        """Say which session goes on, and show its last `turns` turns."""
        assert self.session is not None
        self.console.print(f"Continuing [bold]{escape(visible(self.session.title))}[/bold] ({self.session.id})")
        await self.show_history(turns)

    async def show_history(self, turns: int) -> None:
        """The session's last `turns` turns, as `strata session show` prints them."""
        if self.session is None:
            raise CliError("Nothing to show yet: this is a new session.")
        history = await self.runtime.sessions.messages(self.session.id)
        shown, earlier = recent_turns(history, turns)
        if earlier:
            self.console.print(f"[dim]… {earlier} earlier turn(s); /history N shows more[/dim]")
        for line in conversation_lines(shown, self.runtime.project.directory):
            self.console.print(escape(line), style="bold" if line.startswith("## ") else None)
        self.console.print("[dim]──[/dim]")

    async def send_parts(self, parts: Sequence[PromptPart], agent: str, model: str | None) -> None:
        """One turn: `parts` go to `agent` on `model` (None: the agent's or the session's); Ctrl-C stops it."""
        runtime = self.runtime
        if self.session is None:
            self.session = await runtime.sessions.create()
        session_id = self.session.id
        await self._wait_while_busy(session_id)
        request = PromptRequest(session_id, list(parts), agent=agent, model=model, variant=self.variant)
        view = TurnView(self.console, runtime.project.directory, session_id, self._ask, _questions(runtime).reply)
        outcome = await drive_turn(
            runtime.bus, session_id, lambda: runtime.loop.prompt(request), view.handle,
            lambda: runtime.loop.cancel(session_id),
        )  # fmt: skip
        view.flush()
        if outcome.interrupted:
            self.console.print("[yellow]Interrupted.[/yellow] The session is kept; send another message to go on.")
        if view.switched_to is not None and view.switched_to in self.agents:
            self.agent = view.switched_to
        self.session = await runtime.sessions.get(session_id)
        self.usage = usage_of(await runtime.sessions.messages(session_id))

    async def _wait_while_busy(self, session_id: str) -> None:
        """Another process writing the session: say so and wait for it (a headless run fails at once instead)."""

        def tell() -> None:
            self.console.print(f"[yellow]Session {session_id} is busy in another strata process; waiting…[/yellow]")

        async with self.runtime.store.lease(session_id, wait=True, on_wait=tell):
            pass

    async def compact(self) -> None:
        """Summarise the current session now, showing the summary as it streams."""
        runtime = self.runtime
        if self.session is None:
            raise CliError("Nothing to compact yet: this is a new session.")
        session_id = self.session.id
        view = TurnView(self.console, runtime.project.directory, session_id, self._ask, _questions(runtime).reply)
        await drive_turn(
            runtime.bus, session_id, lambda: runtime.loop.compact(session_id), view.handle,
            lambda: runtime.loop.cancel(session_id),
        )  # fmt: skip
        view.flush()

    async def _ask(self, request: PermissionRequest) -> PermissionReply:
        return await ask_permission(self.console, request, self.runtime.project.directory)

    def _prompt_message(self) -> FormattedText:
        # A callable, so the prompt re-renders when Tab switches the agent.
        return FormattedText([("bold", f"{self.agent} > ")])

    def toolbar(self) -> FormattedText:
        title = self.session.title if self.session else "new session"
        model = f"{self.model} ({self.variant})" if self.variant else self.model
        return FormattedText(
            [
                ("bold", f" {self.agent} "),
                ("", f"· {model} │ {title} │ {usage_line(self.usage)}"),
                ("", " │ Tab: switch agent · /help · Ctrl-D: quit"),
            ]
        )

    def _prompt_session(self) -> PromptSession[str]:
        if self._prompt is None:
            history = self.runtime.container.paths().state / "prompt-history"
            history.parent.mkdir(parents=True, exist_ok=True)
            self._prompt = PromptSession(
                history=FileHistory(str(history)),
                multiline=True,
                key_bindings=self._key_bindings(),
                bottom_toolbar=self.toolbar,
                completer=PromptCompleter(self.completion_source()),
                complete_while_typing=False,
            )
        return self._prompt

    def completion_source(self) -> CompletionSource:
        agents = {
            info.name: one_line(info.description or "") for info in mentionable_agents(list(self.agents.values()))
        }
        commands = {name: command.description or "" for name, command in self.commands.items()}
        models = self.runtime.models
        return CompletionSource(self.runtime.project.directory, commands, agents, lambda: usable_models(models))

    def _key_bindings(self) -> KeyBindings:
        keys = KeyBindings()

        # Ctrl-J sends too: an Enter typed while a turn runs reaches the prompt as a line feed (the terminal
        # is in cooked mode then, which turns CR into LF), and it must not become a newline in the next input.
        @keys.add("enter")
        @keys.add("c-j")
        def _send(event: KeyPressEvent) -> None:
            event.current_buffer.validate_and_handle()

        @keys.add("escape", "enter")
        def _newline(event: KeyPressEvent) -> None:
            event.current_buffer.insert_text("\n")

        @keys.add("tab")
        def _complete_or_next_agent(event: KeyPressEvent) -> None:
            # After `/` or `@` Tab completes (and moves through the choices); anywhere else it switches agent.
            buffer = event.current_buffer
            if buffer.complete_state is not None or completes_here(buffer.document.text_before_cursor):
                generate_completions(event)  # prompt_toolkit's own Tab: the common part, then the choices
            else:
                self.agent = slash.next_agent(self.primary, self.agent)
                event.app.invalidate()

        return keys


def _questions(runtime: Runtime) -> BusApprover:
    """The runtime's approver, which `_main` made a `BusApprover`: the view answers its questions."""
    assert isinstance(runtime.approver, BusApprover)
    return runtime.approver


async def _custom_commands(runtime: Runtime, console: Console) -> dict[str, CommandInfo]:
    """The project's custom commands; a broken command file is reported and the app starts without them."""
    try:
        return {command.name: command for command in await runtime.container.commands().list()}
    except Exception as error:
        described = describe(error)
        if described is None:
            raise
        console.print(f"[yellow]Custom commands are off:[/yellow] {escape(described[0])}")
        return {}


async def _starting_session(runtime: Runtime, start: StartOptions) -> SessionInfo | None:
    if start.session_id:
        return await runtime.sessions.get(start.session_id)
    if start.continue_last:
        from strata_cli.continued import continued_line, session_to_continue

        session = await session_to_continue(runtime)
        if session is None:
            raise CliError("There is no session to continue in this project yet; start without -c.")
        print(continued_line(runtime, session))
        return session
    return None
