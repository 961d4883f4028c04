"""The body of `strata run`: pick the session, check agent and model before anything is stored, run one turn.

Checking first means a typo in `--model` or a missing key costs nothing: no empty session is left behind,
and the error is one paragraph saying what to set. Exit codes: 0 done, 1 failed (the reason is printed),
130 interrupted.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from attrs import frozen

from strata_cli.app import AppContainer, pick_agent, pick_primary_agent, start_runtime
from strata_cli.errors import EXIT_FAILURE, EXIT_INTERRUPTED, CliError, name_and_paragraph
from strata_cli.render import RunRenderer
from strata_cli.turn import EventHandler, drive_turn
from strata_cli.usage_line import usage_line
from strata_core.bus import BusEvent
from strata_core.context import AgentInfo
from strata_core.engine import FileInput, PromptPart, PromptRequest, TextInput, TurnChoice, TurnEnd
from strata_core.llm import ModelInfo
from strata_core.message import AssistantMessage, MessageError
from strata_core.permission import NoResponderError, Refuser, approve_all
from strata_core.runtime import Runtime
from strata_core.session import UsageTotals, usage_of
from strata_core.session_info import SessionInfo
from strata_core.texts import read_prompt
from strata_providers.catalog import ProviderCatalog

if TYPE_CHECKING:
    from strata_cli.json_events import JsonEventWriter


@frozen
class RunSettings:
    text: str
    files: tuple[Path, ...]
    agent: str | None
    model: str | None
    continue_last: bool
    session_id: str | None
    fork: bool
    title: str | None
    json_output: bool
    auto: bool
    command: str | None = None
    """`--command NAME`: `text` is then the command's arguments."""
    words: tuple[str, ...] | None = None
    """The command's arguments as the shell split them (for `$1..$n`); None: split `text`."""
    variant: str | None = None


async def run_once(container: AppContainer, settings: RunSettings) -> int:
    """Run one turn and return the exit code.

    With `--format json` a failure that escapes (bad config, no model, a defect) still ends the output with an
    `error` and a `done` line; it is then raised on, so stderr gets its paragraph and the exit code as usual.
    """
    writer: JsonEventWriter | None = None
    try:
        async with start_runtime(container, approver=approve_all if settings.auto else run_refuser()) as runtime:
            agent = await pick_primary_agent(runtime.agents, settings.agent)
            existing = await _existing_session(runtime, settings)
            sent = await _what_to_send(runtime, settings, agent)
            if sent.agent is not None and sent.agent != agent.name:
                agent = await pick_agent(runtime.agents, sent.agent)  # a command's own agent
            model = await expected_model(runtime, agent, sent.model, existing, settings.variant)
            session = await _session_for_turn(runtime, settings, existing)
            request = PromptRequest(
                session.id, list(sent.parts), agent=sent.agent, model=sent.model, variant=settings.variant
            )
            if settings.json_output:
                from strata_cli.json_events import JsonEventWriter  # `--format json` only

                writer = JsonEventWriter(session.id, _print_line, clock=runtime.clock.now_ms)
            return await _turn(runtime, settings, session, request, agent.name, model, writer)
    except Exception as exc:
        if settings.json_output:
            name, paragraph = name_and_paragraph(exc)
            failure = MessageError(name, paragraph)
            if writer is not None:
                writer.finish(ok=False, failure=failure)
            else:
                from strata_cli.json_events import print_failure_without_session

                print_failure_without_session(_print_line, failure)
        raise


def run_refuser() -> Refuser:
    """`strata run` without `--auto`: every ask is refused at once, in words that say how to allow it."""
    return Refuser(read_prompt("cli/non_interactive_run.txt").strip())


async def _existing_session(runtime: Runtime, settings: RunSettings) -> SessionInfo | None:
    if settings.session_id:
        return await runtime.sessions.get(settings.session_id)
    if settings.continue_last:
        from strata_cli.continued import continued_line, session_to_continue

        session = await session_to_continue(runtime)
        if session is not None and not settings.json_output:
            print(continued_line(runtime, session), file=sys.stderr)
        return session
    return None


async def _session_for_turn(runtime: Runtime, settings: RunSettings, existing: SessionInfo | None) -> SessionInfo:
    if existing is None:
        return await runtime.sessions.create(title=settings.title)
    session = await runtime.sessions.fork(existing.id) if settings.fork else existing
    if settings.title:
        session = await runtime.sessions.set_title(session.id, settings.title)
    return session


async def expected_model(
    runtime: Runtime,
    agent: AgentInfo,
    requested: str | None,
    existing: SessionInfo | None,
    variant: str | None = None,
) -> str:
    """The model the loop will pick (the loop's own decision, `loop.resolve`), resolved now so a bad ref, a
    missing key or a variant the model does not have fails early."""
    choice = TurnChoice(existing.id if existing is not None else None, agent.name, requested, variant)
    info = (await runtime.loop.resolve(choice)).info
    check_variant(info, variant)
    notice = runtime.models.notice if isinstance(runtime.models, ProviderCatalog) else None
    if notice:  # the model came from a local server nobody configured: say which, and how to keep it
        sys.stderr.write(notice + "\n")
    return info.ref


def check_variant(info: ModelInfo, variant: str | None) -> None:
    """Refuse a variant the model does not have, naming the ones it has."""
    if variant is None or variant in info.variants:
        return
    known = ", ".join(info.variants) or "none"
    raise CliError(f'Model {info.ref} has no variant "{variant}". Its variants: {known}.')


@frozen
class _Sent:
    parts: Sequence[PromptPart]
    agent: str | None
    model: str | None


async def _what_to_send(runtime: Runtime, settings: RunSettings, agent: AgentInfo) -> _Sent:
    """The message as given, or what `--command` makes of its arguments (checked before a session is stored)."""
    if settings.command is None:
        parts = await _message_parts(runtime, settings.text) if settings.text else []
        return _Sent(parts + [FileInput(path) for path in settings.files], settings.agent, settings.model)
    prompts = runtime.container.command_prompts()
    prepared = await prompts.prepare(
        settings.command,
        settings.text,
        agent=agent.name,
        model=settings.model,
        files=settings.files,
        words=settings.words,
    )
    return _Sent(prepared.parts, prepared.agent, prepared.model)


async def _turn(
    runtime: Runtime,
    settings: RunSettings,
    session: SessionInfo,
    request: PromptRequest,
    agent: str,
    model: str,
    writer: JsonEventWriter | None,
) -> int:
    directory = runtime.project.directory
    if writer is not None:
        writer.start(agent=agent, model=model, title=session.title)
        handle = _sync(writer.handle)
    else:
        renderer = RunRenderer(session.id, directory)
        renderer.header(agent, model)
        handle = _sync(renderer.handle)

    started = runtime.clock.now_ms()
    outcome = await drive_turn(
        runtime.bus, session.id, lambda: runtime.loop.prompt(request), handle, lambda: runtime.loop.cancel(session.id)
    )
    info = outcome.answer.info
    error = info.error if isinstance(info, AssistantMessage) else None
    refusals = runtime.approver.refusals if isinstance(runtime.approver, Refuser) else []
    code = _exit_code(outcome.end is TurnEnd.ABORTED, error, refusals)
    if writer is not None:
        failure = error if error is not None else (_refusal_error(refusals[0]) if refusals else None)
        writer.finish(ok=code == 0, failure=failure)
    else:
        renderer.finish()
        renderer.note(usage_line(await _turn_usage(runtime, session.id, started)))
        if code == EXIT_INTERRUPTED:
            renderer.note(("Interrupted.", "yellow"))
        elif refusals:
            renderer.error(str(refusals[0]))
    if code == EXIT_INTERRUPTED:
        runtime.abandon_background()  # Ctrl-C means now: no grace for a title still on its way
    return code


async def _turn_usage(runtime: Runtime, session_id: str, since_ms: int) -> UsageTotals:
    """What this run's answers used: the session's assistant messages created since the turn began, and those
    of the subagent sessions (`@explore`, the task tool) it ran meanwhile, theirs included: each is a model call
    the run paid for."""
    history = await runtime.sessions.messages(session_id)
    total = usage_of(m for m in history if isinstance(m.info, AssistantMessage) and m.info.time.created >= since_ms)
    for child in await runtime.sessions.children(session_id):
        if child.time.updated >= since_ms:
            total = total.plus_usage(await _turn_usage(runtime, child.id, since_ms))
    return total


async def _message_parts(runtime: Runtime, text: str) -> list[PromptPart]:
    if "@" not in text:
        return [TextInput(text)]  # no mention: nothing to resolve, nothing more to import
    from strata_cli.mentions import message_parts

    agents = {info.name: info for info in await runtime.agents.list()}
    project, home = runtime.project, runtime.container.paths().home
    return message_parts(text, agents, directory=project.directory, worktree=project.worktree, home=home)


def _refusal_error(refusal: NoResponderError) -> MessageError:
    """The failure of a run that ended because a permission `ask` had nobody to answer it."""
    data = {"permission": refusal.permission, "patterns": list(refusal.patterns)}
    return MessageError(type(refusal).__name__, str(refusal), data)


def _exit_code(aborted: bool, error: MessageError | None, refusals: Sequence[NoResponderError]) -> int:
    if aborted:
        return EXIT_INTERRUPTED
    if error is not None or refusals:
        return EXIT_FAILURE
    return 0


def _sync(handler: Callable[[BusEvent], None]) -> EventHandler:
    """An async event handler around a plain one (the run renderers never wait)."""

    async def handle(event: BusEvent) -> None:
        handler(event)

    return handle


def _print_line(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()
