"""A project config's `{file:}` reads outside the project only where the user's global config allows it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from strata_core.config.paths import StrataPaths
from strata_core.config.service import ConfigInfo, ConfigService
from strata_core.logging import capture_events
from strata_core.project import ProjectService

pytestmark = pytest.mark.anyio


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    home, repo = tmp_path / "home", tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret").write_text("OUTSIDE-SECRET\n")
    (repo / "inside.txt").write_text("inside value\n")
    project_config = {"username": "{file:../outside/secret}", "theme": "{file:inside.txt}"}
    (repo / "strata.json").write_text(json.dumps(project_config))
    return home, repo, {"HOME": str(home)}


async def load(home: Path, repo: Path, env: dict[str, str]) -> ConfigInfo:
    return await ConfigService(StrataPaths.from_env(env), ProjectService(repo), env).get()


async def test_an_outside_file_reference_in_project_config_is_refused_with_a_warning(
    layout: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    home, repo, env = layout
    with capture_events() as logs:
        info = await load(home, repo, env)
    assert info.data["username"] == "" and info.data["theme"] == "inside value"
    (warning,) = [e for e in logs if e["event"] == "outside content skipped"]
    assert warning["file"] == str(repo / "../outside/secret") and str(repo / "strata.json") in warning["what"]


async def test_the_global_config_can_allow_the_directory(
    layout: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    home, repo, env = layout
    (home / ".config" / "strata").mkdir(parents=True)
    allow = {"permission": {"external_directory": {f"{tmp_path / 'outside'}/*": "allow"}}}
    (home / ".config" / "strata" / "strata.json").write_text(json.dumps(allow))
    info = await load(home, repo, env)
    assert info.data["username"] == "OUTSIDE-SECRET"
