"""Strata installed as a user would install it: wheels built from the workspace, put into a fresh virtual
environment outside it, their third-party dependencies from the committed lock (exported as a pylock file for
exactly the package and extras asked for, or for the whole workspace) installed from uv's cache with
`--offline`, so no network is needed; and a script run there as an application runs (`run_app`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def uv_or_skip() -> str:
    """uv's path; without uv on PATH the calling test is skipped, saying so."""
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("uv is not on PATH")
    return uv


def run(args: Sequence[str | Path], cwd: Path) -> str:
    done = subprocess.run([str(a) for a in args], cwd=cwd, check=True, capture_output=True, text=True)
    return done.stdout


def build_wheel(uv: str, package: str, out: Path) -> Path:
    """`package`'s wheel, built from the workspace into `out`."""
    run([uv, "build", "--package", package, "--wheel", "--out-dir", out], cwd=REPO)
    (wheel,) = out.glob(f"{package.replace('-', '_')}-*.whl")
    return wheel


def build_all_wheels(uv: str, out: Path) -> list[Path]:
    """The wheel of every package of the workspace, built into `out`."""
    run([uv, "build", "--all-packages", "--wheel", "--out-dir", out], cwd=REPO)
    return sorted(out.glob("*.whl"))


def install(uv: str, root: Path, wheels: Sequence[Path], package: str | None, extras: Sequence[str] = ()) -> Path:
    """A fresh venv under `root` holding `wheels` and what the lock says `package[extras]` needs (every
    workspace package's needs when `package` is None); its python."""
    root.mkdir(parents=True, exist_ok=True)
    lock = root / "pylock.toml"
    chosen = [arg for extra in extras for arg in ("--extra", extra)]
    which = ["--all-packages"] if package is None else ["--package", package]
    export = ["export", "--frozen", "--no-dev", "--no-emit-workspace", *which, *chosen]
    run([uv, *export, "--format", "pylock.toml", "-o", lock], cwd=REPO)
    venv = root / "venv"
    run([uv, "venv", "--python", sys.executable, venv], cwd=root)
    python = venv / "bin" / "python"
    run([uv, "pip", "install", "--offline", "--python", python, "-r", lock], cwd=root)
    run([uv, "pip", "install", "--offline", "--no-deps", "--python", python, *wheels], cwd=root)
    run([uv, "pip", "check", "--python", python], cwd=root)  # every requirement of the wheels is met
    return python


def install_locked_tools(uv: str, root: Path, python: Path, names: Iterable[str]) -> None:
    """`names` (dev tools such as pytest) and what they need, at the lock's versions, into `python`'s venv from
    uv's cache: through a pylock file cut down to them, as `uv sync` fills the cache by the lock's URLs and not by
    the index pages a plain `uv pip install NAME==VERSION --offline` would need."""
    out = root / "tools"
    out.mkdir(parents=True, exist_ok=True)
    lock = out / "pylock.toml"
    run(
        [uv, "export", "--frozen", "--only-group", "dev", "--no-emit-workspace", "--format", "pylock.toml", "-o", lock],
        REPO,
    )
    header, *blocks = lock.read_text(encoding="utf-8").split("\n[[packages]]\n")
    wanted = _closure(names)
    kept = [block for block in blocks if _block_name(block) in wanted]
    lock.write_text("\n[[packages]]\n".join([header, *kept]), encoding="utf-8")
    run([uv, "pip", "install", "--offline", "--python", python, "-r", lock], cwd=out)


def _block_name(block: str) -> str:
    return str(tomllib.loads(block)["name"])


def _closure(names: Iterable[str]) -> set[str]:
    """`names` and every package the lock says they depend on, at any depth."""
    depends = {
        package["name"]: [dependency["name"] for dependency in package.get("dependencies", [])]
        for package in tomllib.loads((REPO / "uv.lock").read_text(encoding="utf-8"))["package"]
    }
    found: set[str] = set()
    waiting = list(names)
    while waiting:
        name = waiting.pop()
        if name not in found:
            found.add(name)
            waiting.extend(depends.get(name, []))
    return found


def distributions(uv: str, python: Path) -> list[str]:
    """The names of every distribution installed for `python`, lower-case."""
    listed = run([uv, "pip", "freeze", "--python", python], cwd=python.parent)
    return sorted(line.split("==")[0].split(" @ ")[0].lower() for line in listed.splitlines() if line.strip())


def run_app(python: Path, args: Sequence[str | Path], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`python ARGS` in `cwd` as an application runs: only PATH from here, a home of its own (`cwd/home`) holding
    its data; the result whatever the exit status."""
    home = cwd / "home"
    home.mkdir(exist_ok=True)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "XDG_DATA_HOME": str(home / "data")}
    argv = [str(python), *(str(arg) for arg in args)]
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
