"""What a contained command may not change or read inside the project, though the project is writable.

Protected (read-only inside): Strata's and OpenCode's config files and dirs (`CONFIG_NAMES`) at the writable
root and in every directory between it and the command's working directory (`protected_paths`), those that
exist anywhere else in the project (`project_scan.py` finds them), `.git/hooks` and `.git/config` (a hook or
an alias there runs later, outside any sandbox, as the user). Those on the chain that do not exist yet are
protected too, by a placeholder (see `placeholders.py`), so a command cannot create them either; new ones
elsewhere (no mount can cover a path that does not exist) are found after a bash command (`created.py`).

Secret files (hidden inside: an empty file is bound over them): OpenCode's `.env` patterns, the ones its
`read` permission asks for (`*.env`, `*.env.*`, except `*.env.example`), anywhere in the writable root
(`masks.py` hides them).
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from pathlib import Path

CONFIG_NAMES = ("strata.json", "strata.jsonc", "opencode.json", "opencode.jsonc", ".strata", ".opencode")
GIT_NAMES = ("hooks", "config")
SECRET_PATTERNS = ("*.env", "*.env.*")
NOT_SECRET_PATTERNS = ("*.env.example",)
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
