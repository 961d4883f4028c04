"""The user's toolchains work inside the sandbox: what PATH reaches, with the version manager's support dirs
(pyenv's `libexec`, rustup's toolchains beside cargo's proxies, a conda root's envs) read-only, wherever the
manager lives; never the whole home directory or a dot-dir that holds keys."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from cli_harness import STRATA, Cli, isolated_env, mock_provider_config, write_config
from sandbox_kit import SYSTEM_PATH, Site, bash_tool, needs_bwrap, run_bash

from strata_core.sandbox.toolchains import toolchain_dirs
from strata_providers.testing import ScriptedServer

SHIM = '#!/bin/sh\nexec "$PYENV_ROOT/libexec/pyenv" exec python3 "$@"\n'
PYENV = '#!/bin/sh\n[ "$1" = exec ] && shift\nprogram="$1"; shift\nexec "$PYENV_ROOT/versions/x/bin/$program" "$@"\n'


def executable(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)


def pyenv_layout(root: Path) -> Path:
    """A pyenv root as pyenv lays it out: `shims/python3` runs `libexec/pyenv`, which runs the version's
    `bin/python3` (a link to a real Python). Returns the shims dir, the one PATH holds."""
    executable(root / "shims/python3", SHIM)
    executable(root / "libexec/pyenv", PYENV)
    (root / "versions/x/bin").mkdir(parents=True)
    (root / "versions/x/bin/python3").symlink_to(Path(sys.executable).resolve())
    return root / "shims"


# Where pyenv lives: in a dot-dir of the home, in `~/.local/share` (an XDG-style install; `.local` is never
# exposed whole), and outside the home directory (the PATH of a user whose HOME differs, as under sudo -E).
PYENV_ROOTS = {"dot-dir": "home/.pyenv", "xdg": "home/.local/share/pyenv", "beside-home": "tools/pyenv"}


@pytest.mark.anyio
@needs_bwrap
@pytest.mark.parametrize("where", PYENV_ROOTS)
async def test_python_through_a_pyenv_shim_works_inside(
    site: Site, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    home, root = site.root / "home", site.root / PYENV_ROOTS[where]
    shims = pyenv_layout(root)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PYENV_ROOT", str(root))
    monkeypatch.setenv("PATH", f"{shims}:{SYSTEM_PATH}")
    result = await run_bash(bash_tool(site), site, "command -v python3 && python3 -c 'print(1)'")
    assert result.output == f"{shims}/python3\n1\n", result.output


def run_bash_command(cli: Cli, command: str) -> str:
    """`strata run` in the project, the model calling bash with `command` once: what the tool told it."""
    with ScriptedServer(
        [{"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}, {"text": "ok"}]
    ) as server:
        write_config(cli.project, mock_provider_config(server.base_url))
        done = cli("run", "go")
        requests = server.main_requests
    assert done.returncode == 0, done.stderr
    return "\n".join(message["content"] for message in requests[1].body["messages"] if message["role"] == "tool")


REAL_PYENV = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")


@needs_bwrap
@pytest.mark.skipif(not (REAL_PYENV / "libexec/pyenv").exists(), reason=f"no pyenv at {REAL_PYENV}")
def test_the_machines_pyenv_works_in_a_run_whose_home_is_elsewhere(tmp_path: Path, site: Site) -> None:
    """`strata run` with a fresh HOME and the real pyenv's shims on PATH (its shims name their root)."""
    path = f"{REAL_PYENV / 'shims'}:{SYSTEM_PATH}:{STRATA.parent}"
    told = run_bash_command(Cli(site.project, {**isolated_env(tmp_path), "PATH": path}), "python3 -c 'print(6*7)'")
    assert "42" in told, told


def test_version_managers_roots_are_bound_whole_and_keys_never(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".asdf/installs").mkdir(parents=True)
    (home / ".asdf/shims").mkdir()
    (home / ".nvm/versions/node/v20/bin").mkdir(parents=True)
    (home / ".nvm/nvm.sh").write_text("")
    executable(home / ".cargo/bin/cargo", "")
    (home / ".rustup/toolchains").mkdir(parents=True)
    (home / "miniconda3/condabin").mkdir(parents=True)
    (home / "miniconda3/envs/dev/bin").mkdir(parents=True)
    (home / ".ssh/bin").mkdir(parents=True)
    (home / ".local/bin").mkdir(parents=True)
    (tmp_path / "data/asdf/shims").mkdir(parents=True)
    entries = [
        home / ".asdf/shims",
        home / ".nvm/versions/node/v20/bin",
        home / ".cargo/bin",
        home / "miniconda3/envs/dev/bin",
        home / ".ssh/bin",
        home / ".local/bin",
        tmp_path / "data/asdf/shims",
        home,
    ]
    env = {"ASDF_DATA_DIR": str(tmp_path / "data/asdf")}
    found = toolchain_dirs(":".join(map(str, entries)), home, env)
    assert found[:8] == [
        home / ".asdf",
        home / ".nvm",
        home / ".cargo",
        home / ".rustup",
        home / "miniconda3",
        home / ".ssh/bin",
        home / ".local/bin",
        tmp_path / "data/asdf",
    ]


@needs_bwrap
def test_debug_sandbox_shows_the_toolchains(tmp_path: Path, site: Site) -> None:
    shims = pyenv_layout(site.root / "tools/pyenv")
    env = {**isolated_env(tmp_path), "PATH": f"{shims}:{SYSTEM_PATH}:{STRATA.parent}"}
    shown = json.loads(Cli(site.project, env)("debug", "sandbox", "--json").stdout)
    assert str(site.root / "tools/pyenv") in shown["toolchains"]
    assert str(site.root / "tools/pyenv") in shown["readable"]
