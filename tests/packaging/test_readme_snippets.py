"""The READMEs' code runs as printed: every ```python block that ends in `anyio.run(main)` runs as a program, and
every block that defines a `test_` function passes under pytest."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
READMES = [REPO / "README.md", REPO / "packages/core/README.md"]


def runnable_snippets(readme: Path) -> list[str]:
    blocks = re.findall(r"```python\n(.*?)```", readme.read_text(encoding="utf-8"), flags=re.S)
    return [block for block in blocks if block.rstrip().endswith("anyio.run(main)")]


@pytest.mark.parametrize("readme", READMES, ids=lambda p: str(p.relative_to(REPO)))
def test_each_readme_has_a_whole_program_that_runs(readme: Path, tmp_path: Path) -> None:
    snippets = runnable_snippets(readme)
    assert snippets, f"{readme} has no runnable snippet"
    for number, snippet in enumerate(snippets):
        script = tmp_path / f"snippet_{number}.py"
        script.write_text(snippet)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path)}
        done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip(), "the snippet printed nothing"


def readme_tests(readme: Path) -> list[str]:
    blocks = re.findall(r"```python\n(.*?)```", readme.read_text(encoding="utf-8"), flags=re.S)
    return [block for block in blocks if re.search(r"^def test_", block, flags=re.M)]


def test_the_readmes_test_examples_pass_under_pytest(tmp_path: Path) -> None:
    snippets = [snippet for readme in READMES for snippet in readme_tests(readme)]
    assert snippets, "no README shows a test"
    for number, snippet in enumerate(snippets):
        (tmp_path / f"test_readme_{number}.py").write_text(snippet)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(snippets)} passed" in done.stdout
