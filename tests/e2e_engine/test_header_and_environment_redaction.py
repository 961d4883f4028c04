"""Headers and environment variables in the config are credentials only when they are one by name or content:
`X-Team: frontend` or `NODE_ENV: production` stay readable in what the model reads (an edit quoting them back
must match the file), while `Authorization`, `X-Api-Key`, `GITHUB_TOKEN` or a URL with a password are hidden
in tool outputs. In what Strata shows of its own config every header and environment value stays hidden."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from engine_harness import Script, ask, engine, provider_config, scripted, tool_results

from strata_core import redaction
from strata_core.config.files import parse_config_text
from strata_core.redaction import REDACTED, redact_data, redact_text

HEADERS = {
    "X-Team": "frontend",
    "X-Api-Base": "https://api.example.com/v1",
    "Authorization": "Bearer sk-header-secret-1",
    "X-Api-Key": "hdr-key-secret-2",
}
ENVIRONMENT = {
    "NODE_ENV": "production",
    "GITHUB_TOKEN": "ghp-env-secret-3",
    "DATABASE_URL": "postgres://app:db-pass-4@db.example/app",
}
SECRETS = (
    "Bearer sk-header-secret-1",
    "sk-header-secret-1",
    "hdr-key-secret-2",
    "ghp-env-secret-3",
    "postgres://app:db-pass-4@db.example/app",
)


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    redaction.forget_all()
    yield
    redaction.forget_all()


def _config() -> dict[str, Any]:
    disabled = {"type": "local", "command": ["true"], "enabled": False, "environment": ENVIRONMENT}
    return {"provider": {"x": {"options": {"headers": HEADERS}}}, "mcp": {"dummy": disabled}}


def test_only_credential_headers_and_variables_are_hidden_from_tool_outputs(tmp_path: Path) -> None:
    parse_config_text(json.dumps(_config()), tmp_path / "opencode.json", env={}, home=tmp_path, base_dir=tmp_path)
    for plain in ("frontend", "https://api.example.com/v1", "production"):
        assert redact_text(f"TEAM = {plain}", credentials_only=True) == f"TEAM = {plain}"
    for secret in SECRETS:
        assert redact_text(f"got {secret}", credentials_only=True) == f"got {REDACTED}"
    shown = redact_data(_config())  # Strata's own view of the config still hides every header and variable
    assert set(shown["provider"]["x"]["options"]["headers"].values()) == {REDACTED}
    assert set(shown["mcp"]["dummy"]["environment"].values()) == {REDACTED}


@pytest.mark.anyio
async def test_the_model_reads_and_quotes_back_a_plain_header_value(project: Path, env: dict[str, str]) -> None:
    app = project / "app.py"
    app.write_text('TEAM = "frontend"\nTOKEN = "ghp-env-secret-3"\nMODE = "production"\n')
    edit = {"filePath": str(app), "oldString": 'TEAM = "frontend"', "newString": 'TEAM = "frontend"\nDEBUG = True'}
    script: Script = [
        {"tool_calls": [{"name": "read", "arguments": {"filePath": str(app)}, "id": "r"}]},
        {"tool_calls": [{"name": "edit", "arguments": edit, "id": "e"}]},
        {"text": "Done."},
    ]
    async with scripted(script) as server:
        config = provider_config(server)  # the model's own provider sends the headers
        config["provider"]["mock"]["options"]["headers"] = HEADERS
        config["mcp"] = _config()["mcp"]
        async with engine(project, env, server, extra_config=config) as runtime:
            session = await runtime.sessions.create()
            await runtime.loop.prompt(ask(session.id, "add a debug flag"))
    (read,) = tool_results(server.main_requests[1].body)
    assert '1: TEAM = "frontend"' in read and '3: MODE = "production"' in read
    assert f'2: TOKEN = "{REDACTED}"' in read
    assert app.read_text() == 'TEAM = "frontend"\nDEBUG = True\nTOKEN = "ghp-env-secret-3"\nMODE = "production"\n'
