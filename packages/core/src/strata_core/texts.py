"""Model-facing texts: every prompt lives as a file under the repository's `prompts/`, read by name.

The package reaches them through its `prompts` symlink (`strata_core/prompts -> ../../../../prompts`), so a
text is edited in one place and read the same way from a checkout and from tests.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path, PurePosixPath

from strata_core.errors import StrataError


class PromptFileMissingError(StrataError, FileNotFoundError):
    """A prompt text Strata needs is not on disk: the installation is incomplete."""


def prompts_dir() -> Path:
    """The directory holding Strata's prompt texts."""
    return Path(__file__).parent / "prompts"


@cache
def read_prompt(relative: str) -> str:
    """The text of `prompts/<relative>` (e.g. `agents/explore.txt`), exactly as written; cached."""
    if PurePosixPath(relative).is_absolute() or ".." in PurePosixPath(relative).parts:
        raise ValueError(f"prompt names are relative to prompts/, got {relative!r}")
    path = prompts_dir() / relative
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError as error:
        raise PromptFileMissingError(
            f"prompt file {relative!r} is missing: expected {path} (prompts/ in the Strata checkout)"
        ) from error
