"""`strata run [MESSAGE..]`: one turn, non-interactive, streamed to the terminal (or as JSON lines)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from strata_cli import options


@click.command()
@click.argument("message", nargs=-1)
@options.model
@click.option("--variant", default=None, help="A variant of the model (reasoning effort or budget: high, max, ...).")
@options.agent
@options.continue_last
@options.session_id
@click.option("--fork", is_flag=True, help="Continue in a copy of the session (with -c or -s).")
@click.option(
    "-f",
    "--file",
    "files",
    multiple=True,
    type=click.Path(exists=True, path_type=Path),
    help="Attach a file or directory (repeatable).",
)
@click.option("--title", default=None, help="Title for the session.")
@click.option(
    "--command",
    "command_name",
    default=None,
    metavar="NAME",
    help="Run the custom command NAME (.opencode/command/NAME.md or config `command`); MESSAGE is its arguments.",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["default", "json"]),
    default="default",
    show_default=True,
    help="default: the answer streamed as text; json: one JSON event per line (see README).",
)
@click.option("--auto", is_flag=True, help="Approve every permission that is not denied (otherwise an `ask` fails).")
@click.option(
    "--attach",
    default=None,
    metavar="URL",
    help="Run the turn on a running server (`strata serve` or `opencode serve`) instead of here.",
)
@options.sandbox
@options.directory
@options.database
def run(
    message: tuple[str, ...],
    model: str | None,
    variant: str | None,
    agent: str | None,
    continue_last: bool,
    session_id: str | None,
    fork: bool,
    files: tuple[Path, ...],
    title: str | None,
    command_name: str | None,
    output_format: str,
    auto: bool,
    attach: str | None,
    directory: Path | None,
) -> None:
    """Send MESSAGE to the agent and stream the answer.

    The words of MESSAGE are joined with spaces; text piped on stdin is appended; `@path` attaches a file and
    `@subagent` hands the message to that subagent. Tool calls are shown on stderr, one line each with their
    diff or output under it. An `ask` permission fails at once unless --auto (nobody is there to answer).
    """
    from strata_cli.lean_start import heavy_imports

    with heavy_imports():
        import anyio

        from strata_cli.app import build_container
        from strata_cli.run_session import RunSettings, run_once

    from strata_core.text import valid_text

    # Bytes that are not UTF-8 (in an argument or on stdin) reach Python as lone surrogates: U+FFFD here.
    piped = read_stdin()
    text = valid_text(compose_message(message, piped))
    if not text and not files and not command_name:
        raise click.UsageError("nothing to send: give a message, pipe text on stdin, or attach a file with -f.")
    if fork and not (continue_last or session_id):
        raise click.UsageError("--fork needs a session to copy: add -c (the last session) or -s ID.")
    settings = RunSettings(
        text=text,
        files=tuple(path.resolve() for path in files),
        agent=agent,
        model=model,
        variant=variant,
        continue_last=continue_last,
        session_id=session_id,
        fork=fork,
        title=valid_text(title) if title is not None else None,
        json_output=output_format == "json",
        auto=auto,
        command=command_name,
        words=tuple(map(valid_text, message))
        if command_name and not piped
        else None,  # the shell's own argument boundaries
    )
    if attach is not None:
        from strata_cli.attach import run_attached

        code = anyio.run(run_attached, attach, settings)
    else:
        container = build_container(options.resolve_directory(directory))
        code = anyio.run(run_once, container, settings)
    if code:
        raise click.exceptions.Exit(code)


def compose_message(words: tuple[str, ...], piped: str | None) -> str:
    """The message: argument words joined with single spaces (no quoting added), then any piped text on
    the next line (as `opencode run` appends stdin), without its trailing newlines."""
    parts = [" ".join(words).strip(), (piped or "").rstrip()]
    return "\n".join(part for part in parts if part.strip())


def read_stdin() -> str | None:
    """Text piped in, or None when stdin is a terminal (then nobody is typing into it for us)."""
    if sys.stdin is None or sys.stdin.isatty():
        return None
    from strata_core.text import valid_text

    # Bytes that are not UTF-8 reach Python as lone surrogates (as in arguments, see `main`): U+FFFD here.
    return valid_text(sys.stdin.read())
