"""Where a config directory's markdown agents, modes, commands and skills are: `agent/**/*.md`,
`skills/**/SKILL.md` and the like.

OpenCode globs them with symlinks followed (`Glob.scan(..., {symlink: true})`), so an agent file or folder
linked in from a dotfiles repository works; Strata follows them too. But a link back up the tree (`sub/loop ->
..`) would repeat the same files under ever longer names, and a link to a large tree (`agent/usr -> /usr`) would
be walked at every start. So a directory already on the way down is not entered again, and the walk stops, with
a warning, after `MAX_DEPTH` levels or `MAX_ENTRIES` entries.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable
from pathlib import Path

from strata_core.logging import get_logger

log = get_logger(__name__)

MAX_DEPTH = 32
MAX_ENTRIES = 10_000
"""Entries looked at under one folder (`agent/`, say): far more than any real set of agents or commands."""


def markdown_files(directory: Path, folders: tuple[str, ...], *, nested: bool) -> list[str]:
    """The `*.md` paths, relative to `directory` and sorted, under each of its `folders` (at any depth when
    `nested`, else directly inside)."""
    return files_named(directory, folders, lambda name: name.endswith(".md"), nested=nested)


def files_named(
    directory: Path, folders: tuple[str, ...], wanted: Callable[[str], bool], *, nested: bool, hidden: bool = True
) -> list[str]:
    """The paths whose file names are `wanted`, relative to `directory` and sorted, under each of its `folders`
    ("." for `directory` itself), at any depth when `nested`; into hidden folders only when `hidden`."""
    found: list[str] = []
    for folder in folders:
        if (directory / folder).is_dir():
            found += _walk(directory, folder, wanted, nested=nested, hidden=hidden)
    return sorted(found)


def _walk(directory: Path, folder: str, wanted: Callable[[str], bool], *, nested: bool, hidden: bool) -> list[str]:
    found: list[str] = []
    seen, too_deep = 0, False
    # Each folder to visit: its path relative to `directory`, and the real paths of the folders above it.
    # Breadth first, so that when the walk stops early the files nearest the top are the ones found.
    pending = deque([(folder, frozenset({os.path.realpath(directory / folder)}))])
    while pending:
        relative, above = pending.popleft()
        for entry in _entries(directory / relative):
            seen += 1
            if seen > MAX_ENTRIES:
                _stopped(directory / folder, f"after {MAX_ENTRIES:,} entries")
                return found
            path = entry.name if relative == "." else f"{relative}/{entry.name}"
            if wanted(entry.name):
                found.append(path)  # whatever it is: one that cannot be read is named in a warning
            if nested and (hidden or not entry.name.startswith(".")) and _is_dir(entry):
                real = os.path.realpath(entry.path)
                if real in above:
                    continue  # a link back to a folder it is in: every file there is already found
                if len(above) >= MAX_DEPTH:
                    if not too_deep:  # once: every folder at that depth would say the same
                        _stopped(directory / folder, f"{MAX_DEPTH} folders deep (at {path})")
                    too_deep = True
                    continue
                pending.append((path, above | {real}))
    return found


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except OSError:
        return []  # unreadable folders are left out, as a glob leaves them out


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()  # follows a symlink, as OpenCode's glob does
    except OSError:
        return False


def _stopped(folder: Path, where: str) -> None:
    says = (
        f"{folder}: stopped looking for markdown files {where}; "
        "is a symlink in there pointing at a large folder? Files further in are not loaded"
    )
    log.notice("config.markdown_walk_stopped", folder=str(folder), says=says)
