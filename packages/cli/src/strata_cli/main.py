"""The `strata` command: a click group whose subcommands are imported only when they are invoked.

Start-up time is part of the product: `strata --help` and `strata --version` must not pay for httpx, rich,
prompt_toolkit, anyio or dependency_injector. This module imports click and the standard library only; each
command module keeps its heavy imports inside its functions (tests/cli/test_lazy_imports.py pins this).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

import click

from strata_cli import options

# name -> (module, attribute). The order is the order `strata --help` lists them in.
_COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("strata_cli.commands.run", "run"),
    "session": ("strata_cli.commands.session", "session"),
    "models": ("strata_cli.commands.models", "models"),
    "stats": ("strata_cli.commands.stats", "stats"),
    "agent": ("strata_cli.commands.agent", "agent"),
    "mcp": ("strata_cli.commands.mcp", "mcp"),
    "debug": ("strata_cli.commands.debug", "debug"),
    "completion": ("strata_cli.commands.completion", "completion"),
    "serve": ("strata_cli.commands.serve", "serve"),
    "export": ("strata_cli.commands.transfer", "export"),
    "import": ("strata_cli.commands.transfer", "import_file"),
    "acp": ("strata_cli.commands.acp", "acp"),
    "db": ("strata_cli.commands.db", "db"),
}


class LazyGroup(click.Group):
    """A group that imports a subcommand's module the first time the subcommand is looked up."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = _COMMANDS.get(cmd_name)
        if target is None:
            return None
        module = importlib.import_module(target[0])
        command = getattr(module, target[1])
        assert isinstance(command, click.Command)
        return command


def _print_version(ctx: click.Context, _: click.Parameter, wanted: bool) -> None:
    """`strata --version`: click's own option reads it through importlib.metadata, a third of the command's time."""
    if not wanted or ctx.resilient_parsing:
        return
    from strata_core.distributions import installed_version

    click.echo(f"strata {installed_version('strata-cli') or '0+unknown'}")
    ctx.exit()


def _strict_config(ctx: click.Context, param: click.Parameter, strict: bool) -> None:
    """`strata --strict CMD`: the config's unknown keys stop the command, as `STRATA_CONFIG_STRICT=1` makes them
    (the config is read from the environment the command runs in, so the flag sets the variable)."""
    if strict:
        os.environ["STRATA_CONFIG_STRICT"] = "1"


@click.group(
    cls=LazyGroup,
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version and exit.",
)
@click.option(
    "--strict",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_strict_config,
    help="Refuse config files with keys Strata does not know, as OpenCode does (default: warn and go on).",
)
@options.directory
@options.model
@options.agent
@options.continue_last
@options.session_id
@options.sandbox
@click.pass_context
def cli(
    ctx: click.Context,
    directory: Path | None,
    model: str | None,
    agent: str | None,
    continue_last: bool,
    session_id: str | None,
) -> None:
    """Strata: an agent session in your terminal.

    With no command, starts an interactive session in the current directory. --dir also applies to every
    command; the other options here are for the interactive session (commands take their own).
    """
    if ctx.invoked_subcommand is not None:
        # Silently ignoring `strata -m X run ...` would run with another model than the one asked for.
        given = [flag for flag, value in (("-m", model), ("--agent", agent), ("-s", session_id)) if value]
        given += ["-c"] if continue_last else []
        if given:
            raise click.UsageError(
                f"{', '.join(given)} before a command applies to the interactive session only; put it after "
                f"the command: `strata {ctx.invoked_subcommand} {' '.join(given)} ...`."
            )
        ctx.obj = directory  # the default --dir of every command (see options.resolve_directory)
        return
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise click.UsageError(
            "the interactive mode needs a terminal; to run one message without it, use `strata run MESSAGE` "
            "(text piped to `strata run` is appended to the message)."
        )
    from strata_cli.lean_start import heavy_imports

    with heavy_imports():
        from strata_cli.interactive import run_interactive

    run_interactive(
        directory=options.resolve_directory(directory),
        model=model,
        agent=agent,
        continue_last=continue_last,
        session_id=session_id,
    )


def _exit(code: int) -> NoReturn:
    """Leave without tearing the interpreter down.

    Everything that must outlive the process is done by now: the runtime has closed the session store and
    the HTTP client, and the output is flushed here. Skipping the module-by-module teardown of a few hundred
    modules saves ~40 ms of every run, which is a tenth of a `strata run`.
    """
    try:
        lean_start = sys.modules.get("strata_cli.lean_start")  # loaded by the commands that load the engine
        if lean_start is not None:
            lean_start.before_exit()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point: run the group and turn every failure into a short message and an exit code."""
    from strata_core.text import valid_text  # light: `re` only

    # Bytes that are not UTF-8 reach Python as lone surrogates, which no store, request or file write accepts:
    # every argument is valid text from here on (a path holding such bytes is then one that does not exist).
    args = [valid_text(arg) for arg in (sys.argv[1:] if argv is None else argv)]
    try:
        # Without standalone mode click returns (rather than raises) the code of a `click.exceptions.Exit`.
        code = cli.main(args=args, prog_name="strata", standalone_mode=False)
    except click.exceptions.Exit as exc:
        _exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        _exit(exc.exit_code)
    except (KeyboardInterrupt, click.exceptions.Abort):
        click.echo("Interrupted.", err=True)
        _exit(130)
    except Exception as exc:  # every other failure: one paragraph, never a traceback (errors.py)
        from strata_cli.errors import report

        _exit(report(exc, debug=bool(os.environ.get("STRATA_DEBUG"))))
    _exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
