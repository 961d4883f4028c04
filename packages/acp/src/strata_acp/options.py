"""A session's settings the editor can change: the `model` and `mode` config options of `session/new`.

The model is a `provider/model` reference (current: the configured one; choices: the catalogue's usable
models); the mode is a primary agent (build, plan, and any primary agent of the config). A change applies
to the session's next prompt, as in OpenCode.
"""

from __future__ import annotations

from collections.abc import Sequence

from acp.schema import SessionConfigOptionBoolean, SessionConfigOptionSelect, SessionConfigSelectOption
from attrs import define

from strata_core.context import AgentInfo
from strata_core.runtime import Runtime


@define
class SessionSettings:
    """What the session's next prompt runs with."""

    model: str
    mode: str


def primary_agents(agents: Sequence[AgentInfo]) -> list[AgentInfo]:
    return [agent for agent in agents if agent.mode != "subagent" and not agent.hidden]


def model_choices(runtime: Runtime, current: str) -> list[SessionConfigSelectOption]:
    """Every usable model of the catalogue (the current one first when the catalogue cannot list)."""
    listing = getattr(runtime.models, "models", None)
    refs: list[tuple[str, str]] = []
    if callable(listing):
        for info in listing():
            refs.append((f"{info.provider_id}/{info.id}", f"{info.provider_id}/{info.name or info.id}"))
    if current not in {ref for ref, _ in refs}:
        refs.insert(0, (current, current))
    return [SessionConfigSelectOption(value=ref, name=name) for ref, name in refs]


async def default_settings(runtime: Runtime) -> SessionSettings:
    agent = await runtime.agents.default_agent()
    model = runtime.config.model or runtime.models.default_model().info
    ref = model if isinstance(model, str) else f"{model.provider_id}/{model.id}"
    return SessionSettings(model=ref, mode=agent.name)


async def config_options(
    runtime: Runtime, settings: SessionSettings
) -> list[SessionConfigOptionSelect | SessionConfigOptionBoolean]:
    modes = primary_agents(await runtime.agents.list())
    return [
        SessionConfigOptionSelect(
            id="model",
            name="Model",
            category="model",
            type="select",
            current_value=settings.model,
            options=model_choices(runtime, settings.model),
        ),
        SessionConfigOptionSelect(
            id="mode",
            name="Session Mode",
            category="mode",
            type="select",
            current_value=settings.mode,
            options=[
                SessionConfigSelectOption(value=agent.name, name=agent.name, description=agent.description)
                for agent in modes
            ],
        ),
    ]
