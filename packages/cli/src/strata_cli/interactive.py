"""The interactive session (prompt_toolkit); wired once the session loop lands."""

from __future__ import annotations

from pathlib import Path

from strata_cli.errors import CliError


def run_interactive(
    *, directory: Path, model: str | None, agent: str | None, continue_last: bool, session_id: str | None
) -> None:
    raise CliError("the interactive mode is not available yet; use `strata run MESSAGE`.")
