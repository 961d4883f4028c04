"""What a contained command may not change or read inside the project, though the project is writable.

Protected (read-only inside): Strata's and OpenCode's config files and dirs at the writable root and in every
directory between it and the command's working directory, `.git/hooks`
and `.git/config` (a hook or an alias there runs later, outside any sandbox, as the user). Those that do not
exist yet are protected too, by a placeholder (see `placeholders.py`), so a command cannot create them either.

Secret files (hidden inside: an empty file is bound over them): OpenCode's `.env` patterns, the ones its
`read` permission asks for (`*.env`, `*.env.*`, except `*.env.example`), anywhere in the writable root.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from fnmatch import fnmatchcase
from pathlib import Path

CONFIG_NAMES = ("strata.json", "strata.jsonc", "opencode.json", "opencode.jsonc", ".strata", ".opencode")
GIT_NAMES = ("hooks", "config")
SECRET_PATTERNS = ("*.env", "*.env.*")
NOT_SECRET_PATTERNS = ("*.env.example",)
MAX_SECRET_FILES = 2_000
"""Beyond this many `.env` files the search stops (each is one bind mount; bwrap's argv has its limits)."""
SKIPPED_DIRS = frozenset({".git"})


def protected_paths(root: Path, start: Path | None = None) -> list[Path]:
    """The protected paths, existing or not: the config names in `start` (the command's directory) and each
    directory above it up to `root` (where a run started there reads config from), and the git ones at
    `root`. A missing `.git` is protected as a whole, so that a command cannot `git init` a repository with
    hooks of its own."""
    chain = [root]
    if start is not None and start != root and root in start.parents:
        chain = [start, *[parent for parent in start.parents if root in parent.parents], root]
    paths = [directory / name for directory in chain for name in CONFIG_NAMES]
    git = root / ".git"
    if git.is_dir() and not git.is_symlink():
        paths.extend(git / name for name in GIT_NAMES)
    elif not git.exists() and not git.is_symlink():
        paths.append(git)
    return paths


def is_secret_name(name: str) -> bool:
    """Whether a file name is one OpenCode's `.env` rule guards (`.env`, `.env.local`, `prod.env`...)."""
    if any(fnmatchcase(name, pattern) for pattern in NOT_SECRET_PATTERNS):
        return False
    return any(fnmatchcase(name, pattern) for pattern in SECRET_PATTERNS)


def secret_files(root: Path, rg: str | None) -> list[Path]:
    """Regular files under `root` whose names are secret, found with `rg` when there is one (ignore files
    disregarded: a `.env` is usually git-ignored), else by walking."""
    found = _rg_secret_files(root, rg) if rg is not None else None
    if found is None:
        found = list(_walk_secret_files(root))
    return found[:MAX_SECRET_FILES]


def _rg_secret_files(root: Path, rg: str) -> list[Path] | None:
    globs = [arg for pattern in SECRET_PATTERNS for arg in ("-g", pattern)]
    globs += [arg for pattern in NOT_SECRET_PATTERNS for arg in ("-g", f"!{pattern}")]
    command = [rg, "--files", "--hidden", "--no-ignore", "--no-config", "--null", "-g", "!.git", *globs]
    try:
        done = subprocess.run(command, cwd=root, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode not in (0, 1):  # 1: nothing found
        return None
    names = [name for name in done.stdout.decode("utf-8", "surrogateescape").split("\0") if name]
    return [root / name for name in names if is_secret_name(Path(name).name)]


def _walk_secret_files(root: Path) -> Iterator[Path]:
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = [name for name in subdirs if name not in SKIPPED_DIRS]
        for name in files:
            path = Path(directory) / name
            if is_secret_name(name) and not path.is_symlink():
                yield path
