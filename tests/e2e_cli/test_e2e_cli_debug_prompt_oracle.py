"""`strata debug prompt` prints, from the environment block on, what OpenCode 1.18.33 sent for the same project.

The three projects under `tests/oracle_fixtures/prompt-*` were captured with the oracle (`captures/`). Here the
installed `strata` prints its prompt for a copy of each, and everything from `You are powered by the model
named` on must equal the recording once paths and the date are normalised. Left out, as the oracle leaves
them out: the provider prompt (each product words its own) and the built-in skill (`customize-strata` where
OpenCode lists `customize-opencode`).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_harness import Cli, isolated_env

FIXTURES = Path(__file__).parents[1] / "oracle_fixtures"
BUILTIN_SKILL = re.compile(r"  <skill>\n    <name>customize-[a-z]+</name>\n.*?  </skill>\n", re.DOTALL)
TODAY = re.compile(r"Today's date: [A-Z][a-z]{2} [A-Z][a-z]{2} \d{2} \d{4}")


def _from_environment_on(system: str) -> str:
    text = system[system.index("You are powered by the model named") :]
    return TODAY.sub("Today's date: <DATE>", BUILTIN_SKILL.sub("", text))


def _recorded(name: str, work: Path, home: Path) -> str:
    capture = FIXTURES / "captures" / f"opencode-prompt-{name}"
    body = json.loads((capture / "001.json").read_text())
    system = "\n".join(b["text"] for b in body["system"]) if "system" in body else body["messages"][0]["content"]
    system = system.replace((capture / "workdir.txt").read_text().strip(), str(work))
    return _from_environment_on(system.replace((capture / "home.txt").read_text().strip(), str(home)))


@pytest.mark.parametrize("name", ["nested", "global"])
def test_debug_prompt_matches_opencode_from_the_environment_block_on(tmp_path: Path, name: str) -> None:
    env = isolated_env(tmp_path)
    work, home = tmp_path / "work", Path(env["HOME"])
    shutil.copytree(FIXTURES / f"prompt-{name}", work)
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    if (FIXTURES / f"home-prompt-{name}").exists():
        shutil.copytree(FIXTURES / f"home-prompt-{name}", home, dirs_exist_ok=True)

    done = Cli(work, env, in_process=True)("debug", "prompt", "--json", "--dir", str(work))

    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    assert _from_environment_on(printed["system"]) == _recorded(name, work, home)
    kinds = [layer["kind"] for layer in printed["layers"]]
    assert kinds[:2] == ["provider", "environment"] and kinds[-1] == "skills"
