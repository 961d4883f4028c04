"""Options shared by several commands, declared once so they read and behave the same everywhere."""

from __future__ import annotations

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


def resolve_directory(value: Path | None) -> Path:
    """The absolute project directory: the command's `--dir`, else one given before the command
    (`strata --dir D run ...`), else the working directory (as in OpenCode, symlinks are resolved: the
    kernel's path is what the environment block and instruction sources show)."""
    if value is None:
        context = click.get_current_context(silent=True)
        root = context.find_root().obj if context is not None else None
        value = root if isinstance(root, Path) else None
    return value.resolve() if value is not None else Path.cwd()
