"""Embedding prompt assembly alone: the `PromptContainer` for a directory, with no store, no model, no runtime."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from dependency_injector import providers

from strata_core.clock import FrozenClock
from strata_core.container import PromptContainer
from strata_core.llm import ModelInfo
from strata_core.prompt.system import SystemPromptRequest


@pytest.mark.anyio
async def test_the_prompt_container_alone_assembles_the_system_prompt_of_a_directory(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "AGENTS.md").write_text("Repository rules.")
    container = PromptContainer(directory=repo, env={"HOME": str(tmp_path / "home")})
    container.clock.override(providers.Object(FrozenClock.at(datetime(2030, 2, 3, 12, 0))))

    agent = await container.agents().default_agent()
    prompt = await container.system_prompt().build(SystemPromptRequest(agent, ModelInfo("local", "tiny-model")))

    assert prompt.text.startswith("You are")  # the provider prompt for an unknown model family
    assert "  Today's date: Sun Feb 03 2030\n" in prompt.text
    assert "  Is directory a git repo: yes\n" in prompt.text
    assert f"Instructions from: {repo / 'AGENTS.md'}\nRepository rules." in prompt.text
    assert [layer.kind for layer in prompt.layers][:3] == ["provider", "environment", "instructions"]
    assert not (tmp_path / "home" / ".local" / "share").exists()  # nothing opened, nothing written
