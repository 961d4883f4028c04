"""Strata installed as a user would install it: wheels built from the workspace, put into a fresh virtual
environment outside it, their third-party dependencies from the committed lock (exported as a pylock file for
exactly the package and extras asked for) installed from uv's cache with `--offline`, so no network is needed."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def run(args: Sequence[str | Path], cwd: Path) -> str:
    done = subprocess.run([str(a) for a in args], cwd=cwd, check=True, capture_output=True, text=True)
    return done.stdout


def build_wheel(uv: str, package: str, out: Path) -> Path:
    """`package`'s wheel, built from the workspace into `out`."""
    run([uv, "build", "--package", package, "--wheel", "--out-dir", out], cwd=REPO)
    (wheel,) = out.glob(f"{package.replace('-', '_')}-*.whl")
    return wheel


def install(uv: str, root: Path, wheels: Sequence[Path], package: str, extras: Sequence[str] = ()) -> Path:
    """A fresh venv under `root` holding `wheels` and what the lock says `package[extras]` needs; its python."""
    root.mkdir(parents=True, exist_ok=True)
    lock = root / "pylock.toml"
    chosen = [arg for extra in extras for arg in ("--extra", extra)]
    export = ["export", "--frozen", "--no-dev", "--no-emit-workspace", "--package", package, *chosen]
    run([uv, *export, "--format", "pylock.toml", "-o", lock], cwd=REPO)
    venv = root / "venv"
    run([uv, "venv", "--python", sys.executable, venv], cwd=root)
    python = venv / "bin" / "python"
    run([uv, "pip", "install", "--offline", "--python", python, "-r", lock], cwd=root)
    run([uv, "pip", "install", "--offline", "--no-deps", "--python", python, *wheels], cwd=root)
    run([uv, "pip", "check", "--python", python], cwd=root)  # every requirement of the wheels is met
    return python


def distributions(uv: str, python: Path) -> list[str]:
    """The names of every distribution installed for `python`, lower-case."""
    listed = run([uv, "pip", "freeze", "--python", python], cwd=python.parent)
    return sorted(line.split("==")[0].split(" @ ")[0].lower() for line in listed.splitlines() if line.strip())
