"""Saved tool outputs are per project: a command or the model in project A neither reads nor overwrites what
truncation saved for project B, though both share one data dir (headless `strata run`, scripted model)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from cli_harness import STRATA, Cli, isolated_env, mock_provider_config, write_config
from sandbox_kit import SYSTEM_PATH, needs_bwrap

from strata_core.project import discover_project
from strata_providers.testing import ScriptedServer

B_OUTPUT = "B-SAVED-LINE"
"""What project B's command printed, so much of it that truncation saved it whole."""


def project(root: Path, name: str) -> Cli:
    directory = root / name
    subprocess.run(["git", "init", "-q", str(directory)], check=True)
    assert STRATA.exists(), f"the strata console script is not installed at {STRATA}; run `uv sync`"
    return Cli(directory, {**isolated_env(root), "PATH": SYSTEM_PATH + ":" + str(STRATA.parent)})


def run_steps(
    cli: Cli, *steps: list[dict[str, object]], auto: bool = False
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """`strata run` in `cli`'s project with the model asking, step after step, for each step's calls at once;
    every tool result the model got, in order."""
    script: list[dict[str, object]] = [{"tool_calls": calls} for calls in steps]
    with ScriptedServer([*script, {"text": "done"}]) as server:
        config = {**mock_provider_config(server.base_url), "tool_output": {"max_lines": 10}}
        write_config(cli.project, config)
        done = cli("run", *(["--auto"] if auto else []), "go")
    last = server.main_requests[-1].body["messages"] if len(server.main_requests) > 1 else []
    return done, [message["content"] for message in last if message["role"] == "tool"]


def bash(command: str) -> dict[str, object]:
    return {"name": "bash", "arguments": {"command": command}}


@pytest.fixture
def saved_in_b(tmp_path: Path) -> Path:
    """Where project B's truncated bash output was saved, as the truncation hint told B's model."""
    b = project(tmp_path, "b")
    done, results = run_steps(b, [bash(f"for i in $(seq 15); do echo {B_OUTPUT}-$i; done")])
    assert done.returncode == 0, done.stderr
    found = re.search(r"Full output saved to: (\S+)", results[0])
    assert found is not None, results[0]
    saved = Path(found.group(1))
    assert f"{B_OUTPUT}-15" in saved.read_text()
    return saved


# How a command in project A may go after what B's tools printed ({saved}: B's saved file; {root}: every
# project's tool-output dir). Each must come back without B's output, and B's file must stay as it was.
READS = {
    "cat": "cat {saved}",
    "grep-r": f"grep -r {B_OUTPUT} {{root}}",
    "find": "find {root} -name 'tool_*' -exec cat {{}} +",
    "glob": "cat {root}/*/tool_*",
    "python": "python3 -c \"print(open('{saved}').read())\"",
    "copy-then-read": "cp {saved} copy.txt && cat copy.txt",
}
WRITES = {
    "overwrite": "echo PWNED > {saved}",
    "append": "echo PWNED >> {saved}",
    "remove": "rm -f {saved}",
}


@needs_bwrap
def test_a_command_in_one_project_cannot_see_or_change_anothers_saved_output(tmp_path: Path, saved_in_b: Path) -> None:
    a = project(tmp_path, "a")
    root = saved_in_b.parent.parent
    reads = [bash(form.format(saved=saved_in_b, root=root)) for form in READS.values()]
    writes = [bash(form.format(saved=saved_in_b, root=root)) for form in WRITES.values()]
    # The writes in a later step than the reads (one step's calls run at once); every ask approved (--auto):
    # the sandbox alone must hold.
    done, results = run_steps(a, [*reads, bash(f"ls {root}")], writes, auto=True)
    assert done.returncode == 0, done.stderr
    assert [name for name, output in zip(READS, results, strict=False) if B_OUTPUT in output] == []
    assert results[len(READS)].split() == [discover_project(a.project).id]  # B's dir is not even listed
    assert saved_in_b.read_text() == "".join(f"{B_OUTPUT}-{i}\n" for i in range(1, 16))


def test_reading_anothers_saved_output_asks_external_directory(tmp_path: Path, saved_in_b: Path) -> None:
    a = project(tmp_path, "a")
    done, results = run_steps(a, [{"name": "read", "arguments": {"filePath": str(saved_in_b)}}])
    assert done.returncode == 1
    assert f"Permission 'external_directory' for {saved_in_b.parent}/* needs approval" in done.stderr
    assert results == []
    b_id = discover_project(tmp_path / "b").id
    assert saved_in_b.parent == tmp_path / "home/.local/share/strata/tool-output" / b_id  # the path B's model got
