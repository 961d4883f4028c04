"""What a contained command may not change or read inside the project, though the project is writable.

Protected: Strata's and OpenCode's config files and dirs (`CONFIG_NAMES`) and git's entries (`.git` itself,
and in a `.git` dir its `GIT_NAMES`: a hook, an alias or `core.fsmonitor` there runs later, outside any
sandbox, as the user), anywhere in the project: the root's repository and every nested one alike. What
exists is bound read-only inside (`project_scan.py` finds it). What does not exist cannot be covered by a
mount without a file on the host to mount over, and such a file is a trace in the user's tree (`git status`
lists it, `git add -A` commits it), so nothing is made for it: what a bash command creates is found after
it (`tool/support/created_config.py`). Made at one of the `protected_paths` (the chain from the command's directory to
the root, where a run started there reads config, and the root's git entries), it is moved out unasked, as
if it could not have been made; made elsewhere, it asks the `protected_path` permission.

Secret files (hidden inside: an empty file is bound over them): OpenCode's `.env` patterns, the ones its
`read` permission asks for (`*.env`, `*.env.*`, except `*.env.example`), anywhere in the writable root
(`masks.py` hides them).
"""

from __future__ import annotations

from collections.abc import Set
from fnmatch import fnmatchcase
from pathlib import Path

CONFIG_NAMES = ("strata.json", "strata.jsonc", "opencode.json", "opencode.jsonc", ".strata", ".opencode")
GIT = ".git"
GIT_NAMES = ("hooks", "config", "config.worktree", "commondir")
"""What in a git dir runs or decides what runs: hooks, config (aliases, `core.fsmonitor`, `core.hooksPath`;
a linked worktree's own `config.worktree`) and `commondir` (where git takes the config from)."""
GIT_DIR_MARKS = (frozenset({"HEAD", "objects", "refs"}), frozenset({"HEAD", "commondir"}))
"""What makes git take a dir for a git dir when run inside it, whatever the dir's name (a bare repository,
`vendor/x.git`): its config then runs as a `.git` dir's would, so it is protected as one."""
SECRET_PATTERNS = ("*.env", "*.env.*")
NOT_SECRET_PATTERNS = ("*.env.example",)


def protected_paths(root: Path, start: Path | None = None) -> list[Path]:
    """The protected paths, existing or not: the config names in `start` (the command's directory) and each
    directory above it up to `root` (where a run started there reads config from), and the git ones at
    `root`. A missing `.git` is protected as a whole, so that a command cannot `git init` a repository with
    hooks of its own; a `.git` file (a linked worktree's) is protected as it says where the repository is."""
    chain = [root]
    if start is not None and start != root and root in start.parents:
        chain = [start, *[parent for parent in start.parents if root in parent.parents], root]
    paths = [directory / name for directory in chain for name in CONFIG_NAMES]
    git = root / GIT
    if git.is_dir() and not git.is_symlink():
        paths.extend(git / name for name in GIT_NAMES)
    else:
        paths.append(git)
    return paths


def makes_git_dir(names: Set[str]) -> bool:
    """Whether a dir holding entries with these `names` is one git takes for a git dir."""
    return any(marks <= names for marks in GIT_DIR_MARKS)


def is_secret_name(name: str) -> bool:
    """Whether a file name is one OpenCode's `.env` rule guards (`.env`, `.env.local`, `prod.env`...)."""
    if any(fnmatchcase(name, pattern) for pattern in NOT_SECRET_PATTERNS):
        return False
    return any(fnmatchcase(name, pattern) for pattern in SECRET_PATTERNS)
