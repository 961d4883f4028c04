"""Options shared by several commands, declared once so they read and behave the same everywhere."""

from __future__ import annotations

import os
from pathlib import Path

import click

directory = click.option(
    "--dir",
    "directory",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="Project directory to work in (default: the current directory).",
)
model = click.option("-m", "--model", default=None, metavar="PROVIDER/MODEL", help="Model to use, e.g. openai/gpt-4o.")
agent = click.option("--agent", default=None, metavar="NAME", help="Agent to use (default: the configured default).")
continue_last = click.option(
    "-c", "--continue", "continue_last", is_flag=True, help="Continue the most recent session of this project."
)
session_id = click.option("-s", "--session", "session_id", default=None, metavar="ID", help="Continue this session.")
json_output = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")

DATABASE_VARIABLE = "STRATA_DATABASE_URL"
"""`strata_core.session.database_url.DATABASE_URL_ENV`: how `--database` reaches the runtime (and nested runs)."""


def _set_database(context: click.Context, parameter: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    from strata_core.session import DatabaseUrlError, checked_database_url

    try:
        checked_database_url(value, source="--database")
    except DatabaseUrlError as error:
        raise click.BadParameter(str(error).removeprefix("--database: "), context, parameter) from None
    os.environ[DATABASE_VARIABLE] = value
    return value


database = click.option(
    "--database",
    metavar="URL",
    default=None,
    expose_value=False,
    callback=_set_database,
    help="Keep sessions in this PostgreSQL database (postgresql://user@host/db), shared with other hosts; "
    "default: $STRATA_DATABASE_URL, else the local SQLite file.",
)

SANDBOX_MODES = ("read-only", "workspace-write", "danger-full-access")
"""`strata_core.config.schema.SANDBOX_MODES`, spelled out so `--help` imports nothing (a test keeps them equal)."""
SANDBOX_VARIABLE = "STRATA_SANDBOX"
"""`strata_core.sandbox.settings.MODE_VARIABLE`: how the flag reaches the runtime (and nested runs)."""


def _set_sandbox(context: click.Context, parameter: click.Parameter, value: str | None) -> str | None:
    if value is not None:
        os.environ[SANDBOX_VARIABLE] = value
    return value


sandbox = click.option(
    "--sandbox",
    "sandbox_mode",
    type=click.Choice(SANDBOX_MODES),
    default=None,
    expose_value=False,
    callback=_set_sandbox,
    help="How shell commands are contained (default: workspace-write where bubblewrap works; config `sandbox.mode`).",
)


def resolve_directory(value: Path | None) -> Path:
    """The absolute project directory: the command's `--dir`, else one given before the command
    (`strata --dir D run ...`), else the working directory (as in OpenCode, symlinks are resolved: the
    kernel's path is what the environment block and instruction sources show)."""
    if value is None:
        context = click.get_current_context(silent=True)
        root = context.find_root().obj if context is not None else None
        value = root if isinstance(root, Path) else None
    resolved = value.resolve() if value is not None else Path.cwd()
    if not str(resolved).isascii():
        _check_utf8(resolved)
    return resolved


def _check_utf8(path: Path) -> None:
    """Refuse a project path that is not UTF-8 (Python holds such bytes as lone surrogates): its sessions,
    prompts and tool calls carry the path as text, which could neither be stored nor sent."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        shown = str(path).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        raise click.ClickException(
            f"the project directory {shown} has a name that is not valid UTF-8 (shown here with "
            "\N{REPLACEMENT CHARACTER} for those bytes); Strata keeps paths as UTF-8 text: rename the directory, "
            "or run Strata in another one."
        ) from None
