"""Harness for the end-to-end engine scenarios: the real runtime, tools and wires against a loopback model.

Each test writes a project in `tmp_path` (a git repository with real files) whose `strata.json` points a
provider at a `ScriptedServer`, opens the runtime with the providers' catalogue and parameter rules, and
then asserts on what the server recorded and on what the SQLite store holds.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any, Literal, TypeAlias

import anyio

from strata_core.bus import Bus
from strata_core.config.service import ConfigInfo
from strata_core.engine.prompt_input import PromptRequest, TextInput
from strata_core.message import MessageWithParts, TextPart, ToolPart
from strata_core.permission.approval import Approver, Refuser, approve_all
from strata_core.permission.bus_approver import BusApprover
from strata_core.runtime import Runtime, RuntimeOptions, open_runtime
from strata_core.snapshot.contract import Snapshot
from strata_core.tool.contract import Tool
from strata_providers.catalog import ProviderCatalog
from strata_providers.params import ProviderParameters
from strata_providers.retry import RetryPolicy
from strata_providers.testing import ScriptedServer

MODEL = "mock/mock-model"

Mode: TypeAlias = Literal["interactive", "non_interactive", "auto"]
"""Who answers the scenario's permission questions: the test through the bus (`questions(runtime).reply`),
nobody (refused at once), or an automatic yes."""


def provider_config(
    server: ScriptedServer, *, npm: str = "@ai-sdk/openai-compatible", limit: Mapping[str, int] | None = None
) -> dict[str, Any]:
    model: dict[str, Any] = {
        "name": "Mock",
        "tool_call": True,
        "limit": dict(limit or {"context": 200_000, "output": 8_000}),
    }
    return {
        "provider": {
            "mock": {
                "npm": npm,
                "name": "Mock",
                "options": {"baseURL": server.base_url, "apiKey": "test-key"},
                "models": {"mock-model": model},
            }
        },
        "model": MODEL,
    }


def _catalog(config: ConfigInfo, env: Mapping[str, str], client: Any) -> ProviderCatalog:
    # Retries wait a few milliseconds, not seconds: the scenarios are about behaviour, not patience.
    return ProviderCatalog(config.blocks, env, client, retry=RetryPolicy(initial_delay=0.01, max_delay=0.05))


def engine(
    project: Path,
    env: Mapping[str, str],
    server: ScriptedServer,
    *,
    mode: Mode = "non_interactive",
    extra_config: Mapping[str, Any] | None = None,
    limit: Mapping[str, int] | None = None,
    tools: Sequence[Tool] = (),
    npm: str = "@ai-sdk/openai-compatible",
    snapshots: Snapshot | None = None,
) -> AbstractAsyncContextManager[Runtime]:
    """The runtime for `project`, its model served by `server`, its sessions in `project/../strata.db`;
    `tools` are custom tools beside the built-ins, `npm` picks the wire (`@ai-sdk/anthropic`: the Messages API),
    `snapshots` replaces the worktree snapshots the runtime would set up."""
    config = {**provider_config(server, npm=npm, limit=limit), **(extra_config or {})}
    (project / "strata.json").write_text(json.dumps(config))
    bus = Bus()
    approvers: dict[Mode, Approver] = {
        "interactive": BusApprover(bus),
        "non_interactive": Refuser(),
        "auto": approve_all,
    }
    options = RuntimeOptions(
        approver=approvers[mode],
        bus=bus,
        models=_catalog,
        parameters=ProviderParameters(),
        store=project.parent / "strata.db",
        tools=tools,
    )
    if snapshots is not None:
        options["snapshots"] = snapshots
    return open_runtime(project, env, **options)


def questions(runtime: Runtime) -> BusApprover:
    """The interactive scenario's approver: its questions are answered with `reply`."""
    assert isinstance(runtime.approver, BusApprover)
    return runtime.approver


Script: TypeAlias = list[dict[str, Any]]
"""A ScriptedServer's turns as JSON; annotating a script literal with it keeps mypy from widening it to list[object]."""


def scripted(script: Sequence[Mapping[str, Any]]) -> ScriptedServer:
    return ScriptedServer([dict(turn) for turn in script], done_text=None)


def ask(session_id: str, text: str, **changes: Any) -> PromptRequest:
    return PromptRequest(session_id, [TextInput(text)], **changes)


async def stored(runtime: Runtime, session_id: str) -> list[MessageWithParts]:
    """The session as a fresh read of the store returns it."""
    return await runtime.store.messages(session_id)


def tool_parts(messages: Sequence[MessageWithParts]) -> list[ToolPart]:
    return [p for m in messages for p in m.parts if isinstance(p, ToolPart)]


def texts(message: MessageWithParts) -> list[str]:
    return [p.text for p in message.parts if isinstance(p, TextPart)]


def tool_results(body: Mapping[str, Any]) -> list[str]:
    """The tool messages of a chat-completions request body, in order."""
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


def user_texts(body: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    for message in body["messages"]:
        if message["role"] != "user":
            continue
        content = message["content"]
        if isinstance(content, str):
            out.append(content)
        else:
            out += [c["text"] for c in content if c.get("type") == "text"]
    return out


async def eventually(check: Callable[[], Awaitable[bool]], what: str, limit: float = 10.0) -> None:
    """Poll `check` until it holds, for state that changes with no event to wait on (a server's process
    exiting); past `limit` seconds the test fails, naming `what` it waited for."""
    try:
        with anyio.fail_after(limit):
            while not await check():  # noqa: ASYNC110 (there is no event to wait on)
                await anyio.sleep(0.02)
    except TimeoutError:
        raise AssertionError(f"timed out after {limit} s waiting for {what}") from None
