"""The embedding examples run as an application would run them: from the three wheels, installed into a fresh
virtual environment outside the workspace, each script in a directory of its own.

Third-party dependencies come from the committed lock (exported as a pylock file) and install from uv's cache
with `--offline`, so the test needs no network; Strata itself comes only from the wheels built here. An example
named `test_*.py` is a pytest module of an application's tests: pytest (the lock's version, from the cache too)
runs it in the fresh environment, and anyio's pytest plugin comes with anyio, a dependency of the core.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from wheel_install import REPO, build_all_wheels, install, install_locked_tools, run, run_app, uv_or_skip

EXAMPLES = REPO / "examples"

EXPECTED_OUTPUT: dict[str, list[str]] = {
    "system_prompt_only.py": ["system prompt for shop", "<env>", "Instructions from: ", "Prices are in cents."],
    "custom_tool_turn.py": [
        "tool called: word_count('notes.txt')",
        "stored call: word_count {'path': 'notes.txt'} -> 4",
        "answer: The file has 4 words.",
    ],
    "instructions_alone.py": [
        "loaded: <project>/AGENTS.md",
        "loaded: <server>/team.md",
        "failed: <server>/slow.md - no answer within 2 s",
    ],
    "replaced_system_prompt.py": [
        'the model received: ("You are the shop\'s build assistant on scripted-model. Prices are in cents.",)'
    ],
    "stream_text_deltas.py": [
        "poem: 8 pieces -> 'Roses are red, violets are blue.'; stored: 'Roses are red, violets are blue.'",
        "sums: 6 pieces -> 'Two and two make four.'; stored: 'Two and two make four.'",
    ],
    "own_model_provider.py": [
        "'hello from my own model' -> 'hello from my own model'\n",
        "'shout it works' -> 'IT WORKS'\n",
        "' ' -> '' (failed: the echo model has nothing to echo)",
    ],
    "app_logging.py": [
        "answer: Done, without the team's rules.",
        "WARNING strata_core.config.files (notice): config.unknown_key {'key': 'colour', 'file': ",
        "WARNING strata_core.context.instruction_urls (notice): instruction URL failed, skipped "
        "{'url': 'https://rules.example/team.md', 'error': 'HTTP 404'}",
    ],
    "test_app_with_overrides.py": ["3 passed"],
    "own_store.py": ["my store saw", "no strata.db anywhere under"],
    "own_approver.py": [
        "asked: deploy ['staging']",
        "asked: deploy ['production']",
        "ran: deployed to staging",
        "refused: The user rejected permission to use this specific tool call with the following feedback: Only",
        "answer: Staging is deployed; production waits.",
    ],
    "frozen_clock.py": [
        "Today's date: Sun Mar 01 2026",
        "created: 1772366400000 and 1772366400000",
        "ids share the clock's prefix",
    ],
}
"""What each example must print (besides exiting 0); an example missing here fails the test, so none goes
unchecked."""


@pytest.fixture(scope="module")
def installed_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    uv = uv_or_skip()
    root = tmp_path_factory.mktemp("wheels")
    python = install(uv, root, build_all_wheels(uv, root / "dist"), None)
    install_locked_tools(uv, root, python, ["pytest"])
    return python


def _example_names() -> list[str]:
    return sorted(p.name for p in EXAMPLES.glob("*.py"))


def test_every_example_has_its_expected_output() -> None:
    assert _example_names() == sorted(EXPECTED_OUTPUT)


@pytest.mark.slow
@pytest.mark.parametrize("name", _example_names())
def test_example_runs_from_the_installed_wheels(name: str, installed_python: Path, tmp_path: Path) -> None:
    script = tmp_path / name
    shutil.copy(EXAMPLES / name, script)
    # A test module runs under pytest, as the application's test suite would run it.
    args = ["-m", "pytest", "-q", "-p", "no:cacheprovider", script.name] if name.startswith("test_") else [script]
    done = run_app(installed_python, args, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    for line in EXPECTED_OUTPUT[name]:
        assert line in done.stdout
    assert "Traceback" not in done.stderr


def test_the_installed_core_is_the_wheel_not_the_workspace(installed_python: Path) -> None:
    code = "import strata_core, strata_providers; print(strata_core.__file__)"
    where = run([installed_python, "-c", code], cwd=installed_python.parent)
    assert str(REPO) not in where
    assert "site-packages" in where
