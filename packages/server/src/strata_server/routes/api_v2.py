"""OpenCode's v2 listing routes (`/api/*`), which its TUI reads at start: the location, agents, commands, skills,
providers, models, integrations and references, each `{location, data}` in OpenCode 1.18.33's shapes.

The shapes are the spec's (`AgentV2Info`, `ModelV2Info`, ...), which forbid extra fields: OpenCode's own server
also sends a `description` on agents, commands and skills, which its spec does not allow, so it is left out.
A provider's `settings` (OpenCode echoes the config's `options`, an `apiKey` among them) are left out too: a
CORS-allowed page may read these routes. Strata has no references (`/api/reference` is empty) and no stored
credentials, so an integration's connections are the key variables set in the environment.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from strata_core.context import AgentInfo
from strata_core.llm import ModelInfo
from strata_core.runtime import Runtime
from strata_providers.provider_spec import ProviderSpec
from strata_server.provider_shapes import catalog_of
from strata_server.state import server_state

_EMPTY_REQUEST: dict[str, Any] = {"headers": {}, "body": {}}


def location_data(runtime: Runtime) -> dict[str, Any]:
    """OpenCode's `LocationInfo`: the directory served and its project (the project's root as its directory)."""
    project = runtime.project
    return {"directory": str(project.directory), "project": {"id": project.id, "directory": str(project.worktree)}}


def _listing(request: Request, data: list[dict[str, Any]]) -> JSONResponse:
    return JSONResponse({"location": location_data(server_state(request).runtime), "data": data})


async def location(request: Request) -> JSONResponse:
    return JSONResponse(location_data(server_state(request).runtime))


async def agents(request: Request) -> JSONResponse:
    found = await server_state(request).runtime.agents.list()
    return _listing(request, [agent_v2(agent) for agent in found])


def agent_v2(agent: AgentInfo) -> dict[str, Any]:
    """`AgentV2Info`: a rule is `{action: permission, resource: pattern, effect: action}` in OpenCode's v2 words."""
    data: dict[str, Any] = {
        "id": agent.name,
        "request": _EMPTY_REQUEST,
        "mode": agent.mode,
        "hidden": agent.hidden,
        "permissions": [
            {"action": rule.permission, "resource": rule.pattern, "effect": rule.action} for rule in agent.permission
        ],
    }
    if agent.model is not None:
        data["model"] = {"id": agent.model.model_id, "providerID": agent.model.provider_id}
        if agent.variant is not None:
            data["model"]["variant"] = agent.variant
    if agent.prompt is not None:
        data["system"] = agent.prompt
    if agent.color is not None:
        data["color"] = agent.color
    if agent.steps is not None:
        data["steps"] = agent.steps
    return data


async def commands(request: Request) -> JSONResponse:
    """The commands of config entries and command files (v2 lists MCP prompts and skills elsewhere)."""
    found = await server_state(request).runtime.container.commands().list()
    listed = []
    for command in found:
        if command.kind != "command":
            continue
        data: dict[str, Any] = {"name": command.name, "template": command.template}
        if command.agent is not None:
            data["agent"] = command.agent
        if command.model is not None:
            provider_id, _, model_id = command.model.partition("/")
            data["model"] = {"id": model_id, "providerID": provider_id}
        if command.subtask is not None:
            data["subtask"] = command.subtask
        listed.append(data)
    return _listing(request, listed)


async def skills(request: Request) -> JSONResponse:
    found = await server_state(request).runtime.container.skills().all()
    return _listing(request, [{"name": s.name, "location": s.location, "content": s.content} for s in found])


async def references(request: Request) -> JSONResponse:
    return _listing(request, [])


def _connected(runtime: Runtime) -> list[ProviderSpec]:
    catalog = catalog_of(runtime.models)
    return catalog.connected_providers() if catalog is not None else []


async def providers(request: Request) -> JSONResponse:
    """The providers a turn can use now (OpenCode's "active" ones)."""
    return _listing(request, [provider_v2(spec) for spec in _connected(server_state(request).runtime)])


def provider_v2(spec: ProviderSpec) -> dict[str, Any]:
    api: dict[str, Any] = {"type": "aisdk", "package": spec.npm}
    if spec.base_url:
        api["url"] = spec.base_url
    return {"id": spec.id, "name": spec.name, "api": api, "request": _EMPTY_REQUEST}


async def models(request: Request) -> JSONResponse:
    """The usable providers' models, newest release first, as OpenCode orders them."""
    found = [
        model_v2(info, spec) for spec in _connected(server_state(request).runtime) for info in spec.models.values()
    ]
    found.sort(key=lambda model: model["time"]["released"], reverse=True)
    return _listing(request, found)


def model_v2(info: ModelInfo, spec: ProviderSpec) -> dict[str, Any]:
    api: dict[str, Any] = {"id": info.api_model_id, "type": "aisdk", "package": info.npm}
    if spec.base_url:
        api["url"] = spec.base_url
    data: dict[str, Any] = {
        "id": info.id,
        "providerID": info.provider_id,
        "name": info.name or info.id,
        "api": api,
        "capabilities": {
            "tools": info.capabilities.tool_call,
            "input": ["text", "image", "pdf"] if info.capabilities.attachment else ["text"],
            "output": ["text"],
        },
        "request": _EMPTY_REQUEST,
        "variants": [{"id": name, "headers": {}, "body": dict(body)} for name, body in info.variants.items()],
        "time": {"released": released_ms(info.release_date)},
        "cost": _cost(info),
        "status": "active",
        "enabled": True,
        "limit": _limit(info),
    }
    if info.family:
        data["family"] = info.family
    return data


def released_ms(date: str) -> int:
    """models.dev's `release_date` (`YYYY-MM-DD`, sometimes `YYYY-MM`) in epoch ms; 0 when unknown."""
    for pattern in ("%Y-%m-%d", "%Y-%m"):
        try:
            return int(datetime.strptime(date, pattern).replace(tzinfo=UTC).timestamp() * 1000)
        except ValueError:
            continue
    return 0


def _cost(info: ModelInfo) -> list[dict[str, Any]]:
    base = info.cost.base if info.cost is not None else None
    if base is None:
        return []
    return [{"input": base.input, "output": base.output, "cache": {"read": base.cache_read, "write": base.cache_write}}]


def _limit(info: ModelInfo) -> dict[str, int]:
    limit = {"context": info.limits.context, "output": info.limits.output}
    if info.limits.input is not None:
        limit["input"] = info.limits.input
    return limit


async def integrations(request: Request) -> JSONResponse:
    """Every catalogue provider and how it can be connected: a key, or one of its environment variables."""
    runtime = server_state(request).runtime
    catalog = catalog_of(runtime.models)
    every = sorted(catalog.providers.values(), key=lambda spec: spec.id) if catalog is not None else []
    return _listing(request, [integration(spec, runtime.container.env()) for spec in every])


def integration(spec: ProviderSpec, env: Mapping[str, str]) -> dict[str, Any]:
    methods: list[dict[str, Any]] = [{"type": "key"}]
    if spec.env:
        methods.append({"type": "env", "names": list(spec.env)})
    return {"id": spec.id, "name": spec.name, "methods": methods, "connections": _env_connections(spec.env, env)}


def _env_connections(names: Iterable[str], env: Mapping[str, str]) -> list[dict[str, str]]:
    return [{"type": "env", "name": name} for name in names if env.get(name)]


ROUTES = [
    Route("/api/location", location, methods=["GET"]),
    Route("/api/agent", agents, methods=["GET"]),
    Route("/api/command", commands, methods=["GET"]),
    Route("/api/skill", skills, methods=["GET"]),
    Route("/api/reference", references, methods=["GET"]),
    Route("/api/provider", providers, methods=["GET"]),
    Route("/api/model", models, methods=["GET"]),
    Route("/api/integration", integrations, methods=["GET"]),
]
