"""The composition root: the one place the CLI decides which implementation serves each concept.

`AppContainer` declares providers only (no I/O at construction): the prompt's services for commands that only
look (`core`, a `PromptContainer`: config, agents, skills, paths), the providers' catalogue for commands that
only look at models (`models`), and what `start_runtime` hands `open_runtime` for a real turn (the catalogue
factory, the providers' parameter policy, the variables shell commands must not see). A command that changes
something for its runtime (its approver, a bus it renders) passes it to `start_runtime` as `open_runtime`'s
keyword; tests do the same through `strata_core.runtime.overrides(...)`, or override a provider here before
first use, e.g. `container.model_resolver_factory.override(providers.Object(lambda config, env, client: r))`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
from dependency_injector import containers, providers

from strata_cli.errors import CliError
from strata_core import PromptContainer
from strata_core.config import ConfigBlocks, ConfigInfo, StrataPaths
from strata_core.context import AgentInfo, Agents
from strata_core.engine import ParameterPolicy
from strata_core.llm import ModelInfo, ModelResolver
from strata_core.runtime import ModelResolverFactory, Runtime, RuntimeOptions, open_runtime
from strata_core.tool import DEFAULT_HIDDEN_ENV
from strata_providers.catalog import ProviderCatalog
from strata_providers.container import ProvidersContainer
from strata_providers.params import ProviderParameters
from strata_providers.retry import RetryPolicy

if TYPE_CHECKING:
    from typing import Unpack

RETRIES_VARIABLE = "STRATA_MODEL_RETRIES"
TITLE_GRACE_SECONDS = 5.0
"""How long `strata run` waits at exit for a title still on its way (a real small model may take seconds; a
Ctrl-C abandons it at once). The library's own default is shorter."""


def retry_policy(env: Mapping[str, str]) -> RetryPolicy:
    """OpenCode's backoff, with the number of retries adjustable (`STRATA_MODEL_RETRIES=0` fails at once)."""
    value = env.get(RETRIES_VARIABLE, "").strip()
    if not value:
        return RetryPolicy()
    if not value.isdigit():
        raise CliError(f"{RETRIES_VARIABLE} must be a whole number of retries (0 or more), not {value!r}.")
    return RetryPolicy(max_attempts=int(value) + 1)


def catalog_for(config: ConfigInfo, env: Mapping[str, str], client: Callable[[], httpx.AsyncClient]) -> ModelResolver:
    """The model resolver of a real run: the providers' catalogue over the runtime's shared HTTP client."""
    return ProviderCatalog(config.blocks, env, client, retry=retry_policy(env))


def shell_hidden_env(models: ModelResolver) -> frozenset[str]:
    """What shell commands must not see: the built-in list of API-key variables, and every variable the
    runtime's catalogue may take a key from (built-in providers', configured ones', `{env:VAR}` keys)."""
    held = models.key_variables() if isinstance(models, ProviderCatalog) else frozenset()
    return DEFAULT_HIDDEN_ENV | held


class AppContainer(containers.DeclarativeContainer):
    """Everything the `strata` command runs on, for one project directory and one environment."""

    directory: providers.Dependency[Path] = providers.Dependency(instance_of=Path)
    env: providers.Provider[Mapping[str, str]] = providers.Object(os.environ)

    core = providers.Container(PromptContainer, directory=directory, env=env)
    """The prompt's services, for commands that run no turn (a runtime has its own: `runtime.container`)."""

    config_blocks: providers.Dependency[ConfigBlocks] = providers.Dependency()
    """The loaded config's typed blocks, supplied by `load_config`; the offline catalogue reads them as data."""
    models = providers.Container(ProvidersContainer, config_blocks=config_blocks, env=env)
    """For commands that only look at models: its runtime is never opened, so nothing can be called."""

    model_resolver_factory: providers.Provider[ModelResolverFactory] = providers.Object(catalog_for)
    parameters: providers.Provider[ParameterPolicy] = providers.Singleton(ProviderParameters)


def build_container(directory: Path, env: Mapping[str, str] | None = None) -> AppContainer:
    """A fresh container for `directory`; logging is configured here, the first time the core is needed."""
    from strata_cli.log_setup import configure_logging, log_file

    state = StrataPaths.from_env(env if env is not None else os.environ).state
    configure_logging(debug=bool(os.environ.get("STRATA_DEBUG")), log_file=log_file(state))
    container = AppContainer(directory=directory)
    if env is not None:
        container.env.override(providers.Object(env))
    return container


def start_runtime(container: AppContainer, **options: Unpack[RuntimeOptions]) -> AbstractAsyncContextManager[Runtime]:
    """`async with start_runtime(container, approver=...) as runtime:` — the core opened with the catalogue
    and this container's pieces; `options` are `open_runtime`'s keywords for what the command chooses (its
    approver, `mcp=False` for a command that runs no turn)."""
    chosen = RuntimeOptions(
        models=container.model_resolver_factory(),
        parameters=container.parameters(),
        hidden_env=shell_hidden_env,
        background_grace=TITLE_GRACE_SECONDS,
    )
    chosen.update(options)
    return open_runtime(container.directory(), container.env(), **chosen)


async def load_config(container: AppContainer) -> ConfigInfo:
    """Read the config and hand it to the offline catalogue (which takes it as data, not as a service)."""
    info: ConfigInfo = await container.core.config().get()
    container.config_blocks.override(providers.Object(info.blocks))
    return info


async def pick_agent(agents: Agents, name: str | None) -> AgentInfo:
    """The named agent (any mode), or the default one; an unknown name lists the available agents."""
    from strata_cli.agent_view import agent_not_found

    if name is None:
        return await agents.default_agent()
    found = await agents.get(name)
    if found is None:
        raise agent_not_found(name, await agents.list())
    return found


async def pick_primary_agent(agents: Agents, name: str | None) -> AgentInfo:
    """Like `pick_agent`, for talking to: a subagent or a hidden agent is refused with the ones to choose from
    (OpenCode falls back to the default agent with a warning; a typo deserves a clear stop instead)."""
    from strata_cli.agent_view import primary_agents

    agent = await pick_agent(agents, name)
    if agent.mode == "subagent" or agent.hidden:
        usable = ", ".join(primary_agents(await agents.list()))
        kind = "a hidden agent" if agent.hidden else "a subagent (primary agents call it through the task tool)"
        raise CliError(f'Agent "{agent.name}" is {kind}; choose one of: {usable}.')
    return agent


def pick_model_info(catalog: ProviderCatalog, config: ConfigInfo, agent: AgentInfo, override: str | None) -> ModelInfo:
    """What a turn would use, as OpenCode picks it: `--model`, else the agent's model, else the config's `model`,
    else the first configured provider's. Needs no API key and opens no connection when a model is named."""
    ref = override or (agent.model.ref if agent.model else None) or config.model
    if ref:
        return catalog.model_info(ref)
    return catalog.default_model().info
