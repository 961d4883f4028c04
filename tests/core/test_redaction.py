"""Credentials are hidden by key and by value: in config output, log lines, crash files and tool outputs."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from strata_core import redaction
from strata_core.config.files import parse_config_text
from strata_core.redaction import REDACTED, redact_data, redact_text


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    redaction.forget_all()
    yield
    redaction.forget_all()


def test_values_under_credential_keys_headers_and_environments_are_hidden() -> None:
    config = {
        "provider": {
            "p": {
                "options": {"headers": {"x-api-key": "k1", "Cookie": "c=1", "X-Auth": "a1", "Accept": "x/y"}},
                "accessKey": "AKIA1",
                "credentials": {"user": "u", "pass": "p"},
                "maxTokens": 4096,
            }
        },
        "mcp": {"m": {"environment": {"GITHUB": "ghp_1"}, "command": ["srv"]}},
    }
    hidden = redact_data(config)
    options = hidden["provider"]["p"]
    assert options["options"]["headers"] == dict.fromkeys(("x-api-key", "Cookie", "X-Auth", "Accept"), REDACTED)
    assert options["accessKey"] == REDACTED and options["credentials"] == {"user": REDACTED, "pass": REDACTED}
    assert options["maxTokens"] == 4096
    assert hidden["mcp"]["m"] == {"environment": {"GITHUB": REDACTED}, "command": ["srv"]}


def test_url_userinfo_is_hidden() -> None:
    assert redact_text("GET https://bob:hunter2@example.com/x") == f"GET https://{REDACTED}@example.com/x"
    assert redact_data({"baseURL": "http://u:p@h:1/v1"}) == {"baseURL": f"http://{REDACTED}@h:1/v1"}
    assert redact_text("mail me at bob@example.com") == "mail me at bob@example.com"


def test_values_from_env_and_file_are_hidden_wherever_they_sit(tmp_path: Path) -> None:
    (tmp_path / "token.txt").write_text("file-secret-value\n")
    text = '{"provider": {"p": {"options": {"baseURL": "https://h/{env:HDR_TOKEN}", "name": "{file:token.txt}"}}}}'
    data = parse_config_text(text, tmp_path / "strata.json", env={"HDR_TOKEN": "env-secret-value"}, home=tmp_path,
                             base_dir=tmp_path)  # fmt: skip
    shown = str(redact_data(data))
    assert "env-secret-value" not in shown and "file-secret-value" not in shown
    assert redact_text("failed: token env-secret-value rejected") == f"failed: token {REDACTED} rejected"


def test_literal_keys_in_config_are_remembered_for_logs(tmp_path: Path) -> None:
    parse_config_text('{"provider": {"p": {"options": {"apiKey": "sk-literal-123"}}}}', tmp_path / "x.json",
                      env={}, home=tmp_path, base_dir=tmp_path)  # fmt: skip
    assert redact_text("401 for key sk-literal-123") == f"401 for key {REDACTED}"


def test_log_lines_and_crash_files_are_redacted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from strata_cli import errors
    from strata_cli.log_setup import ShortLineFormatter

    redaction.remember("sk-in-a-log-line")
    record = logging.LogRecord("strata_core.x", logging.WARNING, __file__, 1, "key sk-in-a-log-line failed", (), None)
    assert "sk-in-a-log-line" not in ShortLineFormatter(tracebacks=False).format(record)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path))
    try:
        raise RuntimeError("boom with sk-in-a-log-line and https://u:pw@host/")
    except RuntimeError as error:
        path = errors._crash_file(error)
    assert path is not None
    saved = path.read_text()
    assert "boom with" in saved and "sk-in-a-log-line" not in saved and "u:pw@" not in saved


@pytest.mark.anyio
async def test_tool_outputs_never_carry_a_remembered_credential(tmp_path: Path) -> None:
    from strata_core.tool.builtin.read import ReadTool
    from strata_core.tool.contract import ToolContext, approve_everything
    from strata_core.tool.runner import run_tool

    redaction.remember("sk-configured-key-9")
    (tmp_path / "notes.txt").write_text("key = sk-configured-key-9\nurl = https://u:p@h/\n")
    ctx = ToolContext(session_id="s", message_id="m", call_id="c", agent="build", ruleset=(), directory=tmp_path,
                      worktree=tmp_path, ask=approve_everything)  # fmt: skip
    outcome = await run_tool(ReadTool(), {"filePath": "notes.txt"}, ctx, agent_ruleset=None)
    assert f"key = {REDACTED}" in outcome.result.output and "sk-configured-key-9" not in str(outcome.result.metadata)
    assert "https://u:p@h/" in outcome.result.output  # file content otherwise as it is


@pytest.mark.anyio
async def test_an_ordinary_substituted_value_stays_readable_in_tool_outputs(tmp_path: Path) -> None:
    from strata_core.tool.builtin.read import ReadTool
    from strata_core.tool.contract import ToolContext, approve_everything
    from strata_core.tool.runner import run_tool

    text = '{"instructions": ["{env:RULES_DIR}/a.md"], "provider": {"p": {"options": {"apiKey": "{env:P_KEY}"}}}}'
    env = {"RULES_DIR": str(tmp_path), "P_KEY": "sk-from-env-77"}
    parse_config_text(text, tmp_path / "s.json", env=env, home=tmp_path, base_dir=tmp_path)
    (tmp_path / "notes.txt").write_text("sk-from-env-77\n")
    ctx = ToolContext(session_id="s", message_id="m", call_id="c", agent="build", ruleset=(), directory=tmp_path,
                      worktree=tmp_path, ask=approve_everything)  # fmt: skip
    output = (await run_tool(ReadTool(), {"filePath": "notes.txt"}, ctx, agent_ruleset=None)).result.output
    assert f"<path>{tmp_path}/notes.txt</path>" in output and f"1: {REDACTED}" in output
    assert redact_text(f"loaded {tmp_path}/a.md") == f"loaded {REDACTED}/a.md"  # still hidden in logs


def test_every_configured_secret_is_hidden_and_remembered(tmp_path: Path) -> None:
    text = json.dumps(
        {
            "provider": {"x": {"options": {"key": "sk-secret-key-1", "baseURL": "https://h/v1", "timeout": 5}}},
            "mcp": {
                "remote": {
                    "type": "remote",
                    "url": "https://m/mcp",
                    "headers": {"X-Api-Key": "hdr-secret-2"},
                    "oauth": {"clientId": "client-id-3", "clientSecret": "oauth-secret-4", "scope": "read"},
                },
                "local": {"type": "local", "command": ["srv"], "environment": {"GH_TOKEN": "env-secret-5"}},
            },
        }
    )
    data = parse_config_text(text, tmp_path / "x.json", env={}, home=tmp_path, base_dir=tmp_path)
    hidden = redact_data(data)
    assert hidden["provider"]["x"]["options"] == {"key": REDACTED, "baseURL": "https://h/v1", "timeout": 5}
    assert hidden["mcp"]["remote"]["oauth"] == dict.fromkeys(("clientId", "clientSecret", "scope"), REDACTED)
    shown = json.dumps(hidden)
    for secret in ("sk-secret-key-1", "hdr-secret-2", "client-id-3", "oauth-secret-4", "env-secret-5"):
        assert secret not in shown
        assert secret not in redact_text(f"request failed with {secret}", credentials_only=True)


def test_permission_patterns_that_look_like_credential_names_are_not_secrets(tmp_path: Path) -> None:
    rules = {"read": {"*.key": "deny", "*secret*": "ask"}, "edit": "deny"}
    text = json.dumps({"permission": rules, "agent": {"b": {"permission": {"bash": {"cat *token*": "deny"}}}}})
    data = parse_config_text(text, tmp_path / "x.json", env={}, home=tmp_path, base_dir=tmp_path)
    assert redact_data(data) == data
