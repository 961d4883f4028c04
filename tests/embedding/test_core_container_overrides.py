"""Every core service can be swapped in a fresh container before first use, without touching the others."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import pytest
from dependency_injector import providers

from strata_core.clock import FrozenClock, SystemClock
from strata_core.container import CoreContainer
from strata_core.llm import ModelInfo
from strata_core.project import ProjectInfo
from strata_core.prompt.system import SystemPromptRequest, SystemPromptService
from strata_core.session.memory_store import MemorySessionStore


def fixed_clock() -> FrozenClock:
    return FrozenClock.at(datetime(2030, 2, 3, 12, 0))


class FakeProject:
    """A project that claims to live somewhere it does not, as an embedding application might say."""

    def __init__(self, directory: Path) -> None:
        self._info = ProjectInfo(
            directory=directory, worktree=directory, vcs=None, platform="darwin", id="fake-project"
        )

    async def info(self) -> ProjectInfo:
        return self._info


class CannedFetcher:
    def __init__(self) -> None:
        self.asked: list[str] = []

    async def get_text(self, url: str) -> str:
        self.asked.append(url)
        return "Rules from the canned fetcher."


def _fresh_container(directory: Path, home: Path) -> CoreContainer:
    container = CoreContainer()
    container.directory.override(providers.Object(directory))
    container.env.override(providers.Object({"HOME": str(home)}))
    container.store.override(providers.Object(MemorySessionStore()))
    container.project_id.override(providers.Object("fake-project"))
    container.background.override(providers.Object(None))
    return container


@pytest.mark.anyio
async def test_fetcher_clock_and_project_overrides_reach_the_system_prompt(tmp_path: Path) -> None:
    project_dir = tmp_path / "project"
    project_dir.mkdir()
    (project_dir / "strata.json").write_text('{"instructions": ["https://rules.invalid/team.md"]}')
    (project_dir / "AGENTS.md").write_text("Project rules.")
    fetcher = CannedFetcher()

    container = _fresh_container(project_dir, tmp_path / "home")
    container.url_fetcher.override(providers.Object(fetcher))
    container.clock.override(providers.Object(fixed_clock()))
    container.project.override(providers.Object(FakeProject(project_dir)))

    agent = await container.agents().default_agent()
    model = ModelInfo(provider_id="local", id="tiny-model")
    prompt = await container.system_prompt().build(SystemPromptRequest(agent, model))

    assert "  Platform: darwin\n" in prompt.text  # the fake project, not this machine
    assert "  Is directory a git repo: no\n" in prompt.text
    assert "  Today's date: Sun Feb 03 2030\n" in prompt.text  # the fixed clock
    assert "Instructions from: https://rules.invalid/team.md\nRules from the canned fetcher." in prompt.text
    assert fetcher.asked == ["https://rules.invalid/team.md"]
    assert f"Instructions from: {project_dir / 'AGENTS.md'}\nProject rules." in prompt.text


@pytest.mark.anyio
async def test_overrides_in_one_container_do_not_leak_into_a_fresh_one(tmp_path: Path) -> None:
    project_dir = tmp_path / "project"
    project_dir.mkdir()
    first = _fresh_container(project_dir, tmp_path / "home")
    first.clock.override(providers.Object(fixed_clock()))
    second = _fresh_container(project_dir, tmp_path / "home")

    assert first.clock().today() == date(2030, 2, 3)
    assert isinstance(second.clock(), SystemClock)
    first_prompt, second_prompt = first.system_prompt(), second.system_prompt()
    assert isinstance(first_prompt, SystemPromptService) and isinstance(second_prompt, SystemPromptService)
    assert first_prompt.clock is first.clock() and second_prompt.clock is second.clock()
