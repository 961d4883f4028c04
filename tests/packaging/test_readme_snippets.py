"""The READMEs' code runs as printed: every ```python block that ends in `anyio.run(main)` runs as a program,
every block that defines a `test_` function passes under pytest, and every ```sh runnable block runs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from strata_providers.testing import ScriptedServer

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


def runnable_shell_blocks(readme: Path) -> list[str]:
    return re.findall(r"```sh runnable\n(.*?)```", readme.read_text(encoding="utf-8"), flags=re.S)


def test_every_runnable_shell_block_runs(tmp_path: Path) -> None:
    """Each ```sh runnable block, with bash, in a fresh git project (with a `src/app.py`) whose `opencode.json`
    points a `mock` provider at a scripted model server; `strata` is the one installed in this environment."""
    blocks = [block for readme in READMES for block in runnable_shell_blocks(readme)]
    assert blocks, "no README block is marked runnable"
    strata_bin = Path(sys.executable).parent
    for number, block in enumerate(blocks):
        project = tmp_path / f"project_{number}"
        (project / "src").mkdir(parents=True)
        (project / "src/app.py").write_text("def main():\n    return 1\n")
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        with ScriptedServer([{"text": "Done."}] * 20) as server:
            (project / "opencode.json").write_text(json.dumps(mock_config(server.base_url)))
            env = {
                "PATH": f"{strata_bin}:/usr/bin:/bin",
                "HOME": str(tmp_path / "home"),
                "XDG_STATE_HOME": str(tmp_path / "state"),
                "XDG_DATA_HOME": str(tmp_path / "data"),
            }
            done = subprocess.run(
                ["bash", "-euo", "pipefail", "-c", block], cwd=project, env=env, capture_output=True, text=True
            )
        assert done.returncode == 0, f"block {number}:\n{block}\n{done.stdout}{done.stderr}"
        assert "Traceback" not in done.stderr


def mock_config(base_url: str) -> dict[str, Any]:
    provider = {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": base_url, "apiKey": "x"}}
    return {
        "provider": {"mock": {**provider, "models": {"gpt-4o-mock": {"tool_call": True}}}},
        "model": "mock/gpt-4o-mock",
    }
