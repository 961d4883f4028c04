"""End-to-end harness: the installed `strata` console script as a subprocess, in a temp project and home.

Every run gets an explicit environment (PATH, a temp HOME and XDG dirs, nothing else), so the developer's
own config, keys and sessions never leak in, and each test's sessions land in its own database. A `Cli` made
with `in_process=True` runs the command inside the test process instead (`cli_in_process`), with the same
environment, directory, input and captured output, for tests about what a command prints and leaves behind.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

STRATA = Path(sys.executable).with_name("strata")
RUN_TIMEOUT = 60


@attrs.frozen
class Cli:
    """Runs `strata` in one project with one isolated environment: as a process, or in this process."""

    project: Path
    env: Mapping[str, str]
    in_process: bool = False

    def __call__(
        self, *args: str, stdin: str | None = None, cwd: Path | None = None, extra_env: Mapping[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        env = {**self.env, **(extra_env or {})}
        if self.in_process and threading.current_thread() is threading.main_thread():
            from cli_in_process import run_strata

            return run_strata(STRATA, args, cwd=cwd or self.project, env=env, stdin=stdin or "")
        return subprocess.run(
            [str(STRATA), *args],
            cwd=cwd or self.project,
            env=env,
            input=stdin if stdin is not None else "",
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            check=False,
        )


def isolated_env(root: Path) -> dict[str, str]:
    home = root / "home"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local/state"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "STRATA_LOCAL_SERVERS": "off",  # never probe whatever listens on this machine's Ollama/vLLM/... ports
    }
    home.mkdir(parents=True, exist_ok=True)
    return env


def mock_provider_config(
    base_url: str, *, npm: str = "@ai-sdk/openai-compatible", model: str = "gpt-4o-mock"
) -> dict[str, Any]:
    """An opencode.json pointing a `mock` provider at a scripted server (as the oracle fixtures do)."""
    return {
        "$schema": "https://opencode.ai/config.json",
        "provider": {
            "mock": {
                "npm": npm,
                "name": "Mock",
                "options": {"baseURL": base_url, "apiKey": "x"},
                "models": {model: {"name": model, "tool_call": True}},
            }
        },
        "model": f"mock/{model}",
    }


def write_config(project: Path, config: dict[str, Any]) -> None:
    (project / "opencode.json").write_text(json.dumps(config, indent=2))


def user_text(request_body: dict[str, Any]) -> str:
    """The text of the last user message of a chat-completions request body."""
    content = [m for m in request_body["messages"] if m["role"] == "user"][-1]["content"]
    if isinstance(content, str):
        return content
    return "\n".join(part.get("text", "") for part in content)
