"""Pytest fixtures for testing an application built on Strata; opt in from your root `conftest.py`:

    pytest_plugins = ["strata_providers.testing.pytest_plugin"]

Nothing registers it for you (no entry point), so installing strata-providers changes no one's pytest.
Async fixtures follow anyio's pytest plugin: mark the tests `@pytest.mark.anyio`.

- `scripted_server`: starts loopback `ScriptedServer`s, `server = scripted_server(script, **options)`; each is
  stopped after the test, and the test fails if one of its requests went unscripted.
- `model_script` -> `scripted_model` -> `scripted_resolver` -> `strata_runtime`: the script (empty unless
  overridden, e.g. `@pytest.mark.parametrize("model_script", [[{"text": "Hi."}]])` or a fixture of that name),
  the `ScriptedModel` playing it, a `ScriptedResolver` over it, and an in-memory runtime in `strata_project`
  (a fresh directory under `tmp_path`) with that resolver. Override any of them by defining a fixture of the
  same name; `strata_runtime_options` adds keywords for `open_runtime` (e.g. `{"approver": approve_all}`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Protocol

import pytest

from strata_core.runtime import Runtime, open_runtime
from strata_core.testing import Script
from strata_providers.testing.resolver import WireScriptedResolver as ScriptedResolver
from strata_providers.testing.scripted_model import WireScriptedModel as ScriptedModel
from strata_providers.testing.scripted_server import ScriptedServer


class StartServer(Protocol):
    """What the `scripted_server` fixture gives: `ScriptedServer`'s constructor, returning it started."""

    def __call__(self, script: Script = (), **options: Any) -> ScriptedServer: ...


@pytest.fixture
def scripted_server() -> Iterator[StartServer]:
    """Starts a loopback `ScriptedServer` per call; stops them after the test, raising for unscripted requests."""
    with ExitStack() as servers:

        def start(script: Script = (), **options: Any) -> ScriptedServer:
            return servers.enter_context(ScriptedServer(script, **options))

        yield start


@pytest.fixture
def model_script() -> Script:
    """The turns `scripted_model` plays; none unless a test overrides it (parametrize it, or define it)."""
    return ()


@pytest.fixture
def scripted_model(model_script: Script) -> ScriptedModel:
    return ScriptedModel(model_script)


@pytest.fixture
def scripted_resolver(scripted_model: ScriptedModel) -> ScriptedResolver:
    """`scripted_model` for every `provider/model` ref; override it for a mapping or a small model."""
    return ScriptedResolver(scripted_model)


@pytest.fixture
def strata_project(tmp_path: Path) -> Path:
    """The directory the runtime works in: a fresh, empty one (write files and config into it)."""
    project = tmp_path / "project"
    project.mkdir()
    return project


@pytest.fixture
def strata_env(tmp_path: Path) -> Mapping[str, str]:
    """The runtime's environment: a HOME of its own, so no global config of the developer's is read."""
    return {"HOME": str(tmp_path / "home")}


@pytest.fixture
def strata_runtime_options() -> Mapping[str, Any]:
    """Extra keywords for `open_runtime` (e.g. `approver`); none by default."""
    return {}


@pytest.fixture
async def strata_runtime(
    anyio_backend: object,
    strata_project: Path,
    strata_env: Mapping[str, str],
    scripted_resolver: ScriptedResolver,
    strata_runtime_options: Mapping[str, Any],
) -> AsyncIterator[Runtime]:
    """An open runtime on `strata_project` with the scripted resolver and an in-memory session store."""
    # `anyio_backend` is asked for so that anyio's plugin runs this fixture whichever test requests it.
    # The runtime is opened here, not by a factory the test calls: its task group must be left by the task
    # that entered it, and anyio runs a fixture's setup and teardown in one task of their own.
    resolver, options = scripted_resolver, strata_runtime_options
    async with open_runtime(strata_project, strata_env, models=resolver, store="memory", **options) as runtime:
        yield runtime
