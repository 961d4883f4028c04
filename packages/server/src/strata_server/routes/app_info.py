"""What a client asks about the server and its project: health, paths, vcs, projects, config, providers and
their sign-in methods, agents, skills and commands; and `/log`, where a client writes to the server's log."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from strata_core.context import AgentInfo
from strata_core.logging import get_logger
from strata_core.permission import to_config
from strata_core.session_info import SessionInfo
from strata_server.provider_shapes import catalog_of, default_models, provider_data
from strata_server.state import ServerState, server_state
from strata_server.version import VERSION


async def health(request: Request) -> JSONResponse:
    return JSONResponse({"healthy": True, "version": VERSION})


async def paths(request: Request) -> JSONResponse:
    runtime = server_state(request).runtime
    strata = runtime.container.paths()
    project = runtime.project
    return JSONResponse(
        {
            "home": str(strata.home),
            "state": str(strata.state),
            "config": str(strata.config),
            "worktree": str(project.worktree),
            "directory": str(project.directory),
        }
    )


async def vcs(request: Request) -> JSONResponse:
    project = server_state(request).runtime.project
    if project.vcs != "git":
        return JSONResponse({})
    branch = await _git(project.directory, "symbolic-ref", "--short", "HEAD")
    remote_head = await _git(project.directory, "symbolic-ref", "--short", "refs/remotes/origin/HEAD")
    info: dict[str, str] = {}
    if branch:
        info["branch"] = branch
    default = remote_head.removeprefix("origin/") if remote_head else branch
    if default:
        info["default_branch"] = default
    return JSONResponse(info)


async def _git(directory: Any, *args: str) -> str:
    """A git command's one-line answer, or "" when git fails (no commits, no remote)."""
    try:
        done = await anyio.run_process(["git", "-C", str(directory), *args], check=False)
    except OSError:
        return ""
    return done.stdout.decode(errors="replace").strip() if done.returncode == 0 else ""


async def current_project(request: Request) -> JSONResponse:
    state = server_state(request)
    return JSONResponse(_project_data(state, await state.runtime.sessions.list_sessions()))


def _project_data(state: ServerState, sessions: list[SessionInfo]) -> dict[str, Any]:
    project = state.runtime.project
    created = min((s.time.created for s in sessions), default=state.started_ms)
    updated = max((s.time.updated for s in sessions), default=created)
    data: dict[str, Any] = {
        "id": project.id,
        "worktree": str(project.worktree),
        "time": {"created": created, "updated": updated},
        "sandboxes": [],
    }
    if project.vcs:
        data["vcs"] = project.vcs
    return data


async def projects(request: Request) -> JSONResponse:
    """The served project, then every other project the store holds sessions of (most recent first); another
    project's root is where its sessions ran, less their path inside it."""
    state = server_state(request)
    by_project: dict[str, list[SessionInfo]] = {}
    for session in await state.runtime.store.list_sessions():
        by_project.setdefault(session.project_id, []).append(session)
    here = state.runtime.project.id
    listed = [_project_data(state, by_project.pop(here, []))]
    for project_id, sessions in by_project.items():
        listed.append(
            {
                "id": project_id,
                "worktree": _worktree_of(sessions[-1]),
                "time": {"created": min(s.time.created for s in sessions), "updated": sessions[0].time.updated},
                "sandboxes": [],
            }
        )
    return JSONResponse(listed)


def _worktree_of(session: SessionInfo) -> str:
    inside = (session.path or "").strip("/")
    if inside and session.directory.endswith("/" + inside):
        return session.directory[: -len(inside) - 1] or "/"
    return session.directory


async def project_directories(request: Request) -> JSONResponse:
    """The local directories a project's sessions ran in (the served one first); none for an unknown project,
    as OpenCode answers."""
    state = server_state(request)
    project_id = str(request.path_params["projectID"])
    found: list[str] = []
    if project_id == state.runtime.project.id:
        found.append(str(state.runtime.project.directory))
    for session in await state.runtime.store.list_sessions(project_id):
        found.append(session.directory)
    return JSONResponse([{"directory": directory} for directory in dict.fromkeys(found)])


async def provider_auth(request: Request) -> JSONResponse:
    """Sign-in methods beyond an API key, per provider: OpenCode's come from its auth plugins (OAuth for
    OpenAI, Copilot, ...); Strata has none, so every provider takes the key a client asks for by default."""
    return JSONResponse({})


log = get_logger(__name__)


async def client_log(request: Request) -> JSONResponse:
    """A client's log line (OpenCode's `app.log`), written to the server's log under `server.client_log`."""
    state = server_state(request)
    body = await state.body(request, "app.log")
    level = {"debug": log.debug, "info": log.info, "warn": log.warning, "error": log.error}[body["level"]]
    level("server.client_log", service=body["service"], message=body["message"], extra=body.get("extra", {}))
    return JSONResponse(True)


SECRET_KEYS = ("apikey", "api_key", "password", "secret", "token")
REDACTED = "<redacted>"


async def config(request: Request) -> JSONResponse:
    """The merged config, with secret values (`apiKey`, tokens, passwords) replaced: `{env:}` has put real
    keys there, and a CORS-allowed browser page may read this route."""
    return JSONResponse(redacted(server_state(request).runtime.config.data))


def redacted(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {
            key: REDACTED if isinstance(item, str) and any(s in key.lower() for s in SECRET_KEYS) else redacted(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [redacted(item) for item in value]
    return value


async def config_providers(request: Request) -> JSONResponse:
    runtime = server_state(request).runtime
    catalog = catalog_of(runtime.models)
    connected = catalog.connected_providers() if catalog is not None else []
    configured = runtime.config.blocks.provider
    return JSONResponse(
        {"providers": [provider_data(s, configured) for s in connected], "default": default_models(connected)}
    )


async def providers(request: Request) -> JSONResponse:
    runtime = server_state(request).runtime
    catalog = catalog_of(runtime.models)
    every = list(catalog.providers.values()) if catalog is not None else []
    connected = catalog.connected_providers() if catalog is not None else []
    configured = runtime.config.blocks.provider
    return JSONResponse(
        {
            "all": [provider_data(s, configured) for s in every],
            "default": default_models(every),
            "connected": [s.id for s in connected],
        }
    )


async def agents(request: Request) -> JSONResponse:
    return JSONResponse([agent_data(a) for a in await server_state(request).runtime.agents.list()])


def agent_data(agent: AgentInfo) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": agent.name,
        "mode": agent.mode,
        "native": agent.native,
        "permission": to_config(agent.permission),
        "options": dict(agent.options),
    }
    optional = {
        "description": agent.description,
        "hidden": agent.hidden or None,
        "topP": agent.top_p,
        "temperature": agent.temperature,
        "color": agent.color,
        "variant": agent.variant,
        "prompt": agent.prompt,
        "steps": agent.steps,
    }
    data.update({key: value for key, value in optional.items() if value is not None})
    if agent.model is not None:
        data["model"] = {"providerID": agent.model.provider_id, "modelID": agent.model.model_id}
    return data


async def skills(request: Request) -> JSONResponse:
    found = await server_state(request).runtime.container.skills().all()
    return JSONResponse(
        [
            {"name": s.name, "description": s.description or "", "location": s.location, "content": s.content}
            for s in found
        ]
    )


async def commands(request: Request) -> JSONResponse:
    found = await server_state(request).runtime.container.commands().list()
    listed = []
    for command in found:
        # An MCP prompt's template lives on its server until the command runs: listed empty (OpenCode
        # lists an unresolved promise, `{}`).
        data: dict[str, Any] = {
            "name": command.name,
            "source": command.kind,
            "template": command.template,
            "hints": list(command.hints),
        }
        optional = {"description": command.description, "agent": command.agent, "model": command.model}
        data.update({key: value for key, value in optional.items() if value is not None})
        if command.subtask is not None:
            data["subtask"] = command.subtask
        listed.append(data)
    return JSONResponse(listed)


ROUTES = [
    Route("/global/health", health, methods=["GET"]),
    Route("/log", client_log, methods=["POST"]),
    Route("/path", paths, methods=["GET"]),
    Route("/vcs", vcs, methods=["GET"]),
    Route("/project", projects, methods=["GET"]),
    Route("/project/current", current_project, methods=["GET"]),
    Route("/project/{projectID}/directories", project_directories, methods=["GET"]),
    Route("/provider/auth", provider_auth, methods=["GET"]),
    Route("/config", config, methods=["GET"]),
    Route("/config/providers", config_providers, methods=["GET"]),
    Route("/provider", providers, methods=["GET"]),
    Route("/agent", agents, methods=["GET"]),
    Route("/skill", skills, methods=["GET"]),
    Route("/command", commands, methods=["GET"]),
]
