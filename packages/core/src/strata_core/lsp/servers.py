"""Which language servers a project gets: the built-ins (pyright, typescript-language-server) and the config's.

A `ServerSpec` says which files a server serves (extensions), where its root is for a file (the nearest
marker up to the project directory), and how it starts there (`launch`, None when it cannot: its command
is not installed). `configured_specs` applies the config's `lsp` entries over the built-ins as OpenCode
does: an entry replaces the built-in of its id, `disabled` removes it, a new id needs its extensions.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from attrs import frozen

from strata_core.config.code_tools import LspConfig, LspServerConfig
from strata_core.sandbox.server_launch import LocalLaunch


@frozen
class ServerStart:
    launch: LocalLaunch
    initialization: Mapping[str, Any] = {}


Launcher = Callable[[Path, Mapping[str, str]], ServerStart | None]
RootFinder = Callable[[Path, Path], Path | None]


@frozen
class ServerSpec:
    id: str
    extensions: tuple[str, ...]
    root: RootFinder
    """The server's root for a file of the project (file, project directory), or None: not for this file."""
    launch: Launcher
    """The server's process for a root (root, environment), or None when it cannot start."""

    def serves(self, path: Path) -> bool:
        return not self.extensions or (path.suffix or path.name) in self.extensions


def nearest_root(*markers: str) -> RootFinder:
    """The nearest directory holding one of `markers`, from the file's directory up to the project
    directory; the project directory when none has one."""

    def find(path: Path, directory: Path) -> Path | None:
        for folder in path.parents:
            if any((folder / marker).exists() for marker in markers):
                return folder
            if folder == directory or directory not in folder.parents:
                break
        return directory

    return find


def _project_directory(path: Path, directory: Path) -> Path | None:
    return directory


def _on_path(command: str, env: Mapping[str, str], *also: Path) -> str | None:
    for folder in also:
        if (folder / command).is_file() and os.access(folder / command, os.X_OK):
            return str(folder / command)
    return shutil.which(command, path=env.get("PATH", os.defpath))


def _python_interpreter(root: Path, env: Mapping[str, str]) -> str | None:
    """The project's virtual environment's python, for pyright to resolve imports the way the project runs."""
    candidates = [Path(env["VIRTUAL_ENV"])] if env.get("VIRTUAL_ENV") else []
    for venv in [*candidates, root / ".venv", root / "venv"]:
        python = venv / "bin" / "python"
        if python.exists():
            return str(python)
    return None


def _pyright(root: Path, env: Mapping[str, str]) -> ServerStart | None:
    command = _on_path("pyright-langserver", env, root / "node_modules" / ".bin")
    if command is None:
        return None
    python = _python_interpreter(root, env)
    initialization = {"pythonPath": python} if python else {}
    return ServerStart(LocalLaunch(argv=(command, "--stdio"), env=env, cwd=root), initialization)


def _tsserver(root: Path) -> Path | None:
    for folder in [root, *root.parents]:
        candidate = folder / "node_modules" / "typescript" / "lib" / "tsserver.js"
        if candidate.exists():
            return candidate
    return None


def _typescript(root: Path, env: Mapping[str, str]) -> ServerStart | None:
    tsserver = _tsserver(root)
    command = _on_path("typescript-language-server", env, root / "node_modules" / ".bin")
    if tsserver is None or command is None:
        return None
    initialization = {"tsserver": {"path": str(tsserver)}}
    return ServerStart(LocalLaunch(argv=(command, "--stdio"), env=env, cwd=root), initialization)


PYTHON_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "Pipfile", "pyrightconfig.json")
LOCKFILES = ("package-lock.json", "bun.lockb", "bun.lock", "pnpm-lock.yaml", "yarn.lock")
TYPESCRIPT_EXTENSIONS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")

BUILTIN_SERVERS: tuple[ServerSpec, ...] = (
    ServerSpec("pyright", (".py", ".pyi"), nearest_root(*PYTHON_MARKERS), _pyright),
    ServerSpec("typescript", TYPESCRIPT_EXTENSIONS, nearest_root(*LOCKFILES), _typescript),
)


def _custom(entry: LspServerConfig) -> Launcher:
    def launch(root: Path, env: Mapping[str, str]) -> ServerStart:
        process = LocalLaunch(argv=entry.command, env={**env, **entry.env}, cwd=root, configured=entry.env)
        return ServerStart(process, entry.initialization)

    return launch


def configured_specs(config: LspConfig) -> tuple[ServerSpec, ...]:
    """The servers `config` turns on, built-ins first in their order, then the config's new ones."""
    if not config.enabled:
        return ()
    specs = {spec.id: spec for spec in BUILTIN_SERVERS}
    for name, entry in config.servers.items():
        builtin = specs.get(name)
        if entry.disabled:
            specs.pop(name, None)
            continue
        extensions = entry.extensions or (builtin.extensions if builtin else ())
        specs[name] = ServerSpec(name, extensions, builtin.root if builtin else _project_directory, _custom(entry))
    return tuple(specs.values())
