"""Where a system prompt's instruction files are found: the global file, the project's AGENTS.md chain (or
CLAUDE.md, or CONTEXT.md), the config's path and glob entries, and the files near one the read tool opens.

Blocking file-system work: `InstructionService` (`instruction.py`) runs it in a worker thread.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from attrs import frozen

from strata_core.config.flags import env_flag
from strata_core.config.paths import StrataPaths
from strata_core.logging import get_logger
from strata_core.message import MessageWithParts, ToolPart, ToolStateCompleted
from strata_core.permission.outside_content import OutsideContent
from strata_core.project import ProjectInfo

log = get_logger(__name__)

PROJECT_FILE_NAMES = ("AGENTS.md", "CLAUDE.md", "CONTEXT.md")
"""Project instruction files by precedence; CONTEXT.md is OpenCode's deprecated name."""


@frozen
class InstructionFailure:
    """An instruction source that gave nothing, and why (unreadable file, failed or hanging URL, bad glob)."""

    source: str
    """The file path, the URL or the config entry."""
    reason: str


# ---------------------------------------------------------------------------------------------------------
# Flags and names


def claude_code_prompt_disabled(env: Mapping[str, str]) -> bool:
    return env_flag(env, "DISABLE_CLAUDE_CODE") or env_flag(env, "DISABLE_CLAUDE_CODE_PROMPT")


def project_file_names(env: Mapping[str, str]) -> tuple[str, ...]:
    if claude_code_prompt_disabled(env):
        return tuple(name for name in PROJECT_FILE_NAMES if name != "CLAUDE.md")
    return PROJECT_FILE_NAMES


def is_url(entry: str) -> bool:
    return entry.startswith(("http://", "https://"))


# ---------------------------------------------------------------------------------------------------------
# Finding files (blocking; the service runs these in a worker thread)


def absolute(path: Path | str) -> Path:
    """Absolute and normalised (`..` folded) without resolving symlinks, like Node's `path.resolve`."""
    return Path(os.path.normpath(Path(path).absolute()))


def _walk_up(start: Path, stop: Path) -> list[Path]:
    """`start` and its parents up to and including `stop` (or the filesystem root when `stop` is not above)."""
    current, dirs = start, [start]
    while current != stop and current.parent != current:
        current = current.parent
        dirs.append(current)
    return dirs


def find_up(name: str, start: Path, stop: Path) -> list[Path]:
    """Every existing `dir/name` from `start` up to `stop`, nearest first."""
    return [directory / name for directory in _walk_up(start, stop) if (directory / name).is_file()]


def glob_files(pattern: str, root: Path) -> list[Path]:
    """Files under `root` matching `pattern` (dot files included), sorted so results are stable."""
    if not root.is_dir():
        return []
    from wcmatch import glob as wcglob  # wcmatch: ~6 ms to import, only when there is something to glob

    flags = wcglob.GLOBSTAR | wcglob.BRACE | wcglob.DOTGLOB | wcglob.NODIR
    matches = wcglob.glob(pattern, root_dir=str(root), flags=flags)
    return sorted(absolute(root / match) for match in matches)


def glob_up(pattern: str, start: Path, stop: Path) -> list[Path]:
    """`glob_files` in every directory from `start` up to `stop`, nearest first."""
    return [match for directory in _walk_up(start, stop) for match in glob_files(pattern, directory)]


def global_instruction_file(paths: StrataPaths, env: Mapping[str, str]) -> Path | None:
    """The first existing global file: Strata's own wins over OpenCode's, which wins over Claude Code's."""
    candidates = [paths.config / "AGENTS.md", paths.compat_config / "AGENTS.md"]
    if not claude_code_prompt_disabled(env):
        candidates.append(paths.home / ".claude" / "CLAUDE.md")
    return next((absolute(c) for c in candidates if c.is_file()), None)


def project_instruction_files(project: ProjectInfo, names: Sequence[str]) -> list[Path]:
    """All hits of the first name that has any, from the directory up to the worktree, nearest first."""
    for name in names:
        hits = find_up(name, project.directory, project.worktree)
        if hits:
            return [absolute(hit) for hit in hits]
    return []


def config_instruction_files(
    entries: Iterable[str],
    project: ProjectInfo,
    paths: StrataPaths,
    env: Mapping[str, str],
    outside: OutsideContent | None = None,
    failures: list[InstructionFailure] | None = None,
) -> list[Path]:
    """Files named by config `instructions` entries (URLs are skipped here), in entry order; an entry that
    cannot be searched is left out (and added to `failures`)."""
    found: list[Path] = []
    for entry in entries:
        if is_url(entry):
            continue
        expanded = str(paths.home / entry[2:]) if entry.startswith("~/") else entry
        try:
            matches = _config_entry_files(expanded, project, paths, env)
            if outside is not None and _GLOB_MAGIC.search(entry):
                matches = [path for path in matches if outside.allows(path, f"instruction glob {entry}")]
            found += matches
        except OSError as error:
            # A glob over an unreadable directory is not worth failing the turn over.
            log.notice("instruction glob failed", entry=entry, error=str(error))
            if failures is not None:
                failures.append(InstructionFailure(entry, str(error)))
    return found


_GLOB_MAGIC = re.compile(r"[*?\[{]")


def _config_entry_files(entry: str, project: ProjectInfo, paths: StrataPaths, env: Mapping[str, str]) -> list[Path]:
    if Path(entry).is_absolute():
        return glob_files(Path(entry).name, Path(entry).parent)
    if env_flag(env, "DISABLE_PROJECT_CONFIG"):
        # Without project config, relative entries may only point inside the global config directory.
        return glob_up(entry, paths.config, paths.config)
    return glob_up(entry, project.directory, project.worktree)


def discover_system_paths(
    project: ProjectInfo,
    paths: StrataPaths,
    env: Mapping[str, str],
    instructions: Iterable[str],
    outside: OutsideContent | None = None,
    failures: list[InstructionFailure] | None = None,
) -> list[Path]:
    """Global file, project files (nearest first), config files: de-duplicated, first position kept.

    With `outside`, a project AGENTS.md (or CLAUDE.md) symlinked from outside the worktree and the global
    config dirs, or a file a config glob reaches there, is kept only where it allows (`external_directory`);
    a file a config entry names exactly is the user's choice.
    """
    found: list[Path] = []
    global_file = global_instruction_file(paths, env)
    if global_file is not None:
        found.append(global_file)
    if not env_flag(env, "DISABLE_PROJECT_CONFIG"):
        chain = project_instruction_files(project, project_file_names(env))
        found += [path for path in chain if outside is None or outside.allows(path, "instruction file")]
    found += config_instruction_files(instructions, project, paths, env, outside, failures)
    return list(dict.fromkeys(found))


def nearest_instruction_file(directory: Path, names: Sequence[str]) -> Path | None:
    """The first of the instruction names that exists in `directory` (no walking)."""
    return next((directory / name for name in names if (directory / name).is_file()), None)


def nearby_instruction_files(target: Path, root: Path, names: Sequence[str]) -> list[Path]:
    """The instruction file of each directory from the target's up to (not including) `root`, nearest first."""
    # Proper containment instead of OpenCode's string prefix test, which also matched `/repo-other` for a
    # root of `/repo`. The root itself is excluded: its file is already in the system prompt.
    found: list[Path] = []
    current = target.parent
    while current != root and current.is_relative_to(root):
        nearest = nearest_instruction_file(current, names)
        if nearest is not None:
            found.append(absolute(nearest))
        current = current.parent
    return found


def loaded_instruction_paths(messages: Sequence[MessageWithParts]) -> set[Path]:
    """Paths the read tool already attached: `metadata.loaded` of completed, non-compacted read parts."""
    loaded: set[Path] = set()
    for message in messages:
        for part in message.parts:
            if not (isinstance(part, ToolPart) and part.tool == "read"):
                continue
            state = part.state
            if not isinstance(state, ToolStateCompleted) or state.time.compacted:
                continue
            items: Any = state.metadata.get("loaded")
            if isinstance(items, list):
                loaded.update(absolute(item) for item in items if isinstance(item, str))
    return loaded
