"""The composition root: the one place the CLI decides which implementation serves each concept.

`AppContainer` is a dependency-injector container that only declares providers (no I/O at construction); the
commands resolve from it explicitly (no `@inject` wiring). Tests and embedders override a provider before
first use, e.g. `container.env.override(providers.Object({...}))`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from dependency_injector import containers, providers

from strata_core.agent import AgentService
from strata_core.config import ConfigService
from strata_core.instruction import InstructionService
from strata_core.paths import StrataPaths
from strata_core.project import ProjectService
from strata_core.skill import SkillService
from strata_core.system_prompt import SystemPromptService


def _paths(env: Mapping[str, str]) -> StrataPaths:
    return StrataPaths.from_env(env)


class AppContainer(containers.DeclarativeContainer):
    """Everything the `strata` command runs on, for one project directory and one environment."""

    directory = providers.Dependency(instance_of=Path)
    env: providers.Provider[Mapping[str, str]] = providers.Object(os.environ)

    paths = providers.Singleton(_paths, env)
    project = providers.Singleton(ProjectService, directory)
    config = providers.Singleton(ConfigService, paths=paths, project=project, env=env)
    skills = providers.Singleton(SkillService, config=config, project=project, paths=paths, env=env)
    instructions = providers.Singleton(InstructionService, config=config, project=project, paths=paths, env=env)
    agents = providers.Singleton(
        AgentService, config=config, paths=paths, skill_dirs=skills.provided.dirs, project=project
    )
    system_prompt = providers.Singleton(SystemPromptService, project=project, instructions=instructions, skills=skills)


def build_container(directory: Path, env: Mapping[str, str] | None = None) -> AppContainer:
    """A fresh container for `directory`; logging is configured here, the first time the core is needed."""
    from strata_cli.log_setup import configure_logging

    configure_logging(debug=bool(os.environ.get("STRATA_DEBUG")))
    container = AppContainer(directory=directory)
    if env is not None:
        container.env.override(providers.Object(env))
    return container
