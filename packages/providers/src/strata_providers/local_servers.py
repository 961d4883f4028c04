"""The local model servers Strata knows by their default ports, and a quick probe for the ones that are up.

Each speaks chat completions at `http://localhost:PORT/v1`, needs no key, and serves whatever models the user
loaded (so any model id is accepted). The probe asks every server's `GET /v1/models` at once: a port must
take the connection within ~200 ms (on this machine a closed port refuses at once, so with no server up the
probe costs about nothing), and a server that took it has up to 2 s to answer, since a busy one (a model
loading, a loaded machine) is slow to list what it serves but is still up. It runs only when nothing is
configured, or when `strata models` lists models, and never when a model is configured.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import httpx
from attrs import frozen

from strata_core.llm import ModelCapabilities, ModelInfo
from strata_providers.provider_spec import COMPATIBLE_NPM, ProviderSpec

PROBE_TIMEOUT = 0.2
"""How long a port has to take the probe's connection."""
ANSWER_TIMEOUT = 2.0
"""How long a server that took the connection has to answer the probe."""
PROBE_VARIABLE = "STRATA_LOCAL_SERVERS"
"""`off`, or `id=host:port,...` to probe other addresses than the default ports (tests, unusual setups)."""


@frozen
class LocalServer:
    id: str
    name: str
    base_url: str


DEFAULT_LOCAL_SERVERS = (
    LocalServer("ollama", "Ollama", "http://localhost:11434/v1"),
    LocalServer("lmstudio", "LM Studio", "http://localhost:1234/v1"),
    LocalServer("vllm", "vLLM", "http://localhost:8000/v1"),
    LocalServer("llamacpp", "llama.cpp server", "http://localhost:8080/v1"),
)


def local_servers(env: Mapping[str, str]) -> tuple[LocalServer, ...]:
    """The servers to know and probe: the defaults, or those `STRATA_LOCAL_SERVERS` names."""
    setting = env.get(PROBE_VARIABLE, "").strip()
    if not setting:
        return DEFAULT_LOCAL_SERVERS
    if setting == "off":
        return ()
    names = {server.id: server.name for server in DEFAULT_LOCAL_SERVERS}
    servers = []
    for item in setting.split(","):
        server_id, _, address = item.strip().partition("=")
        if server_id and address:
            servers.append(LocalServer(server_id, names.get(server_id, server_id), f"http://{address}/v1"))
    return tuple(servers)


def local_spec(server: LocalServer, models: Sequence[str] = (), base: ProviderSpec | None = None) -> ProviderSpec:
    """The provider for a local server: no key, any model id, plus the models it said it serves."""
    known = dict(base.models) if base else {}
    for model_id in models:
        known.setdefault(model_id, local_model(server.id, model_id))
    return ProviderSpec(server.id, server.name, COMPATIBLE_NPM, server.base_url, (), known, open_models=True,
                        source="local")  # fmt: skip


def local_model(provider_id: str, model_id: str) -> ModelInfo:
    """A model a local server serves: OpenCode's defaults for an undeclared model, limits unknown."""
    return ModelInfo(provider_id=provider_id, id=model_id, name=model_id, npm=COMPATIBLE_NPM,
                     capabilities=ModelCapabilities(temperature=False))  # fmt: skip


async def probe(
    servers: Sequence[LocalServer], deadline: float = PROBE_TIMEOUT, answer_deadline: float = ANSWER_TIMEOUT
) -> dict[str, list[str]]:
    """The model ids each answering server lists, by server id, in the servers' order; all asked at once."""
    import anyio

    from strata_core.http import make_client

    found: dict[str, list[str]] = {}
    async with make_client(connect_timeout=deadline, read_timeout=answer_deadline) as client:

        async def ask(server: LocalServer) -> None:
            try:
                response = await client.get(f"{server.base_url}/models")
                response.raise_for_status()
                found[server.id] = _model_ids(response.json())
            except (httpx.HTTPError, ValueError):
                return

        with anyio.move_on_after(deadline + answer_deadline):
            async with anyio.create_task_group() as group:
                for server in servers:
                    group.start_soon(ask, server)
    return {server.id: found[server.id] for server in servers if found.get(server.id)}


def probe_now(servers: Sequence[LocalServer]) -> dict[str, list[str]]:
    """`probe` for synchronous callers (the catalogue's lookups are), on an event loop of its own thread."""
    import threading

    import anyio

    result: dict[str, list[str]] = {}

    def run() -> None:
        result.update(anyio.run(probe, servers))

    worker = threading.Thread(target=run, name="strata-local-probe", daemon=True)
    worker.start()
    worker.join(PROBE_TIMEOUT + ANSWER_TIMEOUT + 1.0)
    return result


def _model_ids(payload: Any) -> list[str]:
    data = payload.get("data") if isinstance(payload, Mapping) else None
    if not isinstance(data, list):
        return []
    return [str(item["id"]) for item in data if isinstance(item, Mapping) and isinstance(item.get("id"), str)]
