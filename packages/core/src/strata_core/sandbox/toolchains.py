"""The toolchains on the user's PATH, as a contained command must see them: read-only, whole, and nothing more.

A PATH entry alone is often not enough: a version manager's shims and wrappers reach beside themselves
(pyenv's `shims/python3` execs `$PYENV_ROOT/libexec/pyenv`, which runs `versions/<v>/bin/python3`; rustup's
proxies in `~/.cargo/bin` run toolchains under `~/.rustup`). So for each entry its version manager's root
is bound, found by the known layouts (`ROOT_VARIABLES` first, then what lies in the entry's ancestors:
`libexec/pyenv` and its kin, asdf's `shims` beside `installs`, `nvm.sh`, a conda root's `condabin`, cargo's
`bin/cargo` or `bin/rustup` with rustup's home beside it); failing that, an entry inside a dot-dir of the home
directory (`~/.bun/bin`) brings that dot-dir; any other entry is bound as it is. Never the home directory
itself, an ancestor of it or one of the dot-dirs that hold keys (`HOME_TOOLCHAIN_DENY`).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

from strata_core.sandbox.bubblewrap import SYSTEM_DIRS, SYSTEM_LINKS

HOME_TOOLCHAIN_DENY = frozenset({".ssh", ".gnupg", ".aws", ".config", ".local", ".docker", ".kube", ".azure"})
"""Dot-dirs of the home directory never exposed whole, even when a PATH entry lies inside one."""
ROOT_VARIABLES = ("PYENV_ROOT", "RBENV_ROOT", "NODENV_ROOT", "ASDF_DATA_DIR", "ASDF_DIR", "NVM_DIR", "CARGO_HOME")
ENV_MANAGERS = ("pyenv", "rbenv", "nodenv", "goenv", "jenv", "plenv", "phpenv")
"""Version managers laid out as pyenv is: `<root>/libexec/<name>` beside `shims/`, `bin/` and `versions/`."""
RUSTUP_HOME = "RUSTUP_HOME"


def is_within(path: str, root: str) -> bool:
    """By the strings (paths as PATH has them, absolute): `Path`'s `parents` costs a Path per parent, and this
    runs for every ancestor of every PATH entry at every bash call."""
    return path == root or path.startswith(root if root.endswith("/") else root + "/")


def is_system(path: str) -> bool:
    return path in SYSTEM_LINKS or any(is_within(path, name) for name in SYSTEM_DIRS)


def toolchain_dirs(path_variable: str, home: Path, env: Mapping[str, str] | None = None) -> list[Path]:
    """Read-only dirs for the programs on PATH (`path_variable`): each entry's version manager root (with
    rustup's home for cargo's), its dot-dir of `home`, or itself; plus the Python Strata runs on (a
    project's virtualenv points into it)."""
    env = env or {}
    home_dir = str(home)
    found: list[str] = []
    for entry in path_variable.split(":"):
        if not entry.startswith("/"):
            continue  # "" or "." on PATH would expose the current directory, wherever it is
        path = os.path.normpath(entry)
        if is_within(home_dir, path) or is_system(path):
            continue
        roots = [root for root in _manager_roots(path, env, home_dir) if _may_bind(root, home_dir)]
        found.extend(roots or [_dot_dir(path, home_dir)])
    found.extend(prefix for prefix in (sys.base_prefix, sys.prefix) if not is_system(prefix))
    return [Path(path) for path in dict.fromkeys(found)]


def _dot_dir(path: str, home: str) -> str:
    if not is_within(path, home) or path == home:
        return path
    top = path[len(home) :].lstrip("/").split("/", 1)[0]
    return f"{home}/{top}" if top.startswith(".") and top not in HOME_TOOLCHAIN_DENY else path


def _may_bind(root: str, home: str) -> bool:
    """Not `/`, the home directory or what holds it, nor a key-holding dot-dir of it."""
    if root == "/" or is_within(home, root) or is_system(root):
        return False
    parent, _, name = root.rpartition("/")
    return not (parent == home and name in HOME_TOOLCHAIN_DENY)


def _manager_roots(entry: str, env: Mapping[str, str], home: str) -> list[str]:
    """The version manager root(s) `entry` belongs to: named by a variable, or found by its layout."""
    for name in ROOT_VARIABLES:
        value = env.get(name, "")
        if value.startswith("/") and is_within(entry, os.path.normpath(value)):
            return _with_companions(os.path.normpath(value), env)
    for ancestor in _ancestors(entry, home):
        if _is_manager_root(ancestor, entry):
            return _with_companions(ancestor, env)
    return []


def _ancestors(entry: str, home: str) -> Iterator[str]:
    """`entry` and the dirs above it, up to (not including) the home directory or `/`."""
    path = entry
    while path != "/" and not is_within(home, path):
        yield path
        path = path.rpartition("/")[0] or "/"


def _mode(path: str) -> int:
    """The file type bits of `path` (symlinks followed), 0 when nothing is there. By the string, as above."""
    try:
        return stat.S_IFMT(os.stat(path).st_mode)  # noqa: PTH116 - a Path per call would cost more than the stat
    except (OSError, ValueError):
        return 0


def _is_manager_root(path: str, entry: str) -> bool:
    if any(_mode(f"{path}/libexec/{name}") for name in ENV_MANAGERS):
        return True  # pyenv and its kin
    if _mode(f"{path}/nvm.sh") == stat.S_IFREG or _mode(f"{path}/condabin") == stat.S_IFDIR:
        return True  # nvm; a conda root (its `bin`, `condabin` and `envs/*/bin` all lie in it)
    if _mode(f"{path}/shims") == stat.S_IFDIR and _mode(f"{path}/installs") == stat.S_IFDIR:
        return True  # asdf's data dir
    return entry == f"{path}/bin" and _has_cargo(path)


def _has_cargo(path: str) -> bool:
    return any(_mode(f"{path}/bin/{name}") for name in ("cargo", "rustup"))


def _with_companions(root: str, env: Mapping[str, str]) -> list[str]:
    """`root`, and for cargo's home rustup's, whose toolchains its proxies run."""
    if not _has_cargo(root):
        return [root]
    named = env.get(RUSTUP_HOME, "")
    rustup = os.path.normpath(named) if named.startswith("/") else f"{root.rpartition('/')[0]}/.rustup"
    return [root, rustup] if _mode(rustup) == stat.S_IFDIR else [root]
