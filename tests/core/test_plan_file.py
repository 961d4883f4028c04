"""Where a session's plan file lives: OpenCode's directory in an OpenCode-style project, else Strata's."""

from __future__ import annotations

from pathlib import Path

import pytest

from strata_core.config.paths import StrataPaths
from strata_core.context.plan_file import plan_file, plan_file_name
from strata_core.project import ProjectInfo
from strata_core.session_info import SessionInfo, SessionTime

SESSION = SessionInfo(
    id="ses_0123456789abCDEFGHIJ",
    project_id="p",
    directory="/",
    title="t",
    version="1",
    time=SessionTime(created=1796150940082, updated=1796150940082),
)
NAME = "1796150940082-strata-abcdefghij.md"


def repository(root: Path) -> ProjectInfo:
    root.mkdir(parents=True, exist_ok=True)
    return ProjectInfo(root / "pkg", root, "git", "linux", "id")


@pytest.fixture
def paths(tmp_path: Path) -> StrataPaths:
    return StrataPaths.from_env({"HOME": str(tmp_path / "home")})


def test_the_file_is_named_by_creation_time_and_slug() -> None:
    assert plan_file_name(SESSION) == NAME
    assert SESSION.slug == "strata-abcdefghij"


def test_a_plain_repository_gets_strata_plans(tmp_path: Path, paths: StrataPaths) -> None:
    project = repository(tmp_path / "repo")
    assert plan_file(project, paths, SESSION) == tmp_path / "repo" / ".strata" / "plans" / NAME


@pytest.mark.parametrize("marker", [".opencode/", "opencode.json", "opencode.jsonc"])
def test_an_opencode_style_repository_gets_opencode_plans(tmp_path: Path, paths: StrataPaths, marker: str) -> None:
    project = repository(tmp_path / "repo")
    if marker.endswith("/"):
        (project.worktree / marker).mkdir()
    else:
        (project.worktree / marker).write_text("{}")
    assert plan_file(project, paths, SESSION) == project.worktree / ".opencode" / "plans" / NAME


def test_an_existing_plan_stays_where_it_is(tmp_path: Path, paths: StrataPaths) -> None:
    project = repository(tmp_path / "repo")
    existing = project.worktree / ".strata" / "plans" / NAME
    existing.parent.mkdir(parents=True)
    existing.write_text("# plan\n")
    (project.worktree / "opencode.json").write_text("{}")  # the project turned OpenCode-style afterwards
    assert plan_file(project, paths, SESSION) == existing


def test_outside_a_repository_the_plan_goes_to_the_data_dir(tmp_path: Path, paths: StrataPaths) -> None:
    loose = ProjectInfo(tmp_path / "loose", Path("/"), None, "linux", "global")
    assert plan_file(loose, paths, SESSION) == paths.plans / NAME
    assert paths.plans == tmp_path / "home" / ".local" / "share" / "strata" / "plans"
