"""Embedding one service alone: instruction discovery in a tiny container of its own, no CLI, no providers."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from dependency_injector import containers, providers

from strata_core.config.paths import StrataPaths
from strata_core.config.service import ConfigService
from strata_core.context.instruction import InstructionService, UrlFetcher
from strata_core.project import ProjectService


class InstructionsOnly(containers.DeclarativeContainer):
    """What an application needs to find the AGENTS.md files and instruction URLs for a directory."""

    directory = providers.Dependency(instance_of=Path)
    env = providers.Dependency(instance_of=dict)
    fetcher: providers.Provider[UrlFetcher | None] = providers.Object(None)

    paths = providers.Singleton(StrataPaths.from_env, env)
    project = providers.Singleton(ProjectService, directory)
    config = providers.Singleton(ConfigService, paths=paths, project=project, env=env)
    instructions = providers.Singleton(
        InstructionService, config=config, project=project, paths=paths, env=env, fetcher=fetcher
    )


class CannedFetcher:
    """Answers every URL with a fixed text instead of going to the network."""

    async def get_text(self, url: str) -> str:
        return f"canned rules from {url}"


def _project(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "AGENTS.md").write_text("Root rules.\n")
    (repo / "pkg").mkdir()
    (repo / "pkg" / "AGENTS.md").write_text("Package rules.\n")
    (repo / "strata.json").write_text('{"instructions": ["https://rules.example/team.md"]}')
    home = tmp_path / "home"
    home.mkdir()
    return repo, {"HOME": str(home)}


@pytest.mark.anyio
async def test_instruction_discovery_runs_in_its_own_tiny_container(tmp_path: Path) -> None:
    repo, env = _project(tmp_path)
    container = InstructionsOnly(directory=repo / "pkg", env=env)
    fetcher: UrlFetcher = CannedFetcher()
    container.fetcher.override(providers.Object(fetcher))

    blocks = list((await container.instructions().system()).blocks)

    assert [b.text for b in blocks] == [
        f"Instructions from: {repo / 'pkg' / 'AGENTS.md'}\nPackage rules.\n",
        f"Instructions from: {repo / 'AGENTS.md'}\nRoot rules.\n",
        "Instructions from: https://rules.example/team.md\ncanned rules from https://rules.example/team.md",
    ]


def test_embedding_instructions_loads_neither_providers_nor_cli() -> None:
    import subprocess

    code = (
        "import sys, strata_core.context.instruction, strata_core.config.service, strata_core.project;"
        "print(sorted(m for m in sys.modules if m.startswith(('strata_providers', 'strata_cli'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"
