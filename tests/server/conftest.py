"""Fixtures for the server tests: a git project wired to a scripted model, and `strata serve` running on it."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import attrs
import pytest
from cli_harness import isolated_env, mock_provider_config
from server_harness import ASK_BASH, ServeFactory, Server, running_server

from strata_providers.testing import ScriptedServer


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    (work / "notes.txt").write_text("hi\n", encoding="utf-8")
    return work


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return isolated_env(tmp_path)


@pytest.fixture
def serve(project: Path, env: dict[str, str]) -> Iterator[ServeFactory]:
    """`serve(script, args=(), extra_env={}, permission=ASK_BASH)`: a scripted model and a server on it."""
    with ExitStack() as stack:

        def start(
            script: list[dict[str, Any]],
            args: tuple[str, ...] = (),
            extra_env: dict[str, str] | None = None,
            permission: dict[str, str] | None = None,
        ) -> Server:
            model = stack.enter_context(ScriptedServer(script))
            config = {**mock_provider_config(model.base_url), "permission": permission or ASK_BASH}
            (project / "opencode.json").write_text(json.dumps(config), encoding="utf-8")
            server = stack.enter_context(running_server(project, {**env, **(extra_env or {})}, args))
            return attrs.evolve(server, model=model)

        yield start
