"""The prompts reach users: the core wheel and sdist carry every file under prompts/ through the symlink."""

from __future__ import annotations

import shutil
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _prompt_files() -> set[str]:
    root = REPO / "prompts"
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def test_core_package_reaches_prompts_through_a_relative_symlink() -> None:
    link = REPO / "packages/core/src/strata_core/prompts"
    assert link.is_symlink()
    assert not Path(link.readlink()).is_absolute()
    assert link.resolve() == (REPO / "prompts").resolve()


@pytest.mark.slow
def test_core_wheel_and_sdist_contain_every_prompt(tmp_path: Path) -> None:
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("uv is not on PATH")
    expected = _prompt_files()
    assert expected, "prompts/ is empty"
    subprocess.run(
        [uv, "build", "--package", "strata-core", "--out-dir", str(tmp_path)],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("strata_core-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        in_wheel = {n.removeprefix("strata_core/prompts/") for n in archive.namelist() if "/prompts/" in n}
    (sdist,) = tmp_path.glob("strata_core-*.tar.gz")
    with tarfile.open(sdist) as archive:
        in_sdist = {n.split("/strata_core/prompts/", 1)[1] for n in archive.getnames() if "/strata_core/prompts/" in n}
    assert expected <= in_wheel
    assert expected <= in_sdist
