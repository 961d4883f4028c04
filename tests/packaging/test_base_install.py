"""strata-core alone, installed from its wheel into a fresh venv outside the workspace, is light: at most half
the packages strata-core + strata-providers installed before the extras; it assembles a directory's system
prompt and runs a scripted turn with the core's own model double, and a tool needing an extra that is not
installed answers with a tool error naming it.

Before the extras, `uv pip install strata-core strata-providers` installed 53 distributions (79 MB of
site-packages and a 26 MB `rg`); the commands and the figures since are in benchmarks/README.md ("A light base
install").
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from wheel_install import REPO, build_wheel, distributions, install, run_app, uv_or_skip

PACKAGES_BEFORE_THE_EXTRAS = 53
"""`strata-core` + `strata-providers` at commit b141971, installed from their wheels (benchmarks/README.md)."""
EXTRAS_ONLY = {
    "mcp",
    "pydantic",
    "starlette",
    "uvicorn",
    "cryptography",
    "pillow",
    "tree-sitter",
    "markdownify",
    "psycopg",
    "psycopg-pool",
}

SCRIPTED_TURN = """
import tempfile
from pathlib import Path

import anyio

from strata_core import PromptRequest, TextInput, open_runtime
from strata_core.message import ToolPart
from strata_core.testing import ScriptedModel, ScriptedResolver


async def main() -> None:
    project = Path(tempfile.mkdtemp())
    (project / ".git").mkdir()
    call = {"tool_calls": [{"name": "bash", "arguments": {"command": "touch ran", "description": "Touch"}}]}
    model = ScriptedModel([call, {"text": "No shell here."}])
    env = {"HOME": str(project / "home")}
    async with open_runtime(project, env, models=ScriptedResolver(model), store="memory") as rt:
        session = await rt.sessions.create()
        answer = await rt.loop.prompt(PromptRequest(session.id, [TextInput("Make a file.")]))
        history = await rt.sessions.messages(session.id)
    (part,) = [p for message in history for p in message.parts if isinstance(p, ToolPart)]
    print("tool state:", part.state.status, getattr(part.state, "error", None))
    print("answer:", answer.text)
    print("ran:", (project / "ran").exists())
    model.assert_script_consumed()


anyio.run(main)
"""


@pytest.fixture(scope="module")
def base_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    uv = uv_or_skip()
    root = tmp_path_factory.mktemp("base-install")
    wheel = build_wheel(uv, "strata-core", root / "dist")
    return install(uv, root, [wheel], "strata-core")


def _run_script(python: Path, source: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "story.py"
    script.write_text(source)
    return run_app(python, [script], tmp_path)


@pytest.mark.slow
def test_the_base_install_is_at_most_half_the_packages_and_holds_no_extra(base_python: Path) -> None:
    uv = uv_or_skip()
    installed = distributions(uv, base_python)
    assert "strata-core" in installed
    assert len(installed) <= PACKAGES_BEFORE_THE_EXTRAS // 2, installed
    assert EXTRAS_ONLY.isdisjoint(installed)
    assert not (base_python.parent / "rg").exists()


@pytest.mark.slow
def test_the_prompt_only_story_runs_on_the_base_install(base_python: Path, tmp_path: Path) -> None:
    done = _run_script(base_python, (REPO / "examples" / "system_prompt_only.py").read_text(), tmp_path)
    assert done.returncode == 0, done.stderr
    assert "<env>" in done.stdout and "Prices are in cents." in done.stdout
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_a_scripted_turn_runs_and_bash_without_its_extra_is_a_tool_error_naming_it(
    base_python: Path, tmp_path: Path
) -> None:
    done = _run_script(base_python, SCRIPTED_TURN, tmp_path)
    assert done.returncode == 0, done.stderr
    assert (
        "tool state: error the bash tool's command parsing needs tree-sitter and tree-sitter-bash: "
        "pip install 'strata-core[bash]'"
    ) in done.stdout
    assert "answer: No shell here." in done.stdout
    assert "ran: False" in done.stdout


@pytest.mark.slow
def test_an_image_attachment_without_pillow_is_refused_naming_the_extra(base_python: Path, tmp_path: Path) -> None:
    source = (
        "from pathlib import Path\n"
        "from strata_core.engine.attachment import AttachmentError, attachment_data_url\n"
        "Path('dot.png').write_bytes(bytes.fromhex('89504e470d0a1a0a0000000d4948445200000001000000010806000000'))\n"
        "try:\n"
        "    attachment_data_url(Path('dot.png'), 'image/png')\n"
        "except AttachmentError as error:\n"
        "    print(error)\n"
    )
    done = _run_script(base_python, source, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "dot.png: attaching an image needs Pillow: pip install 'strata-core[images]'"
