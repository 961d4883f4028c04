"""The composition root: the one place the CLI decides which implementation serves each concept.

`AppContainer` is a dependency-injector container that only declares providers (no I/O at construction); the
commands resolve from it explicitly (no `@inject` wiring). Tests and embedders override a provider before
first use, e.g. `container.env.override(providers.Object({...}))`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dependency_injector import containers, providers

from strata_core.agent import AgentInfo, AgentService
from strata_core.config import ConfigInfo, ConfigService
from strata_core.instruction import InstructionService
from strata_core.llm import ModelInfo
from strata_core.paths import StrataPaths
from strata_core.project import ProjectService
from strata_core.skill import SkillService
from strata_core.system_prompt import SystemPromptService
from strata_providers.catalog import ProviderCatalog
from strata_providers.container import ProvidersContainer


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

    config_data: providers.Dependency[Mapping[str, Any]] = providers.Dependency()
    """The loaded config, supplied by `load_config` once the config service has read it."""
    models = providers.Container(ProvidersContainer, config_data=config_data, env=env)


async def load_config(container: AppContainer) -> ConfigInfo:
    """Read the config and hand it to the providers (the catalogue needs it as data, not as a service)."""
    info = await container.config().get()
    container.config_data.override(providers.Object(info.data))
    return info


def build_container(directory: Path, env: Mapping[str, str] | None = None) -> AppContainer:
    """A fresh container for `directory`; logging is configured here, the first time the core is needed."""
    from strata_cli.log_setup import configure_logging

    configure_logging(debug=bool(os.environ.get("STRATA_DEBUG")))
    container = AppContainer(directory=directory)
    if env is not None:
        container.env.override(providers.Object(env))
    return container


async def pick_agent(container: AppContainer, name: str | None) -> AgentInfo:
    """The named agent (any mode), or the default one; an unknown name lists the available agents."""
    from strata_cli.agent_view import agent_not_found

    agents = container.agents()
    if name is None:
        return await agents.default_agent()
    found = await agents.get(name)
    if found is None:
        raise agent_not_found(name, await agents.list())
    return found


def pick_model_info(catalog: ProviderCatalog, config: ConfigInfo, agent: AgentInfo, override: str | None) -> ModelInfo:
    """What a turn would use, as OpenCode picks it: `--model`, else the agent's model, else the config's `model`,
    else the first configured provider's. Needs no API key and opens no connection when a model is named."""
    ref = override or (agent.model.ref if agent.model else None) or config.model
    if ref:
        return catalog.model_info(ref)
    return catalog.default_model().info
